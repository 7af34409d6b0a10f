"""The sparse LAP drop-in (``min_weight_full_bipartite_matching``) on tie-heavy integer
costs against scipy's, matrix by matrix.

One process. Each ``--classes`` entry names a family of matrices:

- ``scipy``: the feasible matrices of scipy's own tests of
  ``min_weight_full_bipartite_matching`` (scipy/sparse/csgraph/tests/test_matching.py).
- ``lap``: the sparse LAP matrices of lap 0.5.12's tests (lap/tests/test_utils.py),
  rebuilt by their recipe (legacy ``np.random.seed(1299821)``; integers in [1, 100],
  "hard": plus a random offset per row and per column; ``sparse`` keeps all but a
  random ``sparsity`` fraction of the pairs, with a planted perfect matching); lap
  states each optimum, which is checked.
- ``int2k``: 2000 x 2000, every pair an integer in [1, 100].
- ``ties``: integers in [0, 10] and [0, 100] at about each ``--edges`` count:
  square with dense rows, wide (n x 2n) and tall (2n x n) at half density, and
  square sparse (``--degree`` entries per row); a planted matching of nonzero
  entries makes each feasible (stored zeros are not edges for either solver,
  as scipy's documentation says; the zeros are stored and dropped with scipy's
  warning).
- ``floats``: uniform floats, ``--degree`` entries per row, planted perfect
  matching (``benchmarks/dropin.py``'s generator), at each ``--float-edges``.

Each call is timed ``--repeats`` times (the median is reported, seconds, wall
clock, the matrix already built), scipy's and jaxmatch's calls interleaved.
Every jaxmatch result is checked: cost equal to scipy's (exactly: the costs
are integers, or the same floats summed in the same order), and
``verify_lap``'s LP-duality certificate of the jitted solve of the same
matrix (``jaxmatch.solve_lap`` on ``SparseCosts``, float64, not timed) on
matrices of at most ``--verify-max-edges`` entries. Run:

    python -m benchmarks.sparse_lap_ties [--classes scipy,lap,int2k,ties,floats]
        [--edges 1000000 10000000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import functools
import itertools
import time
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from benchmarks.dropin import _planted_sparse

CLASSES = ("scipy", "lap", "int2k", "ties", "floats")


def _lap_int(size: int, sparsity: float | None) -> Any:
    """lap's test matrix of ``size`` (hard integers in [1, 100]): dense when
    ``sparsity`` is None, else without a random ``sparsity`` fraction of the
    pairs (a planted permutation kept), as lap's get_sparse_int builds it."""
    import scipy.sparse as sp

    rs = np.random.RandomState(1299821)  # lap's np.random.seed(1299821) stream
    cost = rs.randint(1, 101, size=(size, size))
    for row in range(size):
        cost[row, :] += rs.randint(0, 100)
    for col in range(size):
        cost[:, col] += rs.randint(0, 100)
    keep = np.ones((size, size), bool)
    if sparsity is not None:
        mask = rs.rand(size, size)
        thresh = np.percentile(mask.flat, max(0, (sparsity - size / float(size * size)) * 100.0))
        mask = mask < thresh
        mask[rs.permutation(size), rs.permutation(size)] = True
        keep = ~mask  # lap's tests pass the complement as the mask of entries
    r, c = np.nonzero(keep)
    return sp.csr_array((cost[r, c].astype(np.float64), (r, c)), shape=(size, size))


def _ties(rng, n: int, m: int, high: int, density: float) -> Any:
    """Integers in [0, high] on a random ``density`` of the pairs (every pair
    when 1), with a planted matching of nonzero entries."""
    import scipy.sparse as sp

    k = min(n, m)
    pr, pc = rng.permutation(n)[:k], rng.permutation(m)[:k]
    if density >= 1:
        r, c = np.divmod(np.arange(n * m), m)
    else:
        nnz = int(density * n * m)
        r, c = rng.integers(0, n, nnz), rng.integers(0, m, nnz)
    r, c = np.concatenate([r, pr]), np.concatenate([c, pc])
    vals = np.concatenate([rng.integers(0, high + 1, r.size - k), rng.integers(1, high + 1, k)])
    A = sp.csr_array((vals.astype(np.float64), (r, c)), shape=(n, m))
    A.sum_duplicates()  # the planted entries stay nonzero
    return A


