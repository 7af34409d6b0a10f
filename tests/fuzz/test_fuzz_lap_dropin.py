"""Differential fuzzing of the scipy drop-ins against scipy itself:
``linear_sum_assignment`` (every dtype, empty sides, ``+-inf``, NaN),
``min_weight_full_bipartite_matching`` (duplicate, unsorted and zero
entries, every sparse format; non-finite entries against the contract, not
scipy, which is erratic there) and ``maximum_bipartite_matching``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.optimize
import scipy.sparse as sp
from fuzz_cases import COUNTS, DTYPES, SIDES, cost_arrays, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse import csgraph

import jaxmatch


def _float64_view(C: np.ndarray) -> np.ndarray:
    return C.astype(np.float64)


def _outcome(fn, *args, **kwargs):
    """``("ok", value)`` or ``(exception type, message)``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", fn(*args, **kwargs)
        except (ValueError, TypeError) as err:
            return type(err), str(err)


@fuzz_settings(quick=150)
@given(
    n=st.sampled_from(SIDES),
    m=st.sampled_from(SIDES),
    data=st.data(),
    maximize=st.booleans(),
)
def test_linear_sum_assignment_against_scipy(n, m, data, maximize):
    C, kind = data.draw(cost_arrays((n, m)))
    COUNTS["linear_sum_assignment"] += 1
    # scipy reads the ML dtypes (bfloat16) only through float64
    ref_input = C if C.dtype.kind in "biuf" else _float64_view(C)
    want = _outcome(scipy.optimize.linear_sum_assignment, ref_input, maximize=maximize)
    got = _outcome(jaxmatch.linear_sum_assignment, C, maximize=maximize)
    info = (C.dtype, kind, C.tolist(), maximize, want, got)
    if want[0] != "ok":
        assert got == want, info
        return
    assert got[0] == "ok", info
    (r, c), (rs, cs) = got[1], want[1]
    assert r.dtype == np.intp and c.dtype == np.intp, info
    assert r.size == c.size == rs.size and np.all(np.diff(r) > 0), info
    assert np.unique(c).size == c.size, info
    A = _float64_view(C)
    total, ref = A[r, c].sum(), A[rs, cs].sum()
    if C.dtype.kind in "biu" and np.abs(A).max(initial=0) < 2**40:
        assert total == ref, info
    else:
        scale = max(1.0, float(np.abs(A[np.isfinite(A)]).max(initial=0.0)))
        assert abs(total - ref) <= 1e-12 * scale * (n + m) or total == ref, info


@st.composite
def sparse_entries(draw, values=True):
    """``(rows, cols, vals, shape)``: COO entries, duplicates and any order."""
    n, m = draw(st.sampled_from(SIDES)), draw(st.sampled_from(SIDES))
    k = draw(st.integers(0, 3 * n * m)) if n * m else 0
    rows = np.asarray(
        draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=k, max_size=k)), np.int64
    )
    cols = np.asarray(
        draw(st.lists(st.integers(0, max(m - 1, 0)), min_size=k, max_size=k)), np.int64
    )
    vals, kind = (
        draw(cost_arrays((k,), ("int8", "int32", "int64", "float32", "float64")))
        if values
        else (np.ones(k), "")
    )
    return rows, cols, vals, (n, m), kind


def stored(rows, cols, vals, shape, fmt: str):
    """The entries as a scipy matrix of format ``fmt`` that stores them as
    given: duplicates kept, indices unsorted within a row (column)."""
    if fmt == "coo":
        return sp.coo_array((vals, (rows, cols)), shape=shape)
    major, minor = (rows, cols) if fmt == "csr" else (cols, rows)
    order = np.argsort(major, kind="stable")
    ptr = np.searchsorted(major[order], np.arange(shape[fmt == "csc"] + 1))
    cls = sp.csr_array if fmt == "csr" else sp.csc_array
    M = cls((vals[order], minor[order], ptr), shape=shape)
    assert M.nnz == vals.size
    return M


