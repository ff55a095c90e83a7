#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds everything, runs every test
# and the style check, and ends with the line "N passed, N failed" (test cases, not
# targets). Exits non-zero when anything failed. Extra arguments go to `bazel test`.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh || exit 1

bazel test --keep_going //... "$@"
bazel_status=$?

format_status=0
tools/check_format.sh || format_status=1

# The shared-memory transport unlinks its segments at start-up; none may outlive the
# suite, whatever its tests killed.
leftover_status=0
leftovers=$(find /dev/shm -maxdepth 1 -name 'weft-*' 2>/dev/null)
if [ -n "$leftovers" ]; then
  echo "weft segments left in /dev/shm after the tests:"
  echo "$leftovers"
  leftover_status=1
fi

tools/summarize_tests.sh "$format_status" "$leftover_status"
summary_status=$?
if [ "$bazel_status" -ne 0 ] || [ "$format_status" -ne 0 ] || [ "$leftover_status" -ne 0 ] ||
  [ "$summary_status" -ne 0 ]; then
  exit 1
fi
