"""Times torch.distributed's collectives over weft and over Gloo, side by side.

    python -m weft.bench                          # 2 and 4 processes, 8 B to 64 MiB
    python -m weft.bench --procs 2 --ops all_reduce --max-bytes 16M

For each process count, each backend runs as its own job of that many processes on
this host (FileStore rendezvous), and in it every op at every size: a few warm-up
calls, then calls for about --seconds each, timed on rank 0 between barriers. The
table gives microseconds per call (mean) and weft's time as a ratio of Gloo's (below 1:
weft is faster). Tensors are float32; "bytes" is the size of each rank's input.
"""

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta

OPS = ["all_reduce", "broadcast", "reduce", "all_gather", "reduce_scatter", "all_to_all"]


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    text = text.strip().upper().rstrip("B") or "0"
    if text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(text)


def sizes_between(low, high):
    """low, 8 low, 64 low, ... up to high, and high itself."""
    sizes, s = [], low
    while s <= high:
        sizes.append(s)
        s *= 8
    if sizes[-1] != high:
        sizes.append(high)
    return sizes


def one_call(op, dist, tensors, size):
    send, recv = tensors
    if op == "all_reduce":
        dist.all_reduce(send)
    elif op == "broadcast":
        dist.broadcast(send, src=0)
    elif op == "reduce":
        dist.reduce(send, dst=0)
    elif op == "all_gather":
        dist.all_gather_into_tensor(recv, send)
    elif op == "reduce_scatter":
        dist.reduce_scatter_tensor(send, recv)  # (output, input): see buffers()
    elif op == "all_to_all":
        dist.all_to_all_single(recv[: send.numel()], send)


def buffers(op, torch, elements, size):
    if op == "all_gather":
        return torch.ones(elements), torch.empty(elements * size)
    if op == "reduce_scatter":
        # reduce_scatter_tensor(output, input): each rank's output is its share of an
        # input `size` times larger; "bytes" is the output's size here.
        return torch.empty(elements), torch.ones(elements * size)
    if op == "all_to_all":
        n = max(size, elements - elements % size)
        return torch.ones(n), torch.empty(n)
    return torch.ones(elements), None


def worker(rank, size, backend, store, ops, sizes, seconds, threads, results):
    import torch
    import torch.distributed as dist

    if backend == "weft":
        import weft.torch  # noqa: F401
    torch.set_num_threads(threads)
    dist.init_process_group(backend, init_method=f"file://{store}", rank=rank, world_size=size,
                            timeout=timedelta(seconds=300))
    for op in ops:
        for nbytes in sizes:
            elements = max(1, nbytes // 4)
            tensors = buffers(op, torch, elements, size)
            for _ in range(5):
                one_call(op, dist, tensors, size)
            # Calls per round: as many as fit in `seconds`, agreed on by all ranks.
            dist.barrier()
            start = time.perf_counter()
            one_call(op, dist, tensors, size)
            estimate = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
            dist.broadcast(estimate, src=0)
            iterations = int(min(10000, max(3, seconds / max(estimate.item(), 1e-7))))
            dist.barrier()
            start = time.perf_counter()
            for _ in range(iterations):
                one_call(op, dist, tensors, size)
            elapsed = time.perf_counter() - start
            if rank == 0:
                results.put((op, nbytes, 1e6 * elapsed / iterations))
    dist.destroy_process_group()
    if rank == 0:
        results.put(None)


def run_job(backend, size, ops, sizes, seconds, threads):
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    timings = {}
    with tempfile.TemporaryDirectory(prefix="weft-bench-") as directory:
        store = os.path.join(directory, "store")
        procs = [context.Process(target=worker, args=(r, size, backend, store, ops, sizes,
                                                      seconds, threads, results))
                 for r in range(size)]
        for p in procs:
            p.start()
        while True:
            item = results.get(timeout=600)
            if item is None:
                break
            op, nbytes, us = item
            timings[(op, nbytes)] = us
            print(f"  {backend} x{size} {op} {nbytes} B: {us:.1f} us", file=sys.stderr, flush=True)
        for p in procs:
            p.join()
            if p.exitcode != 0:
                raise SystemExit(f"{backend} job of {size} processes failed (exit {p.exitcode})")
    return timings


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--procs", default="2,4", help="process counts (default 2,4)")
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--min-bytes", default="8")
    p.add_argument("--max-bytes", default="64M")
    p.add_argument("--seconds", type=float, default=0.3, help="time per op and size (default 0.3)")
    p.add_argument("--rounds", type=int, default=1,
                   help="jobs per backend, alternating; the table gives medians (default 1)")
    p.add_argument("--threads", type=int, default=1, help="torch threads per process")
    args = p.parse_args()
    ops = args.ops.split(",")
    sizes = sizes_between(parse_size(args.min_bytes), parse_size(args.max_bytes))
    import torch

    print(f"# torch.distributed collectives, weft vs. gloo; torch {torch.__version__}, "
          f"float32, mean us per call on rank 0, {args.rounds} round(s) (medians)")
    for size in [int(n) for n in args.procs.split(",")]:
        runs = {"weft": [], "gloo": []}
        for _ in range(args.rounds):
            for backend in ("weft", "gloo"):
                runs[backend].append(run_job(backend, size, ops, sizes, args.seconds, args.threads))
        print(f"\n# {size} processes")
        print(f"# {'op':<15} {'bytes':>10} {'weft_us':>10} {'gloo_us':>10} {'weft/gloo':>10}")
        for op in ops:
            for nbytes in sizes:
                w = statistics.median(r[(op, nbytes)] for r in runs["weft"])
                g = statistics.median(r[(op, nbytes)] for r in runs["gloo"])
                ratios = [a[(op, nbytes)] / b[(op, nbytes)] for a, b in zip(runs["weft"], runs["gloo"])]
                print(f"  {op:<15} {nbytes:>10} {w:>10.1f} {g:>10.1f} {statistics.median(ratios):>10.2f}",
                      flush=True)


if __name__ == "__main__":
    main()
