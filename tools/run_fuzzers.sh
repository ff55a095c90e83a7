#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with --config=fuzz (clang, ASan, UBSan) and
# runs each over a copy of its seed corpus (tests/fuzz/corpus/<target>/):
#   tools/run_fuzzers.sh [SECONDS_PER_TARGET]           default 5 seconds each
#   tools/run_fuzzers.sh --runs N [--max-seconds S]     N executions each (at most S s)
#   tools/run_fuzzers.sh ... --only TARGET              one target
# Prints libFuzzer's final line per target ("#N DONE cov: ... ft: ... exec/s: ..."), and
# exits 1 when any target crashed, leaked, hit undefined behaviour or broke a property;
# the input that did it is kept under $FUZZ_OUT (default /tmp/weft-fuzz), and reproduced
# with `bazel-bin/tests/fuzz/TARGET INPUT` after a build with --config=fuzz.
set -uo pipefail
cd "$(dirname "$0")/.."

seconds=5
runs=""
max_seconds=""
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --max-seconds) max_seconds=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    [0-9]*) seconds=$1; shift ;;
    *) echo "usage: $0 [SECONDS_PER_TARGET | --runs N [--max-seconds S]] [--only TARGET]" >&2
       exit 2 ;;
  esac
done

# Every target named *_fuzzer (they are tagged manual, which //tests/fuzz:all skips).
mapfile -t targets < <(bazel query 'attr(name, "_fuzzer$", kind(cc_binary, //tests/fuzz:*))' 2>/dev/null)
if [ -n "$only" ]; then targets=("//tests/fuzz:$only"); fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "no fuzz targets found under //tests/fuzz" >&2
  exit 1
fi
bazel build --config=fuzz "${targets[@]}" || exit 1
bin=$(bazel info --config=fuzz bazel-bin 2>/dev/null)

out=${FUZZ_OUT:-/tmp/weft-fuzz}
mkdir -p "$out"
failed=0
for target in "${targets[@]}"; do
  name=${target##*:}
  # libFuzzer adds what it finds to the corpus it is given: a scratch copy keeps the
  # repository's seeds as they are.
  work=$(mktemp -d)
  cp tests/fuzz/corpus/"$name"/* "$work"/ 2>/dev/null
  limit=(-max_total_time="$seconds")
  if [ -n "$runs" ]; then
    limit=(-runs="$runs")
    [ -n "$max_seconds" ] && limit+=(-max_total_time="$max_seconds")
  fi
  log="$out/$name.log"
  "$bin/tests/fuzz/$name" "${limit[@]}" -artifact_prefix="$out/$name-" -print_final_stats=1 \
    "$work" >"$log" 2>&1
  status=$?
  rm -rf "$work"
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
  if [ "$status" -ne 0 ]; then
    echo "FAIL $name (exit $status):"
    grep -E 'ERROR|SUMMARY|property violated|artifact_prefix|Test unit written' "$log" | head -20
    failed=1
  else
    echo "ok   $name: ${done_line:-$(tail -1 "$log")}"
  fi
done
exit "$failed"
