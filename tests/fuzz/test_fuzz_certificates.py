"""The certificates against the oracles on forged results: a certificate
must never pass a result that an oracle rejects.

Each test solves (or draws) a problem, forges results from the solver's
(pairs swapped or dropped, duals nudged, random assignments and duals,
garbage) and checks the verdicts: ``verify_lap`` (dense, ``SparseCosts``,
scipy sparse), ``verify_matching`` and ``verify_weighted_matching`` pass a
result only when the oracle accepts it, and judge the validity of an
assignment or matching exactly as the oracle does."""

from __future__ import annotations

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from fuzz_cases import (
    COUNTS,
    SIDES,
    Expect,
    assignment_problem,
    cost_arrays,
    fuzz_settings,
    lap_oracle,
    lap_tolerance,
)
from graph_cases import (
    build,
    graphs,
    matching_problem,
    maximum_cardinality,
    networkx_optimum,
    weighted_graphs,
)
from hypothesis import given
from hypothesis import strategies as st
from sparse_cases import sparse_oracle, sparse_problems

import jaxmatch
from jaxmatch import LAPResult, LAPStatus, SparseCosts

FORGERIES = ("as solved", "swap", "drop", "nudge dual", "random", "shift duals")


def forge(draw, S_shape, res: LAPResult, how: str) -> LAPResult:
    """A forged result of a problem of ``S_shape`` from the solver's ``res``."""
    n, m = S_shape
    cfr, rfc = np.array(res.col_for_row, np.int64), np.array(res.row_for_col, np.int64)
    u, v = np.array(res.u, np.float64), np.array(res.v, np.float64)
    if how == "swap" and n >= 2:
        a, b = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        cfr[a], cfr[b] = cfr[b], cfr[a]
        rfc[:] = -1
        rfc[cfr[cfr >= 0]] = np.flatnonzero(cfr >= 0)
    elif how == "drop" and n:
        r = draw(st.integers(0, n - 1))
        if cfr[r] >= 0:
            rfc[cfr[r]] = -1
        cfr[r] = -1
    elif how == "nudge dual" and n:
        u[draw(st.integers(0, n - 1))] += draw(st.sampled_from([-1.0, -1e-3, 1e-6, 1e-3, 1.0]))
    elif how == "random":
        k = min(n, m)
        rows = np.asarray(draw(st.permutations(range(n))))[:k] if n else np.zeros(0, int)
        cols = np.asarray(draw(st.permutations(range(m))))[:k] if m else np.zeros(0, int)
        cfr, rfc = np.full(n, -1), np.full(m, -1)
        cfr[rows], rfc[cols] = cols, rows
        u = np.asarray(
            draw(st.lists(st.sampled_from([-2.0, 0.0, 1.0, 3.0]), min_size=n, max_size=n))
        )
        v = np.asarray(
            draw(st.lists(st.sampled_from([-2.0, 0.0, 1.0, 3.0]), min_size=m, max_size=m))
        )
    elif how == "shift duals":  # u + t, v - t: the same dual objective when square
        t = draw(st.sampled_from([-5.0, 0.5, 7.0]))
        u, v = u + t, v - t
    return res._replace(col_for_row=cfr, row_for_col=rfc, u=u, v=v)


def oracle_accepts(S: np.ndarray, maximize: bool, forged, want: Expect) -> tuple[bool, str]:
    """Whether the forged assignment is optimal for ``S`` by the oracle."""
    if want.status != LAPStatus.OPTIMAL:
        return False, f"no optimum ({want.status.name})"
    problem = assignment_problem(S, forged.col_for_row, forged.row_for_col, maximize)
    if problem:
        return False, problem
    rows = np.flatnonzero(forged.col_for_row >= 0)
    total = float(S[rows, forged.col_for_row[rows]].astype(np.float64).sum())
    tol = lap_tolerance(S, forged.u, forged.v)
    return abs(total - float(want.cost)) <= tol, f"cost {total} vs optimum {want.cost}"


@st.composite
def dense_cases(draw):
    n, m = draw(st.sampled_from(SIDES)), draw(st.sampled_from(SIDES))
    C, _ = draw(cost_arrays((n, m), ("int32", "float32", "float64")))
    return C, draw(st.booleans())


