"""Runs one function on N processes that form a torch.distributed job over weft.

Each process joins through a FileStore in a fresh directory, runs `fn(rank, size,
*args)`, and leaves; the parent fails the test with every rank's traceback when any
rank fails, and kills what is left after `timeout` seconds, so a hang is a failure
rather than a stuck suite.
"""

import multiprocessing
import os
import tempfile
import traceback
from datetime import timedelta


def _entry(fn, rank, size, store_path, backend, args, results):
    try:
        import torch.distributed as dist

        import weft.torch  # noqa: F401  (registers the backend)

        dist.init_process_group(
            backend,
            init_method=f"file://{store_path}",
            rank=rank,
            world_size=size,
            timeout=timedelta(seconds=60),
        )
        value = fn(rank, size, *args)
        if dist.is_initialized():
            dist.destroy_process_group()
        results.put((rank, "ok", value))
    except BaseException:  # report everything, SystemExit included
        results.put((rank, "error", traceback.format_exc()))
        raise


def run(fn, size, *args, backend="weft", timeout=120, may_vanish=()):
    """Returns the list of fn's return values by rank (None for a rank in `may_vanish`,
    which is allowed to exit without reporting); raises AssertionError naming the ranks
    that failed (with their tracebacks) or did not finish."""
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    with tempfile.TemporaryDirectory(prefix="weft-torch-") as directory:
        store = os.path.join(directory, "store")
        procs = [
            context.Process(target=_entry, args=(fn, r, size, store, backend, args, results))
            for r in range(size)
        ]
        for p in procs:
            p.start()
        outcomes = {}
        try:
            for _ in range(size - len(may_vanish)):
                rank, status, value = results.get(timeout=timeout)
                outcomes[rank] = (status, value)
        except Exception:  # queue.Empty: some rank hangs or died without a word
            pass
        finally:
            for p in procs:
                p.join(timeout=5)
                if p.is_alive():
                    p.kill()
                    p.join()
    failed = {r: v for r, (s, v) in outcomes.items() if s != "ok"}
    missing = [r for r in range(size) if r not in outcomes and r not in may_vanish]
    if failed or missing:
        report = "".join(f"\n--- rank {r} ---\n{tb}" for r, tb in sorted(failed.items()))
        raise AssertionError(
            f"ranks failed: {sorted(failed)}; did not finish in {timeout} s: {missing}{report}"
        )
    return [outcomes[r][1] if r in outcomes else None for r in range(size)]
