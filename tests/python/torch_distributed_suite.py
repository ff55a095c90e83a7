"""PyTorch's own distributed test suite (torch.testing._internal.distributed's
DistributedTest, the class behind torch's test_distributed_spawn.py) run against weft:
every test of it that applies to a CPU backend of this name. Tests that its decorators
keep to named backends (gloo, nccl, mpi) skip themselves, saying which.

Run by `tests/python/run_torch_tests.sh --full` (about 12 minutes on 2 cores):

    BACKEND=weft WORLD_SIZE=2 pytest tests/python/torch_distributed_suite.py

Left out (-k in run_torch_tests.sh): test_ddp_logging_data_cpu, which expects DDP's
log to name the backend, while torch logs every third-party backend as "custom".
"""

import os
import sys

os.environ.setdefault("BACKEND", "weft")
os.environ.setdefault("WORLD_SIZE", "2")
os.environ.setdefault("INIT_METHOD", "env://")
os.environ.setdefault("TEMP_DIR", os.path.join(os.environ.get("TMPDIR", "/tmp"), "weft-torch-suite"))
os.makedirs(os.environ["TEMP_DIR"], exist_ok=True)

import torch  # noqa: E402
import weft.torch  # noqa: E402,F401  (registers the backend, in the spawned ranks too)
from torch.testing._internal.common_distributed import DistTestCases  # noqa: E402

# The features weft has on the CPU: DDP, subgroups, and being a plugin backend.
for feature in ("ddp", "subgroup", "plugin"):
    DistTestCases.backend_feature[feature].add("weft")

from torch.testing._internal.common_utils import run_tests  # noqa: E402
from torch.testing._internal.distributed.distributed_test import (  # noqa: E402
    DistributedTest,
    TestDistBackend,
)


class TestWeftWithSpawn(TestDistBackend, DistributedTest._DistTestBase):
    def setUp(self):
        super().setUp()
        self._spawn_processes()
        torch.backends.cudnn.flags(enabled=True, allow_tf32=False).__enter__()


if __name__ == "__main__":
    run_tests()
