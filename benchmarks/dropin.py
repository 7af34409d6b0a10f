"""The scipy drop-ins against scipy on sequences of varying shapes.

Each row times a pass over a sequence of problems whose shapes all differ and
were never seen before (every call is a first call for its shape: a drop-in
that compiled per shape would pay it here), one process after one warm-up
call on a 2 x 2 problem; the median over three passes, each with shapes of
its own. Then the sparse LAP (``min_weight_full_bipartite_matching``) on single
random problems with a planted perfect matching, about ``--degree`` edges
per row, uniform weights, for each ``--sparse-edges`` count (first call
included). Last, ``jaxmatch.solve_lap`` called eagerly (the JAX entry point,
which compiles once per shape): its first call for a new square shape of
each ``--eager-sizes`` size, and the median of 20 repeated calls, against
scipy on the same matrix. Run:

    python -m benchmarks.dropin [--sizes 5 10 20 50 100 200 500]
        [--sparse-edges 100000 1000000 10000000] [--degree 10] [--eager-sizes 11 50]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _time(fn, items) -> float:
    t0 = time.perf_counter()
    for x in items:
        fn(x)
    return (time.perf_counter() - t0) / len(items)


def _median_pass(fn, passes) -> float:
    return float(np.median([_time(fn, items) for items in passes]))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", nargs="*", type=int, default=[5, 10, 20, 50, 100, 200, 500])
    p.add_argument("--count", type=int, default=20, help="problems per sequence")
    p.add_argument("--sparse-edges", nargs="*", type=int, default=[100_000, 1_000_000])
    p.add_argument("--degree", type=int, default=10, help="edges per row of the sparse LAPs")
    p.add_argument("--eager-sizes", nargs="*", type=int, default=[11, 50])
    args = p.parse_args(argv)

    import scipy.optimize as so
    import scipy.sparse as sp
    import scipy.sparse.csgraph as cg

    import jaxmatch

    rng = np.random.default_rng(0)
    c = args.count
    jaxmatch.linear_sum_assignment(np.eye(2))  # load the library
    jaxmatch.maximum_bipartite_matching(sp.csr_matrix(np.eye(2)))
    print("| drop-in | n | jaxmatch per call | scipy per call | ratio |")
    print("|---|---:|---:|---:|---:|")
    for n in args.sizes:
        shapes = [[(n + k + c * q, n + 3 * k + c * q) for k in range(c)] for q in range(3)]
        passes = [[rng.random(shape) for shape in row] for row in shapes]
        ours = _median_pass(jaxmatch.linear_sum_assignment, passes)
        theirs = _median_pass(so.linear_sum_assignment, passes)
        print(f"| linear_sum_assignment (U[0,1) f64) | {n} | {ours * 1e6:.1f} us | "
              f"{theirs * 1e6:.1f} us | {ours / theirs:.2f} |")  # fmt: skip
    for n in args.sizes:
        passes = [
            [
                sp.random(n + k + c * q, n + 2 * k + c * q, density=min(1.0, 3.0 / n),
                          format="csr", random_state=k)
                for k in range(c)
            ]
            for q in range(3)
        ]  # fmt: skip
        ours = _median_pass(jaxmatch.maximum_bipartite_matching, passes)
        theirs = _median_pass(cg.maximum_bipartite_matching, passes)
        print(f"| maximum_bipartite_matching (CSR, degree 3) | {n} | {ours * 1e6:.1f} us | "
              f"{theirs * 1e6:.1f} us | {ours / theirs:.2f} |")  # fmt: skip

    _sparse_rows(args.sparse_edges, args.degree)
    _eager_solve_lap_rows(args.eager_sizes)


def _eager_solve_lap_rows(sizes) -> None:
    import scipy.optimize as so

    import jaxmatch

    if not sizes:
        return
    print()
    print("| eager solve_lap (U[0,1) f32) | n | first call | repeated call | scipy per call |")
    print("|---|---:|---:|---:|---:|")
    rng = np.random.default_rng(1)
    jaxmatch.solve_lap(rng.random((3, 3), dtype=np.float32))  # load the library
    for n in sizes:
        C = rng.random((n, n), dtype=np.float32)
        t0 = time.perf_counter()
        jaxmatch.solve_lap(C).cost.block_until_ready()
        first = time.perf_counter() - t0
        repeat = _median_pass(lambda C: jaxmatch.solve_lap(C).cost.block_until_ready(), [[C] * 20])
        scipy = _median_pass(so.linear_sum_assignment, [[C] * 20])
        print(f"| solve_lap | {n} | {first * 1e3:.1f} ms | {repeat * 1e3:.2f} ms | "
              f"{scipy * 1e3:.3f} ms |")  # fmt: skip


def _planted_sparse(nnz: int, degree: int, seed: int):
    """A random square sparse cost matrix with about ``nnz`` entries and a
    planted perfect matching (so a full matching exists)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    n = max(1, nnz // degree)
    rows = np.concatenate([rng.integers(0, n, nnz), np.arange(n)])
    cols = np.concatenate([rng.integers(0, n, nnz), rng.permutation(n)])
    vals = rng.random(rows.size) + 1e-3
    return sp.csr_array((vals, (rows, cols)), shape=(n, n))


def _sparse_rows(edge_counts, degree: int) -> None:
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching as theirs_fn

    import jaxmatch

    if not edge_counts:
        return
    print()
    print("| sparse LAP | n | edges | jaxmatch | scipy | ratio | same cost |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for nnz in edge_counts:
        A = _planted_sparse(nnz, degree, seed=nnz)
        t0 = time.perf_counter()
        r1, c1 = jaxmatch.min_weight_full_bipartite_matching(A)
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        r2, c2 = theirs_fn(A)
        theirs = time.perf_counter() - t0
        same = bool(np.isclose(A[r1, c1].sum(), A[r2, c2].sum(), rtol=1e-12))
        cells = [f"{A.shape[0]}", f"{A.nnz}", f"{ours * 1e3:.1f} ms", f"{theirs * 1e3:.1f} ms"]
        cells += [f"{ours / theirs:.2f}", f"{same}"]
        print("| min_weight_full_bipartite_matching | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
