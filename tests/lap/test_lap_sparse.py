"""The sparse LAP drop-in (min_weight_full_bipartite_matching) against
scipy: scipy's own tests, random sparse problems (objective equal to scipy's,
every solution certified by LP duality), errors."""

from __future__ import annotations

import inspect
import itertools
import types
import warnings

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_array_equal
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm

import jaxmatch
from jaxmatch import GraphValidationError
from jaxmatch.lap.sparse import solve_scipy

# ---- scipy's own tests of min_weight_full_bipartite_matching
# (scipy/sparse/csgraph/tests/test_matching.py, installed with scipy), run
# with the drop-in in place of scipy's function.

scipy_tests = pytest.importorskip("scipy.sparse.csgraph.tests.test_matching")
SCIPY_TESTS = sorted(
    name
    for name in dir(scipy_tests)
    if name.startswith("test_")
    and "min_weight_full_bipartite_matching" in inspect.getsource(getattr(scipy_tests, name))
)


def _parametrizations(fn):
    """The keyword arguments of every case of a scipy test function (the
    product of its ``pytest.mark.parametrize`` marks)."""
    axes = []
    for mark in getattr(fn, "pytestmark", []):
        if mark.name != "parametrize":
            continue
        names, values = mark.args[0], list(mark.args[1])
        names = [x.strip() for x in names.split(",")] if isinstance(names, str) else list(names)
        single = len(names) == 1
        axes.append([dict(zip(names, (v,) if single else v)) for v in values])
    for combo in itertools.product(*axes):
        yield {k: v for part in combo for k, v in part.items()}


@pytest.mark.parametrize("name", SCIPY_TESTS)
def test_scipys_own_tests(monkeypatch, name):
    assert len(SCIPY_TESTS) >= 5  # the trivial, infeasible, warning and small-input tests
    ours = jaxmatch.min_weight_full_bipartite_matching
    monkeypatch.setattr(scipy_tests, "min_weight_full_bipartite_matching", ours)
    fn = getattr(scipy_tests, name)
    cases = list(_parametrizations(fn))
    for kwargs in cases:
        fn(**kwargs)


# ---- random problems against scipy, certified


def _random_feasible(rng, n, m, density, integer):
    """A sparse [n, m] matrix with a full matching planted (nonzero weights)."""
    A = sp.random(n, m, density=density, random_state=rng, format="lil")
    k = min(n, m)
    rows, cols = rng.permutation(n)[:k], rng.permutation(m)[:k]
    A[rows, cols] = rng.random(k) + 0.5
    A = A.tocsr()
    A.data = np.floor(A.data * 10) + 1 if integer else A.data + 1e-3
    return A


@pytest.mark.parametrize("maximize", [False, True])
@pytest.mark.parametrize("integer", [False, True])
def test_random_sparse_problems_match_scipy_and_certify(maximize, integer):
    rng = np.random.default_rng(7)
    for n, m, density in [(5, 5, 0.5), (30, 40, 0.1), (40, 30, 0.1), (200, 200, 0.02)]:
        for _ in range(6):
            A = _random_feasible(rng, n, m, density, integer)
            sol = solve_scipy(A, maximize=maximize)
            r, c = scipy_mwfbm(A, maximize=maximize)
            assert sol.cost == pytest.approx(float(A[r, c].sum()), rel=1e-12, abs=1e-9)
            cert = jaxmatch.verify_lap(A, sol, maximize=maximize)
            assert cert.optimal, cert.reason
            ours = jaxmatch.min_weight_full_bipartite_matching(A, maximize=maximize)
            rows = np.flatnonzero(sol.col_for_row >= 0)
            assert_array_equal(ours[0], rows)
            assert_array_equal(ours[1], sol.col_for_row[rows])
            # the same matrix as SparseCosts under jit: the same optimum
            S = jaxmatch.SparseCosts.from_scipy(A)
            res = jaxmatch.solve_lap(S, maximize=maximize)
            assert float(res.cost) == pytest.approx(sol.cost, rel=1e-5)
            assert jaxmatch.verify_lap(S, res, maximize=maximize, tol=1e-4).optimal


def test_large_sparse_problem_certified():
    rng = np.random.default_rng(8)
    A = _random_feasible(rng, 3000, 3000, 0.002, False)
    sol = solve_scipy(A)
    assert jaxmatch.verify_lap(A, sol).optimal
    r, c = scipy_mwfbm(A)
    assert sol.cost == pytest.approx(float(A[r, c].sum()), rel=1e-12)