def _contract_matrix(rows, cols, vals, shape, maximize):
    """The drop-in's problem by the contract: duplicates summed, zeros
    removed; None when it has invalid entries (NaN, -inf; +inf maximizing);
    else the finite edges as a CSR matrix."""
    A = np.zeros(shape)
    seen = np.zeros(shape, bool)
    with np.errstate(invalid="ignore"):
        np.add.at(A, (rows, cols), vals.astype(np.float64))
    seen[rows, cols] = True
    if np.any(np.isnan(A[seen])) or np.any(A[seen] == (np.inf if maximize else -np.inf)):
        return None
    keep = seen & np.isfinite(A) & (A != 0)
    r, c = np.nonzero(keep)
    return sp.csr_array((A[r, c], (r, c)), shape=shape)


@fuzz_settings(quick=150)
@given(entries=sparse_entries(), maximize=st.booleans(), fmt=st.sampled_from(["csr", "csc", "coo"]))
def test_min_weight_full_bipartite_matching_against_scipy(entries, maximize, fmt):
    rows, cols, vals, shape, _kind = entries
    COUNTS["min_weight_full_bipartite_matching"] += 1
    M = stored(rows, cols, vals, shape, fmt)
    got = _outcome(jaxmatch.min_weight_full_bipartite_matching, M, maximize=maximize)
    ref = _contract_matrix(rows, cols, vals, shape, maximize)
    info = (rows.tolist(), cols.tolist(), vals.tolist(), shape, maximize, got)
    if ref is None:
        assert got == (ValueError, "matrix contains invalid numeric entries"), info
        return
    want = _outcome(csgraph.min_weight_full_bipartite_matching, ref, maximize=maximize)
    if want[0] != "ok":
        assert got == want, (want, *info)
        return
    assert got[0] == "ok", (want, *info)
    (r, c), (rs, cs) = got[1], want[1]
    assert r.size == c.size == rs.size and np.all(np.diff(r) > 0), info
    D = ref.toarray()
    assert np.unique(c).size == c.size and np.all(D[r, c] != 0), info
    total, best = D[r, c].sum(), D[rs, cs].sum()
    scale = max(1.0, float(np.abs(D).max(initial=0.0)))
    assert abs(total - best) <= 1e-12 * scale * sum(shape), (total, best, *info)


@fuzz_settings(quick=100)
@given(
    entries=sparse_entries(values=False),
    perm=st.sampled_from(["row", "column"]),
    fmt=st.sampled_from(["csr", "csc", "coo"]),
)
def test_maximum_bipartite_matching_against_scipy(entries, perm, fmt):
    rows, cols, _, shape, _ = entries
    COUNTS["maximum_bipartite_matching"] += 1
    zeros = np.zeros(rows.size)  # explicit zeros are edges too
    M = sp.coo_array((zeros, (rows, cols)), shape=shape).asformat(fmt)
    if fmt != "coo":
        M.sum_duplicates()
    got = jaxmatch.maximum_bipartite_matching(M, perm_type=perm)
    want = csgraph.maximum_bipartite_matching(M, perm_type=perm)
    assert got.shape == want.shape, (got, want)
    assert np.count_nonzero(got >= 0) == np.count_nonzero(want >= 0), (rows, cols, shape, got, want)
    edges = set(zip(rows.tolist(), cols.tolist(), strict=True))
    matched = np.flatnonzero(got >= 0)
    assert np.unique(got[matched]).size == matched.size
    for a, b in zip(matched.tolist(), got[matched].tolist(), strict=True):
        assert ((b, a) if perm == "row" else (a, b)) in edges


@pytest.mark.parametrize("name", ["float16", "bfloat16", "int64", "uint32", "bool"])
def test_linear_sum_assignment_reads_every_dtype(name):
    C = np.array([[3, 1], [1, 0]]).astype(DTYPES[name])
    r, c = jaxmatch.linear_sum_assignment(C)
    assert r.tolist() == [0, 1] and c.tolist() in ([1, 0], [0, 1])


def test_coo_duplicates_sum_without_wrapping_like_scipy():
    """A COO matrix whose duplicate int8 entries sum past int8: scipy sums
    them in float64 (200); the drop-in once wrapped them (-56). Issue 51."""
    vals = np.array([100, 100, 1, 1, 1], np.int8)
    M = sp.coo_array((vals, ([0, 0, 0, 1, 1], [0, 0, 1, 0, 1])), shape=(2, 2))
    want = csgraph.min_weight_full_bipartite_matching(M)
    got = jaxmatch.min_weight_full_bipartite_matching(M)
    assert want[1].tolist() == [1, 0] and got[1].tolist() == want[1].tolist()