def _matrices(args) -> Iterator[tuple[str, str, Any, float | None]]:
    """(class, name, matrix, known optimum or None) for every case."""
    import scipy.sparse as sp

    if "scipy" in args.classes:
        from scipy.sparse.csgraph.tests import test_matching as t

        marks = t.test_min_weight_full_matching_small_inputs.pytestmark
        cases = [case for sign, case in list(marks[0].args[1]) if sign == 1]
        for k, (cost, _want) in enumerate(cases):
            C = np.asarray(cost, np.float64)
            for sign, flip in itertools.product((1, -1), (False, True)):
                M = (sign * C).T if flip else sign * C
                M = np.where(np.isinf(M), 0.0, M)  # an infinite entry is no edge
                label = f"case {k}{' transposed' if flip else ''}{' negated' if sign < 0 else ''}"
                yield "scipy", label, sp.csr_array(M), None
        for n in (1, 2, 5):
            yield "scipy", f"trivial {n}x{n + 1}", sp.csr_array(np.ones((n, n + 1))), None
    if "lap" in args.classes:
        yield "lap", "sparse_100x100_int", _lap_int(100, 0.04), 11406.0
        yield "lap", "sparse_1kx1k_int", _lap_int(1000, 0.01), 101078.0
        yield "lap", "sparse_4kx4k_int", _lap_int(4000, 0.004), 402541.0
        yield "lap", "dense_100x100_int_hard", _lap_int(100, None), 11399.0
        yield "lap", "dense_1kx1k_int_hard", _lap_int(1000, None), 101078.0
    if "int2k" in args.classes:
        rng = np.random.default_rng(0)
        A = sp.csr_array(rng.integers(1, 101, (2000, 2000)).astype(np.float64))
        yield "int2k", "2000x2000 [1,100]", A, None
    if "ties" in args.classes:
        rng = np.random.default_rng(1)
        for nnz in args.edges:
            n = half = round(float(np.sqrt(nnz)))  # n x n dense, n x 2n at density 1/2
            sparse_n = max(1, nnz // args.degree)
            for high in (10, 100):
                yield "ties", f"[0,{high}] {n}x{n} dense", _ties(rng, n, n, high, 1.0), None
                yield (
                    "ties",
                    f"[0,{high}] {half}x{2 * half} half",
                    (_ties(rng, half, 2 * half, high, 0.5)),
                    None,
                )
                yield (
                    "ties",
                    f"[0,{high}] {2 * half}x{half} half",
                    (_ties(rng, 2 * half, half, high, 0.5)),
                    None,
                )
                yield (
                    "ties",
                    f"[0,{high}] {sparse_n}x{sparse_n} deg {args.degree}",
                    (_ties(rng, sparse_n, sparse_n, high, args.degree / sparse_n)),
                    None,
                )
    if "floats" in args.classes:
        for nnz in args.float_edges:
            A = _planted_sparse(nnz, args.degree, seed=nnz).tocsr()
            yield "floats", f"uniform deg {args.degree}", A, None


def _median_times(fns, repeats: int) -> list[tuple[float, Any]]:
    """The median time and the last result of each function, the calls
    interleaved (each round calls every function once, in turn, the order
    reversed every other round) so that a busy host slows all alike."""
    times: list[list[float]] = [[] for _ in fns]
    outs: list[Any] = [None for _ in fns]
    for r in range(repeats):
        order = range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))
        for k in order:
            t0 = time.perf_counter()
            outs[k] = fns[k]()
            times[k].append(time.perf_counter() - t0)
    return [(float(np.median(t)), out) for t, out in zip(times, outs, strict=True)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--classes", default=",".join(CLASSES), help="comma-separated: " + ", ".join(CLASSES)
    )
    p.add_argument("--edges", nargs="*", type=int, default=[1_000_000, 10_000_000])
    p.add_argument("--float-edges", nargs="*", type=int, default=[100_000, 1_000_000])
    p.add_argument("--degree", type=int, default=50, help="entries per row of the sparse classes")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--verify-max-edges", type=int, default=20_000_000)
    args = p.parse_args(argv)
    args.classes = [c.strip() for c in args.classes.split(",") if c.strip()]
    unknown = sorted(set(args.classes) - set(CLASSES))
    if unknown:
        p.error(f"unknown classes {unknown}; choose from {', '.join(CLASSES)}")

    import jax
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching as theirs

    import jaxmatch

    ours = jaxmatch.min_weight_full_bipartite_matching
    ours(_ties(np.random.default_rng(0), 3, 3, 10, 1.0))  # loads the library
    head = "| class | matrix | shape | entries | scipy s | jaxmatch s | ratio | same cost |"
    print(head + " certified |")
    print("|---|---|---|---:|---:|---:|---:|---|---|")
    failures = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # stored zeros dropped, as scipy does
        for cls, name, A, known in _matrices(args):
            (t_s, (rs, cs)), (t_j, (rj, cj)) = _median_times(
                [functools.partial(theirs, A), functools.partial(ours, A)], args.repeats
            )
            want, got = float(A[rs, cs].sum()), float(A[rj, cj].sum())
            same = got == want and (known is None or got == known)
            cert = "-"
            if A.nnz <= args.verify_max_edges:
                with jax.enable_x64(True):  # the jitted CPU solve, in float64
                    S = jaxmatch.SparseCosts.from_scipy(A)  # stored zeros are edges here
                    cert = str(bool(jaxmatch.verify_lap(S, jaxmatch.solve_lap(S)).optimal))
            failures += (not same) + (cert == "False")
            print(
                f"| {cls} | {name} | {A.shape[0]}x{A.shape[1]} | {A.nnz:,} | {t_s:.3g} | "
                f"{t_j:.3g} | {t_j / t_s:.2f} | {same} | {cert} |",
                flush=True,
            )
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
