#!/usr/bin/env bash
# docs/MPI.md's table of implemented and refused functions is the one the sources give.
set -euo pipefail
exec python3 mpi/abi/refusals.py --check docs/MPI.md mpi/src/*.cc
