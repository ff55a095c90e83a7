#!/usr/bin/env bash
# all_reduce against Gloo on this machine (docs/BENCHMARKS.md): installs libgloo-dev when
# it is missing, builds the Gloo program (a manual target, outside the default build) and
# weft-bench, then runs the two alternately, Gloo then weft, for several rounds over TCP
# so that both see the same machine conditions, and prints the medians side by side.
# -a takes a comma-separated list of Gloo algorithms (see gloo_allreduce -h); each round
# runs them all, and each size is compared with the fastest of them in that round.
#
# usage: tools/bench/compare_gloo.sh [--ranks N] [--rounds N] [-b BYTES] [-e BYTES]
#            [-n ITERS] [-w ITERS] [-a ALGORITHM[,ALGORITHM...]]
#            [--weft-column auto|oop_us|ip_us] [--json FILE] [--gloo-only]
set -euo pipefail
cd "$(dirname "$0")/../.."

ranks=2
rounds=5
min_bytes=8
max_bytes=16M
iters=20
warmup=5
algorithms=ring,bcube,ring_poll
weft_column=auto
json=""
gloo_only=0

usage() {
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) ranks="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    -b) min_bytes="$2"; shift 2 ;;
    -e) max_bytes="$2"; shift 2 ;;
    -n) iters="$2"; shift 2 ;;
    -w) warmup="$2"; shift 2 ;;
    -a) algorithms="$2"; shift 2 ;;
    --weft-column) weft_column="$2"; shift 2 ;;
    --json) json="$2"; shift 2 ;;
    --gloo-only) gloo_only=1; shift ;;
    -h|--help) usage ;;
    *) echo "compare_gloo: unknown option $1" >&2; usage ;;
  esac
done

# Gloo is for this comparison only, so tools/install_deps.sh does not list it.
tools/install_packages.sh compare_gloo libgloo-dev

targets=(//tools/weftrun:weftrun //tools/bench/gloo:gloo_allreduce)
if [ "$gloo_only" -eq 0 ]; then
  targets+=(//tools/bench:weft-bench)
fi
bazel build "${targets[@]}"

weftrun=bazel-bin/tools/weftrun/weftrun
work=$(mktemp -d "${TMPDIR:-/tmp}/compare_gloo.XXXXXX")
trap 'rm -rf "$work"' EXIT

sizes=(-b "$min_bytes" -e "$max_bytes" -f 2 -n "$iters" -w "$warmup")
IFS=, read -r -a algorithm_list <<<"$algorithms"
specs=()
for round in $(seq 1 "$rounds"); do
  gloo_files=()
  for algorithm in "${algorithm_list[@]}"; do
    echo "compare_gloo: round $round of $rounds: Gloo $algorithm" >&2
    run="$work/gloo.$round.$algorithm"
    # A fresh FileStore directory per run: Gloo's rendezvous reads whatever keys it finds.
    if ! "$weftrun" -n "$ranks" --timeout 1800 bazel-bin/tools/bench/gloo/gloo_allreduce \
      --store "$run.store" "${sizes[@]}" -a "$algorithm" --json "$run.json" >"$run.log" 2>&1; then
      cat "$run.log" >&2
      echo "compare_gloo: gloo_allreduce -a $algorithm failed" >&2
      exit 1
    fi
    gloo_files+=("$run.json")
  done
  spec=$(IFS=,; echo "${gloo_files[*]}")
  if [ "$gloo_only" -eq 0 ]; then
    echo "compare_gloo: round $round of $rounds: weft" >&2
    if ! "$weftrun" -n "$ranks" --timeout 1800 -x WEFT_TRANSPORTS=tcp \
      bazel-bin/tools/bench/weft-bench all_reduce "${sizes[@]}" -d float -o sum \
      --json "$work/weft.$round.json" >"$work/weft.$round.log" 2>&1; then
      cat "$work/weft.$round.log" >&2
      echo "compare_gloo: weft-bench all_reduce failed (--gloo-only runs the Gloo half alone)" >&2
      exit 1
    fi
    spec="$spec:$work/weft.$round.json"
  fi
  specs+=("$spec")
done

merge=(tools/bench/gloo/compare_table.py --weft-column "$weft_column")
if [ -n "$json" ]; then
  merge+=(--json "$json")
fi
python3 "${merge[@]}" "${specs[@]}"
