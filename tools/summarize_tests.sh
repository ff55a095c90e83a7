#!/usr/bin/env bash
# Counts test cases in the GoogleTest XML reports of every test target of the last
# `bazel test //...` and prints "N passed, N failed" as its last line. A target that
# left no report (it did not build, crashed, or timed out) counts as one failed case.
# Each argument "NAME=STATUS" is a check outside GoogleTest (the style check, say) with
# its exit status, counted as one more case. --query EXPR names the test targets the
# run covered (a `bazel query` expression; default: every test target).
#
# usage: tools/summarize_tests.sh [--query EXPR] [NAME=STATUS...]
set -uo pipefail
cd "$(dirname "$0")/.."
query='tests(//...)'
if [ "${1:-}" = "--query" ]; then
  query=$2
  shift 2
fi
passed=0 failed=0 skipped=0
failed_targets=()

while read -r target; do
  path=${target#//}
  path=${path/://}
  # A sharded target leaves one report per shard.
  xmls=()
  if [ -s "bazel-testlogs/$path/test.xml" ]; then
    xmls=("bazel-testlogs/$path/test.xml")
  else
    for shard in "bazel-testlogs/$path"/shard_*_of_*; do
      # Only this run's shards, not those --runs_per_test left (shard_1_of_4_run_2_of_4).
      [[ -d "$shard" && "${shard##*/}" =~ ^shard_[0-9]+_of_[0-9]+$ ]] || continue
      if [ ! -s "$shard/test.xml" ]; then
        xmls=()
        break
      fi
      xmls+=("$shard/test.xml")
    done
  fi
  if [ ${#xmls[@]} -eq 0 ]; then
    failed=$((failed + 1))
    failed_targets+=("$target (no test report)")
    continue
  fi
  # One <testcase> element per case; a failed one contains <failure>, a skipped one
  # is marked result="skipped".
  read -r p f s < <(awk '
    /<testcase /        { open = 1; bad = 0; skip = ($0 ~ /result="skipped"/) ; if ($0 ~ /\/>[[:space:]]*$/) { close_case() } ; next }
    /<failure/          { if (open) bad = 1 }
    /<\/testcase>/      { if (open) close_case() }
    function close_case() { if (skip) s++; else if (bad) f++; else p++; open = 0 }
    END                 { print p + 0, f + 0, s + 0 }' "${xmls[@]}")
  if [ "$((p + f + s))" -eq 0 ]; then
    # A target that ran no GoogleTest case at all passes or fails as a whole.
    if grep -q "<failure" "${xmls[@]}"; then f=1; else p=1; fi
  fi
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
  [ "$f" -gt 0 ] && failed_targets+=("$target")
done < <(bazel query "$query" 2>/dev/null)

for check in "$@"; do
  if [ "${check##*=}" -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    failed_targets+=("${check%=*}")
  fi
done

if [ ${#failed_targets[@]} -ne 0 ]; then
  echo "failed:"
  printf '  %s\n' "${failed_targets[@]}"
fi
[ "$skipped" -gt 0 ] && echo "$skipped skipped (each says why in its test log)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
