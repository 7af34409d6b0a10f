"""A short demonstration: solve a batch of random LAPs and a few random
bipartite matching problems, certify, time.

Run with ``python -m jaxmatch.demo``.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

from . import BipartiteGraph, max_cardinality_matching, solve_lap, verify_lap, verify_matching


def main() -> None:
    print(f"jaxmatch demo on JAX {jax.__version__}, backend {jax.default_backend()}")
    rng = np.random.default_rng(0)
    cases = [(256, 32, 32), (64, 64, 48), (8, 200, 200)]
    for batch, n, m in cases:
        C = jnp.asarray(rng.random((batch, n, m), dtype=np.float32))
        for method in ("tree", "classical"):
            solve = jax.jit(lambda c, method=method: solve_lap(c, method=method))
            jax.block_until_ready(solve(C))  # compile + warm up
            t0 = time.perf_counter()
            res = jax.block_until_ready(solve(C))
            dt = time.perf_counter() - t0
            certs = verify_lap(np.asarray(C), res)
            n_opt = sum(c.optimal for c in certs)
            print(
                f"  {batch:4d} x {n:3d}x{m:<3d} {method:9s} "
                f"mean cost {float(jnp.mean(res.cost)):9.4f}  "
                f"certified optimal {n_opt}/{batch}  {dt * 1e3:8.2f} ms"
            )
            if n_opt != batch:
                raise SystemExit("certificate failed")
    print(
        "matching (after the cheap matching, GPUBFS-WR levels, "
        'method="auto": APFB or the hybrid, chosen per graph):'
    )
    solve = jax.jit(max_cardinality_matching)
    for n, avg_degree in ((1000, 2.0), (20000, 3.0)):
        rows = rng.integers(0, n, int(n * avg_degree))
        cols = rng.integers(0, n, int(n * avg_degree))
        G = BipartiteGraph.from_edges(rows, cols, n, n)
        jax.block_until_ready(solve(G))  # compile + warm up
        t0 = time.perf_counter()
        res = jax.block_until_ready(solve(G))
        dt = time.perf_counter() - t0
        cert = verify_matching(G, res)
        print(
            f"  {n:6d} x {n:<6d} {int(G.nnz):7d} edges  matched {int(res.cardinality):6d}  "
            f"iterations {int(res.iterations):3d}  certified maximum {cert.maximum}  "
            f"{dt * 1e3:8.2f} ms"
        )
        if not cert.maximum:
            raise SystemExit("certificate failed")
    print("all solutions certified")


if __name__ == "__main__":
    main()
