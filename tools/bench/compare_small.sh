#!/usr/bin/env bash
# Small messages (1 B to 4 KiB), weft against Open MPI on this machine, side by side in
# every round (docs/BENCHMARKS.md, "Small messages"): 2 ranks, shared memory.
#
#   through the MPI interface  tools/bench/mpi/mpi_bench.c built with Open MPI's mpicc and
#                              with weft's: ping-pong latency, streaming bandwidth (a
#                              window of 64 sends), all_reduce 8 B to 4 KiB
#   the OSU benchmarks         osu_latency, osu_bw and osu_mbw_mr of an OSU 7.x source
#                              tree (--osu DIR), compiled from its sources with each mpicc
#   weft's own API             weft-bench pingpong and all_reduce (no Open MPI column), and
#                              weft-bench pingpong over TCP beside a raw socket
#
# Each --weft NAME=PREFIX is a weft installed by tools/install.sh (several compare
# builds with each other); without one, this tree is built with -c opt and installed
# into the work directory as "weft". Every round runs Open MPI and then each weft, so
# the ratios pair runs that saw the same machine; small_table.py prints the medians.
#
# usage: tools/bench/compare_small.sh [--rounds N] [--osu DIR] [--keep DIR]
#            [--weft NAME=PREFIX]...
set -euo pipefail
cd "$(dirname "$0")/../.."

rounds=3
osu=""
keep=""
wefts=()
usage() {
  sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --osu) osu=$(cd "$2" && pwd); shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    --weft) wefts+=("$2"); shift 2 ;;
    -h|--help) usage ;;
    *) echo "compare_small: unknown option $1" >&2; usage ;;
  esac
done

tools/install_packages.sh compare_small openmpi-bin libopenmpi-dev
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/compare_small.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
if [ ${#wefts[@]} -eq 0 ]; then
  echo "compare_small: installing this tree (-c opt) into $work/weft-prefix" >&2
  tools/install.sh "$work/weft-prefix" -c opt --symlink_prefix=/ >/dev/null
  wefts=("weft=$work/weft-prefix")
fi

# build NAME MPICC: mpi_bench and, with --osu, the three OSU programs into $work/NAME.
build() {
  local name=$1 cc=$2 dir="$work/$1"
  mkdir -p "$dir"
  "$cc" -std=c11 -O2 -Wall -o "$dir/mpi_bench" tools/bench/mpi/mpi_bench.c
  if [ -n "$osu" ]; then
    local util=("$osu"/c/util/osu_util.c "$osu"/c/util/osu_util_mpi.c
      "$osu"/c/util/osu_util_graph.c "$osu"/c/util/osu_util_papi.c
      "$osu"/c/util/osu_util_validation.c)
    for b in osu_latency osu_bw osu_mbw_mr; do
      "$cc" -O2 -I"$osu/c/util" -I"$osu" "${util[@]}" "$osu/c/mpi/pt2pt/standard/$b.c" -lm \
        -o "$dir/$b"
    done
  fi
  echo "compare_small: built $name's programs with $cc" >&2
}

build openmpi mpicc.openmpi
names=()
for spec in "${wefts[@]}"; do
  name=${spec%%=*}
  prefix=$(cd "${spec#*=}" && pwd)
  names+=("$name")
  eval "prefix_$name=\$prefix"
  build "$name" "$prefix/bin/mpicc"
done

openmpi_run=(env OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader mpirun.openmpi --oversubscribe -n 2
  --bind-to none)
[ "$(id -u)" -eq 0 ] && openmpi_run+=(--allow-run-as-root)

# measure ROUND LIBRARY LAUNCH...: every program of LIBRARY under LAUNCH.
measure() {
  local round=$1 library=$2
  shift 2
  local out="$work/round$round/$library" dir="$work/$library"
  echo "compare_small: round $round/$rounds: $library" >&2
  "$@" "$dir/mpi_bench" pingpong --min-bytes 1 --max-bytes 4096 --window 64 \
    --json "$out.mpi_pingpong.json" >"$out.mpi_pingpong.log" 2>&1
  "$@" "$dir/mpi_bench" all_reduce -b 8 -e 4096 -f 8 -n 2000 -w 100 \
    --json "$out.mpi_all_reduce.json" >"$out.mpi_all_reduce.log" 2>&1
  if [ -n "$osu" ]; then
    "$@" "$dir/osu_latency" -m 1:4096 -i 20000 -x 2000 >"$out.osu_latency.txt" 2>&1
    "$@" "$dir/osu_bw" -m 1:4096 -i 2000 -x 200 >"$out.osu_bw.txt" 2>&1
    "$@" "$dir/osu_mbw_mr" -m 1:4096 -i 2000 -x 200 >"$out.osu_mbw_mr.txt" 2>&1
  fi
}

for round in $(seq 1 "$rounds"); do
  mkdir -p "$work/round$round"
  measure "$round" openmpi timeout 600 "${openmpi_run[@]}"
  for name in "${names[@]}"; do
    eval "prefix=\$prefix_$name"
    measure "$round" "$name" timeout 600 "$prefix/bin/mpirun" -n 2
    run=(timeout 600 "$prefix/bin/weftrun" -n 2)
    out="$work/round$round/$name"
    "${run[@]}" "$prefix/bin/weft-bench" pingpong --min-bytes 1 --max-bytes 4096 --window 64 \
      --json "$out.api_pingpong.json" >"$out.api_pingpong.log" 2>&1
    "${run[@]}" -x WEFT_TRANSPORTS=tcp "$prefix/bin/weft-bench" pingpong --min-bytes 1 \
      --max-bytes 4096 --window 64 --json "$out.tcp_pingpong.json" >"$out.tcp_pingpong.log" 2>&1
    "${run[@]}" "$prefix/bin/weft-bench" all_reduce -b 8 -e 4K -f 8 -n 2000 -w 100 \
      --json "$out.api_all_reduce.json" >"$out.api_all_reduce.log" 2>&1
  done
done

python3 tools/bench/small_table.py --libraries openmpi "${names[@]}" -- "$work"/round*
