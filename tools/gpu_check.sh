#!/usr/bin/env bash
# The GPU check, for a machine with a CUDA GPU (about 5 minutes):
#   1. builds weft with CUDA (bazel --config=cuda -c opt), or takes the binaries of a
#      bundle built elsewhere (--bundle, --from: for a GPU machine without Bazel),
#   2. runs the GPU tests: the reduction kernels against the CPU kernels for every op
#      and dtype, and the device layer between processes on the real device,
#   3. runs the GPU benchmarks:
#      - all_reduce of float32 between 2 processes sharing one GPU through CUDA IPC,
#        1 MiB to 1 GiB, beside the bound the device memory bandwidth measured in the
#        same run sets, and NCCL asked to do the same (it refuses two ranks on one GPU;
#        the table records what it says);
#      - the same staged through host memory (WEFT_CUDA_IPC=0);
#      - broadcast, all_gather and reduce_scatter through CUDA IPC;
#      - weft's reduction kernel per dtype against a device-to-device copy;
#      - one process with NCCL beside weft, which NCCL accepts;
#      - where the machine has more GPUs, one process per GPU,
#   4. prints a summary, with the 256 MiB all_reduce against the 1.25 x bound target.
# Without a GPU it says so and exits 0 after the build, which must still work.
#
# Usage: tools/gpu_check.sh [OUTPUT_DIR]            build with Bazel here, then run
#        tools/gpu_check.sh --bundle DIR            build here and put the binaries and
#                                                   the libraries they need in DIR
#        tools/gpu_check.sh --from DIR [OUTPUT_DIR] run the binaries of a bundle
# Logs and JSON rows go to OUTPUT_DIR (default /tmp/weft-gpu-check).
set -uo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
flags=(--config=cuda -c opt)
targets=(//tools/bench:weft-bench //tools/bench:device-reduce-speed //tools/weftrun:weftrun
  //tests/cuda/runtime:reduce_kernels_gpu_test //tests/cuda/runtime:no_device_test
  //tests/cuda:gpu_collectives_test)

step() { echo "== $* ($(($(date +%s) - started)) s)"; }

# bundle DIR: the binaries, stripped and with weft's libraries linked in, and the shared
# libraries they need beyond the C and C++ runtimes (hwloc, for weftrun): a copy of DIR
# runs on another x86-64 Linux with a CUDA driver, a C++ runtime at least as new as
# this machine's, and no build tools.
bundle() {
  local dir=$1
  step "build with CUDA, static, for a bundle"
  bazel build "${flags[@]}" --dynamic_mode=off "${targets[@]}" || return 1
  rm -rf "$dir" && mkdir -p "$dir/lib"
  local target path
  for target in "${targets[@]}"; do
    path=bazel-bin/$(echo "${target#//}" | tr ':' '/')
    strip -o "$dir/$(basename "$path")" "$path" || return 1
  done
  local lib
  for lib in $(ldd "$dir/weftrun" | awk '/=> \// {print $3}'); do
    case $(basename "$lib") in
      libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | ld-linux* | libstdc++* | libgcc_s*) ;;
      *) cp -L "$lib" "$dir/lib/" ;;
    esac
  done
  du -sh "$dir"
  ls "$dir" "$dir/lib"
}

