"""DistributedDataParallel over weft, launched by torchrun (its c10d rendezvous and
TCPStore), against the same training over Gloo."""

import os
import shutil
import subprocess
import sys

import pytest

import torch

import weft

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(REPO, "examples", "ddp_train.py")


def training_environment():
    env = dict(os.environ)
    # The weft package these tests import (installed, or built in place), for the
    # launched processes too.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(weft.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in [package_root, env.get("PYTHONPATH", "")] if p)
    return env


def train(backend, procs, save):
    env = training_environment()
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone",
               f"--nproc-per-node={procs}", EXAMPLE, "--backend", backend, "--steps", "12",
               "--width", "256", "--layers", "3", "--bucket-mb", "0.25", "--save", save,
               "--quiet"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"backend {backend}: {procs} ranks" in done.stdout, done.stdout
    return [torch.load(f"{save}.rank{r}.pt") for r in range(procs)]


def assert_identical(a, b, what):
    assert len(a) == len(b)
    for i, (x, y) in enumerate(zip(a, b)):
        assert torch.equal(x, y), f"{what}: parameter {i} differs by {(x - y).abs().max()}"


def test_ddp_over_weft_equals_gloo_bitwise_at_2_processes(tmp_path):
    # With two ranks each sum is a + b on both backends, so training is bitwise the same.
    weft = train("weft", 2, str(tmp_path / "weft"))
    gloo = train("gloo", 2, str(tmp_path / "gloo"))
    assert_identical(weft[0], weft[1], "weft's ranks")
    assert_identical(weft[0], gloo[0], "weft against gloo")


def test_ddp_over_weft_at_4_processes_agrees_across_ranks_and_with_gloo(tmp_path):
    weft = train("weft", 4, str(tmp_path / "weft"))
    gloo = train("gloo", 4, str(tmp_path / "gloo"))
    for r in range(1, 4):
        assert_identical(weft[0], weft[r], f"weft's rank 0 and rank {r}")
    # Four-way sums may associate differently in the two backends: close, not equal.
    for i, (x, y) in enumerate(zip(weft[0], gloo[0])):
        assert torch.allclose(x, y, rtol=1e-5, atol=1e-6), f"parameter {i}: {(x - y).abs().max()}"


def test_ddp_under_weftrun():
    # weftrun's MASTER_PORT is its own store; weft.torch finds torch a port through it.
    weftrun = shutil.which("weftrun")
    if weftrun is None:
        pytest.skip("weftrun is not on PATH (run_torch_tests.sh puts weft's install there)")
    command = [weftrun, "-n", "2", "--timeout", "240", sys.executable, EXAMPLE, "--backend",
               "weft", "--steps", "6", "--width", "64", "--layers", "2", "--quiet"]
    done = subprocess.run(command, env=training_environment(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "backend weft: 2 ranks" in done.stdout, done.stdout


PURE_TORCH = """
import sys

import torch
import torch.distributed as dist

dist.init_process_group("weft")  # no import of weft: torch finds it by its entry point
t = torch.ones(4) * (dist.get_rank() + 1)
dist.all_reduce(t)
with open(f"{sys.argv[1]}.rank{dist.get_rank()}", "w") as out:
    out.write(f"{dist.get_backend()} {t.tolist()}")
dist.destroy_process_group()
"""


def test_a_script_that_only_names_the_backend(tmp_path):
    from importlib.metadata import entry_points

    if not any(e.name == "weft" for e in entry_points(group="torch.distributed.backends")):
        pytest.skip("weft is not installed as a package (built in place): no entry point")
    script = tmp_path / "pure_torch.py"
    script.write_text(PURE_TORCH)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone",
               "--nproc-per-node=2", str(script), str(tmp_path / "result")]
    done = subprocess.run(command, env=training_environment(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    for rank in range(2):
        assert (tmp_path / f"result.rank{rank}").read_text() == "weft [3.0, 3.0, 3.0, 3.0]"
