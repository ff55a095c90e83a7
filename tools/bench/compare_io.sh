#!/usr/bin/env bash
# A collective write against plain POSIX, side by side in one run on this machine
# (docs/BENCHMARKS.md): tools/bench/mpi/collective_write.c built with weft's mpicc and
# with Debian's Open MPI's, then, for ROUNDS rounds, one process writing MIB MiB with
# pwrite, weft's MPI_File_write_at_all of the same bytes by RANKS ranks (blocks of
# BLOCK bytes interleaved between the ranks), and Open MPI's. Every write ends with an
# fsync. Prints the median bandwidth of each and the ratios to POSIX.
#
#   tools/bench/compare_io.sh [--rounds N] [--ranks N] [--mib N] [--block BYTES] [--dir DIR]
#
# DIR is where the file is written (default: a new directory under /var/tmp, on disk
# rather than tmpfs), removed afterwards.
set -euo pipefail
weft=$(cd "$(dirname "$0")/../.." && pwd)
rounds=5 ranks=4 mib=1024 block=65536 dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --mib) mib=$2; shift 2 ;;
    --block) block=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
made_dir=""
if [ -z "$dir" ]; then
  dir=$(mktemp -d /var/tmp/weft-io.XXXXXX)
  made_dir=$dir
fi
# The file goes, and the directory too when this script made it.
trap 'rm -rf "$work" "$dir"/collective_write.out ${made_dir:+"$made_dir"}' EXIT

"$weft/tools/install.sh" "$work/weft" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; exit 1; }
source=$weft/tools/bench/mpi/collective_write.c
"$work/weft/bin/mpicc" -O2 -o "$work/weft-cw" "$source"
have_ompi=0
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
  mpicc.openmpi -O2 -o "$work/ompi-cw" "$source" && have_ompi=1
fi

file=$dir/collective_write.out
speed() { sed -n 's/.* \([0-9]*\) MB\/s$/\1/p'; }
for round in $(seq "$rounds"); do
  "$work/weft/bin/mpirun" -n 1 "$work/weft-cw" "$file" "$mib" "$block" --posix | speed >>"$work/speeds.posix"
  "$work/weft/bin/mpirun" -n "$ranks" "$work/weft-cw" "$file" "$mib" "$block" | speed >>"$work/speeds.weft"
  if [ $have_ompi -eq 1 ]; then
    mpirun.openmpi --allow-run-as-root --oversubscribe -n "$ranks" "$work/ompi-cw" "$file" "$mib" \
      "$block" | speed >>"$work/speeds.ompi"
  fi
  echo "compare_io: round $round of $rounds done" >&2
done

median() { sort -n "$1" | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
posix=$(median "$work/speeds.posix")
echo "collective write of $mib MiB by $ranks ranks in blocks of $block bytes, medians of $rounds rounds (MB/s):"
printf '%-34s %8s %10s\n' "writer" "MB/s" "/ POSIX"
printf '%-34s %8s %10s\n' "POSIX pwrite, one process" "$posix" "1.00"
w=$(median "$work/speeds.weft")
printf '%-34s %8s %10.2f\n' "weft MPI_File_write_at_all" "$w" "$(awk -v a="$w" -v b="$posix" 'BEGIN {print a / b}')"
if [ $have_ompi -eq 1 ]; then
  o=$(median "$work/speeds.ompi")
  printf '%-34s %8s %10.2f\n' "Open MPI MPI_File_write_at_all" "$o" "$(awk -v a="$o" -v b="$posix" 'BEGIN {print a / b}')"
fi
