#!/usr/bin/env bash
# The installed weft, used from outside the repository as its users use it:
#   1. tools/install.sh into a fresh prefix;
#   2. a CMake project (tests/install/consumer, copied out of the tree) finds it with
#      find_package(weft) and links weft::weft and weft::mpi;
#   3. the same programs built with pkg-config (weft.pc, mpi.pc) and with weft's mpicc;
#   4. each runs on 2 ranks under the installed weftrun and mpirun, and weft-info runs.
#
#   tests/install/run_install_test.sh [bazel build options]   (default: -c fastbuild,
#                                                             the test suite's build)
# Prints "install test: passed" or what failed, and exits non-zero on failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
work=$(mktemp -d /tmp/weft-install-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
options=("$@")
[ ${#options[@]} -eq 0 ] && options=(-c fastbuild)

fail() {
  echo "install test: FAILED: $*"
  exit 1
}

prefix=$work/prefix
tools/install.sh "$prefix" "${options[@]}" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "tools/install.sh"; }

# 1. CMake, with nothing but CMAKE_PREFIX_PATH pointing at the install.
cp -r "$repo/tests/install/consumer" "$work/consumer"
cmake -S "$work/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; fail "cmake find_package(weft)"; }
cmake --build "$work/cmake-build" >"$work/cmake-build.log" 2>&1 ||
  { cat "$work/cmake-build.log"; fail "building against weft::weft and weft::mpi"; }

# 2. pkg-config and mpicc.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
mkdir -p "$work/pc"
# shellcheck disable=SC2046  # pkg-config's flags are meant to split
c++ -std=c++20 -o "$work/pc/weft_all_reduce" "$work/consumer/weft_all_reduce.cc" \
  $(pkg-config --cflags --libs weft) || fail "c++ with pkg-config weft"
"$prefix/bin/mpicc" -o "$work/pc/mpi_ring" "$work/consumer/mpi_ring.c" || fail "weft's mpicc"

# 3. Run them from the install, outside the repository.
cd "$work"
for build in cmake-build pc; do
  out=$("$prefix/bin/weftrun" -n 2 --timeout 60 "$work/$build/weft_all_reduce" 2>&1) ||
    { echo "$out"; fail "$build/weft_all_reduce under weftrun"; }
  grep -q "all_reduce sum 3" <<<"$out" || { echo "$out"; fail "$build/weft_all_reduce's result"; }
  out=$("$prefix/bin/mpirun" -n 2 --timeout 60 "$work/$build/mpi_ring" 2>&1) ||
    { echo "$out"; fail "$build/mpi_ring under mpirun"; }
  grep -q "ring token 1" <<<"$out" || { echo "$out"; fail "$build/mpi_ring's result"; }
done
"$prefix/bin/weft-info" --json >"$work/info.json" || fail "weft-info"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/info.json" ||
  fail "weft-info --json is not JSON"
echo "install test: passed (find_package(weft), pkg-config, mpicc; weftrun, mpirun, weft-info)"