@fuzz_settings(quick=120)
@given(case=dense_cases(), how=st.sampled_from(FORGERIES), data=st.data())
def test_verify_lap_never_passes_what_scipy_rejects(case, how, data):
    C, maximize = case
    COUNTS["verify_lap dense (forged)"] += 1
    res = jax.tree.map(np.asarray, jaxmatch.solve_lap(C, maximize=maximize))
    forged = forge(data.draw, C.shape, res, how)
    cert = jaxmatch.verify_lap(C, forged, maximize=maximize)
    want = lap_oracle(C, maximize)
    ok, why = oracle_accepts(C, maximize, forged, want)
    info = (how, why, cert.reason, C.tolist(), maximize, forged)
    assert not cert.optimal or ok, info
    problem = assignment_problem(C, forged.col_for_row, forged.row_for_col, maximize)
    assert cert.valid_assignment == (problem == ""), (problem, *info)
    if how == "as solved" and want.status == LAPStatus.OPTIMAL:
        assert cert.optimal or int(res.status) == LAPStatus.OVERFLOW, info


@fuzz_settings(quick=80)
@given(
    member=sparse_problems(), maximize=st.booleans(), how=st.sampled_from(FORGERIES), data=st.data()
)
def test_verify_lap_on_sparse_costs_never_passes_what_scipy_rejects(member, maximize, how, data):
    indptr, indices, values, shape, corrupt, _ = member
    COUNTS["verify_lap SparseCosts (forged)"] += 1
    S = SparseCosts(indptr, indices, values, shape)
    res = jax.tree.map(np.asarray, jaxmatch.solve_lap(S, maximize=maximize))
    forged = forge(data.draw, shape, res, how)
    cert = jaxmatch.verify_lap(S, forged, maximize=maximize)
    if corrupt is not None:  # a malformed CSR has no optimum to certify
        assert not cert.optimal, (how, corrupt, cert.reason, indptr.tolist(), indices.tolist())
        return
    D, invalid = sparse_oracle(indptr, indices, values, shape, maximize, True)
    want = Expect(LAPStatus.INVALID_ENTRIES) if invalid else lap_oracle(D, maximize)
    ok, why = oracle_accepts(D, maximize, forged, want)
    info = (how, why, cert.reason, indptr.tolist(), indices.tolist(), values.tolist(), maximize)
    assert not cert.optimal or ok, info


#: Malformed CSR structures (indptr, indices) of a 1 x 1 or 2 x 2 matrix
#: that the solver reports as INVALID_STRUCTURE.
MALFORMED = {
    "decreasing indptr": ([0, 2, 1], [0, 0, 0, 0], (2, 2)),
    "index past n_cols": ([0, 2], [1, 0], (1, 1)),
    "negative index": ([0, 2], [-1, 0], (1, 1)),
}


def _malformed_case(name: str):
    """The solver's verdict on a malformed CSR, and the certificate of a
    result that would be optimal if the bad entry were column ``n - 1``."""
    indptr, indices, shape = MALFORMED[name]
    data = np.zeros(len(indices), np.float32)
    S = SparseCosts(np.asarray(indptr, np.int32), np.asarray(indices, np.int32), data, shape)
    res = jax.tree.map(np.asarray, jaxmatch.solve_lap(S))
    n, m = shape
    forged = res._replace(
        col_for_row=np.arange(n), row_for_col=np.arange(m), u=np.zeros(n), v=np.zeros(m)
    )
    return int(res.status), jaxmatch.verify_lap(S, forged)


@pytest.mark.parametrize("name", list(MALFORMED))
def test_verify_lap_judges_a_malformed_sparse_costs(name):
    """Once a NumPy error or a certified result (issue 51)."""
    status, cert = _malformed_case(name)
    assert status == LAPStatus.INVALID_STRUCTURE
    assert not cert.optimal and cert.reason, cert


@st.composite
def scipy_matrices(draw):
    n, m = draw(st.sampled_from(SIDES)), draw(st.sampled_from(SIDES))
    k = draw(st.integers(0, 2 * n * m)) if n * m else 0
    rows = np.asarray(draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=k, max_size=k)), int)
    cols = np.asarray(draw(st.lists(st.integers(0, max(m - 1, 0)), min_size=k, max_size=k)), int)
    vals, _ = draw(cost_arrays((k,), ("int32", "float64")))
    return sp.coo_array((vals, (rows, cols)), shape=(n, m)), rows, cols, vals


