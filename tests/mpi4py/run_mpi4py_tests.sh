#!/usr/bin/env bash
# mpi4py on weft: builds mpi4py from its source distribution with weft's mpicc (the
# standard-ABI mode mpi4py picks by itself: no MPI4PY_ variables), then runs mpi4py's
# own test suite (test/main.py from the same source distribution) under weft's mpirun.
#
#   tests/mpi4py/run_mpi4py_tests.sh [--full] [RANKS...]
#
# Default: 1 and 2 ranks; --full: 1 to 4. Everything lives under .cache/mpi4py (the
# weft prefix, a virtualenv, the source distribution), kept between runs: mpi4py links
# weft's libmpi_abi.so.1 from the prefix, which is reinstalled each run, so a new weft
# needs no rebuild of mpi4py. Prints "mpi4py: N ranks: ..." per run and exits non-zero
# when any run had a failure or an error.
#
# Left out, each for a reason docs/MPI.md gives:
#   - spawning (MPI4PY_TEST_SPAWN=0): weft's jobs are started whole by weftrun;
#   - test_ulfm's testIAgree: without the fault-tolerance extension mpi4py agrees with
#     MPI_Iallreduce on the communicator itself, and the test then starts that and a
#     barrier in different orders on different ranks, which the standard calls
#     erroneous and weft reports (MPI_ERR_OTHER, collectives out of order).
set -uo pipefail
cd "$(dirname "$0")/../.."
readonly version=4.1.2
root=$PWD/.cache/mpi4py
prefix=$root/weft
venv=$root/venv
ranks=(1 2)
if [ "${1:-}" = "--full" ]; then
  ranks=(1 2 3 4)
  shift
fi
[ $# -gt 0 ] && ranks=("$@")
mkdir -p "$root"

# -c fastbuild: the build the test suite has just made, so nothing is rebuilt.
tools/install.sh "$prefix" -c fastbuild >"$root/install.log" 2>&1 ||
  { cat "$root/install.log"; exit 1; }
export PATH=$prefix/bin:$PATH

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" || exit 1
fi
sdist=$root/mpi4py-$version.tar.gz
if [ ! -s "$sdist" ]; then
  "$venv/bin/pip" download --quiet --no-deps --no-binary mpi4py -d "$root" "mpi4py==$version" ||
    exit 1
fi
if ! "$venv/bin/python" -c 'import mpi4py' 2>/dev/null; then
  echo "mpi4py: building mpi4py $version with $(command -v mpicc)"
  # -O0: the suite's time goes to Python and to weft, not to mpi4py's own C, whose
  # optimised build takes 8 minutes of a 2-core machine against 1 for this one.
  CFLAGS=-O0 "$venv/bin/pip" install --quiet --no-binary mpi4py "$sdist" || exit 1
fi
# With NumPy, mpi4py's suite also runs its cases over NumPy arrays.
if ! "$venv/bin/python" -c 'import numpy' 2>/dev/null; then
  "$venv/bin/pip" install --quiet numpy || exit 1
fi
if [ ! -f "$root/mpi4py-$version/test/main.py" ]; then
  tar -xzf "$sdist" -C "$root" "mpi4py-$version/test" || exit 1
fi

excluded=(-x testIAgree)
status=0
for n in "${ranks[@]}"; do
  log=$root/test-$n.log
  MPI4PY_TEST_SPAWN=0 timeout 1200 mpirun -n "$n" --timeout 1100 \
    "$venv/bin/python" "$root/mpi4py-$version/test/main.py" \
    "${excluded[@]}" >"$log" 2>&1
  rc=$?
  # unittest's own last words: "OK", "OK (skipped=K)" or "FAILED (failures=F, errors=E)".
  ran=$(grep -Eo '^Ran [0-9]+ tests?' "$log" | tail -1)
  verdict=$(grep -E '^(OK|FAILED)' "$log" | tail -1)
  echo "mpi4py: $n ranks: ${ran:-no summary} ${verdict:-} (exit $rc; log $log)"
  if [ "$rc" -ne 0 ] || [[ "$verdict" != OK* ]]; then
    status=1
    grep -E '^(ERROR|FAIL):' "$log" | sort | uniq -c | head -40
  fi
done
exit $status
