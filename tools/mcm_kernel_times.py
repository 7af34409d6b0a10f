#!/usr/bin/env python3
"""GPU time per kernel of one default matching solve, from Nsight Compute.

``solve`` runs the jitted default solve of a benchmark graph twice (the first
call compiles; with ``--time`` it also prints the medians of 9 timed calls
instead; with ``--keep-trees-divisor K`` the trees are kept across phases,
``MatchingTuning(keep_trees_divisor=K)``); ``summary`` reads the CSV that
``ncu`` wrote for it and prints, for the second solve only (from its
initial-clear kernel on), each kernel's launches and total GPU time in us
(``--rcp`` solves the graph's random permutation)::

    ncu --clock-control none --metrics gpu__time_duration.sum --csv \\
        python3 tools/mcm_kernel_times.py solve kron 20 > kron.csv
    python3 tools/mcm_kernel_times.py summary kron.csv

Graphs come from the matching benchmark's generators and cache
(``benchmarks/matching/graphs.py``).
"""

from __future__ import annotations

import argparse
import collections
import csv
import sys
import time
from pathlib import Path

# The generators live in the benchmarks package at the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: The kernel that opens a solve (its first launch).
FIRST_KERNEL = "mcm_init_clear_kernel"


def solve(
    family: str, K: int, timed: bool, keep_trees_divisor: int = 0, permuted: bool = False
) -> None:
    import jax
    import numpy as np

    import jaxmatch
    from benchmarks.matching import graphs

    A, _ = graphs.load_graph(graphs.graph_params(family, K), permuted)
    G = jax.device_put(jaxmatch.BipartiteGraph.from_scipy(A))
    tuning = jaxmatch.MatchingTuning(keep_trees_divisor=keep_trees_divisor)
    f = jax.jit(lambda G: jaxmatch.max_cardinality_matching(G, tuning=tuning))
    res = jax.block_until_ready(f(G))
    if timed:
        times = []
        for _ in range(9):
            t0 = time.perf_counter()
            res = jax.block_until_ready(f(G))
            times.append(time.perf_counter() - t0)
        print(f"{family} {K}: median {1e3 * float(np.median(times)):.3f} ms", end=" ")
    else:
        res = jax.block_until_ready(f(G))
    print(f"levels {int(res.levels)} iterations {int(res.iterations)}")


def kernel_name(full: str) -> str:
    """``ns::(anonymous)::mcm_level_kernel(args)`` -> ``mcm_level_kernel``."""
    return full.split("(")[0].split("::")[-1]


def summary(path: str) -> None:
    header: list[str] | None = None
    rows = []
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if row and row[0] == "ID":
                header = row
            elif header and len(row) == len(header):
                rows.append(dict(zip(header, row)))
    starts = [i for i, r in enumerate(rows) if kernel_name(r["Kernel Name"]) == FIRST_KERNEL]
    if not starts:
        raise SystemExit(f"{path}: no {FIRST_KERNEL} launch")
    scale = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3}
    total: dict[str, float] = collections.defaultdict(float)
    launches: collections.Counter[str] = collections.Counter()
    for r in rows[starts[-1] :]:
        name = kernel_name(r["Kernel Name"])
        total[name] += float(r["Metric Value"].replace(",", "")) * scale[r["Metric Unit"]]
        launches[name] += 1
    for name, us in sorted(total.items(), key=lambda item: -item[1]):
        print(f"{us:10.1f} us {launches[name]:5d}  {name}")
    print(f"{sum(total.values()):10.1f} us {sum(launches.values()):5d}  all kernels")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("solve", help="two default solves of a benchmark graph")
    s.add_argument("family")
    s.add_argument("K", type=int)
    s.add_argument("--time", action="store_true", help="time 9 solves instead")
    s.add_argument(
        "--keep-trees-divisor", type=int, default=0, help="MatchingTuning's (0: from scratch)"
    )
    s.add_argument("--rcp", action="store_true", help="the randomly permuted graph")
    c = sub.add_parser("summary", help="per-kernel times of the second solve")
    c.add_argument("csv")
    args = p.parse_args(argv)
    if args.command == "solve":
        solve(args.family, args.K, args.time, args.keep_trees_divisor, args.rcp)
    else:
        summary(args.csv)


if __name__ == "__main__":
    main()
