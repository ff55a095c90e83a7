#!/usr/bin/env bash
# Collectives across emulated hosts (tools/bench/emulated_cluster.sh: network namespaces
# with IPC and UTS namespaces of their own, links shaped by tc), weft against Open MPI
# and Gloo side by side: every round runs, for each collective (all_reduce, broadcast
# and all_gather by default), weft-bench (weftrun -H through the cluster's launch
# agent) and Open MPI's mpirun with mpi_bench (tools/bench/mpi/mpi_bench.c; its daemons
# started through the same agent, its TCP BTL on the hosts' eth0), and for all_reduce
# Gloo's gloo_allreduce, on the same hosts and sizes; cluster_table.py prints the
# medians of the per-round times and ratios. Ranks fill the hosts in order (ranks 0..K-1 on the
# first). --flat ALGORITHM also runs weft with WEFT_ALGO=all_reduce:ALGORITHM in every
# round (a flat algorithm such as ring, beside the hierarchical choice); --flat
# COLLECTIVE:ALGORITHM,... does so for each collective named. Collectives: all_reduce,
# broadcast, all_gather, reduce_scatter. Needs root, iproute2, tc, and Open MPI and Gloo
# from Debian (installed when missing).
#
# usage: tools/bench/compare_cluster.sh [--hosts H] [--ranks-per-host K] [--rate RATE]
#            [--delay DELAY] [--rounds N] [-b BYTES] [-e BYTES] [-f FACTOR] [-n ITERS]
#            [-w ITERS] [--collectives LIST] [--gloo ALGORITHM]
#            [--flat ALGORITHM|COLLECTIVE:ALGORITHM,...]
#            [--keep DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."

hosts=2
per_host=2
rate=1gbit
delay=50us
rounds=3
min_bytes=8
max_bytes=64M
factor=8
iters=10
warmup=3
gloo_algorithm=ring_chunked
flat=""
collectives=all_reduce,broadcast,all_gather
keep=""
usage() {
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --hosts) hosts=$2; shift 2 ;;
    --ranks-per-host) per_host=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    -b) min_bytes=$2; shift 2 ;;
    -e) max_bytes=$2; shift 2 ;;
    -f) factor=$2; shift 2 ;;
    -n) iters=$2; shift 2 ;;
    -w) warmup=$2; shift 2 ;;
    --gloo) gloo_algorithm=$2; shift 2 ;;
    --flat) flat=$2; shift 2 ;;
    --collectives) collectives=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "compare_cluster: unknown option $1" >&2; usage ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "compare_cluster: needs root (network namespaces)" >&2; exit 1; }
# The flat algorithm forced on each collective (--flat), by collective.
declare -A flat_for=()
if [[ "$flat" == *:* ]]; then
  IFS=, read -r -a flat_items <<<"$flat"
  for item in "${flat_items[@]}"; do flat_for[${item%%:*}]=${item#*:}; done
elif [ -n "$flat" ]; then
  flat_for[all_reduce]=$flat
fi

tools/install_packages.sh compare_cluster openmpi-bin libopenmpi-dev libgloo-dev iproute2
if [ -n "$keep" ]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/compare_cluster.XXXXXX")
fi
cluster=wcl$$
agent="$PWD/tools/bench/emulated_cluster.sh agent"
cleanup() {
  tools/bench/emulated_cluster.sh down "$cluster"
  [ -n "$keep" ] || rm -rf "$work"
}
trap cleanup EXIT

echo "compare_cluster: building weft (-c opt), gloo_allreduce and mpi_bench" >&2
tools/install.sh "$work/weft" -c opt --symlink_prefix=/ >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; exit 1; }
bazel build -c opt --symlink_prefix=/ //tools/bench/gloo:gloo_allreduce >"$work/gloo.build.log" 2>&1 ||
  { cat "$work/gloo.build.log" >&2; exit 1; }
