"""A matrix sharded by rows over two GPUs: the split solver where the rows
lie against copying it onto one GPU and solving it there.

    python -m benchmarks.lap_row_sharded --sizes 5000 10000 20000 40000 \\
        --classes n/10 n 3n 10n 100n

Uniform integers in ``[0, k]`` (``k`` a multiple of ``n``) or ``f32`` (U[0,
1)); medians of ``--repeats`` calls after a warm-up, the copy included in
the gathered time; both answers must reach the same optimum. One JSON line
per case, with the fraction of rows whose two least costs tie (the
planner's ``ROW_SHARDED_RULES`` read it). This is the evidence behind the
planner's row-sharded rules (docs/benchmarks.md, "Row-sharded matrices:
split or gathered").
"""

from __future__ import annotations

import argparse
import json
import time

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding

import jaxmatch


def _median(fn, repeats: int) -> float:
    jax.block_until_ready(fn())
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def _costs(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    if kind == "f32":
        return rng.random((n, n), dtype=np.float32)
    top = {"n/10": n // 10, "n": n, "3n": 3 * n, "10n": 10 * n, "100n": 100 * n}[kind]
    return rng.integers(0, top + 1, (n, n)).astype(np.int32)


def _tied_rows(C: np.ndarray) -> float:
    least = C.min(axis=1, keepdims=True)
    return float(np.mean(np.sum(least == C, axis=1) >= 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5000, 10000, 20000])
    parser.add_argument("--classes", nargs="+", default=["n/10", "n", "3n", "10n", "100n"])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    devices = jax.devices()[:2]
    if len(devices) < 2:
        raise SystemExit("needs two devices")
    rows = NamedSharding(Mesh(np.array(devices), ("rows",)), PartitionSpec("rows", None))
    first = SingleDeviceSharding(devices[0])
    rng = np.random.default_rng(1)
    for n in args.sizes:
        for kind in args.classes:
            C = _costs(rng, n, kind)
            Cs = jax.device_put(C, rows)
            split = jaxmatch.solve_lap_split(Cs)
            gathered = jaxmatch.solve_lap(jax.device_put(Cs, first))
            if kind != "f32":
                assert float(split.cost) == float(gathered.cost), (n, kind)
            row = {
                "n": n,
                "class": kind,
                "tied_rows": round(_tied_rows(C), 4),
                "split_s": _median(lambda Cs=Cs: jaxmatch.solve_lap_split(Cs), args.repeats),
                "gathered_s": _median(
                    lambda Cs=Cs: jaxmatch.solve_lap(jax.device_put(Cs, first)), args.repeats
                ),
            }
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
