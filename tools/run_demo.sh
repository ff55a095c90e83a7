#!/usr/bin/env bash
# The demo: installs what is missing, builds weft, and runs 4 ranks on this machine
# exchanging tensors under weftrun. Extra arguments go to weftrun (e.g. -n 8).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install_deps.sh
bazel build //tools/weftrun:weftrun //tools/demo:weft-demo
if [ $# -eq 0 ]; then
  set -- -n 4
fi
exec bazel-bin/tools/weftrun/weftrun "$@" bazel-bin/tools/demo/weft-demo
