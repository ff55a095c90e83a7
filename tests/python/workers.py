"""What the ranks of the tests run: each function checks its results against a serial
reference computed on the rank itself (every rank's input is a function of its rank),
and raises on the first difference."""

import os
import time
from datetime import timedelta

import torch
import torch.distributed as dist

REDUCIBLE = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8,
             torch.uint8, torch.int32, torch.int64, torch.bool]
MOVABLE = REDUCIBLE + [torch.int16, torch.complex64]


def contribution(rank, dtype, shape=(3, 5)):
    """Rank r's input: small values, so that sums and products stay exact in every dtype."""
    n = 1
    for d in shape:
        n *= d
    base = torch.arange(n).reshape(shape)
    if dtype == torch.bool:
        return ((base + rank) % 3 == 0)
    if dtype == torch.complex64:
        return (base + rank).to(torch.float32) + 1j * rank
    if dtype in (torch.int8, torch.uint8):
        return ((base + rank) % 4 + 1).to(dtype)
    return ((base + rank) % 5 + 1).to(dtype)


def reference(size, dtype, op, shape=(3, 5)):
    values = [contribution(r, dtype, shape) for r in range(size)]
    if dtype == torch.bool:
        stacked = torch.stack(values)
        if op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.BOR):
            return stacked.any(0)
        if op in (dist.ReduceOp.PRODUCT, dist.ReduceOp.MIN, dist.ReduceOp.BAND):
            return stacked.all(0)
        return (stacked.sum(0) % 2).bool()  # BXOR
    wide = torch.stack([v.to(torch.float64) if v.is_floating_point() else v.to(torch.int64)
                        for v in values])
    if op == dist.ReduceOp.SUM:
        out = wide.sum(0)
    elif op == dist.ReduceOp.PRODUCT:
        out = wide.prod(0)
    elif op == dist.ReduceOp.MIN:
        out = wide.min(0).values
    elif op == dist.ReduceOp.MAX:
        out = wide.max(0).values
    elif op == dist.ReduceOp.AVG:
        out = wide.sum(0) / size
    else:
        out = wide[0].clone()
        for v in wide[1:]:
            out = {dist.ReduceOp.BAND: out & v, dist.ReduceOp.BOR: out | v,
                   dist.ReduceOp.BXOR: out ^ v}[op]
    return out.to(dtype)


def ops_for(dtype):
    ops = [dist.ReduceOp.SUM, dist.ReduceOp.PRODUCT, dist.ReduceOp.MIN, dist.ReduceOp.MAX]
    if dtype.is_floating_point:
        ops.append(dist.ReduceOp.AVG)
    else:
        ops += [dist.ReduceOp.BAND, dist.ReduceOp.BOR, dist.ReduceOp.BXOR]
    return ops


def check(got, want, what):
    if got.dtype != want.dtype or got.shape != want.shape or not torch.equal(got, want):
        raise AssertionError(f"{what}: got {got} want {want}")


def close(got, want, what, tolerance):
    if got.shape != want.shape or not torch.allclose(got.double(), want.double(), rtol=tolerance):
        raise AssertionError(f"{what}: got {got} want {want}")


def reductions(rank, size):
    """all_reduce, reduce, reduce_scatter(_tensor) for every dtype and op, sync and async,
    in place and on non-contiguous tensors."""
    for dtype in REDUCIBLE:
        for op in ops_for(dtype):
            what = f"{dtype} {op}"
            want = reference(size, dtype, op)
            tolerance = 1e-2 if dtype in (torch.float16, torch.bfloat16) else 1e-6
            compare = (lambda g, w, s: close(g, w, s, tolerance)) if op == dist.ReduceOp.AVG \
                else check
            t = contribution(rank, dtype)
            dist.all_reduce(t, op=op)
            compare(t, want, "all_reduce " + what)
            t = contribution(rank, dtype)
            dist.all_reduce(t, op=op, async_op=True).wait()
            compare(t, want, "async all_reduce " + what)
            # A transposed view: weft works on a contiguous copy and writes it back.
            t = contribution(rank, dtype, (5, 3)).t()
            dist.all_reduce(t, op=op)
            compare(t, reference(size, dtype, op, (5, 3)).t(), "non-contiguous all_reduce " + what)
            root = size - 1
            t = contribution(rank, dtype)
            dist.reduce(t, dst=root, op=op)
            if rank == root:
                compare(t, want, "reduce " + what)
            else:
                check(t, contribution(rank, dtype), "reduce leaves non-roots alone " + what)
            # reduce_scatter: rank r's input is a list whose i-th entry is contribution(r)+i.
            inputs = [contribution(rank, dtype) for _ in range(size)]
            out = torch.empty_like(inputs[0])
            dist.reduce_scatter(out, inputs, op=op)
            compare(out, want, "reduce_scatter " + what)
            flat_in = torch.cat([contribution(rank, dtype) for _ in range(size)])
            flat_out = torch.empty_like(contribution(rank, dtype))
            dist.reduce_scatter_tensor(flat_out, flat_in, op=op)
            compare(flat_out, want, "reduce_scatter_tensor " + what)
    # PREMUL_SUM: each input scaled by the factor, then summed.
    t = contribution(rank, torch.float32)
    dist.all_reduce(t, op=dist._make_nccl_premul_sum(2.0))
    close(t, 2 * reference(size, torch.float32, dist.ReduceOp.SUM), "premul_sum", 1e-6)
    # A complex sum is the sum of its parts.
    t = contribution(rank, torch.complex64)
    dist.all_reduce(t)
    want = sum(contribution(r, torch.complex64) for r in range(size))
    close(torch.view_as_real(t), torch.view_as_real(want), "complex sum", 1e-6)
    # Several asynchronous all_reduces in flight at once, completed in any order.
    tensors = [torch.full((1000,), float(rank + i)) for i in range(8)]
    works = [dist.all_reduce(t, async_op=True) for t in tensors]
    for i in reversed(range(8)):
        works[i].wait()
        check(tensors[i], torch.full((1000,), float(sum(r + i for r in range(size)))),
              f"overlapping all_reduce {i}")
    # Futures complete without a wait (DDP's communication hooks chain on them).
    t = torch.ones(10)
    fut = dist.all_reduce(t, async_op=True).get_future()
    check(fut.wait()[0], torch.full((10,), float(size)), "future value")
    return "ok"


