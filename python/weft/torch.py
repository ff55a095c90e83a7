"""Registers weft with torch.distributed under the name "weft".

With the package installed, torch.distributed finds the backend by itself (through an
entry point); `import weft.torch` registers it explicitly. Then
`init_process_group("weft")` (and `new_group(..., backend="weft")`) run every
collective and point-to-point operation of CPU tensors over weft. Rendezvous goes through the store torch sets up (torchrun's
TCPStore, a FileStore from `file://`, `env://`), so nothing else needs configuring.
Under srun or mpirun without torchrun, importing this module (before
init_process_group) gives torch's env:// the launcher's rank, size and store address.
"""

import os
import socket

import torch.distributed as dist

from weft import _C

# The key, in weftrun's store, under which rank 0 tells the others torch's store port.
_TORCH_PORT_KEY = "weft.torch/master_port"


def _create_backend(options, backend_options=None):
    timeout = options.timeout
    seconds = timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)
    return _C.create_backend(
        options.store,
        options.group_rank,
        options.group_size,
        seconds,
        list(options.global_ranks_in_group),
        options.group_id,
    )


def _give_torch_the_launchers_job():
    """Under srun or mpirun without torchrun, torch's env:// finds none of its variables.
    weft recognises those launchers (Slurm's SLURM_PROCID and node list, Open MPI's
    OMPI_COMM_WORLD_*): RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT are set
    to what weft's own env:// would use, each only where unset. torch's store then runs
    on rank 0's node at a port derived from the job's id. Under MPICH's Hydra (PMI) rank
    0's address is not known before rendezvous: MASTER_ADDR stays unset, and torch says
    so unless the program sets it."""
    if "RANK" in os.environ or "WORLD_SIZE" in os.environ:
        return
    job = _C.launched_job()
    if job is None:
        return
    os.environ["RANK"] = str(job["rank"])
    os.environ["WORLD_SIZE"] = str(job["world_size"])
    os.environ.setdefault("LOCAL_RANK", str(job["local_rank"]))
    if job["store_host"]:
        os.environ.setdefault("MASTER_ADDR", job["store_host"])
    os.environ.setdefault("MASTER_PORT", str(job["store_port"]))


def _give_torch_a_port_under_weftrun():
    """Under weftrun, MASTER_ADDR:MASTER_PORT is weftrun's own store, which speaks weft's
    protocol: torch's env:// would try to host its TCPStore on that port. So rank 0
    takes a free port for torch's store and tells the others through weftrun's store,
    and MASTER_PORT becomes that port (MASTER_ADDR, node 0, stays: rank 0 runs there).
    Under torchrun, or without a launcher, nothing changes."""
    if os.environ.get("WEFT_LAUNCHER_STORE") != "1" or "RANK" not in os.environ:
        return
    host, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
    store = _C.connect_store(host, port, 300.0)
    if int(os.environ["RANK"]) == 0:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("", 0))
            free = s.getsockname()[1]
        store.set(_TORCH_PORT_KEY, str(free))
    else:
        free = int(store.get(_TORCH_PORT_KEY, 300.0))
    os.environ["MASTER_PORT"] = str(free)
    # MASTER_PORT no longer names a weft store: a process started from this one (a
    # multiprocessing child) must not look for one there.
    os.environ.pop("WEFT_LAUNCHER_STORE")


def register():
    """Registers the backend "weft" (once). Importing this module calls it; so does
    torch.distributed itself, through the package's "torch.distributed.backends" entry
    point, when a program names "weft" without importing weft."""
    if "weft" not in dist.Backend.backend_list:
        dist.Backend.register_backend("weft", _create_backend, extended_api=True, devices=["cpu"])


_give_torch_the_launchers_job()
_give_torch_a_port_under_weftrun()
register()

version = _C.weft_version
