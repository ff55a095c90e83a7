"""DistributedDataParallel training of a small MLP on synthetic data, over torch.distributed.

    torchrun --nproc-per-node 4 examples/ddp_train.py --backend weft
    torchrun --nproc-per-node 4 examples/ddp_train.py --backend gloo     # to compare

The data is generated here from a fixed seed (no download): a random linear teacher
labels random inputs. Each rank trains on its own shard; DDP averages the gradients
with all_reduce every step. Rank 0 prints the loss now and then, the mean step time at
the end, and (with --save) every rank writes its final parameters, which must agree.
"""

import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backend", default="weft", help="weft, gloo, ... (default: weft)")
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--batch", type=int, default=32, help="samples per rank per step")
    p.add_argument("--width", type=int, default=1024, help="hidden width of the MLP")
    p.add_argument("--layers", type=int, default=4, help="hidden layers")
    p.add_argument("--bucket-mb", type=float, default=25, help="DDP's bucket_cap_mb")
    p.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    p.add_argument("--save", help="write each rank's final parameters to SAVE.rank<N>.pt")
    p.add_argument("--quiet", action="store_true")
    return p.parse_args()


def model(width, layers, features=64, classes=10):
    blocks = [nn.Linear(features, width), nn.ReLU()]
    for _ in range(layers - 1):
        blocks += [nn.Linear(width, width), nn.ReLU()]
    blocks.append(nn.Linear(width, classes))
    return nn.Sequential(*blocks)


def main():
    args = parse_args()
    if args.backend == "weft":
        # Registers the backend; under srun, mpirun or weftrun, also gives torch's
        # env:// the launcher's rank, size and store address.
        import weft.torch  # noqa: F401
    torch.set_num_threads(args.threads)
    dist.init_process_group(args.backend)
    rank, size = dist.get_rank(), dist.get_world_size()

    torch.manual_seed(0)  # the same initial model on every rank (DDP broadcasts it too)
    net = DistributedDataParallel(model(args.width, args.layers), bucket_cap_mb=args.bucket_mb)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    data = torch.Generator().manual_seed(1234 + rank)  # this rank's shard
    teacher = torch.Generator().manual_seed(99)
    labeller = torch.randn(64, 10, generator=teacher)

    times = []
    for step in range(args.steps):
        x = torch.randn(args.batch, 64, generator=data)
        y = (x @ labeller).argmax(dim=1)
        start = time.perf_counter()
        optimizer.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        optimizer.step()
        times.append(time.perf_counter() - start)
        if rank == 0 and not args.quiet and (step % 10 == 0 or step == args.steps - 1):
            print(f"step {step:4d}  loss {loss.item():.4f}", flush=True)

    # The first steps include DDP's set-up; the mean is over the rest.
    settled = times[min(5, len(times) - 1):]
    mean_ms = 1000 * sum(settled) / len(settled)
    if rank == 0:
        params = sum(p.numel() for p in net.parameters())
        print(f"backend {args.backend}: {size} ranks, {params} parameters "
              f"({4 * params / 2**20:.1f} MiB of gradients per step), "
              f"mean step {mean_ms:.2f} ms over steps {len(times) - len(settled)}..{len(times) - 1}",
              flush=True)
    if args.save:
        torch.save([p.detach().clone() for p in net.parameters()], f"{args.save}.rank{rank}.pt")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
