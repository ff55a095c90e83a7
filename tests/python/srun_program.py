"""A torch.distributed program started by srun alone (no torchrun), for
tests/python/run_torch_tests.sh: importing weft.torch gives torch's env:// Slurm's rank,
size and store address. It checks the job with all_reduce and all_gather and prints the
line tests/slurm/run_slurm_test.sh looks for from every rank."""

import os

import torch
import torch.distributed as dist

import weft.torch  # noqa: F401  (registers the backend and reads Slurm's variables)

dist.init_process_group("weft")
rank, size = dist.get_rank(), dist.get_world_size()
assert rank == int(os.environ["SLURM_PROCID"]), (rank, os.environ["SLURM_PROCID"])
assert size == int(os.environ["SLURM_NTASKS"]), (size, os.environ["SLURM_NTASKS"])
total = torch.tensor([rank + 1.0])
dist.all_reduce(total)
assert total.item() == size * (size + 1) / 2, total
gathered = [torch.zeros(1, dtype=torch.int64) for _ in range(size)]
dist.all_gather(gathered, torch.tensor([rank]))
assert [g.item() for g in gathered] == list(range(size)), gathered
dist.destroy_process_group()
print(f"launched_program rank {rank} of {size} ok", flush=True)
