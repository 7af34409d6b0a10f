"""One pricing sweep of ``solve_lap_points``: the library's kernel against
XLA's blocks of costs ranked by ``lax.top_k`` (``sweep.fused_sweep`` off).

Cases are ``N``: N uniform random points of the unit square against N
others, float32, random prices ``u`` and ``v``, ``k`` = ``--k`` pairs per
row, over every device of the default backend (``sweep.sweep_pairs`` of
``jaxmatch.lap.points``, as a solve calls it). One JSON line per case and
path: the first call (compilation included), the median of ``--repeats``
further calls; then a line comparing the two paths' answers (the share of equal columns, the
largest difference of their reduced costs). Run:

    python -m benchmarks.lap_points_sweep 100000 250000 [--k 16] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import jax
import numpy as np


def run_case(n: int, k: int, repeats: int) -> list[dict]:
    from jaxmatch.lap.points import sweep as points_sweep

    rng = np.random.default_rng(0)
    X, Y = rng.random((n, 2), dtype=np.float32), rng.random((n, 2), dtype=np.float32)
    u, v = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    devices = tuple(jax.devices())
    rule = points_sweep.fused_sweep
    rows, out = [], {}
    try:
        for path in ("kernel", "xla"):
            if path == "xla":
                points_sweep.fused_sweep = lambda metric, k, d, device: False
            sweep = lambda: points_sweep.sweep_pairs(  # noqa: E731
                X, Y, u, v, metric="sqeuclidean", k=k, sign=1.0, devices=devices
            )
            t0 = time.perf_counter()
            sweep()
            first = time.perf_counter() - t0
            times = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                out[path] = sweep()
                times.append(time.perf_counter() - t0)
            rows.append(
                {
                    "case": n,
                    "path": path,
                    "device": str(devices[0].device_kind),
                    "devices": len(devices),
                    "k": k,
                    "first_s": round(first, 4),
                    "seconds": round(statistics.median(times), 4),
                }
            )
    finally:
        points_sweep.fused_sweep = rule

    def reduced(s):
        return s.cost.astype(np.float64) - u[:, None] - v[s.cols]

    a, b = out["kernel"], out["xla"]
    rows.append(
        {
            "case": n,
            "same_cols": float(np.mean(a.cols == b.cols)),
            "max_reduced_diff": float(np.abs(reduced(a) - reduced(b)).max()),
        }
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="+", type=int, help="N points per set")
    p.add_argument("--k", type=int, default=16)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    for n in args.cases:
        for row in run_case(n, args.k, args.repeats):
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
