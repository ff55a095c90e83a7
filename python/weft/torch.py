"""Registers weft with torch.distributed under the name "weft".

With the package installed, torch.distributed finds the backend by itself (through an
entry point); `import weft.torch` registers it explicitly. Then
`init_process_group("weft")` (and `new_group(..., backend="weft")`) run every
collective and point-to-point operation of CPU tensors over weft. Rendezvous goes through the store torch sets up (torchrun's
TCPStore, a FileStore from `file://`, `env://`), so nothing else needs configuring.
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


_give_torch_a_port_under_weftrun()
register()

version = _C.weft_version
