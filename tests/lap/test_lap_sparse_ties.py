"""The sparse LAP on tie-heavy integer costs (values in [0, 10] and
[0, 100]), where most columns a search reaches are at equal distance: the
drop-in ``min_weight_full_bipartite_matching`` and the jitted ``solve_lap``
on ``SparseCosts`` (CPU, JV) against scipy's optimum, every solution
certified by ``verify_lap``; square and rectangular both ways, dense rows and
sparse ones, absent (+inf) and duplicate entries, minimize and maximize.
Speed is measured by ``benchmarks/sparse_lap.py --ties``, not here."""

from __future__ import annotations

import functools
import itertools
import warnings

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwf

import jaxmatch
from jaxmatch import LAPStatus, SparseCosts
from jaxmatch.lap.sparse import solve_scipy

SHAPES = [(1, 1), (3, 3), (12, 12), (40, 40), (25, 40), (40, 25), (60, 90), (90, 60)]


def tie_matrix(rng, n, m, high, density, planted=True):
    """Integers in [0, high] on a random ``density`` of the pairs (a zero is
    stored, so the drop-ins drop it as scipy does), plus a planted matching
    of nonzero entries when ``planted``."""
    values = rng.integers(0, high + 1, (n, m)).astype(np.float64)
    mask = rng.random((n, m)) < density
    if planted:
        rows, cols = rng.permutation(n)[: min(n, m)], rng.permutation(m)[: min(n, m)]
        mask[rows, cols] = True
        values[rows, cols] = rng.integers(1, high + 1, rows.size)
    r, c = np.nonzero(mask)
    return sp.csr_array((values[r, c], (r, c)), shape=(n, m))


def scipy_optimum(A, maximize=False):
    """scipy's optimum, or None when it finds no full matching."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # explicit zeros dropped
        try:
            r, c = scipy_mwf(A, maximize=maximize)
        except ValueError:
            return None
    return float(A[r, c].sum())


def dense_optimum(n, m, rows, cols, data, maximize=False):
    """The optimum when every stored entry is an edge (zeros included) and a
    pair stored twice costs its cheaper entry (dearer when maximizing), from
    scipy's dense solver on +inf for absent pairs; None when infeasible."""
    absent = -np.inf if maximize else np.inf
    D = np.full((n, m), absent)
    pick = np.fmax if maximize else np.fmin
    for i, j, x in zip(rows, cols, data):
        D[i, j] = x if D[i, j] == absent else pick(D[i, j], x)
    try:
        r, c = linear_sum_assignment(D, maximize=maximize)
    except ValueError:
        return None
    total = float(D[r, c].sum())
    return None if np.isinf(total) else total


@pytest.mark.parametrize("high", [10, 100])
@pytest.mark.parametrize("maximize", [False, True])
def test_dropin_equals_scipy_and_certifies(high, maximize):
    rng = np.random.default_rng(high + maximize)
    cases = 0
    for seed, (n, m), density in itertools.product(range(10), SHAPES, (0.15, 0.5, 1.0)):
        A = tie_matrix(rng, n, m, high, density, planted=seed % 3 != 0)
        want = scipy_optimum(A, maximize)
        case = f"[0, {high}] {n}x{m} density {density} seed {seed} maximize={maximize}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            if want is None:
                with pytest.raises(ValueError, match="no full matching exists"):
                    solve_scipy(A, maximize)
                continue
            sol = solve_scipy(A, maximize)
            cert = jaxmatch.verify_lap(A, sol, maximize=maximize)
            rows, cols = jaxmatch.min_weight_full_bipartite_matching(A, maximize)
        assert float(sol.cost) == want, case
        assert cert.optimal, f"{case}: {cert.reason}"
        assert float(A[rows, cols].sum()) == want, case
        cases += 1
    assert cases >= 160  # every planted case (two seeds in three) is feasible


