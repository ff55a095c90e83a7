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
  iproute2          # network namespaces for the multi-host tests
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  sudo=(sudo)
fi
echo "install_deps: installing ${missing[*]}"
"${sudo[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${missing[@]}"
