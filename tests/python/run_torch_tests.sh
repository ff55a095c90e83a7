#!/usr/bin/env bash
# weft as a torch.distributed backend: installs torch from PyPI into a virtualenv (once;
# kept under .cache/torch), builds weft's Python package (python/) against the test
# suite's build of libweft, and runs the pytest suite in tests/python, which starts its
# own processes (2 and 4 per test) and torchrun jobs; then a program under srun alone.
#
#   tests/python/run_torch_tests.sh [--full] [pytest options]
#
# --full also runs PyTorch's own distributed test suite against weft
# (tests/python/torch_distributed_suite.py says which of it applies), about 12 minutes.
#
# Writes one line per test case, "NAME=STATUS" (0 passed), to .cache/torch/cases, for
# tools/run_tests.sh's summary, and exits non-zero when any case failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
full=0
if [ "${1:-}" = "--full" ]; then
  full=1
  shift
fi
root=$PWD/.cache/torch
prefix=$root/weft
venv=$root/venv
mkdir -p "$root"
rm -f "$root/cases"

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv" || exit 1
fi
# torch is large (with its CUDA libraries, about 3 GB from PyPI): installed once, checked
# by importing it. ninja lets torch's extension build compile its files in parallel.
modules=(torch numpy pytest ninja)
# PyTorch's test helpers need expecttest.
[ $full -eq 1 ] && modules+=(expecttest)
for module in "${modules[@]}"; do
  if ! "$venv/bin/python" -c "import $module" 2>/dev/null; then
    echo "torch tests: installing $module into $venv"
    "$venv/bin/pip" install --quiet "$module" || exit 1
  fi
done

# -c fastbuild: the build the test suite has just made, so nothing is rebuilt.
tools/install.sh "$prefix" -c fastbuild >"$root/install.log" 2>&1 ||
  { cat "$root/install.log"; exit 1; }
# --no-build-isolation: the extension builds against the torch just installed; the
# venv's bin/ on PATH is where torch's build finds ninja.
PATH=$venv/bin:$PATH WEFT_PREFIX=$prefix "$venv/bin/pip" install --quiet --no-build-isolation --force-reinstall \
  --no-deps ./python >"$root/build.log" 2>&1 || { cat "$root/build.log"; exit 1; }

# weftrun, for the test that launches training with it.
export PATH=$prefix/bin:$PATH
# From outside the source tree, so that the installed package is the one imported.
report=$root/report.xml
(cd "$root" && "$venv/bin/python" -m pytest -p no:cacheprovider -q --junitxml="$report" \
  "$OLDPWD/tests/python" "$@")
status=$?
reports=("$report")
if [ $full -eq 1 ]; then
  # A run of its own: pytest collects a file that is not named test_* only when it is
  # given alone.
  suite_report=$root/torch-suite-report.xml
  reports+=("$suite_report")
  (cd "$root" && "$venv/bin/python" -m pytest -p no:cacheprovider -q -rfE \
    --junitxml="$suite_report" "$OLDPWD/tests/python/torch_distributed_suite.py" \
    -k "not test_ddp_logging_data_cpu") || status=1
fi
# srun alone, no torchrun: weft.torch gives torch's env:// Slurm's variables. Under the
# private one-node Slurm of the C++ launcher test (tests/slurm/run_slurm_test.sh), which
# resolves the program's path: env keeps the venv's python as it is named.
echo "torch tests: srun -n 4 python tests/python/srun_program.py"
srun_status=0
tests/slurm/run_slurm_test.sh /usr/bin/env "$venv/bin/python" "$PWD/tests/python/srun_program.py" \
  >"$root/srun.log" 2>&1 || { srun_status=1; status=1; cat "$root/srun.log"; }
tail -n 1 "$root/srun.log"
"$venv/bin/python" - "${reports[@]}" >"$root/cases" <<'PY'
import sys
import xml.etree.ElementTree as ET
for case in (c for r in sys.argv[1:] for c in ET.parse(r).iter("testcase")):
    failed = any(child.tag in ("failure", "error") for child in case)
    skipped = any(child.tag == "skipped" for child in case)
    if not skipped:
        name = f"pytest {case.get('classname')}.{case.get('name')}".replace("=", ":")
        print(f"{name}={1 if failed else 0}")
PY
echo "torch.distributed under srun -n 4 (tests/python/srun_program.py)=$srun_status" >>"$root/cases"
exit $status