@pytest.mark.parametrize("high", [10, 100])
def test_dropin_sums_duplicates_like_scipy(high):
    """COO input with repeated pairs (scipy sums them) and +inf entries
    (absent), on dense and sparse tie-heavy rows."""
    rng = np.random.default_rng(7 + high)
    for (n, m), density in itertools.product(SHAPES[2:], (0.3, 1.0)):
        A = tie_matrix(rng, n, m, high, density).tocoo()
        k = A.nnz // 3
        pick = rng.integers(0, A.nnz, k)
        data = np.concatenate([A.data, rng.integers(1, high + 1, k).astype(np.float64)])
        row, col = np.concatenate([A.row, A.row[pick]]), np.concatenate([A.col, A.col[pick]])
        data[rng.random(data.size) < 0.05] = np.inf
        B = sp.coo_array((data, (row, col)), shape=(n, m))
        want = scipy_optimum(B.tocsr())
        case = f"[0, {high}] {n}x{m} density {density}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            if want is None:
                with pytest.raises(ValueError, match="no full matching exists"):
                    solve_scipy(B)
                continue
            sol = solve_scipy(B)
            cert = jaxmatch.verify_lap(B.tocsr(), sol)
        assert float(sol.cost) == want, case
        assert cert.optimal, f"{case}: {cert.reason}"


@pytest.mark.parametrize("high", [10, 100])
def test_jitted_sparse_costs_equal_the_dense_optimum(high):
    """solve_lap on SparseCosts (CPU, JV): zeros are edges, a duplicate pair
    costs its cheaper entry, rows of unsorted columns; float64 and int32."""
    rng = np.random.default_rng(11 + high)
    solve = jax.jit(functools.partial(jaxmatch.solve_lap, method="jv"), static_argnames="maximize")
    cpu = jax.devices("cpu")[0]
    for (n, m), maximize in itertools.product([(30, 30), (20, 35), (35, 20)], (False, True)):
        cap = 2 * n * m
        for seed in range(8):
            density = (0.2, 0.6, 1.0)[seed % 3]
            A = tie_matrix(rng, n, m, high, density, planted=seed != 0).tocoo()
            k = A.nnz // 4
            pick = rng.integers(0, A.nnz, k)
            rows = np.concatenate([A.row, A.row[pick]])
            cols = np.concatenate([A.col, A.col[pick]])
            data = np.concatenate([A.data, rng.integers(0, high + 1, k).astype(np.float64)])
            order = np.lexsort((rng.random(rows.size), rows))  # rows grouped, columns shuffled
            rows, cols, data = rows[order], cols[order], data[order]
            indptr = np.searchsorted(rows, np.arange(n + 1)).astype(np.int32)
            want = dense_optimum(n, m, rows, cols, data, maximize)
            case = f"[0, {high}] {n}x{m} density {density} seed {seed} maximize={maximize}"
            for dtype in (np.float64, np.int32):
                S = SparseCosts(indptr, cols.astype(np.int32), data.astype(dtype), (n, m))
                S = S.pad_to(cap)
                with jax.default_device(cpu):
                    res = jax.device_get(solve(S, maximize=maximize))
                if want is None:
                    assert int(res.status) == LAPStatus.INFEASIBLE, case
                    continue
                assert int(res.status) == LAPStatus.OPTIMAL, case
                assert float(res.cost) == want, f"{case} {dtype.__name__}"
                cert = jaxmatch.verify_lap(S, res, maximize=maximize)
                assert cert.optimal, f"{case} {dtype.__name__}: {cert.reason}"


def hard_matrix(rng, n, high, density):
    """lap's "hard" sparse class (lap/tests/test_utils.py builds its
    sparse_4kx4k this way): integers in [1, high] plus a random offset per
    row and per column, on a random ``density`` of the pairs with a planted
    perfect matching; many equal reduced costs at every price level."""
    values = rng.integers(1, high + 1, (n, n))
    values += rng.integers(0, high, (n, 1)) + rng.integers(0, high, (1, n))
    mask = rng.random((n, n)) < density
    mask[rng.permutation(n), rng.permutation(n)] = True
    r, c = np.nonzero(mask)
    return sp.csr_array((values[r, c].astype(np.float64), (r, c)), shape=(n, n))


@pytest.mark.parametrize("density", [0.05, 0.5, 1.0])
def test_larger_tie_heavy_problems(density):
    """A few hundred rows: searches that pass through several tied levels."""
    rng = np.random.default_rng(int(density * 100))
    mats = [
        hard_matrix(rng, 300, 100, density),
        tie_matrix(rng, 300, 300, 10, density),
        tie_matrix(rng, 200, 350, 100, density),
        tie_matrix(rng, 350, 200, 10, density),
    ]
    for A in mats:
        want = scipy_optimum(A)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            sol = solve_scipy(A)
        assert float(sol.cost) == want, A.shape
        cert = jaxmatch.verify_lap(A, sol)
        assert cert.optimal, f"{A.shape}: {cert.reason}"
