#!/usr/bin/env bash
# Builds the MPI test programs in mpi/tests/programs/ and runs each with each
# rank count.
#
# Usage:
#   run_programs.sh --cc CC --run 'LAUNCHER -n' [--ranks "1 2 3 4"] [--out DIR]
#                   [--only "hello ring ..."]
#
#   --cc CC       the MPI C compiler wrapper; each program is built with
#                 `CC -O2 -o DIR/name name.c` (CC may hold several words)
#   --run CMD     the launcher up to and including its rank-count option; a
#                 run is `timeout 60 CMD N DIR/name` (killed 10 s after that
#                 if it ignores SIGTERM)
#   --ranks LIST  rank counts to run with (default "1 2 3 4")
#   --out DIR     where binaries and logs go (default: a new temporary folder)
#   --only LIST   run only these programs (default: every programs/*.c)
#   --timeout S   seconds allowed per run (default 60)
#
# A run passes when it exits 0 and its stdout holds exactly one line
# "name: OK (N ranks)". Prints "PASS name N" or "FAIL name N (reason)" per
# run, then "P passed, F failed"; exits 1 if anything failed, 2 on bad usage.
#
# Example (Debian's Open MPI, as root):
#   mpi/tests/run_programs.sh --cc mpicc.openmpi \
#       --run 'mpirun.openmpi --allow-run-as-root --oversubscribe -n'
set -u

usage() {
    sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
    exit 2
}

cc=""
run=""
ranks="1 2 3 4"
out=""
only=""
timeout_s=60

while [ $# -gt 0 ]; do
    case "$1" in
        --cc) [ $# -ge 2 ] || usage; cc="$2"; shift 2 ;;
        --run) [ $# -ge 2 ] || usage; run="$2"; shift 2 ;;
        --ranks) [ $# -ge 2 ] || usage; ranks="$2"; shift 2 ;;
        --out) [ $# -ge 2 ] || usage; out="$2"; shift 2 ;;
        --only) [ $# -ge 2 ] || usage; only="$2"; shift 2 ;;
        --timeout) [ $# -ge 2 ] || usage; timeout_s="$2"; shift 2 ;;
        -h|--help) usage ;;
        *) echo "run_programs.sh: unknown argument: $1" >&2; usage ;;
    esac
done
[ -n "$cc" ] && [ -n "$run" ] || usage
case "$timeout_s" in
    ''|*[!0-9]*) echo "run_programs.sh: bad timeout: $timeout_s" >&2; exit 2 ;;
esac
for n in $ranks; do
    case "$n" in
        ''|*[!0-9]*) echo "run_programs.sh: bad rank count: $n" >&2; exit 2 ;;
    esac
done

src_dir="$(cd "$(dirname "$0")/programs" && pwd)" || exit 2
if [ -z "$out" ]; then
    out="$(mktemp -d "${TMPDIR:-/tmp}/mpi-programs.XXXXXX")" || exit 2
fi
mkdir -p "$out" || exit 2
out="$(cd "$out" && pwd)"

# The programs in a sensible order (simplest first), then any others.
order="hello ring probe collectives maxloc comm_split errhandler nonblocking thread_init"
if [ -n "$only" ]; then
    names="$only"
else
    names=""
    for name in $order; do
        [ -f "$src_dir/$name.c" ] && names="$names $name"
    done
    for f in "$src_dir"/*.c; do
        name="$(basename "$f" .c)"
        case " $order " in
            *" $name "*) ;;
            *) names="$names $name" ;;
        esac
    done
fi

passed=0
failed=0

for name in $names; do
    src="$src_dir/$name.c"
    bin="$out/$name"
    build_log="$out/$name.build.log"
    build_ok=1
    if [ ! -f "$src" ]; then
        build_ok=0
        reason="no such program: $src"
    else
        rm -f "$bin"
        # shellcheck disable=SC2086  # CC may be several words
        if ! (cd "$src_dir" && $cc -O2 -o "$bin" "$name.c") >"$build_log" 2>&1; then
            build_ok=0
            reason="build failed; see $build_log"
        fi
    fi
    for n in $ranks; do
        if [ "$build_ok" -ne 1 ]; then
            echo "FAIL $name $n ($reason)"
            failed=$((failed + 1))
            continue
        fi
        log="$out/$name.$n"
        # shellcheck disable=SC2086  # RUN is the launcher and its options
        timeout --kill-after=10 "$timeout_s" $run "$n" "$bin" >"$log.out" 2>"$log.err" </dev/null
        rc=$?
        expected="$name: OK ($n ranks)"
        ok_lines=$(grep -cxF -- "$expected" "$log.out")
        if [ "$rc" -eq 124 ]; then
            reason="timed out after ${timeout_s} s"
        elif [ "$rc" -ne 0 ]; then
            reason="exit status $rc"
        elif [ "$ok_lines" -eq 0 ]; then
            reason="no line '$expected'"
        elif [ "$ok_lines" -ne 1 ]; then
            reason="$ok_lines lines '$expected', expected one"
        else
            echo "PASS $name $n"
            passed=$((passed + 1))
            continue
        fi
        first_err=$(grep -m1 -E "^$name: rank " "$log.err" | cut -c1-200)
        [ -n "$first_err" ] && reason="$reason: $first_err"
        echo "FAIL $name $n ($reason; logs $log.out, $log.err)"
        failed=$((failed + 1))
    done
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
