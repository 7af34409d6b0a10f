"""k_best_assignments against brute-force enumeration (n, m <= 8) and a
plain Murty on scipy (up to n = 50); every result certified by
verify_k_best. Problems of one shape and option set go in one batched call."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from k_best_oracles import brute_force, objective, scipy_murty

import jaxmatch


def _certify(C, res, *, unassigned_cost=None, maximize=False):
    """verify_k_best on a whole batch (one LAP solve for all its regions)."""
    certs = jaxmatch.verify_k_best(C, res, unassigned_cost=unassigned_cost, maximize=maximize)
    for cert in certs if isinstance(certs, list) else [certs]:
        assert cert.valid, cert.reason


def _check(
    C, res, want, r=None, c=None, *, unassigned_cost=None, maximize=False, exact=True, certify=True
):
    """One problem's result against the oracle's list ``want`` (minimizing
    order of ``sign * cost``), certified unless the caller certifies the
    batch."""
    if certify:
        _certify(C, res, unassigned_cost=unassigned_cost, maximize=maximize)
    count = int(res.found)
    assert count == len(want)
    got = np.asarray(res.costs, np.float64)[:count]
    sign = -1.0 if maximize else 1.0
    expected = np.array([sign * w for w, _ in want])
    if exact:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    sols = [tuple(int(v) for v in row) for row in np.asarray(res.assignments)[:count]]
    assert len(set(sols)) == count
    for s, g in zip(sols, got):
        value = sign * objective(sign * np.asarray(C, np.float64), r, c, s)
        if exact:
            assert value == g
        else:
            assert abs(value - g) <= 1e-4 * max(1.0, abs(g))


def _random_problems(rng, B, n, m, high, inf_rate):
    C = rng.integers(0, high, (B, n, m)).astype(np.float64)
    if inf_rate:
        C[rng.random((B, n, m)) < inf_rate] = np.inf
    return C


SHAPES = [(1, 1), (2, 3), (3, 2), (3, 3), (4, 4), (4, 2), (2, 5), (5, 5), (5, 3), (3, 6)]


@pytest.mark.parametrize("n,m", SHAPES)
@pytest.mark.parametrize("mode", ["plain", "scalar", "pair"])
def test_brute_force_small_integers(n, m, mode):
    """Ties everywhere (costs in [0, 4)), some forbidden pairs, k past the
    number of assignments, float64 and int32."""
    rng = np.random.default_rng(1000 * n + 10 * m + len(mode))
    B = 12
    C = _random_problems(rng, B, n, m, 4, 0.15)
    if mode == "plain":
        prices = [(None, None)] * B
        unassigned = None
    elif mode == "scalar":
        prices = [(np.full(n, 2.0), np.full(m, 2.0))] * B
        unassigned = 2.0
    else:
        r = rng.integers(0, 4, (B, n)).astype(np.float64)
        c = rng.integers(0, 4, (B, m)).astype(np.float64)
        prices = list(zip(r, c))
        unassigned = (r, c)
    k = 40
    res = jaxmatch.k_best_assignments(C, k, unassigned_cost=unassigned)
    _certify(C, res, unassigned_cost=unassigned)
    for b in range(B):
        r, c = prices[b]
        want = brute_force(C[b], k, r, c)
        one = type(res)(*(x[b] for x in res))
        _check(C[b], one, want, r, c, certify=False)
    # int32: the same problems with the forbidden pairs made dear.
    Ci = np.where(np.isinf(C), 50, C).astype(np.int32)
    ui = (
        None
        if unassigned is None
        else (
            2
            if mode == "scalar"
            else (unassigned[0].astype(np.int32), unassigned[1].astype(np.int32))
        )
    )
    res = jaxmatch.k_best_assignments(Ci, k, unassigned_cost=ui)
    assert res.costs.dtype == np.int32
    _certify(Ci, res, unassigned_cost=ui)
    for b in range(0, B, 3):
        r, c = prices[b]
        want = brute_force(Ci[b], k, r, c)
        one = type(res)(*(x[b] for x in res))
        _check(Ci[b], one, want, r, c, certify=False)


@pytest.mark.parametrize("exits", [False, True])
def test_brute_force_maximize_float32(exits):
    rng = np.random.default_rng(7)
    for n, m in [(3, 4), (4, 3), (4, 4)]:
        B = 8
        C = rng.integers(-3, 4, (B, n, m)).astype(np.float32)
        C[rng.random((B, n, m)) < 0.1] = -np.inf
        unassigned = 1.0 if exits else None
        res = jaxmatch.k_best_assignments(C, 30, unassigned_cost=unassigned, maximize=True)
        assert res.costs.dtype == np.float32
        _certify(C, res, unassigned_cost=unassigned, maximize=True)
        for b in range(B):
            r = np.full(n, -1.0) if exits else None
            c = np.full(m, -1.0) if exits else None
            want = brute_force(-C[b].astype(np.float64), 30, r, c)
            one = type(res)(*(x[b] for x in res))
            _check(C[b], one, want, r, c, maximize=True, certify=False)


@pytest.mark.parametrize("n,m,exits", [(8, 8, False), (6, 8, False), (8, 6, False), (6, 6, True)])
def test_brute_force_largest(n, m, exits):
    rng = np.random.default_rng(n * m + exits)
    C = rng.integers(0, 6, (2, n, m)).astype(np.float64)
    r = np.full(n, 3.0) if exits else None
    c = np.full(m, 3.0) if exits else None
    res = jaxmatch.k_best_assignments(C, 60, unassigned_cost=3.0 if exits else None)
    for b in range(2):
        want = brute_force(C[b], 60, r, c)
        one = type(res)(*(x[b] for x in res))
        _check(C[b], one, want, r, c, unassigned_cost=(r, c) if exits else None)


def test_brute_force_random_floats_and_infeasible():
    """Distinct float costs; plain problems that no assignment avoids the
    forbidden pairs of (count 0, INFEASIBLE)."""
    rng = np.random.default_rng(3)
    C = rng.random((20, 4, 5))
    C[:5, 0, :] = np.inf  # row 0 has no column: infeasible without exits
    res = jaxmatch.k_best_assignments(C, 25)
    _certify(C, res)
    for b in range(20):
        want = brute_force(C[b], 25)
        one = type(res)(*(x[b] for x in res))
        _check(C[b], one, want, exact=False, certify=False)
        if b < 5:
            assert int(one.status) == jaxmatch.LAPStatus.INFEASIBLE
    res = jaxmatch.k_best_assignments(C, 25, unassigned_cost=0.5)
    _certify(C, res, unassigned_cost=0.5)
    for b in range(20):
        want = brute_force(C[b], 25, np.full(4, 0.5), np.full(5, 0.5))
        one = type(res)(*(x[b] for x in res))
        _check(C[b], one, want, np.full(4, 0.5), np.full(5, 0.5), exact=False, certify=False)


@pytest.mark.parametrize("n,m", [(0, 0), (0, 3), (3, 0)])
@pytest.mark.parametrize("exits", [False, True])
def test_empty_sides(n, m, exits):
    C = np.zeros((n, m))
    u = (np.arange(n, dtype=float), np.arange(m, dtype=float) + 1) if exits else None
    res = jaxmatch.k_best_assignments(C, 3, unassigned_cost=u)
    assert res.assignments.shape == (3, n)
    assert int(res.found) == 1
    want = float(np.sum(u[0]) + np.sum(u[1])) if exits else 0.0
    assert float(res.costs[0]) == want
    assert np.all(np.asarray(res.costs)[1:] == np.inf)
    assert jaxmatch.verify_k_best(C, res, unassigned_cost=u).valid


@pytest.mark.parametrize(
    "n,m,k,exits",
    [(20, 20, 30, False), (30, 40, 20, False), (40, 30, 20, True), (50, 50, 10, True)],
)
def test_scipy_murty(n, m, k, exits):
    rng = np.random.default_rng(n + m + k)
    C = rng.random((n, m))
    if n == 20:
        C = np.round(C * 5)  # ties
    C[rng.random((n, m)) < 0.05] = np.inf
    r = rng.random(n) * 0.4 if exits else None
    c = rng.random(m) * 0.4 if exits else None
    res = jaxmatch.k_best_assignments(C, k, unassigned_cost=(r, c) if exits else None)
    want = scipy_murty(C, k, r, c)
    _check(C, res, want, r, c, unassigned_cost=(r, c) if exits else None, exact=n == 20)


def test_oracles_agree():
    rng = np.random.default_rng(11)
    for _ in range(40):
        n, m = rng.integers(0, 5, 2)
        C = rng.integers(0, 3, (n, m)).astype(float)
        C[rng.random((n, m)) < 0.2] = np.inf
        exits = rng.random() < 0.5
        r = rng.integers(0, 3, n).astype(float) if exits else None
        c = rng.integers(0, 3, m).astype(float) if exits else None
        a = brute_force(C, 20, r, c)
        b = scipy_murty(C, 20, r, c)
        assert [x for x, _ in a] == [x for x, _ in b]
        assert len({s for _, s in b}) == len(b)


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(0, 5),
    m=st.integers(0, 5),
    seed=st.integers(0, 2**31 - 1),
    levels=st.sampled_from([2, 3, 1000]),
    k=st.sampled_from([1, 7, 60]),
    exits=st.booleans(),
    maximize=st.booleans(),
    forbid=st.sampled_from([0.0, 0.3]),
)
def test_property_against_brute_force(n, m, seed, levels, k, exits, maximize, forbid):
    rng = np.random.default_rng(seed)
    C = rng.integers(0, levels, (n, m)).astype(np.float64)
    C[rng.random((n, m)) < forbid] = -np.inf if maximize else np.inf
    r = rng.integers(0, levels, n).astype(np.float64) if exits else None
    c = rng.integers(0, levels, m).astype(np.float64) if exits else None
    res = jaxmatch.k_best_assignments(
        C, k, unassigned_cost=(r, c) if exits else None, maximize=maximize
    )
    sign = -1.0 if maximize else 1.0
    want = brute_force(
        sign * C, k, None if r is None else sign * r, None if c is None else sign * c
    )
    _check(
        C,
        res,
        want,
        None if r is None else sign * r,
        None if c is None else sign * c,
        maximize=maximize,
        certify=False,
    )
