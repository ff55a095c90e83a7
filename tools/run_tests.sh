#!/usr/bin/env bash
# The test suite: installs what is missing, builds, runs the tests and the style
# checks, and ends with the line "N passed, N failed" (test cases, not targets). Exits
# non-zero when anything failed. Each stage prints its elapsed time as it ends.
#
#   default  every test target but those tagged "full" (tests/BUILD's convention), the
#            --config=cuda build of the device runtime (what that config changes) and
#            its tests, the fuzzers for 4 s each, the transports, engine, arena and
#            store under ASan+UBSan and (fewer of their tests) TSan, the install, Slurm,
#            mpi4py's own suite on 2 ranks and the torch backend's pytest suite. It is
#            what CI runs.
#   --full   also the targets tagged "full", the whole tree under --config=cuda, the
#            same tests under TSan as under ASan, mpi4py on 1, 3 and 4 ranks, and
#            PyTorch's own distributed test suite against weft's backend.
#
# usage: tools/run_tests.sh [--full] [extra options for the main `bazel test`]
set -uo pipefail
cd "$(dirname "$0")/.."

full=0
if [ "${1:-}" = "--full" ]; then
  full=1
  shift
fi

suite_start=$SECONDS
# stage NAME COMMAND...: runs COMMAND, prints how long it took, returns its status.
stage() {
  local name=$1 start=$SECONDS
  shift
  echo "== run_tests: $name"
  "$@"
  local status=$?
  echo "== run_tests: $name: $((SECONDS - start)) s, exit $status" \
    "($((SECONDS - suite_start)) s since the start)"
  return $status
}

stage "install_deps" tools/install_deps.sh || exit 1