def test_ties_and_negative_weights():
    rng = np.random.default_rng(9)
    for _ in range(20):
        A = sp.random(25, 25, density=0.3, random_state=rng, format="csr")
        A.data = rng.integers(-3, 3, A.data.size).astype(float)
        A.data[A.data == 0] = 5
        try:
            r, c = scipy_mwfbm(A)
        except ValueError:
            with pytest.raises(ValueError, match="no full matching"):
                jaxmatch.min_weight_full_bipartite_matching(A)
            continue
        sol = solve_scipy(A)
        assert sol.cost == float(A[r, c].sum())
        assert jaxmatch.verify_lap(A, sol).optimal


def test_certificate_rejects_bad_solutions():
    A = sp.csr_array(np.array([[1.0, 2.0], [3.0, 1.0]]))
    sol = solve_scipy(A)
    assert jaxmatch.verify_lap(A, sol).optimal
    worse = sol._replace(
        col_for_row=sol.col_for_row[::-1].copy(), row_for_col=sol.row_for_col[::-1].copy()
    )
    cert = jaxmatch.verify_lap(A, worse)
    assert not cert.optimal and cert.reason
    short = sol._replace(
        col_for_row=np.array([sol.col_for_row[0], -1]),
        row_for_col=np.where(np.arange(2) == sol.col_for_row[0], 0, -1),
    )
    assert "full matching" in jaxmatch.verify_lap(A, short).reason
    disagree = sol._replace(row_for_col=sol.row_for_col[::-1].copy())
    assert "disagree" in jaxmatch.verify_lap(A, disagree).reason
    B = sp.csr_array(np.array([[1.0, 0.0], [3.0, 1.0]]))  # (0, 1) is no edge
    bad = sol._replace(col_for_row=np.array([1, 0]), row_for_col=np.array([1, 0]))
    assert "not an edge" in jaxmatch.verify_lap(B, bad).reason


def test_errors_match_scipy():
    for graph in (np.eye(2), [[1, 0], [0, 1]]):
        with pytest.raises(TypeError, match="graph must be sparse"):
            jaxmatch.min_weight_full_bipartite_matching(graph)
    with pytest.raises(TypeError, match="CSC, CSR, or COO"):
        jaxmatch.min_weight_full_bipartite_matching(sp.lil_array(np.eye(2)))
    with pytest.raises(ValueError, match="invalid numeric entries"):
        jaxmatch.min_weight_full_bipartite_matching(sp.csr_array(np.array([[np.nan, 1], [1, 1]])))
    A = sp.csr_matrix(np.eye(3))
    A.indices[1] = 7
    with pytest.raises(GraphValidationError, match="out of range"):
        jaxmatch.min_weight_full_bipartite_matching(A)


