"""Times fused vs stepped execution per shape, to set the planner's crossover
(``jaxmatch.LAPTuning.fused_max_columns``).

Usage: python tools/tune_lap.py [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import numpy as np

import jaxmatch

CASES = [
    (1024, 32, "uniform"),
    (256, 128, "uniform"),
    (128, 256, "uniform"),
    (16, 512, "uniform"),
    (16, 1024, "uniform"),
    (1, 1000, "uniform"),
    (1, 2000, "int_n"),
    (1, 5000, "int_n"),
    (1, 5000, "uniform"),
]


def make(b, n, dist, rng):
    if dist == "uniform":
        return rng.random((b, n, n), dtype=np.float32)
    return rng.integers(0, n + 1, (b, n, n)).astype(np.int32)


def timeit(fn, C, budget_s=20.0, repeats=5):
    t0 = time.perf_counter()
    out = jax.block_until_ready(fn(C))
    first = time.perf_counter() - t0
    times = []
    if first < budget_s:
        for _ in range(repeats):
            t0 = time.perf_counter()
            out = jax.block_until_ready(fn(C))
            times.append(time.perf_counter() - t0)
            if sum(times) > budget_s:
                break
    return (statistics.median(times) if times else first), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--methods", default="tree,classical")
    ap.add_argument("--max-n", type=int, default=5000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"device {jax.devices()[0].device_kind}")
    for b, n, dist in CASES:
        if n > args.max_n:
            continue
        C = jax.device_put(make(b, n, dist, rng))
        for method in args.methods.split(","):
            if method == "classical" and n > 1024:
                continue
            for execution in ("fused", "stepped"):
                fn = jax.jit(
                    lambda c, m=method, e=execution: jaxmatch.solve_lap(c, method=m, execution=e)
                )
                t, res = timeit(fn, C)
                ok = bool(np.all(np.asarray(res.feasible)))
                iters = int(np.max(np.asarray(res.iterations)))
                print(
                    f"{b:5d} x {n:5d} {dist:8s} {method:9s} {execution:8s} "
                    f"{t * 1e3:10.2f} ms  max_iters {iters:7d} feasible {ok}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