bin=""
if [ "${1:-}" = "--bundle" ]; then
  [ $# -eq 2 ] || { echo "usage: tools/gpu_check.sh --bundle DIR" >&2; exit 2; }
  bundle "$2"
  exit
elif [ "${1:-}" = "--from" ]; then
  [ $# -ge 2 ] || { echo "usage: tools/gpu_check.sh --from DIR [OUTPUT_DIR]" >&2; exit 2; }
  bin=$(cd "$2" && pwd)
  shift 2
  export LD_LIBRARY_PATH="$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
out=${1:-/tmp/weft-gpu-check}
mkdir -p "$out"

if [ -z "$bin" ]; then
  step "build with CUDA"
  bazel build "${flags[@]}" "${targets[@]}" >"$out/build.log" 2>&1
  build=$?
  tail -3 "$out/build.log"
  if [ $build -ne 0 ]; then
    echo "gpu_check: the CUDA build failed (see $out/build.log)"
    exit 1
  fi
fi
# The path of a built target's binary, in bazel-bin or in the bundle.
path_of() {
  if [ -n "$bin" ]; then echo "$bin/$(basename "$1")"; else echo "bazel-bin/$1"; fi
}
weftrun=$(path_of tools/weftrun/weftrun)
bench=$(path_of tools/bench/weft-bench)

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

# NCCL for --compare nccl: libnccl.so.2 where the loader finds it, else the first copy
# under the usual prefixes (Python's nvidia-nccl wheels put it in site-packages).
if ! ldconfig -p 2>/dev/null | grep -q 'libnccl.so.2 '; then
  nccl=$(find /usr/local /opt /usr/lib -name libnccl.so.2 2>/dev/null | head -1)
  if [ -n "$nccl" ]; then
    echo "NCCL: $nccl"
    export LD_LIBRARY_PATH="$(dirname "$nccl")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  else
    echo "NCCL: no libnccl.so.2 on this machine; --compare nccl will say so"
  fi
fi

step "GPU tests"
tests=0
for test in tests/cuda/runtime/reduce_kernels_gpu_test tests/cuda/runtime/no_device_test \
  tests/cuda/gpu_collectives_test; do
  name=$(basename "$test")
  timeout 240 "$(path_of "$test")" >"$out/$name.log" 2>&1
  status=$?
  # gtest's closing lines: "[  PASSED  ] 7 tests.", "[  SKIPPED ] 2 tests, listed below:"
  counts=$(grep -E "^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ tests?[.,]" "$out/$name.log" |
    sed -E 's/^\[  ([A-Z]+) +\] ([0-9]+).*/\2 \1/' | tr 'A-Z\n' 'a-z,' | sed 's/,$//')
  echo "$name: $([ $status -eq 0 ] && echo passed || echo "FAILED (status $status)") ($counts)"
  grep -E "^\[  FAILED  \] [A-Z]|no CUDA device" "$out/$name.log" | sort -u | head -5
  [ $status -eq 0 ] || tests=1
done

step "benchmark: all_reduce, 2 processes on GPU 0 (CUDA IPC), NCCL asked to do the same"
CUDA_VISIBLE_DEVICES=0 timeout 180 "$weftrun" -n 2 "$bench" all_reduce -d cuda -b 1M -e 1G -f 4 \
  -n 20 -w 5 --compare nccl --json "$out/all_reduce_ipc.json" 2>&1 | tee "$out/all_reduce_ipc.txt"
bench_status=${PIPESTATUS[0]}
step "benchmark: the same staged through host memory (WEFT_CUDA_IPC=0)"
CUDA_VISIBLE_DEVICES=0 timeout 120 "$weftrun" -n 2 -x WEFT_CUDA_IPC=0 "$bench" all_reduce -d cuda \
  -b 1M -e 1G -f 16 -n 5 -w 2 2>&1 | tee "$out/all_reduce_staged.txt"
for collective in broadcast all_gather reduce_scatter; do
  step "benchmark: $collective, 2 processes on GPU 0 (CUDA IPC)"
  CUDA_VISIBLE_DEVICES=0 timeout 90 "$weftrun" -n 2 "$bench" "$collective" -d cuda -b 1M -e 256M \
    -f 16 -n 20 -w 5 2>&1 | tee "$out/$collective.txt"
done
step "benchmark: the reduction kernel per dtype against a device-to-device copy"
CUDA_VISIBLE_DEVICES=0 timeout 120 "$(path_of tools/bench/device-reduce-speed)" --min-bytes 1M \
  --max-bytes 1G 2>&1 | tee "$out/reduce_kernels.txt"
step "benchmark: all_reduce, 1 process, NCCL beside weft"
CUDA_VISIBLE_DEVICES=0 timeout 90 "$weftrun" -n 1 "$bench" all_reduce -d cuda -b 1M -e 1G -f 4 \
  -n 20 -w 5 --compare nccl 2>&1 | tee "$out/all_reduce_one_process.txt"
if [ "$gpus" -gt 1 ]; then
  step "benchmark: all_reduce, one process per GPU ($gpus)"
  timeout 120 "$weftrun" -n "$gpus" "$bench" all_reduce -d cuda -b 1M -e 256M -f 4 -n 20 -w 5 \
    --compare nccl 2>&1 | tee "$out/all_reduce_per_gpu.txt"
fi

step "summary"
echo "GPU tests: $([ $tests -eq 0 ] && echo passed || echo FAILED) (logs in $out)"
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