def movement(rank, size):
    """broadcast, all_gather(_into_tensor), gather, scatter, all_to_all(_single) for
    every dtype, any shape."""
    for dtype in MOVABLE:
        for shape in [(3, 5), (2, 3, 4), (0,), (1,)]:
            what = f"{dtype} {shape}"
            mine = contribution(rank, dtype, shape)
            everyone = [contribution(r, dtype, shape) for r in range(size)]
            for root in {0, size - 1}:
                t = mine.clone()
                dist.broadcast(t, src=root)
                check(t, everyone[root], f"broadcast from {root} " + what)
            out = [torch.empty_like(mine) for _ in range(size)]
            dist.all_gather(out, mine)
            for r in range(size):
                check(out[r], everyone[r], "all_gather " + what)
            flat = torch.empty((size * mine.numel(),), dtype=dtype)
            dist.all_gather_into_tensor(flat, mine.reshape(-1))
            check(flat, torch.cat([e.reshape(-1) for e in everyone]), "all_gather_into_tensor " + what)
            root = size - 1
            gathered = [torch.empty_like(mine) for _ in range(size)] if rank == root else None
            dist.gather(mine, gathered, dst=root)
            if rank == root:
                for r in range(size):
                    check(gathered[r], everyone[r], "gather " + what)
            pieces = [contribution(r + 10, dtype, shape) for r in range(size)]
            out = torch.empty_like(mine)
            dist.scatter(out, pieces if rank == 0 else None, src=0)
            check(out, pieces[rank], "scatter " + what)
        # all_to_all_single, even: row block j of rank i goes to rank j.
        rows = 2 * size
        sent = contribution(rank, dtype, (rows, 3))
        got = torch.empty_like(sent)
        dist.all_to_all_single(got, sent)
        want = torch.cat([contribution(r, dtype, (rows, 3))[2 * rank:2 * rank + 2]
                          for r in range(size)])
        check(got, want, f"all_to_all_single {dtype}")
        # Uneven splits: rank i sends i+j+1 rows to rank j.
        in_splits = [rank + j + 1 for j in range(size)]
        out_splits = [r + rank + 1 for r in range(size)]
        sent = contribution(rank, dtype, (sum(in_splits), 2))
        got = torch.empty((sum(out_splits), 2), dtype=dtype)
        dist.all_to_all_single(got, sent, out_splits, in_splits)
        parts = []
        for r in range(size):
            theirs = contribution(r, dtype, (sum(r + j + 1 for j in range(size)), 2))
            start = sum(r + j + 1 for j in range(rank))
            parts.append(theirs[start:start + r + rank + 1])
        check(got, torch.cat(parts), f"all_to_all_single with splits {dtype}")
        # all_to_all of lists, sizes varying by pair.
        sent = [contribution(rank * 10 + j, dtype, (rank + j + 1,)) for j in range(size)]
        got = [torch.empty((r + rank + 1,), dtype=dtype) for r in range(size)]
        dist.all_to_all(got, sent)
        for r in range(size):
            check(got[r], contribution(r * 10 + rank, dtype, (r + rank + 1,)), f"all_to_all {dtype}")
    dist.barrier()
    objects = [None] * size
    dist.all_gather_object(objects, {"rank": rank, "name": f"r{rank}"})
    if objects != [{"rank": r, "name": f"r{r}"} for r in range(size)]:
        raise AssertionError(f"all_gather_object: {objects}")
    items = [f"from {rank}", rank] if rank == 1 else [None, None]
    dist.broadcast_object_list(items, src=1)
    if items != ["from 1", 1]:
        raise AssertionError(f"broadcast_object_list: {items}")
    return "ok"


