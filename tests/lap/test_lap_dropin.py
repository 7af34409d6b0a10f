"""The eager scipy drop-in: scipy's arithmetic and no XLA at all."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment as scipy_lsa

import jaxmatch


@pytest.fixture
def no_xla(monkeypatch):
    """Makes any XLA custom call or compilation fail the test."""

    def refuse(*args, **kwargs):
        raise AssertionError("the drop-in must not go through XLA")

    monkeypatch.setattr(jax.ffi, "ffi_call", refuse)
    monkeypatch.setattr(jax, "jit", refuse)


@pytest.mark.parametrize("x64", [False, True])
def test_near_ties_in_float64_match_scipy_exactly(x64, no_xla):
    rng = np.random.default_rng(3)
    with jax.enable_x64(x64):
        for _ in range(60):
            n, m = (int(k) for k in rng.integers(1, 30, size=2))
            scale = 10.0 ** rng.integers(0, 9)
            C = scale + rng.integers(0, 3, (n, m)) * 1e-7 * scale + 1e-12 * rng.random((n, m))
            for maximize in (False, True):
                r, c = jaxmatch.linear_sum_assignment(C, maximize=maximize)
                rs, cs = scipy_lsa(C, maximize=maximize)
                assert len(r) == len(set(r)) == len(set(c)) == min(n, m)
                # Ties allow other optima; the objective is scipy's to
                # float64 rounding (float32 would miss by about 1e-7).
                assert C[r, c].sum() == pytest.approx(C[rs, cs].sum(), rel=1e-13, abs=0)


@pytest.mark.parametrize(
    "dtype", [np.float16, np.float32, np.int8, np.uint16, np.int32, np.int64, np.uint64, bool]
)
def test_every_numeric_dtype_matches_scipy(dtype, no_xla):
    rng = np.random.default_rng(4)
    C = (rng.random((7, 9)) * 100).astype(dtype)
    for maximize in (False, True):
        r, c = jaxmatch.linear_sum_assignment(C, maximize=maximize)
        rs, cs = scipy_lsa(C, maximize=maximize)
        assert r.dtype == rs.dtype == np.intp and c.dtype == np.intp
        a = C.astype(np.float64)
        assert a[r, c].sum() == a[rs, cs].sum()


def test_int32_limits_are_solved_exactly(no_xla):
    info = np.iinfo(np.int32)
    C = np.array([[info.max, info.min + 1, 0], [info.min + 1, info.max, 5]], np.int32)
    for maximize in (False, True):
        r, c = jaxmatch.linear_sum_assignment(C, maximize=maximize)
        rs, cs = scipy_lsa(C, maximize=maximize)
        assert C[r, c].astype(np.int64).sum() == C[rs, cs].astype(np.int64).sum()


def test_varying_shapes_compile_nothing(no_xla):
    rng = np.random.default_rng(5)
    for n in range(1, 40):
        C = rng.random((n, n + n % 3))
        assert jaxmatch.linear_sum_assignment(C)[1].shape == (n,)


def test_forbidden_entries_and_infeasibility(no_xla):
    C = np.array([[np.inf, 1.0], [np.inf, 2.0]])
    with pytest.raises(ValueError, match="cost matrix is infeasible"):
        jaxmatch.linear_sum_assignment(C)
    C = np.array([[np.inf, 1.0], [2.0, np.inf]])
    np.testing.assert_array_equal(jaxmatch.linear_sum_assignment(C)[1], [1, 0])
    with pytest.raises(ValueError, match="invalid numeric entries"):
        jaxmatch.linear_sum_assignment(C, maximize=True)


_ODD_INPUTS = [
    "abc",
    [["a", "b"]],
    [[1, "x"]],
    None,
    [[1, 2], [3]],
    [[1 + 2j]],
    np.array([[1 + 2j]]),
    np.array([["1", "2"]]),
    [["1", "2"]],
    [[None, 1]],
    np.array([[None, 1]]),
]


@pytest.mark.parametrize("cost_matrix", _ODD_INPUTS, ids=repr)
def test_odd_input_behaves_as_in_scipy(cost_matrix, no_xla):
    """Strings, None, ragged lists, complex and object input: scipy's
    answer, or its exception type and message."""
    try:
        want = scipy_lsa(cost_matrix)
    except (TypeError, ValueError) as error:
        with pytest.raises(type(error)) as raised:
            jaxmatch.linear_sum_assignment(cost_matrix)
        assert str(raised.value) == str(error)
    else:
        got = jaxmatch.linear_sum_assignment(cost_matrix)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


def test_matching_drop_in_compiles_nothing(no_xla):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

    for k, fmt in enumerate(("csr", "csc", "coo")):
        for n in range(1, 30, 7):
            A = sp.random(n, n + k, density=0.2, format=fmt, random_state=n)
            for perm_type in ("row", "column"):
                ours = jaxmatch.maximum_bipartite_matching(A, perm_type=perm_type)
                theirs = scipy_mbm(A, perm_type=perm_type)
                assert ours.shape == theirs.shape
                assert (ours >= 0).sum() == (theirs >= 0).sum()
