#!/usr/bin/env python3
"""Merges the rounds of tools/bench/compare_mpi.sh into one table.

A round is a directory holding, for LIB in openmpi, mpich and weft, LIB.pingpong.json
and LIB.all_reduce.json: mpi_bench's JSON for the two MPIs, weft-bench's for weft, from
runs that followed each other. Per size the table shows the medians over the rounds of
each library's figure and of the per-round ratios weft / Open MPI and weft / MPICH, each
of which pairs runs that saw the same machine:

  latency     half round trip of a blocking ping-pong, µs (mpi_us, weft_us);
              a ratio above 1 means weft is slower
  bandwidth   one-way streaming, GB/s = 10^9 B/s (mpi_gbps, weft_gbps);
              a ratio above 1 means weft is faster
  all_reduce  float32 sum, out of place, µs per call (oop_us);
              a ratio above 1 means weft is slower

`wrong` adds up the wrong bytes (pingpong) or elements (all_reduce, out of place and in
place) of every library and round; the exit status is 1 if it is not 0 everywhere.

usage: compare_table.py [--json OUT] [--weft-transports TEXT] [--weft-link TEXT]
                        ROUND_DIR...
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_rows import by_bytes, fmt, load, median  # noqa: E402  (tools/bench)

LIBRARIES = ("openmpi", "mpich", "weft")
TITLES = {"openmpi": "Open MPI", "mpich": "MPICH", "weft": "weft"}

# name, benchmark file, field per library, wrong fields, unit, decimals, what a ratio
# above 1 means.
METRICS = (
    ("latency_us", "pingpong", {"openmpi": "mpi_us", "mpich": "mpi_us", "weft": "weft_us"},
     ("wrong",), "ping-pong latency, half round trip, µs", 2, "weft is slower"),
    ("bandwidth_gbps", "pingpong",
     {"openmpi": "mpi_gbps", "mpich": "mpi_gbps", "weft": "weft_gbps"}, ("wrong",),
     "streaming bandwidth, GB/s (10^9 B/s)", 3, "weft is FASTER (higher is better)"),
    ("all_reduce_us", "all_reduce", {"openmpi": "oop_us", "mpich": "oop_us", "weft": "oop_us"},
     ("oop_wrong", "ip_wrong"), "all_reduce float32 sum, out of place, µs per call", 2,
     "weft is slower"),
)


def load_round(directory):
    """{(library, benchmark): {bytes: row}} and {library: version} of one round."""
    rows, versions = {}, {}
    for library in LIBRARIES:
        for benchmark in ("pingpong", "all_reduce"):
            path = os.path.join(directory, f"{library}.{benchmark}.json")
            if not os.path.exists(path):
                continue
            document = load(path)
            rows[(library, benchmark)] = by_bytes(document)
            if "library" in document:
                versions[library] = document["library"]
    return rows, versions


def merge(rounds, benchmark, fields, wrong_fields):
    """One row per size: medians over the rounds, and the wrong counts of all of them."""
    sizes = set()
    for rows in rounds:
        for library in LIBRARIES:
            sizes |= set(rows.get((library, benchmark), {}))
    merged = []
    for size in sorted(sizes):
        values = {library: [] for library in LIBRARIES}
        ratios = {"openmpi": [], "mpich": []}
        wrong = 0
        for rows in rounds:
            figure = {}
            for library in LIBRARIES:
                row = rows.get((library, benchmark), {}).get(size)
                if row is None:
                    continue
                figure[library] = row[fields[library]]
                values[library].append(figure[library])
                wrong += sum(row.get(field, 0) for field in wrong_fields)
            for mpi in ratios:
                if "weft" in figure and figure.get(mpi):
                    ratios[mpi].append(figure["weft"] / figure[mpi])
        merged.append({"bytes": size,
                       **{library: median(values[library]) for library in LIBRARIES},
                       "weft_over_openmpi": median(ratios["openmpi"]),
                       "weft_over_mpich": median(ratios["mpich"]), "wrong": wrong})
    return merged


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the merged tables to this file")
    parser.add_argument("--weft-transports", default="default",
                        help="the WEFT_TRANSPORTS the weft runs had, for the header")
    parser.add_argument("--weft-link", default="",
                        help="what weft's log said of its link between the ranks")
    parser.add_argument("rounds", nargs="+", metavar="ROUND_DIR")
    args = parser.parse_args()

    rounds, versions = [], {}
    for directory in args.rounds:
        rows, round_versions = load_round(directory)
        rounds.append(rows)
        for library, version in round_versions.items():
            versions.setdefault(library, version)

    plural = "s" if len(rounds) != 1 else ""
    print(f"# weft vs. Open MPI and MPICH: 2 ranks on this host, medians of {len(rounds)} "
          f"round{plural}")
    for library in ("openmpi", "mpich"):
        print(f"#   {TITLES[library]}: {versions.get(library, 'no runs')}")
    weft = f"WEFT_TRANSPORTS={args.weft_transports}"
    if args.weft_link:
        weft += f"; {args.weft_link}"
    print(f"#   weft: {weft}")
    tables, total_wrong = {}, 0
    for name, benchmark, fields, wrong_fields, title, decimals, above_one in METRICS:
        merged = merge(rounds, benchmark, fields, wrong_fields)
        tables[name] = merged
        if name != "bandwidth_gbps":  # the same pingpong runs as the latency table
            total_wrong += sum(row["wrong"] for row in merged)
        print()
        print(f"# {title}; weft/X above 1 means {above_one}")
        print(f"#{'bytes':>11} {'Open MPI':>10} {'MPICH':>10} {'weft':>10} "
              f"{'weft/OpenMPI':>13} {'weft/MPICH':>11} {'wrong':>6}")
        width = 10
        for row in merged:
            print(f" {row['bytes']:11d} {fmt(row['openmpi'], width, decimals)} "
                  f"{fmt(row['mpich'], width, decimals)} {fmt(row['weft'], width, decimals)} "
                  f"{fmt(row['weft_over_openmpi'], 13)} {fmt(row['weft_over_mpich'], 11)} "
                  f"{row['wrong']:6d}")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"benchmark": "weft_vs_mpi", "ranks": 2, "rounds": len(rounds),
                       "libraries": {"openmpi": versions.get("openmpi"),
                                     "mpich": versions.get("mpich"),
                                     "weft": weft},
                       **tables}, f, indent=2)
            f.write("\n")
    return 1 if total_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
