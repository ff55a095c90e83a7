#!/usr/bin/env python3
"""Merges the rounds of tools/bench/compare_small.sh into tables.

Each round directory holds, per library L (openmpi, then the weft builds):
  L.mpi_pingpong.json, L.mpi_all_reduce.json   mpi_bench (mpi_us, mpi_gbps, oop_us)
  L.osu_latency.txt, L.osu_bw.txt, L.osu_mbw_mr.txt   the OSU programs' own output
and per weft build W:
  W.api_pingpong.json, W.api_all_reduce.json   weft-bench on shared memory
  W.tcp_pingpong.json                          weft-bench over TCP (baseline: a raw socket)

Per size every table shows the median over the rounds of each column, and the median
of the per-round ratios to the reference column (Open MPI, or the raw socket), each of
which pairs runs that followed each other. A column that a round lacks is left out of
that round.

usage: small_table.py --libraries openmpi W [W...] -- ROUND_DIR...
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_rows import by_bytes, fmt, load, median  # noqa: E402  (tools/bench)


def json_rows(directory, name):
    path = os.path.join(directory, name)
    return by_bytes(load(path)) if os.path.exists(path) else {}


def osu_rows(directory, name, column):
    """{bytes: value} from an OSU program's table (its `column`-th number after the size)."""
    path = os.path.join(directory, name)
    rows = {}
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) > column and fields[0].isdigit():
                try:
                    rows[int(fields[0])] = {"value": float(fields[column])}
                except ValueError:
                    pass
    return rows


def table(title, better, rounds, columns, reference, decimals=2):
    """columns: [(heading, loader(directory) -> {bytes: value})]; ratios to `reference`."""
    per_round = [{heading: load_fn(d) for heading, load_fn in columns} for d in rounds]
    sizes = sorted({b for r in per_round for c in r.values() for b in c})
    if not sizes:
        return
    headings = [h for h, _ in columns]
    others = [h for h in headings if h != reference]
    print(f"\n# {title}; ratio = X / {reference}, above 1 means {better}")
    print("# " + f"{'bytes':>8}" + "".join(f"{h:>14}" for h in headings) +
          "".join(f"{h + '/' + reference:>22}" for h in others))
    for size in sizes:
        values = {h: [r[h][size] for r in per_round if size in r[h]] for h in headings}
        line = f"  {size:>8}" + "".join(fmt(median(values[h]), 14, decimals) for h in headings)
        for h in others:
            ratios = [r[h][size] / r[reference][size] for r in per_round
                      if size in r[h] and size in r[reference] and r[reference][size] > 0]
            line += fmt(median(ratios), 22, 3)
        print(line)


def field(name, key):
    return lambda d: {b: row[key] for b, row in json_rows(d, name).items() if key in row}


def osu(name, column):
    return lambda d: {b: row["value"] for b, row in osu_rows(d, name, column).items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--libraries", nargs="+", required=True)
    parser.add_argument("rounds", nargs="+")
    args = parser.parse_args()
    reference, wefts = args.libraries[0], args.libraries[1:]
    rounds = args.rounds
    every = args.libraries

    table("MPI ping-pong latency (mpi_bench), half round trip, µs", "slower", rounds,
          [(l, field(f"{l}.mpi_pingpong.json", "mpi_us")) for l in every], reference)
    table("MPI streaming bandwidth (mpi_bench, window 64), GB/s", "FASTER", rounds,
          [(l, field(f"{l}.mpi_pingpong.json", "mpi_gbps")) for l in every], reference, 4)
    table("MPI all_reduce float32 sum (mpi_bench), out of place, µs", "slower", rounds,
          [(l, field(f"{l}.mpi_all_reduce.json", "oop_us")) for l in every], reference)
    table("osu_latency, µs", "slower", rounds,
          [(l, osu(f"{l}.osu_latency.txt", 1)) for l in every], reference)
    table("osu_bw, MB/s", "FASTER", rounds, [(l, osu(f"{l}.osu_bw.txt", 1)) for l in every],
          reference, 1)
    table("osu_mbw_mr, messages/s", "FASTER", rounds,
          [(l, osu(f"{l}.osu_mbw_mr.txt", 2)) for l in every], reference, 0)
    # weft's own API against Open MPI's MPI figures of the same round.
    table("weft API ping-pong (weft-bench) against Open MPI's MPI, µs", "slower", rounds,
          [(reference, field(f"{reference}.mpi_pingpong.json", "mpi_us"))] +
          [(w, field(f"{w}.api_pingpong.json", "weft_us")) for w in wefts], reference)
    table("weft API streaming (weft-bench, window 64) against Open MPI's MPI, GB/s", "FASTER",
          rounds, [(reference, field(f"{reference}.mpi_pingpong.json", "mpi_gbps"))] +
          [(w, field(f"{w}.api_pingpong.json", "weft_gbps")) for w in wefts], reference, 4)
    table("weft API all_reduce (weft-bench) against Open MPI's MPI, µs", "slower", rounds,
          [(reference, field(f"{reference}.mpi_all_reduce.json", "oop_us"))] +
          [(w, field(f"{w}.api_all_reduce.json", "oop_us")) for w in wefts], reference)
    for w in wefts:
        table(f"{w} over TCP against a raw socket, ping-pong µs", "slower", rounds,
              [("raw", field(f"{w}.tcp_pingpong.json", "baseline_us")),
               (w, field(f"{w}.tcp_pingpong.json", "weft_us"))], "raw")
        table(f"{w} over TCP against a raw socket, streaming GB/s", "FASTER", rounds,
              [("raw", field(f"{w}.tcp_pingpong.json", "baseline_gbps")),
               (w, field(f"{w}.tcp_pingpong.json", "weft_gbps"))], "raw", 4)


if __name__ == "__main__":
    main()
