#!/usr/bin/env bash
# weft against Open MPI and MPICH on this machine (docs/BENCHMARKS.md): installs the two
# MPIs when they are missing, builds tools/bench/mpi/mpi_bench.c with each, builds
# weft-bench and weftrun, then runs pingpong and all_reduce (float32 sum) at 2 ranks for
# several rounds, Open MPI, MPICH and weft one after the other, with the same sizes and
# iteration counts, and prints the medians side by side with the ratios weft / MPI.
# --quick takes fewer iterations and sizes up to 16M, for a smoke run; --keep DIR keeps
# every run's JSON and log there; --weft-transports sets WEFT_TRANSPORTS for weft's runs.
#
# usage: tools/bench/compare_mpi.sh [--rounds N] [--quick] [--json FILE] [--keep DIR]
#            [--weft-transports LIST]
set -euo pipefail
caller=$(pwd)
cd "$(dirname "$0")/../.."

rounds=3
quick=0
json=""
keep=""
weft_transports=""

usage() {
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    --json) json="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --weft-transports) weft_transports="$2"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "compare_mpi: unknown option $1" >&2; usage ;;
  esac
done
# FILE and DIR are relative to where the script was started.
if [ -n "$json" ] && [[ "$json" != /* ]]; then
  json="$caller/$json"
fi
if [ -n "$keep" ] && [[ "$keep" != /* ]]; then
  keep="$caller/$keep"
fi
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "compare_mpi: --rounds $rounds: expected a positive count" >&2
  exit 2
fi

# Same sizes and counts for all three. pingpong picks its iterations per size, as
# weft-bench does; all_reduce runs 200 calls per size, since a sub-microsecond call
# timed 20 times is mostly scheduling noise on a 2-core machine.
if [ "$quick" -eq 1 ]; then
  pingpong_args=(--min-bytes 1 --max-bytes 16M --iters 60 --window 64)
  all_reduce_args=(-b 8 -e 16M -f 2 -n 5 -w 2)
else
  pingpong_args=(--min-bytes 1 --max-bytes 64M --window 64)
  all_reduce_args=(-b 8 -e 16M -f 2 -n 200 -w 20)
fi

# The MPIs are for this comparison only, so tools/install_deps.sh does not list them.
tools/install_packages.sh compare_mpi openmpi-bin libopenmpi-dev mpich libmpich-dev

if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/compare_mpi.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi

for mpi in openmpi mpich; do
  echo "compare_mpi: building mpi_bench with mpicc.$mpi" >&2
  "mpicc.$mpi" -std=c11 -O2 -Wall -o "$work/mpi_bench.$mpi" tools/bench/mpi/mpi_bench.c
done

# An optimized build, in its own output tree; --symlink_prefix=/ leaves the bazel-bin
# link of the default build where it is.
echo "compare_mpi: building weft-bench and weftrun (bazel build -c opt)" >&2
bazel_options=(-c opt --symlink_prefix=/)
bazel build "${bazel_options[@]}" //tools/bench:weft-bench //tools/weftrun:weftrun
bin=$(bazel info "${bazel_options[@]}" bazel-bin 2>/dev/null)

# Open MPI refuses root unless told; shared memory (vader) and self only, through the
# ob1 layer that uses them (so that a UCX device elsewhere cannot take over); ranks not
# bound to cores, as neither MPICH's nor weft's are.
openmpi_env=(OMPI_MCA_pml=ob1 "OMPI_MCA_btl=self,vader")
openmpi_run=(mpirun.openmpi --oversubscribe -n 2 --bind-to none)
if [ "$(id -u)" -eq 0 ]; then
  openmpi_run+=(--allow-run-as-root)
fi
mpich_run=(mpiexec.mpich -n 2)
weft_run=("$bin/tools/weftrun/weftrun" -n 2 --timeout 1800)
if [ -n "$weft_transports" ]; then
  weft_run+=(-x "WEFT_TRANSPORTS=$weft_transports")
fi

# run ROUND LIBRARY BENCHMARK: one run, its JSON in round ROUND's directory.
run() {
  local round=$1 library=$2 benchmark=$3
  local out="$work/round$round/$library.$benchmark"
  local title args command
  case "$library" in
    openmpi) title="Open MPI" ;;
    mpich) title="MPICH" ;;
    weft) title="weft" ;;
  esac
  if [ "$benchmark" = pingpong ]; then
    args=("${pingpong_args[@]}")
  else
    args=("${all_reduce_args[@]}")
  fi
  case "$library" in
    openmpi)
      command=(env "${openmpi_env[@]}" timeout 1800 "${openmpi_run[@]}"
        "$work/mpi_bench.openmpi" "$benchmark" "${args[@]}") ;;
    mpich)
      command=(timeout 1800 "${mpich_run[@]}" "$work/mpi_bench.mpich" "$benchmark" "${args[@]}") ;;
    weft)
      # The pingpong runs log at INFO, which reports at init the transport each rank
      # chose for its peer (the table's header quotes it) and nothing per message. The
      # all_reduce runs log at the default level, so that no logging is timed (INFO
      # names the algorithm of the first call of each kind).
      local debug=${WEFT_DEBUG:-WARN}
      if [ "$benchmark" = pingpong ]; then
        debug=${WEFT_DEBUG:-INFO}
      else
        args+=(-d float -o sum)
      fi
      command=("${weft_run[@]}" -x "WEFT_DEBUG=$debug" "$bin/tools/bench/weft-bench"
        "$benchmark" "${args[@]}") ;;
  esac
  echo "compare_mpi: round $round/$rounds: $title $benchmark ${args[*]}" >&2
  if ! "${command[@]}" --json "$out.json" >"$out.log" 2>&1; then
    cat "$out.log" >&2
    echo "compare_mpi: $title $benchmark failed: ${command[*]}" >&2
    exit 1
  fi
  if [ "$library" = weft ] && [ -z "$weft_link" ]; then
    weft_link=$(grep -m1 -o 'rank 0 -> rank 1 .*' "$out.log" || true)
    if [ -n "$weft_link" ]; then
      echo "compare_mpi: weft: $weft_link" >&2
    fi
  fi
}
weft_link=""

round_dirs=()
for round in $(seq 1 "$rounds"); do
  mkdir -p "$work/round$round"
  round_dirs+=("$work/round$round")
  for benchmark in pingpong all_reduce; do
    for library in openmpi mpich weft; do
      run "$round" "$library" "$benchmark"
    done
  done
done

merge=(tools/bench/mpi/compare_table.py --weft-transports "${weft_transports:-default}"
  --weft-link "$weft_link")
if [ -n "$json" ]; then
  merge+=(--json "$json")
fi
python3 "${merge[@]}" "${round_dirs[@]}"
