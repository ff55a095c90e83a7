"""weft: a communication library for tensors, here as a torch.distributed backend.

    import weft.torch                       # registers the backend "weft"
    torch.distributed.init_process_group("weft")
"""

__all__ = ["torch"]
