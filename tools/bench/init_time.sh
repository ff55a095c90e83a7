#!/usr/bin/env bash
# Start-up at scale: the slowest rank's MPI_Init (tools/bench/mpi/init_time.c) for each
# size, under weft's mpirun with its default transports, and with WEFT_TRANSPORTS=tcp
# connecting every pair at init (WEFT_CONNECT=eager) and on first use (lazy), and under
# Open MPI's mpirun (shared memory, vader), one after the other on this machine. With more ranks than cores every library is oversubscribed: the figures say
# how set-up scales with the ranks of one host, not what a cluster would see.
#
# usage: tools/bench/init_time.sh PREFIX [RANKS...]   (PREFIX: a weft installed by
#                                                      tools/install.sh; default 16 64 256)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
prefix=$(cd "$1" && pwd)
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(16 64 256)
tools/install_packages.sh init_time openmpi-bin libopenmpi-dev
work=$(mktemp -d "${TMPDIR:-/tmp}/init_time.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$prefix/bin/mpicc" -O2 -o "$work/init.weft" tools/bench/mpi/init_time.c
mpicc.openmpi -O2 -o "$work/init.openmpi" tools/bench/mpi/init_time.c
# A 256-rank host opens 255 x 256 connections and, with shared memory, maps as many rings.
ulimit -n "$(ulimit -Hn)"
for n in "${sizes[@]}"; do
  printf '%-28s %s\n' "weft (default transports):" "$("$prefix/bin/mpirun" -n "$n" "$work/init.weft")"
  for connect in eager lazy; do
    printf '%-28s %s\n' "weft (tcp, $connect):" "$("$prefix/bin/mpirun" -n "$n" -x WEFT_TRANSPORTS=tcp \
      -x WEFT_CONNECT=$connect "$work/init.weft")"
  done
  printf '%-28s %s\n' "Open MPI (vader):" "$(mpirun.openmpi --allow-run-as-root --oversubscribe \
    --bind-to none -n "$n" --mca btl self,vader "$work/init.openmpi")"
done