gloo="$(bazel info -c opt bazel-bin 2>/dev/null)/tools/bench/gloo/gloo_allreduce"
mpicc.openmpi -std=c11 -O2 -o "$work/mpi_bench" tools/bench/mpi/mpi_bench.c

tools/bench/emulated_cluster.sh up "$cluster" "$hosts" "$rate" "$delay" 2>"$work/cluster.note" ||
  { cat "$work/cluster.note" >&2; exit 1; }
cat "$work/cluster.note" >&2
host_list=""
for ((h = 0; h < hosts; h++)); do host_list+="${host_list:+,}$cluster-$h:$per_host"; done
ranks=$((hosts * per_host))
master=10.88.0.1
sizes=(-b "$min_bytes" -e "$max_bytes" -f "$factor" -n "$iters" -w "$warmup")

weftrun=("$work/weft/bin/weftrun" -H "$host_list" --launch-agent "$agent" --master-addr "$master"
  --timeout 3600)
IFS=, read -r -a collective_list <<<"$collectives"
port=29700
for round in $(seq 1 "$rounds"); do
  dir="$work/round$round"
  mkdir -p "$dir"
  for collective in "${collective_list[@]}"; do
    echo "compare_cluster: round $round of $rounds: $collective: weft" >&2
    "${weftrun[@]}" --master-port $((port++)) "$work/weft/bin/weft-bench" "$collective" \
      "${sizes[@]}" --json "$dir/weft.$collective.json" >"$dir/weft.$collective.log" 2>&1 ||
      { cat "$dir/weft.$collective.log" >&2; exit 1; }
    if [ -n "${flat_for[$collective]:-}" ]; then
      forced="$collective:${flat_for[$collective]}"
      echo "compare_cluster: round $round of $rounds: $collective: weft, $forced" >&2
      "${weftrun[@]}" --master-port $((port++)) -x "WEFT_ALGO=$forced" \
        "$work/weft/bin/weft-bench" "$collective" "${sizes[@]}" \
        --json "$dir/weft_flat.$collective.json" >"$dir/weft_flat.$collective.log" 2>&1 ||
        { cat "$dir/weft_flat.$collective.log" >&2; exit 1; }
    fi
    echo "compare_cluster: round $round of $rounds: $collective: Open MPI" >&2
    tools/bench/emulated_cluster.sh run "$cluster" 0 mpirun.openmpi --allow-run-as-root \
      --oversubscribe --bind-to none --host "$host_list" -n "$ranks" \
      --mca plm_rsh_agent "$agent" --mca pml ob1 --mca btl self,vader,tcp \
      --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
      "$work/mpi_bench" "$collective" "${sizes[@]}" --json "$dir/openmpi.$collective.json" \
      >"$dir/openmpi.$collective.log" 2>&1 || { cat "$dir/openmpi.$collective.log" >&2; exit 1; }
    [ "$collective" = all_reduce ] || continue
    echo "compare_cluster: round $round of $rounds: $collective: Gloo ($gloo_algorithm)" >&2
    # Each rank's Gloo device on its host's address.
    "${weftrun[@]}" --master-port $((port++)) sh -c \
      'exec "$0" --host "$(hostname -I | cut -d" " -f1)" "$@"' "$gloo" \
      --store "$dir/gloo.store" -a "$gloo_algorithm" "${sizes[@]}" \
      --json "$dir/gloo.$collective.json" >"$dir/gloo.$collective.log" 2>&1 ||
      { cat "$dir/gloo.$collective.log" >&2; exit 1; }
  done
done

for collective in "${collective_list[@]}"; do
  op=""
  [ "$collective" = all_reduce ] && op=" sum"
  echo "# $collective float32$op, $hosts emulated hosts x $per_host ranks, $rounds rounds"
  sed 's/^emulated_cluster: /# /' "$work/cluster.note"
  python3 tools/bench/cluster_table.py "$collective" "$work"/round*
done
