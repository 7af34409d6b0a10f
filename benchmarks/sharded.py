"""Throughput of batches sharded over devices: one device against all of them.

For each case, the same batch is solved under ``jax.jit`` on the first device
alone and sharded over the first ``k`` devices (``PartitionSpec("batch")``
on the leading dimension, a mesh of Auto axes), for every ``k`` in
``--devices`` (default: 1, 2, 4, ... up to the device count). Reports the
median time of ``--repeats`` calls after a warm-up, each waited for (the
latency of a call), and the median time per call of ``--pipeline`` calls
dispatched back to back and waited for once (the throughput of a stream of
calls, where the host's dispatch overlaps the devices' work); problems per
second and the speed-up over one device of both (the goal of issue 15: at
least 1.9x throughput on two GPUs). Every sharded answer is compared with
the one-device answer where the solver is deterministic (see ``same``).

Cases: batched LAPs (uniform float32 costs and DETR-like distances) and a
batch of padded bipartite graphs (maximum cardinality matching) and of
general graphs (approximate weighted matching). Run:

    python -m benchmarks.sharded [--repeats 10] [--devices 1 2] [--scale 1.0]
        [--pipeline 4] [--only solve_lap max_cardinality_matching ...]
        [--json out.json]

On a machine without several accelerators, ``XLA_FLAGS=
--xla_force_host_platform_device_count=4 JAX_PLATFORMS=cpu`` runs it on
forced CPU devices (a check of the script, not a measurement: they share the
host's cores).
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def lap_costs(batch: int, n: int, kind: str, seed: int) -> np.ndarray:
    """float32 ``[batch, n, n]``: U[0, 1) costs, or the Euclidean distances
    between two sets of n points in the unit square (DETR-like)."""
    rng = np.random.default_rng(seed)
    if kind == "uniform":
        return rng.random((batch, n, n), dtype=np.float32)
    a, b = rng.random((batch, n, 2)), rng.random((batch, n, 2))
    return np.linalg.norm(a[:, :, None] - b[:, None], axis=-1).astype(np.float32)


def bipartite_batch(batch: int, n: int, degree: int, seed: int) -> Any:
    """A stack of ``batch`` random bipartite graphs, n x n, about ``degree``
    edges per column, padded to one capacity."""
    import jax

    import jaxmatch

    rng = np.random.default_rng(seed)
    m = degree * n
    graphs = [
        jaxmatch.BipartiteGraph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n, n)
        for _ in range(batch)
    ]
    cap = max(g.capacity for g in graphs)
    graphs = [g.pad_to(cap) for g in graphs]
    return jax.tree_util.tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *graphs)


def weighted_batch(batch: int, n: int, degree: int, seed: int) -> Any:
    """A stack of ``batch`` random weighted graphs on n vertices (about
    ``degree`` neighbours each, uniform weights), padded to one capacity."""
    import jax

    import jaxmatch

    rng = np.random.default_rng(seed)
    m = degree * n // 2
    graphs = [
        jaxmatch.Graph.from_edges(
            rng.integers(0, n, m), rng.integers(0, n, m), rng.random(m).astype(np.float32), n
        )
        for _ in range(batch)
    ]
    cap = max(g.capacity for g in graphs)
    graphs = [g.pad_to(cap) for g in graphs]
    return jax.tree_util.tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *graphs)


def cases(scale: float) -> list[tuple[str, int, Callable[[], Any], Callable[[Any], Any]]]:
    """(name, batch size, input maker, solver) of every case."""
    import jaxmatch

    def size(b: int) -> int:
        return max(1, int(b * scale))

    out: list[tuple[str, int, Callable[[], Any], Callable[[Any], Any]]] = []
    for b, n, kind in ((1024, 32, "uniform"), (256, 128, "uniform"), (256, 100, "distances")):
        b = size(b)
        out.append(
            (f"solve_lap {b}x{n}^2 {kind}", b,
             functools.partial(lap_costs, b, n, kind, 0), jaxmatch.solve_lap)
        )  # fmt: skip
    b = size(256)
    out.append(
        (f"max_cardinality_matching {b} x (2000 x 2000, deg 4)", b,
         functools.partial(bipartite_batch, b, 2000, 4, 1), jaxmatch.max_cardinality_matching)
    )  # fmt: skip
    out.append(
        (f"approximate_weighted_matching {b} x (5000, deg 8)", b,
         functools.partial(weighted_batch, b, 5000, 8, 2), jaxmatch.approximate_weighted_matching)
    )  # fmt: skip
    return out


def time_sharded(
    solve: Callable[[Any], Any], x: Any, k: int, repeats: int, pipeline: int
) -> tuple[float, float, Any]:
    """Median seconds of ``jit(solve)`` on ``x`` sharded over the first k
    devices, per call waited for and per call of ``pipeline`` calls
    dispatched back to back, and its answer (on the host)."""
    import jax
    from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec

    mesh = Mesh(np.array(jax.devices()[:k]), ("batch",), axis_types=(AxisType.Auto,))
    xs = jax.device_put(x, NamedSharding(mesh, PartitionSpec("batch")))
    f = jax.jit(solve)
    answer = jax.block_until_ready(f(xs))
    times, streamed = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(f(xs))
        times.append(time.perf_counter() - t0)
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready([f(xs) for _ in range(pipeline)])
        streamed.append((time.perf_counter() - t0) / pipeline)
    return float(np.median(times)), float(np.median(streamed)), jax.device_get(answer)


def same(a: Any, b: Any) -> bool:
    """Whether two answers of one batch agree where the solver is
    deterministic: a LAP's assignment, duals and status (its total, a float
    sum whose order may differ, to float32 rounding); a maximum matching's
    cardinality and status (the GPU's BFS levels race, so which maximum
    matching comes back may differ from run to run); a weighted matching's
    mates, status and weight (its round count depends on the races)."""
    import jaxmatch

    def eq(*fields: str) -> bool:
        return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in fields)

    def close(f: str) -> bool:
        return bool(np.allclose(getattr(a, f), getattr(b, f), rtol=1e-5, atol=0))

    if isinstance(a, jaxmatch.LAPResult):
        return eq("col_for_row", "row_for_col", "u", "v", "status", "feasible") and close("cost")
    if isinstance(a, jaxmatch.MatchingResult):
        return eq("cardinality", "status")
    return eq("mate", "cardinality", "status") and close("weight")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--devices", type=int, nargs="+", help="device counts (default 1, 2, 4, ...)")
    p.add_argument("--scale", type=float, default=1.0, help="multiplies every batch size")
    p.add_argument("--pipeline", type=int, default=4, help="calls dispatched back to back")
    p.add_argument("--only", nargs="+", help="run the cases whose name starts with one of these")
    p.add_argument("--json")
    args = p.parse_args(argv)

    import jax

    count = jax.device_count()
    ks = args.devices or [1 << i for i in range(count.bit_length()) if 1 << i <= count]
    ks = [k for k in ks if k <= count]
    print(f"devices: {count} x {jax.devices()[0].device_kind}; jax {jax.__version__}")
    print(
        "| case | devices | ms | speed-up | ms, pipelined | problems/s, pipelined "
        "| speed-up, pipelined | same answer |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    rows = []
    for name, batch, make, solve in cases(args.scale):
        if args.only and not name.startswith(tuple(args.only)):
            continue
        x = make()
        base_s = base_p = base = None
        for k in ks:
            if batch % k:
                continue
            seconds, pipelined, answer = time_sharded(solve, x, k, args.repeats, args.pipeline)
            if base is None:
                base_s, base_p, base = seconds, pipelined, answer
            row = dict(
                case=name, devices=k, seconds=seconds, speedup=base_s / seconds,
                pipelined=pipelined, per_s=batch / pipelined,
                speedup_pipelined=base_p / pipelined, same=same(answer, base),
            )  # fmt: skip
            rows.append(row)
            print(
                f"| {name} | {k} | {seconds * 1e3:.2f} | {row['speedup']:.2f} | "
                f"{pipelined * 1e3:.2f} | {row['per_s']:.0f} | {row['speedup_pipelined']:.2f} | "
                f"{'yes' if row['same'] else '**no**'} |",
                flush=True,
            )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"jax": jax.__version__, "devices": count, "rows": rows}, f, indent=1)
    return 0 if all(r["same"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