def point_to_point(rank, size):
    """send/recv in a ring, isend/irecv overlapping, and receives from any source."""
    right, left = (rank + 1) % size, (rank - 1) % size
    for dtype in MOVABLE:
        t = contribution(rank, dtype, (7,))
        got = torch.empty_like(t)
        reqs = [dist.isend(t, right, tag=3), dist.irecv(got, left, tag=3)]
        for r in reqs:
            r.wait()
        check(got, contribution(left, dtype, (7,)), f"ring {dtype}")
    # Blocking send/recv with a non-contiguous destination.
    if rank == 0:
        for peer in range(1, size):
            dist.send(torch.arange(12.).reshape(3, 4) * peer, peer)
    else:
        got = torch.empty(4, 3).t()
        dist.recv(got, 0)
        check(got, torch.arange(12.).reshape(3, 4) * rank, "recv into a non-contiguous tensor")
    # A wait with a timeout that passes raises, and leaves the receive pending: once the
    # message is sent, waiting again completes it.
    if rank == 0:
        got = torch.zeros(3)
        work = dist.irecv(got, 1, tag=9)
        start = time.monotonic()
        try:
            work.wait(timeout=timedelta(milliseconds=300))
            raise AssertionError("wait returned before anything was sent")
        except RuntimeError as e:
            if "timed out" not in str(e) or time.monotonic() - start > 10:
                raise
        if work.is_completed():
            raise AssertionError("is_completed before the message was sent")
        dist.barrier()
        work.wait()
        check(got, torch.full((3,), 9.0), "recv after a timed-out wait")
    else:
        dist.barrier()
        if rank == 1:
            dist.send(torch.full((3,), 9.0), 0, tag=9)
    # Any source: rank 0 hears from everyone, learning who sent each message.
    if rank == 0:
        heard = set()
        for _ in range(size - 1):
            got = torch.empty(2)
            source = dist.recv(got)
            check(got, torch.full((2,), float(source)), "recv from any source")
            heard.add(source)
        if heard != set(range(1, size)):
            raise AssertionError(f"heard from {heard}")
    else:
        dist.send(torch.full((2,), float(rank)), 0)
    return "ok"


def subgroups(rank, size):
    """Groups of some ranks: their collectives, group ranks as c10d passes them, and the
    world still working beside them."""
    odd = dist.new_group([r for r in range(size) if r % 2 == 1])
    tail = dist.new_group(list(range(1, size)))
    world_again = dist.new_group()
    if rank % 2 == 1:
        t = torch.tensor([float(rank)])
        dist.all_reduce(t, group=odd)
        check(t, torch.tensor([float(sum(r for r in range(size) if r % 2 == 1))]), "odd all_reduce")
        t = torch.tensor([float(rank)])
        last_odd = max(r for r in range(size) if r % 2 == 1)
        dist.broadcast(t, src=last_odd, group=odd)  # a global rank, as torch passes it
        check(t, torch.tensor([float(last_odd)]), "odd broadcast")
    if rank >= 1:
        objects = [None] * (size - 1)
        dist.all_gather_object(objects, rank, group=tail)
        if objects != list(range(1, size)):
            raise AssertionError(f"tail all_gather_object: {objects}")
        if rank == 1:
            dist.send(torch.tensor([42.]), size - 1, group=tail)
        if rank == size - 1:
            got = torch.empty(1)
            dist.recv(got, 1, group=tail)
            check(got, torch.tensor([42.]), "send within a subgroup")
    t = torch.ones(3)
    dist.all_reduce(t, group=world_again)
    check(t, torch.full((3,), float(size)), "new_group() of everyone")
    t = torch.ones(3)
    dist.all_reduce(t)
    check(t, torch.full((3,), float(size)), "world after subgroups")
    return "ok"


def bad_arguments(rank, size):
    """Refusals name the operation and the rank, and the job goes on after them."""
    failures = []
    try:
        dist.all_reduce(torch.ones(3, dtype=torch.int16))
    except ValueError as e:
        failures.append(str(e))
    try:
        dist.all_gather_into_tensor(torch.empty(size * 3 + 1), torch.ones(3))
    except ValueError as e:
        failures.append(str(e))
    try:
        dist.all_reduce(torch.ones(3, dtype=torch.bool), op=dist.ReduceOp.AVG)
    except ValueError as e:
        failures.append(str(e))
    if len(failures) != 3:
        raise AssertionError(f"expected 3 refusals, got {failures}")
    for f in failures:
        if f"rank {rank}" not in f or "weft" not in f:
            raise AssertionError(f"refusal without the rank or the backend: {f}")
    t = torch.ones(2)
    dist.all_reduce(t)
    check(t, torch.full((2,), float(size)), "all_reduce after refusals")
    return failures


def peer_dies(rank, size):
    """Rank 1 exits without a word; the others' next collective fails, naming it, well
    within the timeout."""
    t = torch.ones(4)
    dist.all_reduce(t)
    if rank == 1:
        os._exit(0)
    start = time.monotonic()
    try:
        dist.all_reduce(torch.ones(1 << 16))
    except RuntimeError as e:
        return (type(e).__name__, str(e), time.monotonic() - start)
    raise AssertionError("all_reduce succeeded with rank 1 gone")
