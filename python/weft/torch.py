"""Registers weft with torch.distributed under the name "weft".

After `import weft.torch`, `torch.distributed.init_process_group("weft")` (and
`new_group(..., backend="weft")`) run every collective and point-to-point operation of
CPU tensors over weft. Rendezvous goes through the store torch sets up (torchrun's
TCPStore, a FileStore from `file://`, `env://`), so nothing else needs configuring.
"""

import torch.distributed as dist

from weft import _C


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


if "weft" not in dist.Backend.backend_list:
    dist.Backend.register_backend("weft", _create_backend, extended_api=True, devices=["cpu"])

version = _C.weft_version
