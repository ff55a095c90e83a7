#!/usr/bin/env bash
# Instructions per small message through the MPI interface, counted by valgrind's
# callgrind on both ranks of tools/bench/mpi/mpi_bench.c (8-byte ping-pong, then
# streaming windows of 64): for each MPI function the program calls per message, the
# instructions it ran (its callees included) divided by its calls. A count, not a
# time: it does not move with the machine's speed, so builds compare across runs.
# The waits' counts include their polling of the peer, which depends on timing; the
# posting functions' (MPI_Isend, MPI_Irecv, MPI_Send) do not.
#
#   tools/bench/small_instructions.sh NAME=PREFIX...   (each a weft installed by
#                                                        tools/install.sh)
#   tools/bench/small_instructions.sh --openmpi ...    Open MPI's mpicc and mpirun too
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || tools/install_packages.sh small_instructions valgrind
work=$(mktemp -d "${TMPDIR:-/tmp}/small_instructions.XXXXXX")
trap 'rm -rf "$work"' EXIT

# count NAME MPICC LAUNCH...: builds mpi_bench with MPICC, runs it under LAUNCH with
# callgrind on every rank, prints one line per rank and function.
count() {
  local name=$1 cc=$2
  shift 2
  "$cc" -std=c11 -O2 -g -o "$work/$name.mpi_bench" tools/bench/mpi/mpi_bench.c
  # Each launcher names the rank its own way: weft's RANK, Open MPI's
  # OMPI_COMM_WORLD_RANK.
  "$@" sh -c "exec valgrind --tool=callgrind \
    --callgrind-out-file=$work/$name.rank\${RANK:-\$OMPI_COMM_WORLD_RANK}.out \
    $work/$name.mpi_bench pingpong --min-bytes 8 --max-bytes 8 --iters 20000" \
    >"$work/$name.log" 2>&1 || { cat "$work/$name.log" >&2; return 1; }
  for out in "$work/$name".rank*.out; do
    rank=${out##*.rank}
    rank=${rank%.out}
    callgrind_annotate --tree=calling --inclusive=yes "$out" 2>/dev/null |
      python3 -c '
import re, sys
name, rank = sys.argv[1], sys.argv[2]
seen = {}
in_program = False
for line in sys.stdin:
    # A block starts with its function ("5,678 (1%)  *  x.c:main [/tmp/x.mpi_bench]")
    # and lists its callees ("1,234 (0.5%)  >   ???:PMPI_Isend (134,400x) [lib]").
    # Calls made by the program itself (its own functions, whichever are inlined) count.
    if re.match(r"\s*[\d,]+ .*\*\s+\S*?:", line):
        in_program = line.rstrip().endswith("mpi_bench]")
        continue
    m = re.match(r"\s*([\d,]+) .*>\s+\S*?:P?(MPI_(?:Isend|Irecv|Send|Recv|Waitall|Wait))\s+\(([\d,]+)x\)", line)
    if in_program and m:
        instructions, calls = seen.get(m.group(2), (0, 0))
        seen[m.group(2)] = (instructions + int(m.group(1).replace(",", "")),
                            calls + int(m.group(3).replace(",", "")))
for function, (instructions, calls) in sorted(seen.items()):
    print(f"{name:>10}  rank {rank}  {function:<12} {calls:>9} calls {instructions / calls:>9.0f} instructions/call")
' "$name" "$rank"
  done
}

openmpi=0
specs=()
for arg in "$@"; do
  if [ "$arg" = --openmpi ]; then openmpi=1; else specs+=("$arg"); fi
done
if [ $openmpi -eq 1 ]; then
  run=(env OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader mpirun.openmpi --oversubscribe -n 2
    --bind-to none)
  [ "$(id -u)" -eq 0 ] && run+=(--allow-run-as-root)
  count openmpi mpicc.openmpi "${run[@]}"
fi
for spec in "${specs[@]}"; do
  prefix=$(cd "${spec#*=}" && pwd)
  count "${spec%%=*}" "$prefix/bin/mpicc" timeout 600 "$prefix/bin/mpirun" -n 2
done
