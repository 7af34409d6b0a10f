"""The scipy drop-ins against scipy on one input each (used by the
drop-in fuzz tests and their batched deep runs)."""

from __future__ import annotations

import warnings

import numpy as np
import scipy.optimize
import scipy.sparse as sp
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


def check_linear_sum_assignment(C: np.ndarray, maximize: bool, kind: str = "") -> None:
    """The drop-in against scipy on one matrix: the same error, or an
    assignment of the same total."""
    n, m = C.shape
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


def check_min_weight_full_bipartite_matching(rows, cols, vals, shape, maximize, fmt) -> None:
    """The drop-in on COO entries stored in format ``fmt`` against scipy on
    the contract's matrix (the same error, or a matching of the same
    total); invalid entries against the contract."""
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


def check_maximum_bipartite_matching(rows, cols, shape, perm, fmt) -> None:
    """The drop-in against scipy on the graph of the COO entries: a
    matching of the same size, along edges."""
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
