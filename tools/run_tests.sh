#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds everything, runs every test
# and the style check, and ends with the line "N passed, N failed" (test cases, not
# targets). Exits non-zero when anything failed. Extra arguments go to `bazel test`.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh || exit 1

# With the CUDA toolkit present: the build with --config=cuda (nvcc, the static
# cudart) and its GPU tests, which skip without a GPU, saying why. Run first, so that
# the summary below reads the default build's test reports.
cuda_checks=()
if [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda_status=0
  bazel build --config=cuda //... && bazel test --config=cuda \
    //tests/cuda/runtime:all //tests/cuda:gpu_collectives_test //tests/cuda:refused_without_device_test ||
    cuda_status=1
  cuda_checks=("bazel build --config=cuda //... and its GPU tests=$cuda_status")
else
  echo "No CUDA toolkit at /usr/local/cuda: the --config=cuda build is not checked here."
fi

# Every parser of bytes from outside the process, fuzzed for a few seconds each from its
# seed corpus (tools/run_fuzzers.sh; docs/RELIABILITY.md). Before the main run as well:
# its --config=fuzz build would otherwise point bazel-testlogs away from the reports the
# summary reads.
fuzz_status=0
tools/run_fuzzers.sh 4 || fuzz_status=1

# The transports, the point-to-point engine, the shared-memory arena and the store
# under AddressSanitizer with UndefinedBehaviorSanitizer, and under ThreadSanitizer
# (tools/run_sanitizers.sh says which tests; --full there adds the collectives, the MPI
# programs and the runtime). Any report fails the test that made it.
sanitizer_status=0
tools/run_sanitizers.sh || sanitizer_status=1

bazel test --keep_going //... "$@"
bazel_status=$?

format_status=0
tools/check_format.sh || format_status=1

# Includes follow the layer order (docs/ARCHITECTURE.md, "Layers").
layers_status=0
tools/check_layers.sh || layers_status=1

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
tests/slurm/run_slurm_test.sh bazel-bin/tests/rendezvous/launched_program || slurm_status=1

# The installed weft from outside the repository: find_package(weft), pkg-config and
# mpicc build programs that run under the installed weftrun and mpirun.
install_status=0
tests/install/run_install_test.sh || install_status=1

# mpi4py, built from its source distribution with weft's mpicc, passes its own test
# suite under weft's mpirun (tests/mpi4py/run_mpi4py_tests.sh says what it leaves out).
mpi4py_checks=()
for ranks in 1 2 3 4; do
  mpi4py_status=0
  tests/mpi4py/run_mpi4py_tests.sh "$ranks" || mpi4py_status=1
  mpi4py_checks+=("mpi4py's test suite on $ranks ranks=$mpi4py_status")
done

tools/summarize_tests.sh "clang-format check=$format_status" \
  "libFuzzer targets, 4 s each (tools/run_fuzzers.sh)=$fuzz_status" \
  "transport, p2p, arena and store tests under ASan+UBSan and TSan (tools/run_sanitizers.sh)=$sanitizer_status" \
  "${mpi4py_checks[@]}" \
  "include order (tools/check_layers.sh)=$layers_status" "${cuda_checks[@]}" \
  "install, find_package(weft) and pkg-config (tests/install/run_install_test.sh)=$install_status" \
  "no weft segment left in /dev/shm=$leftover_status" \
  "srun -n 4 under a real one-node Slurm (tests/slurm/run_slurm_test.sh)=$slurm_status"
summary_status=$?
if [ "$bazel_status" -ne 0 ] || [ "$summary_status" -ne 0 ]; then
  exit 1
fi
