#!/usr/bin/env bash
# The slowest small calls, counted over many short jobs (docs/BENCHMARKS.md, "The
# slowest calls"): runs slow-calls (tools/bench/slow_calls.cc: 3000 all_reduce of 8 B
# from the start of each job, 2 ranks) --jobs times per build and round, and prints per
# build the calls over 500 us and over 1 ms on rank 0, and how many of them were among
# its first ten calls. Several builds alternate within each round, so that they see the
# same machine.
#
# Each NAME=BINARY is a slow-calls binary (weft is linked in; copy bazel-bin's to keep
# one); without any, this tree's is built with -c opt and named "this". weftrun is
# this tree's.
#
# usage: tools/bench/slow_calls.sh [--jobs N] [--rounds N] [--transport tcp|shm]
#            [NAME=BINARY]...
set -euo pipefail
cd "$(dirname "$0")/../.."

jobs=25
rounds=3
transport=tcp
builds=()
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --transport) transport="$2"; shift 2 ;;
    *=*) builds+=("$1"); shift ;;
    *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done

targets=(//tools/weftrun:weftrun)
[ ${#builds[@]} -eq 0 ] && targets+=(//tools/bench:slow-calls)
bazel build -c opt "${targets[@]}" >&2
bin=$(bazel info -c opt bazel-bin 2>/dev/null)
weftrun="$bin/tools/weftrun/weftrun"
[ ${#builds[@]} -eq 0 ] && builds=("this=$bin/tools/bench/slow-calls")

printf '%-6s %-12s %6s %9s %12s %11s %13s\n' round build jobs calls "over 500us" "over 1ms" "in first 10"
for round in $(seq 1 "$rounds"); do
  for build in "${builds[@]}"; do
    name=${build%%=*}
    binary=${build#*=}
    calls=0 slow=0 over_ms=0 early=0
    for _ in $(seq 1 "$jobs"); do
      out=$("$weftrun" -n 2 -x WEFT_TRANSPORTS="$transport" "$binary" 2>&1 | grep '^\[0\] ') || {
        echo "slow_calls: a job of $name failed" >&2
        exit 1
      }
      summary=$(grep -E 'calls of [0-9]+ bytes' <<<"$out")
      read -r c s m < <(sed -E 's/.*: ([0-9]+) calls.* ([0-9]+) over [0-9]+ us, ([0-9]+) over 1000 us.*/\1 \2 \3/' <<<"$summary")
      calls=$((calls + c)); slow=$((slow + s)); over_ms=$((over_ms + m))
      early=$((early + $(grep -cE 'call [1-9],' <<<"$out" || true)))
    done
    printf '%-6s %-12s %6d %9d %12d %11d %13d\n' "$round" "$name" "$jobs" "$calls" "$slow" "$over_ms" "$early"
  done
done