# With the CUDA toolkit present: the build with --config=cuda (nvcc, the static
# cudart) and its GPU tests, which skip without a GPU, saying why. Run first, so that
# the summary below reads the default build's test reports. The config changes only
# cuda/runtime (nvcc's kernels and the CUDA runtime in place of the one that refuses):
# by default that and its tests are built and run; --full builds every target and runs
# the library's GPU tests too (they need the whole library built under that config).
cuda_checks=()
if [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda_targets=(//cuda/runtime/... //tests/cuda/runtime:all)
  cuda_tests=(//tests/cuda/runtime:all)
  if [ $full -eq 1 ]; then
    cuda_targets=(//...)
    cuda_tests+=(//tests/cuda:gpu_collectives_test //tests/cuda:refused_without_device_test)
  fi
  cuda_build_and_test() {
    bazel build --config=cuda "${cuda_targets[@]}" &&
      bazel test --config=cuda "${cuda_tests[@]}"
  }
  cuda_status=0
  stage "--config=cuda build and GPU tests" cuda_build_and_test || cuda_status=1
  cuda_checks=("bazel build --config=cuda ${cuda_targets[*]}, bazel test ${cuda_tests[*]}=$cuda_status")
else
  echo "No CUDA toolkit at /usr/local/cuda: the --config=cuda build is not checked here."
fi

# Every parser of bytes from outside the process, fuzzed for a few seconds each from its
# seed corpus (tools/run_fuzzers.sh; docs/RELIABILITY.md). Before the main run as well:
# its --config=fuzz build would otherwise point bazel-testlogs away from the reports the
# summary reads.
fuzz_status=0
stage "fuzzers" tools/run_fuzzers.sh 4 || fuzz_status=1

# The transports, the point-to-point engine, the shared-memory arena and the store
# under AddressSanitizer with UndefinedBehaviorSanitizer and under ThreadSanitizer
# (tools/run_sanitizers.sh says which tests: by default fewer under TSan, --core there
# the same under both). Any report fails the test that made it.
sanitizer_level=()
[ $full -eq 1 ] && sanitizer_level=(--core)
sanitizer_status=0
stage "sanitizers" tools/run_sanitizers.sh "${sanitizer_level[@]}" || sanitizer_status=1

main_filters=(--test_tag_filters=-full)
[ $full -eq 1 ] && main_filters=()
bazel_status=0
stage "bazel test //..." bazel test --keep_going "${main_filters[@]}" //... "$@" || bazel_status=1

format_status=0
stage "format check" tools/check_format.sh || format_status=1

# Includes follow the layer order (docs/ARCHITECTURE.md, "Layers").
layers_status=0
stage "layers check" tools/check_layers.sh || layers_status=1

# The shared-memory transport unlinks its segments at start-up; none may outlive the
# suite, whatever its tests killed.
leftover_status=0
leftovers=$(find /dev/shm -maxdepth 1 -name 'weft-*' 2>/dev/null)
if [ -n "$leftovers" ]; then
  echo "weft segments left in /dev/shm after the tests:"
  echo "$leftovers"
  leftover_status=1
fi

# A real one-node Slurm (munge, slurmctld, slurmd of this machine's own) runs a weft
# program with srun and no other launcher.
slurm_status=0
stage "slurm" tests/slurm/run_slurm_test.sh bazel-bin/tests/rendezvous/launched_program ||
  slurm_status=1

# The installed weft from outside the repository: find_package(weft), pkg-config and
# mpicc build programs that run under the installed weftrun and mpirun.
install_status=0
stage "install" tests/install/run_install_test.sh || install_status=1

# mpi4py, built from its source distribution with weft's mpicc, passes its own test
# suite under weft's mpirun (tests/mpi4py/run_mpi4py_tests.sh says what it leaves out).
# Ranks beyond the cores' count make its suite several times slower: 2 by default.
mpi4py_ranks=(2)
[ $full -eq 1 ] && mpi4py_ranks=(1 2 3 4)
mpi4py_checks=()
for ranks in "${mpi4py_ranks[@]}"; do
  mpi4py_status=0
  stage "mpi4py on $ranks ranks" tests/mpi4py/run_mpi4py_tests.sh "$ranks" || mpi4py_status=1
  mpi4py_checks+=("mpi4py's test suite on $ranks ranks=$mpi4py_status")
done

# weft as a torch.distributed backend: torch from PyPI into .cache/torch (once), weft's
# Python package built against this build, and the pytest suite in tests/python, each
# of its cases counted below.
torch_status=0
torch_level=()
[ $full -eq 1 ] && torch_level=(--full)
stage "torch backend (pytest)" tests/python/run_torch_tests.sh "${torch_level[@]}" ||
  torch_status=1
torch_checks=()
if [ -s .cache/torch/cases ]; then
  mapfile -t torch_checks <.cache/torch/cases
else
  torch_checks=("weft's torch backend: package build and pytest run=$torch_status")
fi

summary_query='tests(//...)'
# attr() matches a list attribute's printed form, "[tag1, tag2]".
[ $full -eq 1 ] || summary_query='tests(//...) except attr(tags, "[\[ ]full[,\]]", //...)'
echo "== run_tests: $((SECONDS - suite_start)) s in all"
tools/summarize_tests.sh --query "$summary_query" "clang-format check=$format_status" \
  "libFuzzer targets, 4 s each (tools/run_fuzzers.sh)=$fuzz_status" \
  "transport, p2p, arena and store tests under ASan+UBSan and TSan (tools/run_sanitizers.sh)=$sanitizer_status" \
  "${mpi4py_checks[@]}" "${torch_checks[@]}" \
  "include order (tools/check_layers.sh)=$layers_status" "${cuda_checks[@]}" \
  "install, find_package(weft) and pkg-config (tests/install/run_install_test.sh)=$install_status" \
  "no weft segment left in /dev/shm=$leftover_status" \
  "srun -n 4 under a real one-node Slurm (tests/slurm/run_slurm_test.sh)=$slurm_status"
summary_status=$?
if [ "$bazel_status" -ne 0 ] || [ "$summary_status" -ne 0 ]; then
  exit 1
fi
