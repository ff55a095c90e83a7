#!/usr/bin/env bash
# Installs the Debian packages weft builds and tests with, when any is missing.
# Idempotent: with everything present it changes nothing and needs no network.
set -euo pipefail

packages=(
  bazel-bootstrap   # the build (Bazel 4.2, works offline with third_party/bazel)
  g++               # the compiler Bazel's C++ toolchain finds
  libgtest-dev      # GoogleTest
  libhwloc-dev      # topology
  libibverbs-dev    # InfiniBand verbs
  clang-format      # the style check
  clang             # the fuzzers (tools/run_fuzzers.sh, --config=fuzz), with libFuzzer
  libclang-rt-14-dev  # and the sanitizers' runtimes (libclang_rt.fuzzer-x86_64.a)
  iproute2          # network namespaces for the multi-host and multicast tests
  openmpi-bin       # mpirun, and mpich's mpiexec.hydra: the launcher tests start weft
  mpich             # programs under them (weft never links either)
  libopenmpi-dev    # Open MPI's mpi.h: the MPI test programs are also built against it,
                    # to show they are valid MPI (weft's own MPI library never uses it)
  python3-venv      # mpi4py's test suite runs on weft from a virtualenv of its own,
  python3-dev       # built from mpi4py's source distribution (tests/mpi4py)
  cmake             # tests/install: a project outside the tree finds the installed weft
  pkg-config        # with find_package(weft) and with pkg-config
)

exec "$(dirname "$0")/install_packages.sh" install_deps "${packages[@]}"
