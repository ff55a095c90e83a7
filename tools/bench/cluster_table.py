#!/usr/bin/env python3
"""Merges the rounds of tools/bench/compare_cluster.sh into one table per collective.

A round is a directory holding, for COLLECTIVE, weft.COLLECTIVE.json (weft-bench),
openmpi.COLLECTIVE.json (mpi_bench under Open MPI) and, for all_reduce, gloo.all_reduce.json
(gloo_allreduce), from runs that followed each other. Per size the table shows the
medians over the rounds of each library's µs per call (weft and Open MPI out of place,
Gloo's algorithms in place) and of the per-round ratios weft / Open MPI and weft / Gloo,
each pairing runs that saw the same machine; a ratio below 1 means weft is faster. A
round may also hold weft_flat.COLLECTIVE.json (weft with a flat algorithm forced,
compare_cluster.sh --flat): then weft / flat is shown too. `wrong` adds up the wrong elements of every library
and round; the exit status is 1 if it is not 0.

usage: cluster_table.py COLLECTIVE ROUND_DIR...
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_rows import by_bytes, fmt, load, median  # noqa: E402  (tools/bench)

# library, file prefix, field of its time, fields of its wrong counts
LIBRARIES = (("weft", "weft", "oop_us", ("oop_wrong", "ip_wrong")),
             ("openmpi", "openmpi", "oop_us", ("oop_wrong", "ip_wrong")),
             ("gloo", "gloo", "gloo_us", ("wrong",)))
FIELD = {name: field for name, _, field, _ in LIBRARIES}


def main(collective, rounds):
    def path(directory, prefix):
        return os.path.join(directory, f"{prefix}.{collective}.json")

    times = {}   # (library, bytes) -> [us per round]
    ratios = {}  # (other, bytes) -> [weft / other per round]
    wrong = 0
    flat = all(os.path.exists(path(d, "weft_flat")) for d in rounds)
    for directory in rounds:
        rows = {name: by_bytes(load(path(directory, prefix)))
                for name, prefix, _, _ in LIBRARIES if os.path.exists(path(directory, prefix))}
        for name, _, field, wrong_fields in LIBRARIES:
            for size, row in rows.get(name, {}).items():
                times.setdefault((name, size), []).append(row[field])
                wrong += sum(int(row.get(w, 0)) for w in wrong_fields)
        if flat:
            rows["flat"] = by_bytes(load(path(directory, "weft_flat")))
            for size, row in rows["flat"].items():
                times.setdefault(("flat", size), []).append(row["oop_us"])
                wrong += int(row.get("oop_wrong", 0)) + int(row.get("ip_wrong", 0))
                if size in rows["weft"]:
                    ratios.setdefault(("flat", size), []).append(
                        rows["weft"][size]["oop_us"] / row["oop_us"])
        for size, row in rows["weft"].items():
            for other in ("openmpi", "gloo"):
                if size in rows.get(other, {}):
                    ratio = row["oop_us"] / rows[other][size][FIELD[other]]
                    ratios.setdefault((other, size), []).append(ratio)
    sizes = sorted({size for (_, size) in times})
    print(f"# {'bytes':>10} {'weft_us':>11} {'openmpi_us':>11} {'gloo_us':>11} "
          f"{'weft/OpenMPI':>12} {'weft/Gloo':>10}"
          + (f" {'flat_us':>11} {'weft/flat':>10}" if flat else ""))
    for size in sizes:
        line = (f"  {size:>10} {fmt(median(times.get(('weft', size), [])), 11)} "
                f"{fmt(median(times.get(('openmpi', size), [])), 11)} "
                f"{fmt(median(times.get(('gloo', size), [])), 11)} "
                f"{fmt(median(ratios.get(('openmpi', size), [])), 12)} "
                f"{fmt(median(ratios.get(('gloo', size), [])), 10)}")
        if flat:
            line += (f" {fmt(median(times.get(('flat', size), [])), 11)} "
                     f"{fmt(median(ratios.get(('flat', size), [])), 10)}")
        print(line)
    print(f"# wrong elements, every library and round: {wrong}")
    return 1 if wrong else 0


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