def test_explicit_zeros_are_removed_like_scipy():
    data = np.array([2.0, 0.0, 3.0, 1.0, 1.0])
    B = sp.csr_array((data, (np.array([0, 0, 0, 1, 1]), np.array([0, 1, 2, 1, 2]))), shape=(2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = jaxmatch.min_weight_full_bipartite_matching(B)
        theirs = scipy_mwfbm(B)
    assert_array_equal(ours[0], theirs[0])
    assert_array_equal(ours[1], theirs[1])


def test_square_duals_need_no_sign():
    """A square problem's duals may be positive: shifting u down and v up by
    the same amount keeps the certificate."""
    A = sp.csr_array(np.array([[1.0, 2.0], [3.0, 1.0]]))
    sol = solve_scipy(A)
    shifted = sol._replace(u=sol.u - 5.0, v=sol.v + 5.0)
    assert jaxmatch.verify_lap(A, shifted).optimal
    wide = sp.csr_array(np.array([[1.0, 2.0, 4.0], [3.0, 1.0, 4.0]]))
    sol = solve_scipy(wide)
    shifted = sol._replace(u=sol.u - 5.0, v=sol.v + 5.0)
    assert "infeasible" in jaxmatch.verify_lap(wide, shifted).reason


def test_sparse_costs_certificate_reads_entries_as_the_solvers_do():
    """For SparseCosts a stored zero is an edge and a pair stored twice
    costs its cheaper entry (the dearer when maximizing); a batch gives a
    certificate per member."""
    indptr = np.array([0, 3, 4], np.int32)
    indices = np.array([0, 0, 1, 1], np.int32)
    data = np.array([5.0, 0.0, 2.0, 1.0])  # (0, 0) stored as 5 and 0
    S = jaxmatch.SparseCosts(indptr, indices, data, (2, 2))
    res = jaxmatch.solve_lap(S)
    assert float(res.cost) == 1.0
    assert jaxmatch.verify_lap(S, res).optimal
    best = jaxmatch.solve_lap(S, maximize=True)
    assert float(best.cost) == 6.0
    assert jaxmatch.verify_lap(S, best, maximize=True).optimal
    assert not jaxmatch.verify_lap(S, best).optimal
    batch = jax.tree.map(lambda a: np.stack([a, a]), S)
    certs = jaxmatch.verify_lap(batch, jax.vmap(jaxmatch.solve_lap)(batch))
    assert len(certs) == 2 and all(c.optimal for c in certs)


def test_sparse_certificate_names_missing_result_fields():
    A = sp.csr_array(np.array([[1.0, 2.0], [3.0, 1.0]]))
    for C in (A, jaxmatch.SparseCosts.from_scipy(A)):
        with pytest.raises(TypeError, match="verify_lap: result has no u, v"):
            jaxmatch.verify_lap(C, types.SimpleNamespace(col_for_row=0, row_for_col=0))


# ---- Non-finite weights: +inf (-inf when maximizing) is an absent edge;
# NaN and -inf (+inf when maximizing) leave no optimum, so the drop-in
# raises, the jitted solver says INVALID_ENTRIES, and no certificate passes.

_MINUS_INF_WIDE = [[-np.inf, 5.0, 7.0], [1.0, 2.0, 9.0]]
_MINUS_INF_COO = ([-np.inf, 1.0, 2.0], ([0, 1, 1], [0, 0, 1]))


@pytest.mark.parametrize("maximize", [False, True])
def test_unbounded_weights_are_invalid_everywhere(maximize):
    bad = np.inf if maximize else -np.inf
    graphs = [
        sp.csr_array(np.array(_MINUS_INF_WIDE) * (-1.0 if maximize else 1.0)),
        sp.csr_array((np.array(_MINUS_INF_COO[0]) * (-1.0 if maximize else 1.0), _MINUS_INF_COO[1]),
                     shape=(2, 3)),
        sp.csc_array(np.array([[1.0, 2.0], [bad, 3.0]]).T),  # tall after the transpose
    ]  # fmt: skip
    for A in graphs:
        assert np.any(A.data == bad)
        with pytest.raises(ValueError, match="invalid numeric entries"):
            jaxmatch.min_weight_full_bipartite_matching(A, maximize=maximize)
        S = jaxmatch.SparseCosts.from_scipy(A)
        res = jaxmatch.solve_lap(S, maximize=maximize)
        assert res.status_name == "INVALID_ENTRIES" and not bool(res.feasible)
        # The optimum with the unbounded weight made finite and dear is no
        # optimum of A: no certificate passes on A's costs.
        finite = A.copy()
        finite.data[finite.data == bad] = -np.sign(bad) * 1e3
        forged = solve_scipy(finite, maximize)
        for costs in (A, S):
            cert = jaxmatch.verify_lap(costs, forged, maximize=maximize)
            assert not cert.optimal
            assert cert.reason == f"C has NaN or {'+' if maximize else '-'}inf entries"


@pytest.mark.parametrize("maximize", [False, True])
def test_absent_infinite_weights_match_brute_force(maximize):
    absent = -np.inf if maximize else np.inf
    A = sp.csr_array(np.array([[absent, 5.0, 7.0], [1.0, 2.0, 9.0]]))
    rows, cols = jaxmatch.min_weight_full_bipartite_matching(A, maximize=maximize)
    dense = A.toarray()
    pick = max if maximize else min
    best = pick(
        dense[0, a] + dense[1, b] for a, b in itertools.permutations(range(3), 2)
        if np.isfinite(dense[0, a] + dense[1, b])
    )  # fmt: skip
    assert dense[rows, cols].sum() == best
    res = jaxmatch.solve_lap(jaxmatch.SparseCosts.from_scipy(A), maximize=maximize)
    assert res.status_name == "OPTIMAL" and float(res.cost) == best


def test_a_nan_duplicate_is_seen_by_the_certificate():
    """A pair stored as 1.0 and as NaN: the solvers refuse the costs, and
    the certificate does too, though the pair's cheaper entry is finite."""
    indptr = np.array([0, 2, 3], np.int32)
    indices = np.array([0, 0, 1], np.int32)
    S = jaxmatch.SparseCosts(indptr, indices, np.array([1.0, np.nan, 1.0]), (2, 2))
    assert jaxmatch.solve_lap(S).status_name == "INVALID_ENTRIES"
    clean = jaxmatch.SparseCosts(indptr, indices, np.array([1.0, 4.0, 1.0]), (2, 2))
    res = jaxmatch.solve_lap(clean)
    assert jaxmatch.verify_lap(clean, res).optimal
    assert "NaN" in jaxmatch.verify_lap(S, res).reason
