#!/usr/bin/env bash
# OSU's one-sided benchmarks, weft against Debian's Open MPI, side by side in one run on
# this machine (docs/BENCHMARKS.md): builds an unpacked OSU release twice with its own
# `./configure CC=mpicc CXX=mpicxx && make` (weft's wrappers, then Open MPI's), then runs
# each benchmark at 2 ranks, alternating the two MPIs for ROUNDS rounds, and prints the
# median of each size row with the ratio weft / Open MPI (below 1 is faster for
# latencies; above 1 is better for bandwidths).
#
#   tools/bench/compare_osu_rma.sh OSU_SOURCE_DIR [ROUNDS] [WINDOW]
#
# WINDOW is OSU's -w: allocate (default), create or dynamic. Open MPI runs with its sm
# one-sided component for allocated windows and pt2pt for the others (its default
# components create no window on this machine: MPI_ERR_WIN).
set -euo pipefail
weft=$(cd "$(dirname "$0")/../.." && pwd)
osu=$(realpath "${1:?usage: compare_osu_rma.sh OSU_SOURCE_DIR [ROUNDS] [WINDOW]}")
rounds=${2:-5}
window=${3:-allocate}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$weft/tools/install.sh" "$work/weft" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; exit 1; }
build() {  # build NAME PATH_PREFIX: a copy of the sources built with that mpicc
  cp -a "$osu" "$work/$1"  # -a: timestamps kept, or make reruns autotools
  (cd "$work/$1" && PATH=$2:$PATH && ./configure CC=mpicc CXX=mpicxx && make -j"$(nproc)") \
    >"$work/$1.log" 2>&1 || { echo "compare_osu_rma: the $1 build failed:"; tail "$work/$1.log"; exit 1; }
}
mkdir -p "$work/ompi-bin"
ln -s "$(command -v mpicc.openmpi)" "$work/ompi-bin/mpicc"
ln -s "$(command -v mpicxx.openmpi)" "$work/ompi-bin/mpicxx"
build weft-osu "$work/weft/bin"
build ompi-osu "$work/ompi-bin"

osc=pt2pt
[ "$window" = allocate ] && osc=sm,pt2pt
benchmarks=(osu_put_latency osu_get_latency osu_put_bw osu_get_bw osu_acc_latency
            osu_fop_latency osu_cas_latency)
for round in $(seq "$rounds"); do
  for b in "${benchmarks[@]}"; do
    "$work/weft/bin/mpirun" -n 2 --timeout 280 "$work/weft-osu/c/mpi/one-sided/$b" \
      -w "$window" -m 1:1048576 >"$work/weft.$b.$round" 2>&1
    env OMPI_MCA_osc=$osc OMPI_MCA_btl=self,vader mpirun.openmpi --allow-run-as-root \
      -n 2 "$work/ompi-osu/c/mpi/one-sided/$b" -w "$window" -m 1:1048576 \
      >"$work/ompi.$b.$round" 2>&1
  done
done

python3 - "$work" "$rounds" "${benchmarks[@]}" <<'EOF'
import statistics, sys
work, rounds, benches = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def rows(path):
    out = {}
    for line in open(path):
        parts = line.split()
        if len(parts) >= 2 and parts[0].isdigit():
            out[int(parts[0])] = float(parts[1])
    return out
status = 0
print(f"{'benchmark':18} {'bytes':>8} {'weft':>10} {'Open MPI':>10} {'weft/OMPI':>10}")
for b in benches:
    runs = {m: [rows(f"{work}/{m}.{b}.{r}") for r in range(1, rounds + 1)] for m in ("weft", "ompi")}
    failed = [(m, i) for m, rs in runs.items() for i, r in enumerate(rs, 1) if not r]
    if failed:
        m, i = failed[0]
        print(f"{b}: {m}'s run {i} printed no results:\n" + open(f"{work}/{m}.{b}.{i}").read()[-2000:])
        status = 1
        continue
    sizes = sorted(set.intersection(*(set(r) for m in runs.values() for r in m)))
    for size in sizes:
        w = statistics.median(r[size] for r in runs["weft"])
        o = statistics.median(r[size] for r in runs["ompi"])
        print(f"{b:18} {size:>8} {w:>10.2f} {o:>10.2f} {w / o if o else float('nan'):>10.2f}")
sys.exit(status)
EOF