@fuzz_settings(quick=80)
@given(
    case=scipy_matrices(), maximize=st.booleans(), how=st.sampled_from(FORGERIES), data=st.data()
)
def test_verify_lap_on_scipy_sparse_never_passes_what_scipy_rejects(case, maximize, how, data):
    """scipy sparse costs as csgraph reads them: duplicates summed, explicit
    zeros removed, ``+inf`` (``-inf`` maximizing) absent, NaN and ``-inf``
    (``+inf``) invalid."""
    M, rows, cols, vals = case
    COUNTS["verify_lap scipy sparse (forged)"] += 1
    n, m = M.shape
    D = np.zeros((n, m))
    with np.errstate(invalid="ignore"):
        np.add.at(D, (rows, cols), vals.astype(np.float64))
    stored = np.zeros((n, m), bool)
    stored[rows, cols] = True
    absent = -np.inf if maximize else np.inf
    invalid = np.any(np.isnan(D[stored]) | (D[stored] == -absent))
    D[~stored | (D == 0)] = absent
    want = Expect(LAPStatus.INVALID_ENTRIES) if invalid else lap_oracle(D, maximize)
    finite = np.where(np.isfinite(D), D, 0.0)
    res = jax.tree.map(
        np.asarray, jaxmatch.solve_lap(np.where(np.isfinite(D), finite, absent), maximize=maximize)
    )
    forged = forge(data.draw, (n, m), res, how)
    cert = jaxmatch.verify_lap(M, forged, maximize=maximize)
    ok, why = oracle_accepts(D, maximize, forged, want)
    assert not cert.optimal or ok, (how, why, cert.reason, rows, cols, vals, maximize, forged)


@fuzz_settings(quick=80)
@given(G=graphs(), data=st.data())
def test_verify_matching_agrees_with_the_oracle(G, data):
    """Random matchings (pairs that are not edges, one-sided pairs, indices
    out of range): valid exactly when the oracle says so, maximum exactly
    when valid and of the maximum cardinality."""
    COUNTS["verify_matching (forged)"] += 1
    n, m = G.shape
    rm = np.asarray(data.draw(st.lists(st.integers(-1, m), min_size=n, max_size=n)), np.int64)
    cm = np.full(m, -1, np.int64)
    if data.draw(st.booleans()):  # a consistent pairing, edges or not
        for r in np.flatnonzero((rm >= 0) & (rm < m)):
            if cm[rm[r]] < 0:
                cm[rm[r]] = r
            else:
                rm[r] = -1
    else:
        cm = np.asarray(data.draw(st.lists(st.integers(-1, n), min_size=m, max_size=m)), np.int64)
    cert = jaxmatch.verify_matching(G, (rm, cm))
    problem = matching_problem(G, rm, cm, maximal=False)
    info = (problem, cert.reason, G.shape, [e.tolist() for e in G.edges()], rm, cm)
    assert cert.valid == (problem == ""), info
    best = maximum_cardinality(G)
    assert cert.maximum == (not problem and np.count_nonzero(rm >= 0) == best), (best, *info)


@fuzz_settings(quick=60)
@given(graph=weighted_graphs(), data=st.data())
def test_verify_weighted_matching_agrees_with_the_oracle(graph, data):
    """Random mates: valid exactly when a matching of edges; locally
    dominant exactly by the definition; a dominant matching weighs at least
    half of networkx's optimum, which the upper bound bounds."""
    u, v, w, n, _ = graph
    G = build(u, v, w, n)
    if G is None:
        return
    COUNTS["verify_weighted_matching (forged)"] += 1
    mate = np.asarray(data.draw(st.lists(st.integers(-1, n), min_size=n, max_size=n)), np.int64)
    if data.draw(st.booleans()):  # symmetric, edges or not
        pairs = np.full(n, -1, np.int64)
        for a, b in enumerate(mate):
            if 0 <= b < n and b != a and pairs[a] < 0 and pairs[b] < 0:
                pairs[a], pairs[b] = b, a
        mate = pairs
    cert = jaxmatch.verify_weighted_matching(G, mate)
    eu, ev, ew = G.edges(both=True)
    weight = {(int(a), int(b)): x for a, b, x in zip(eu, ev, ew, strict=True)}
    valid = bool(
        np.all((mate >= -1) & (mate < n))
        and all(mate[b] == a and a != b and (a, b) in weight for a, b in enumerate(mate) if b >= 0)
    )
    assert cert.valid == valid, (cert.reason, mate, weight)
    if not valid:
        return
    at = np.zeros(n)
    for a, b in enumerate(mate):
        if b >= 0:
            at[a] = float(weight[(a, int(b))])
    dominant = all(
        x <= 0 or mate[a] == b or float(x) <= max(at[a], at[b]) for (a, b), x in weight.items()
    )
    assert cert.locally_dominant == dominant, (cert.reason, mate, weight)
    if dominant and ew.size and np.abs(ew.astype(np.float64)).max() < 1e15:
        opt = networkx_optimum(G)
        assert float(cert.weight) >= opt / 2 - 1e-9 * max(1.0, opt), (cert, opt)
        assert cert.upper_bound >= opt - 1e-9 * max(1.0, opt), (cert, opt)
