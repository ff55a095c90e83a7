"""Shared by the comparison tables (gloo/compare_table.py, mpi/compare_table.py): reading
the JSON that weft-bench and the comparison programs write, medians, and table cells.

The scripts live one directory below this file; each puts tools/bench on sys.path
before `import bench_rows`, so that they run as plain `python3 path/to/script.py`.
"""

import json
import statistics


def load(path):
    with open(path) as f:
        return json.load(f)


def by_bytes(document):
    """The rows of a benchmark's JSON document, keyed by their "bytes"."""
    return {row["bytes"]: row for row in document["rows"]}


def median(values):
    return statistics.median(values) if values else None


def fmt(value, width, decimals=2):
    """`value` right-aligned in `width` columns, or "-" when there is none."""
    return f"{value:{width}.{decimals}f}" if value is not None else f"{'-':>{width}}"
