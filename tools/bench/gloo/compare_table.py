#!/usr/bin/env python3
"""Merges the rounds of tools/bench/compare_gloo.sh into one table.

A round is one run of each Gloo algorithm and the weft run right after them. Per size,
a round's Gloo figure is its fastest algorithm's, and its ratio compares that with the
weft run that saw the same machine; the table shows the medians over rounds of both
figures and of those ratios, and the algorithm that was fastest in most rounds. weft's
figure is, unless --weft-column says otherwise, the one that reduces the way the Gloo
algorithms do: ip_us against the in-place algorithm classes, oop_us against
gloo::allreduce.

usage: compare_table.py [--weft-column auto|oop_us|ip_us] [--json OUT]
                        GLOO.json[,GLOO.json...][:WEFT.json]...
"""

import argparse
import collections
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench_rows import by_bytes, fmt, load, median  # noqa: E402  (tools/bench)

WRONG_FIELD = {"oop_us": "oop_wrong", "ip_us": "ip_wrong"}


def merge(rounds, column):
    """One row per size: medians over the rounds, and the wrong elements of all of them.

    rounds: [( {algorithm: {bytes: gloo row}}, {bytes: weft row} ), ...]
    """
    sizes = set()
    for glooes, weft in rounds:
        sizes |= set(weft)
        for rows in glooes.values():
            sizes |= set(rows)
    merged = []
    for size in sorted(sizes):
        gloo_us, weft_us, ratios, fastest, wrong = [], [], [], collections.Counter(), 0
        for glooes, weft in rounds:
            timed = []
            for algorithm, rows in glooes.items():
                if size in rows:
                    timed.append((rows[size]["gloo_us"], algorithm))
                    wrong += rows[size]["wrong"]
            best = min(timed) if timed else None
            w = weft.get(size)
            if best:
                gloo_us.append(best[0])
                fastest[best[1]] += 1
            if w:
                weft_us.append(w[column])
                wrong += w[WRONG_FIELD[column]]
            if best and w and best[0] > 0:
                ratios.append(w[column] / best[0])
        merged.append({"bytes": size, "gloo_us": median(gloo_us),
                       "gloo_algorithm": fastest.most_common(1)[0][0] if fastest else None,
                       "weft_us": median(weft_us), "ratio": median(ratios), "wrong": wrong})
    return merged


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weft-column", default="auto", choices=["auto", "oop_us", "ip_us"])
    parser.add_argument("--json", help="write the merged rows to this file")
    parser.add_argument("rounds", nargs="+", metavar="GLOO.json[,GLOO.json...][:WEFT.json]")
    args = parser.parse_args()

    rounds, placements, ranks = [], {}, set()
    for spec in args.rounds:
        gloo_paths, _, weft_path = spec.partition(":")
        glooes = {}
        for path in gloo_paths.split(","):
            document = load(path)
            glooes[document["algorithm"]] = by_bytes(document)
            placements[document["algorithm"]] = document.get("in_place", False)
            ranks.add(document["ranks"])
        rounds.append((glooes, by_bytes(load(weft_path)) if weft_path else {}))
    column = args.weft_column
    if column == "auto":
        if len(set(placements.values())) != 1:
            parser.error("the Gloo algorithms mix in-place and out-of-place: pass --weft-column")
        column = "ip_us" if next(iter(placements.values())) else "oop_us"
    merged = merge(rounds, column)

    algorithms = ", ".join(f"{name} ({'in place' if in_place else 'out of place'})"
                           for name, in_place in placements.items())
    print(f"# all_reduce, float32 sum, {'/'.join(map(str, sorted(ranks)))} ranks over tcp: "
          f"weft {column} vs. the fastest of Gloo {algorithms}")
    plural = "s" if len(rounds) != 1 else ""
    print(f"# medians of {len(rounds)} round{plural}; weft/gloo < 1 means weft is faster")
    print(f"#{'bytes':>12} {'gloo_us':>11} {'weft_us':>11} {'weft/gloo':>10} {'wrong':>6}  gloo")
    for row in merged:
        print(f" {row['bytes']:12d} {fmt(row['gloo_us'], 11)} {fmt(row['weft_us'], 11)} "
              f"{fmt(row['ratio'], 10)} {row['wrong']:6d}  {row['gloo_algorithm'] or '-'}")

    if args.json:
        gloo_algorithms = [{"name": name, "in_place": in_place}
                           for name, in_place in placements.items()]
        with open(args.json, "w") as f:
            json.dump({"benchmark": "all_reduce_vs_gloo", "gloo_algorithms": gloo_algorithms,
                       "weft_column": column, "ranks": sorted(ranks), "rounds": len(rounds),
                       "rows": merged}, f, indent=2)
            f.write("\n")
    return 1 if any(row["wrong"] for row in merged) else 0


if __name__ == "__main__":
    sys.exit(main())
