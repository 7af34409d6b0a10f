"""The LAP certificate accepts optimal solutions and rejects wrong ones."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lap_cases import METHODS, check_against_scipy, scipy_optimum

import jaxmatch


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
    assert not jaxmatch.verify_lap(
        C, res._replace(col_for_row=cfr, row_for_col=cfr)
    ).valid_assignment


def test_rejects_nonzero_duals_of_unassigned_vertices():
    """Rectangular problems: the larger side's duals must be <= 0, and 0 on
    its unassigned vertices."""
    rng = np.random.default_rng(4)
    for n, m, side in ((3, 5, "v"), (5, 3, "u")):
        C = rng.random((n, m))
        res = _solve(C)
        assert jaxmatch.verify_lap(C, res).optimal
        free = np.flatnonzero(np.asarray(res.row_for_col if side == "v" else res.col_for_row) < 0)
        assert free.size == abs(n - m)
        duals = np.asarray(getattr(res, side)).copy()
        duals[free[0]] -= 1.0  # still dual feasible, but slack on a free vertex
        cert = jaxmatch.verify_lap(C, res._replace(**{side: duals}))
        assert cert.valid_assignment and cert.dual_feasible
        assert not cert.complementary_slackness and not cert.optimal
        duals[free[0]] += 2.0  # positive: infeasible for the larger side
        cert = jaxmatch.verify_lap(C, res._replace(**{side: duals}))
        assert not cert.dual_feasible and not cert.optimal


def test_rejects_minimum_as_maximum():
    """The optimum of the minimization is not certified as a maximum."""
    C = np.random.default_rng(5).random((6, 6))
    res = _solve(C)
    assert jaxmatch.verify_lap(C, res).optimal
    assert not jaxmatch.verify_lap(C, res, maximize=True).optimal
    best = _solve(C, maximize=True)
    assert jaxmatch.verify_lap(C, best, maximize=True).optimal


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
    method=st.sampled_from(METHODS),
)
def test_property_random_small(n, m, seed, levels, maximize, method):
    C = np.random.default_rng(seed).integers(0, levels, (n, m)).astype(np.float64)
    res = _solve(C, maximize=maximize, method=method)
    if min(n, m) == 0:
        assert bool(res.feasible)
        return
    check_against_scipy(C, res, maximize)


# -------------------------------------- malformed input gives a certificate

_C = np.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0]])  # 2 x 3; optimum (0, 1), (1, 0)


def _optimal():
    res = _solve(_C)
    assert jaxmatch.verify_lap(_C, res).optimal
    return res


def _assert_invalid(cert, reason):
    assert not cert.valid_assignment and not cert.optimal, cert
    assert not cert.dual_feasible and not cert.complementary_slackness
    assert np.isnan(cert.primal_cost) and np.isnan(cert.duality_gap)
    assert reason in cert.reason, cert.reason


@pytest.mark.parametrize(
    "field, value, reason",
    [
        ("col_for_row", np.array([1, 3]), "out of range"),
        ("col_for_row", np.array([1, -2]), "out of range"),
        ("row_for_col", np.array([1, 0, 2]), "out of range"),
        ("row_for_col", np.array([1, 0, -7]), "out of range"),
        ("col_for_row", np.array([2**62, 0]), "out of range"),
        ("col_for_row", np.array([1, 2**64 - 1], np.uint64), "out of range"),
        ("col_for_row", np.array([1.0, 0.0]), "must hold integers"),
        ("col_for_row", np.array([np.nan, 0.0]), "must hold integers"),
        ("row_for_col", np.array([True, False, False]), "must hold integers"),
        ("col_for_row", np.array([1, 0, -1]), "shape (3,), expected (2,)"),
        ("col_for_row", np.array([1]), "shape (1,), expected (2,)"),
        ("col_for_row", np.array([[1, 0]]), "shape (1, 2), expected (2,)"),
        ("row_for_col", np.int32(1), "shape (), expected (3,)"),
        ("row_for_col", [[1], [0, 2]], "row_for_col is not an array"),
        ("col_for_row", np.array([1, 1]), "a column is assigned to two rows"),
        ("col_for_row", np.array([1, -1]), "1 rows are assigned, expected 2"),
        ("row_for_col", np.array([0, 1, -1]), "disagree"),
    ],
)
def test_bad_assignment_gives_a_certificate(field, value, reason):
    """Issue 17: out-of-range, non-integer or mis-shaped assignments fail the
    certificate (``valid_assignment=False``) instead of raising."""
    _assert_invalid(jaxmatch.verify_lap(_C, _optimal()._replace(**{field: value})), reason)


@pytest.mark.parametrize(
    "field, value, reason",
    [
        ("u", np.array([np.nan, 0.0]), "NaN or infinite"),
        ("v", np.array([0.0, np.inf, 0.0]), "NaN or infinite"),
        ("u", np.array([-np.inf, 0.0]), "NaN or infinite"),
        ("v", np.array([0.0, 1.0]), "v has shape (2,), expected (3,)"),
        ("u", np.zeros((1, 2)), "u has shape (1, 2), expected (2,)"),
        ("u", np.array([1 + 1j, 0]), "u must hold real numbers"),
        ("v", np.array(["a", "b", "c"]), "v must hold real numbers"),
    ],
)
def test_bad_duals_give_a_certificate(field, value, reason):
    """The assignment is still judged (valid, with its cost); the duals fail."""
    cert = jaxmatch.verify_lap(_C, _optimal()._replace(**{field: value}))
    assert cert.valid_assignment and cert.primal_cost == 1.0 + 2.0
    assert not cert.dual_feasible and not cert.complementary_slackness and not cert.optimal
    assert reason in cert.reason, cert.reason


@pytest.mark.parametrize("maximize", [False, True])
def test_nan_or_invalid_infinity_in_unused_entries_is_never_optimal(maximize):
    """The solver calls such a matrix INVALID_ENTRIES; the certificate does not
    certify a solution of it, even when the bad entry is not assigned."""
    C = np.random.default_rng(6).random((3, 3))
    res = _solve(C, maximize=maximize)
    cfr = np.asarray(res.col_for_row)
    unused = (0, (int(cfr[0]) + 1) % 3)
    for bad in (np.nan, np.inf if maximize else -np.inf):
        C2 = C.copy()
        C2[unused] = bad
        cert = jaxmatch.verify_lap(C2, res, maximize=maximize)
        assert cert.valid_assignment and not cert.dual_feasible and not cert.optimal
        assert "NaN or" in cert.reason, cert.reason


def test_mismatched_batch_gives_failed_certificates():
    C = np.random.default_rng(7).random((2, 3, 3))
    res = _solve(C)
    assert all(c.optimal for c in jaxmatch.verify_lap(C, res))
    certs = jaxmatch.verify_lap(C, res._replace(col_for_row=res.col_for_row[0]))
    assert len(certs) == 2
    for cert in certs:
        _assert_invalid(cert, "col_for_row has shape (3,), expected (2, 3)")
    certs = jaxmatch.verify_lap(C, res._replace(v=res.v[:, :2]))
    assert all(c.valid_assignment and not c.optimal for c in certs)
    assert all("v has shape (2, 2), expected (2, 3)" in c.reason for c in certs)
    assert jaxmatch.verify_lap(np.zeros((0, 3, 3)), res) == []


def test_wrong_rank_or_type_of_C_raises_value_error():
    res = _optimal()
    with pytest.raises(ValueError, match=r"shape \[\.\.\., n, m\]"):
        jaxmatch.verify_lap(_C[0], res)
    with pytest.raises(ValueError, match="must be real"):
        jaxmatch.verify_lap(_C.astype(complex), res)
    with pytest.raises(TypeError, match="result has no col_for_row, row_for_col, u, v"):
        jaxmatch.verify_lap(_C, (res.col_for_row, res.row_for_col))


def test_certificate_fields_are_plain_python_and_reason_explains():
    res = _optimal()
    for cert in (
        jaxmatch.verify_lap(_C, res),
        jaxmatch.verify_lap(_C, res._replace(u=np.asarray(res.u) + 1.0)),
        jaxmatch.verify_lap(_C.astype(np.float32), _solve(_C.astype(np.float32))),
        jaxmatch.verify_lap(_C.astype(np.int32), _solve(_C.astype(np.int32))),
        jaxmatch.verify_lap(_C, res._replace(col_for_row=np.array([5, 0]))),
        jaxmatch.verify_lap(_C, res._replace(u=np.array([np.nan, 0.0]))),
        jaxmatch.verify_lap(_C, res, tol=np.float32(1e-6)),
    ):
        for name in ("valid_assignment", "dual_feasible", "complementary_slackness", "optimal"):
            assert type(getattr(cert, name)) is bool, (name, cert)
        for name in ("primal_cost", "dual_objective", "duality_gap", "max_violation"):
            assert type(getattr(cert, name)) is float, (name, cert)
        assert type(cert.reason) is str
        assert (cert.reason == "") == cert.optimal, cert
    cert = jaxmatch.verify_lap(_C, res._replace(u=np.asarray(res.u) + 1.0))
    assert "duals are infeasible" in cert.reason


def test_certificate_positional_construction_still_works():
    """``reason`` was appended with a default: eight positional fields work."""
    cert = jaxmatch.LAPCertificate(True, True, True, 1.0, 1.0, 0.0, 0.0, True)
    assert cert.reason == "" and cert._fields[-1] == "reason" and len(cert) == 9


_GARBAGE_INT = st.integers(-(2**40), 2**40) | st.integers(-3, 6)
_GARBAGE_REAL = st.floats(allow_nan=True, allow_infinity=True) | st.integers(-3, 6)


@pytest.mark.filterwarnings("error")
@settings(max_examples=200, deadline=None)
@given(
    batch=st.sampled_from([(), (2,), (1, 2)]),
    n=st.integers(0, 4),
    m=st.integers(0, 4),
    maximize=st.booleans(),
    data=st.data(),
)
def test_property_garbage_of_the_right_shapes_never_raises(batch, n, m, maximize, data):
    """Random costs (NaN and infinities included) and random result fields of
    the right shapes, integer or not, always give certificates; an optimal
    one only for a valid assignment of finite entries with finite duals."""

    def arr(shape, elements, dtypes):
        size = int(np.prod(shape))
        dtype = data.draw(st.sampled_from(dtypes))
        values = data.draw(st.lists(elements, min_size=size, max_size=size))
        if np.issubdtype(dtype, np.integer):
            info = np.iinfo(dtype)
            lo, hi = int(info.min), int(info.max)
            values = [min(max(int(np.nan_to_num(x, posinf=hi, neginf=lo)), lo), hi) for x in values]
        with np.errstate(over="ignore"):  # float64 -> float32 may overflow to inf
            return np.array(values, dtype).reshape(shape)

    ints = [np.int32, np.int64, np.uint32, np.float64]
    reals = [np.float32, np.float64, np.int32]
    C = arr((*batch, n, m), _GARBAGE_REAL, reals)
    res = jaxmatch.LAPResult(
        col_for_row=arr((*batch, n), _GARBAGE_INT, ints),
        row_for_col=arr((*batch, m), _GARBAGE_INT, ints),
        cost=np.zeros(batch),
        u=arr((*batch, n), _GARBAGE_REAL, reals),
        v=arr((*batch, m), _GARBAGE_REAL, reals),
        feasible=np.ones(batch, bool),
        iterations=np.zeros(batch, np.int32),
        status=np.ones(batch, np.int32),
    )
    out = jaxmatch.verify_lap(C, res, maximize=maximize)
    certs = [out] if not batch else out
    assert len(certs) == int(np.prod(batch))
    B = int(np.prod(batch))
    for b, cert in enumerate(certs):
        assert isinstance(cert, jaxmatch.LAPCertificate)
        assert type(cert.optimal) is bool and type(cert.valid_assignment) is bool
        if cert.optimal:
            cfr = np.asarray(res.col_for_row).reshape(B, n)[b]
            u = np.asarray(res.u).reshape(B, n)[b].astype(float)
            assert cert.valid_assignment and cert.dual_feasible
            assert np.all(cfr >= -1) and np.all(np.isfinite(u))
            assert not np.isnan(C.reshape(B, n, m)[b].astype(float)).any()
        elif not cert.valid_assignment:
            assert cert.reason


@pytest.mark.filterwarnings("error")
@settings(max_examples=100, deadline=None)
@given(
    n=st.integers(1, 4),
    m=st.integers(1, 4),
    seed=st.integers(0, 2**31 - 1),
    maximize=st.booleans(),
    corrupt=st.sampled_from(["none", "permute", "duals", "dual_nan", "cost_nan", "index"]),
)
def test_property_corrupted_solutions_never_raise_and_optimal_is_sound(
    n, m, seed, maximize, corrupt
):
    """A solver result with one part corrupted (another assignment, shifted
    or NaN duals, a NaN cost, an index out of range) gives a certificate, and
    ``optimal`` is only claimed for scipy's optimal objective."""
    rng = np.random.default_rng(seed)
    C = rng.integers(0, 4, (n, m)).astype(np.float64)
    res = _solve(C, maximize=maximize)
    cfr, rfc = np.asarray(res.col_for_row).copy(), np.asarray(res.row_for_col).copy()
    u, v = np.asarray(res.u).copy(), np.asarray(res.v).copy()
    if corrupt == "permute":  # another valid assignment, the solver's duals
        k = min(n, m)
        rows, cols = rng.permutation(n)[:k], rng.permutation(m)[:k]
        cfr[:], rfc[:] = -1, -1
        cfr[rows], rfc[cols] = cols, rows
    elif corrupt == "duals":
        u += rng.integers(-1, 2, n)
    elif corrupt == "dual_nan":
        v[rng.integers(m)] = np.nan
    elif corrupt == "cost_nan":
        C[rng.integers(n), rng.integers(m)] = np.nan
    elif corrupt == "index":
        cfr = cfr.astype(np.int64)
        cfr[rng.integers(n)] = rng.choice([-2, m, 2**40])
    res = res._replace(col_for_row=cfr, row_for_col=rfc, u=u, v=v)
    cert = jaxmatch.verify_lap(C, res, maximize=maximize)
    assert isinstance(cert, jaxmatch.LAPCertificate)
    if corrupt == "none":
        assert cert.optimal, cert
    if corrupt in ("dual_nan", "cost_nan", "index"):
        assert not cert.optimal and cert.reason
    if cert.optimal:
        assert abs(cert.primal_cost - scipy_optimum(C, maximize)) < 1e-9
