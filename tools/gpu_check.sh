#!/usr/bin/env bash
# The GPU check, for a machine with a CUDA GPU (at most about 5 minutes):
#   1. builds weft with CUDA (bazel --config=cuda -c opt),
#   2. runs the GPU tests: the reduction kernels against the CPU kernels for every op
#      and dtype, and the device layer between processes on the real device,
#   3. runs the GPU benchmark: all_reduce of float32 between 2 processes sharing one GPU
#      through CUDA IPC, up to 256 MiB, beside the bound the device memory bandwidth
#      measured in the same run sets; and, where the machine has more GPUs, one process
#      per GPU,
#   4. prints a summary, with the 256 MiB figure against the 1.25 x bound target.
# Without a GPU it says so and exits 0 after the build, which must still work.
# Usage: tools/gpu_check.sh [OUTPUT_DIR]   (logs and JSON rows go there; default /tmp)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/weft-gpu-check}
mkdir -p "$out"
started=$(date +%s)
bazel=(bazel)
flags=(--config=cuda -c opt)

step() { echo "== $* ($(($(date +%s) - started)) s)"; }

step "build with CUDA"
"${bazel[@]}" build "${flags[@]}" //tools/bench:weft-bench //tools/weftrun:weftrun \
  //tests/cuda/... >"$out/build.log" 2>&1
build=$?
tail -3 "$out/build.log"
if [ $build -ne 0 ]; then
  echo "gpu_check: the CUDA build failed (see $out/build.log)"
  exit 1
fi

gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader | tee "$out/gpus.txt"
  gpus=$(grep -c . "$out/gpus.txt")
elif ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
  gpus=$(ls /dev/nvidia[0-9]* | wc -l)
  echo "no nvidia-smi; $gpus GPU device files in /dev"
fi
if [ "$gpus" -eq 0 ]; then
  echo "gpu_check: no GPU on this machine (nvidia-smi lists none): built, nothing run"
  exit 0
fi

step "GPU tests"
"${bazel[@]}" test "${flags[@]}" --test_output=errors //tests/cuda/runtime:all \
  //tests/cuda:gpu_collectives_test //tests/cuda:device_collectives_test >"$out/tests.log" 2>&1
tests=$?
grep -E "PASSED|FAILED|NO STATUS|TIMEOUT" "$out/tests.log"
skipped=$(grep -h "SKIPPED\|no CUDA device" bazel-testlogs/tests/cuda/gpu_collectives_test/test.log \
  bazel-testlogs/tests/cuda/runtime/reduce_kernels_gpu_test/test.log 2>/dev/null | head -3)
[ -n "$skipped" ] && echo "skipped: $skipped"

weftrun=bazel-bin/tools/weftrun/weftrun
bench=bazel-bin/tools/bench/weft-bench
step "benchmark: all_reduce, 2 processes on GPU 0 (CUDA IPC)"
# NCCL refuses two ranks on one GPU: the table says so, and the bound is the yardstick.
CUDA_VISIBLE_DEVICES=0 timeout 120 "$weftrun" -n 2 "$bench" all_reduce -d cuda -b 1M -e 256M -f 4 \
  -n 20 -w 5 --compare nccl --json "$out/all_reduce_ipc.json" 2>&1 | tee "$out/all_reduce_ipc.txt"
bench_status=${PIPESTATUS[0]}
step "benchmark: the same staged through host memory (WEFT_CUDA_IPC=0)"
CUDA_VISIBLE_DEVICES=0 timeout 120 "$weftrun" -n 2 -x WEFT_CUDA_IPC=0 "$bench" all_reduce -d cuda \
  -b 1M -e 256M -f 16 -n 5 -w 2 2>&1 | tee "$out/all_reduce_staged.txt"
if [ "$gpus" -gt 1 ]; then
  step "benchmark: all_reduce, one process per GPU ($gpus)"
  timeout 120 "$weftrun" -n "$gpus" "$bench" all_reduce -d cuda -b 1M -e 256M -f 4 -n 20 -w 5 \
    --compare nccl 2>&1 | tee "$out/all_reduce_per_gpu.txt"
fi

step "summary"
echo "GPU tests: $([ $tests -eq 0 ] && echo passed || echo FAILED) (see $out/tests.log)"
# The 256 MiB row of the JSON rows: its out-of-place time and the bound.
row=$(grep '"bytes": 268435456,' "$out/all_reduce_ipc.json" 2>/dev/null | head -1)
if [ -z "$row" ]; then
  echo "benchmark: no 256 MiB row (status $bench_status; see $out/all_reduce_ipc.txt)"
  exit 1
fi
field() { echo "$row" | sed -E "s/.*\"$1\": ([0-9.]+).*/\1/"; }
oop=$(field oop_us) bound=$(field bound_us) wrong=$(field oop_wrong)
awk -v oop="$oop" -v bound="$bound" -v wrong="$wrong" 'BEGIN {
  if (bound <= 0) { print "all_reduce 256 MiB: no bound (the ranks did not share one device)"; exit }
  printf "all_reduce 256 MiB float32, 2 processes on one GPU: %.1f us, bound %.1f us, %.3f x bound (target <= 1.25): %s; #wrong %d\n",
         oop, bound, oop / bound, (oop / bound <= 1.25 ? "met" : "NOT met"), wrong }'
[ $tests -eq 0 ] && [ "$bench_status" -eq 0 ]
