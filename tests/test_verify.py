"""The LAP certificate accepts optimal solutions and rejects wrong ones."""

from __future__ import annotations

import jax
import numpy as np
from hypothesis import given, settings, strategies as st

import jaxmatch
from lap_cases import check_against_scipy


def _solve(C, **kw):
    return jax.device_get(jaxmatch.solve_lap(C, **kw))


def test_accepts_optimal_and_reports_zero_gap():
    C = np.random.default_rng(0).random((6, 9))
    cert = jaxmatch.verify_lap(C, _solve(C))
    assert cert.optimal and cert.valid_assignment and abs(cert.duality_gap) < 1e-9


def test_rejects_suboptimal_assignment():
    C = np.random.default_rng(1).random((6, 6))
    res = _solve(C)
    cfr = np.asarray(res.col_for_row).copy()
    cfr[[0, 1]] = cfr[[1, 0]]
    rfc = np.empty_like(cfr)
    rfc[cfr] = np.arange(6)
    bad = res._replace(col_for_row=cfr, row_for_col=rfc)
    cert = jaxmatch.verify_lap(C, bad)
    assert cert.valid_assignment and not cert.optimal
    assert not cert.complementary_slackness


def test_rejects_invalid_assignment_and_infeasible_duals():
    C = np.random.default_rng(2).random((5, 5))
    res = _solve(C)
    cfr = np.asarray(res.col_for_row).copy()
    cfr[0] = cfr[1]  # a column used twice
    assert not jaxmatch.verify_lap(C, res._replace(col_for_row=cfr)).valid_assignment
    u = np.asarray(res.u) + 1.0  # duals too large: reduced costs negative
    cert = jaxmatch.verify_lap(C, res._replace(u=u))
    assert not cert.dual_feasible and not cert.optimal


def test_rejects_forbidden_entry():
    C = np.array([[np.inf, 1.0], [1.0, 1.0]])
    res = _solve(C)
    cfr = np.array([0, 1], np.int32)
    assert not jaxmatch.verify_lap(C, res._replace(col_for_row=cfr, row_for_col=cfr)).valid_assignment


def test_batch_returns_one_certificate_per_member():
    C = np.random.default_rng(3).random((2, 3, 4, 4))
    certs = jaxmatch.verify_lap(C, _solve(C))
    assert len(certs) == 6 and all(c.optimal for c in certs)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 9),
    m=st.integers(0, 9),
    seed=st.integers(0, 2**31 - 1),
    levels=st.sampled_from([2, 3, 10, 1000]),
    maximize=st.booleans(),
    method=st.sampled_from(["tree", "classical"]),
)
def test_property_random_small(n, m, seed, levels, maximize, method):
    C = np.random.default_rng(seed).integers(0, levels, (n, m)).astype(np.float64)
    res = _solve(C, maximize=maximize, method=method)
    if min(n, m) == 0:
        assert bool(res.feasible)
        return
    check_against_scipy(C, res, maximize)
