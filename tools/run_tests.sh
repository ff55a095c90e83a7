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

tools/summarize_tests.sh "$format_status"
summary_status=$?
if [ "$bazel_status" -ne 0 ] || [ "$format_status" -ne 0 ] || [ "$summary_status" -ne 0 ]; then
  exit 1
fi
