"""The sparse LAP: ``jaxmatch.solve_lap`` on ``SparseCosts``, on each platform against scipy's
``min_weight_full_bipartite_matching`` (LAPJVsp).

One process. For each ``--edges`` count: a random square problem with a
planted perfect matching and about ``--degree`` entries per row, uniform
costs in (0.001, 1.001] (``benchmarks/dropin.py``'s generator), solved by
scipy once (float64), then by ``solve_lap`` under ``jax.jit`` with each
``--solvers`` entry (``platform/method/dtype``, e.g. ``cpu/jv/float64``,
``gpu/tree/float32``): compiled beforehand, the costs on the device before
timing, the median of ``--repeats`` calls timed to
``jax.block_until_ready``. ``--batch B`` stacks B such problems (seeds
differ) into one call, which scipy answers one problem after another.
Every result is checked: status ``OPTIMAL`` (else the cost column reads
nan), the costs against scipy's (the largest relative difference; float32
solves their float32-rounded costs), and, for problems of at most
``--verify-max-edges`` entries, ``verify_lap``'s certificate of the
first call's duals, its tolerance scaled to the dtype's epsilon (without a
scipy run, costs are compared with the first solver's). A solver whose
single call would exceed
``--max-seconds`` on a smaller problem is skipped on the larger ones. Run:

    python -m benchmarks.sparse_lap [--edges 100000 1000000 10000000]
        [--solvers cpu/jv/float64,gpu/tree/float64,gpu/tree/float32] [--repeats 3]
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import time
from typing import Any

import numpy as np

from benchmarks.dropin import _planted_sparse


def _stack(mats: list[Any]) -> Any:
    """The matrices as one batch of SparseCosts (padded to one capacity)."""
    import jaxmatch

    cap = max(A.nnz for A in mats)
    parts = [jaxmatch.SparseCosts.from_scipy(A).pad_to(cap) for A in mats]
    return jaxmatch.SparseCosts(
        *(np.stack([getattr(S, f) for S in parts]) for f in ("indptr", "indices", "data")),
        parts[0].shape,
    )


def _solve_rows(mats: list[Any], solver: str, repeats: int, verify: bool) -> dict[str, Any]:
    import jax

    import jaxmatch

    platform, method, dtype = solver.split("/")
    dev = jax.devices(platform)[0]
    A = mats[0]
    S = _stack(mats)
    S = dataclasses.replace(S, data=S.data.astype(dtype))
    S = jax.device_put(S, dev)
    fn = jax.jit(functools.partial(jaxmatch.solve_lap, method=method))
    t0 = time.perf_counter()
    compiled = fn.lower(S).compile()
    compile_s = time.perf_counter() - t0
    times, res = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = jax.block_until_ready(compiled(S))
        times.append(time.perf_counter() - t0)
    batch = jax.device_get(res)
    res = jax.tree_util.tree_map(lambda x: x[0], batch)  # member 0 is checked
    row = {
        "solver": solver,
        "median_s": float(np.median(times)),
        "compile_s": compile_s,
        "optimal": int(np.sum(batch.status == jaxmatch.LAPStatus.OPTIMAL)),
        "costs": np.asarray(batch.cost, np.float64),
        "cost": float(res.cost),
        "iterations": int(np.max(batch.iterations)),
    }
    if verify and int(res.status) == jaxmatch.LAPStatus.OPTIMAL:
        B = A.copy()
        B.data = B.data if dtype == "float64" else np.asarray(S.data[0, : B.nnz], np.float64)
        # float32 duals are exact to float32 rounding, relative to the scale
        eps = np.finfo(np.dtype(dtype)).eps
        scale = max(1.0, float(np.abs(B.data).max()), float(np.abs(res.u).max()))
        cert = jaxmatch.verify_lap(B, res, tol=64 * eps * scale)
        row["certified"] = bool(cert.optimal)
    return row


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--edges", nargs="*", type=int, default=[100_000, 1_000_000])
    p.add_argument("--degree", type=int, default=10, help="entries per row")
    p.add_argument(
        "--solvers",
        default="cpu/jv/float64,cpu/tree/float64",
        help="comma-separated platform/method/dtype",
    )
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument(
        "--batch", type=int, default=1,
        help="problems per call (stacked; scipy solves them one after another)",
    )  # fmt: skip
    p.add_argument("--verify-max-edges", type=int, default=2_000_000)
    p.add_argument("--max-seconds", type=float, default=60.0)
    p.add_argument(
        "--scipy-max-edges", type=float, default=float("inf"),
        help="run scipy only on problems of at most this many entries",
    )  # fmt: skip
    args = p.parse_args(argv)

    import jax
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    jax.config.update("jax_enable_x64", True)
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    for solver in solvers:
        parts = solver.split("/")
        if (
            len(parts) != 3
            or parts[0] not in ("cpu", "gpu")
            or parts[1] not in ("auto", "jv", "tree")
            or parts[2] not in ("float32", "float64")
        ):
            p.error(f"solver {solver!r} is not platform/method/dtype (cpu|gpu, auto|jv|tree, "
                    "float32|float64: the costs are uniform floats)")  # fmt: skip
    print(f"devices: {', '.join(str(d) for d in jax.devices())}")
    print()
    print(f"batch: {args.batch} problem(s) per call")
    print()
    print(
        "| n | entries | solver | median ms | compile s | iterations | scipy ms | "
        "ratio | cost rel. diff | certified |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---|")
    too_slow: set[str] = set()
    for nnz in args.edges:
        mats = []
        for k in range(args.batch):
            A = _planted_sparse(nnz, args.degree, seed=nnz + k).tocsr()
            A.sort_indices()
            mats.append(A)
        A = mats[0]
        scipy_s, want = float("nan"), np.full(len(mats), np.nan)
        if A.nnz <= args.scipy_max_edges:
            t0 = time.perf_counter()
            for k, B in enumerate(mats):
                r, c = min_weight_full_bipartite_matching(B)
                want[k] = float(B[r, c].sum())
            scipy_s = time.perf_counter() - t0
        for solver in solvers:
            if solver in too_slow:
                print(f"| {A.shape[0]:,} | {A.nnz:,} | {solver} | skipped | | | | | | |")
                continue
            row = _solve_rows(mats, solver, args.repeats, A.nnz <= args.verify_max_edges)
            if row["median_s"] > args.max_seconds / 10:
                too_slow.add(solver)
            if np.isnan(want).any():  # no scipy run: compare with the first solver's costs
                want = row["costs"]
            rel = float(np.max(np.abs(row["costs"] - want) / want))
            if row["optimal"] != len(mats):
                rel = float("nan")
            print(
                f"| {A.shape[0]:,} | {A.nnz:,} | {solver} | {row['median_s'] * 1e3:.1f} | "
                f"{row['compile_s']:.2f} | {row['iterations']:,} | {scipy_s * 1e3:.1f} | "
                f"{row['median_s'] / scipy_s:.3f} | {rel:+.1e} | "
                f"{row.get('certified', '-')} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
