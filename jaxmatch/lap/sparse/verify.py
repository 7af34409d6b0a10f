"""The certificate of sparse LAP solutions (:func:`jaxmatch.verify_lap` on
a :class:`SparseCosts` or a scipy sparse matrix): LP duality on the stored
entries, in NumPy, independently of the solvers."""

from __future__ import annotations

import types
from typing import Any

import jax.numpy as jnp
import numpy as np

from ..._csr import GraphValidationError, validate_csr
from .._certificate import certificate, invalid
from ..types import LAPCertificate
from .costs import SparseCosts


def edges_of_scipy(A: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """A scipy sparse matrix's edges as scipy's csgraph reads them:
    duplicates summed, explicit zeros removed (float64 weights)."""
    import scipy.sparse as sp

    A = sp.coo_matrix(A, dtype=np.float64)
    A.sum_duplicates()
    keep = A.data != 0
    return A.row[keep], A.col[keep], A.data[keep], (int(A.shape[0]), int(A.shape[1]))


def edges_of_costs(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    shape: tuple[int, int],
    maximize: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """One :class:`SparseCosts` problem's edges as its solvers read them:
    the stored entries (zeros included), a pair stored twice at its cheaper
    cost (the dearer when maximizing), ``+inf`` (``-inf``) entries absent."""
    nnz = int(indptr[-1])
    rows = np.repeat(np.arange(shape[0]), np.diff(indptr))[:nnz]
    cols = np.asarray(indices[:nnz], np.int64)
    w = np.asarray(data[:nnz], np.float64)
    absent = np.inf if not maximize else -np.inf
    keep = w != absent
    rows, cols, w = rows[keep], cols[keep], w[keep]
    key = rows * max(shape[1], 1) + cols
    order = np.lexsort((-w if maximize else w, key))
    first = np.ones(order.size, bool)
    first[1:] = key[order][1:] != key[order][:-1]
    pick = order[first]
    return rows[pick], cols[pick], w[pick], shape


_EPS64 = float(np.finfo(np.float64).eps)


def _solve_eps(data_dtype: np.dtype, dual_dtype: np.dtype) -> float:
    """The rounding unit of the dtype a :class:`SparseCosts` was solved in
    (the duals come back in it): 0 for integer costs, which are exact."""
    if not jnp.issubdtype(data_dtype, jnp.floating):  # bfloat16 too (solved in float32)
        return 0.0
    solved = dual_dtype if jnp.issubdtype(dual_dtype, jnp.floating) else np.float64
    return float(jnp.finfo(solved).eps)


def verify_sparse(
    C: Any,
    result: Any,
    *,
    maximize: bool = False,
    tol: float | None = None,
    prices: tuple[np.ndarray, np.ndarray] | None = None,
) -> LAPCertificate | list[LAPCertificate]:
    """:func:`jaxmatch.verify_lap` for sparse costs ``C``: a
    :class:`SparseCosts` (a list of certificates for a batch) or a scipy
    sparse matrix (read as scipy's csgraph reads it). ``prices``: the row
    prices ``[..., n]`` and column prices ``[..., m]`` of staying unassigned
    (``unassigned_cost``, broadcast), or None for the plain LAP."""
    if not isinstance(C, SparseCosts):
        edges = edges_of_scipy(C)
        bad = _has_invalid(edges[2], maximize)
        return _verify_edges(edges, result, maximize, tol, _EPS64, bad, prices)
    eps = _solve_eps(np.asarray(C.data).dtype, np.asarray(result.u).dtype)
    indptr = np.asarray(C.indptr)
    indices, data = np.asarray(C.indices), np.asarray(C.data)
    if indptr.ndim == 1:
        return _verify_member(indptr, indices, data, C.shape, result, maximize, tol, eps, prices)
    fields = {f: np.asarray(getattr(result, f)) for f in ("col_for_row", "row_for_col", "u", "v")}
    out = []
    for b in np.ndindex(*indptr.shape[:-1]):
        member = types.SimpleNamespace(**{f: a[b] for f, a in fields.items()})
        p = None if prices is None else (prices[0][b], prices[1][b])
        out.append(
            _verify_member(indptr[b], indices[b], data[b], C.shape, member, maximize, tol, eps, p)
        )
    return out


def _verify_member(
    indptr, indices, data, shape, solution, maximize, tol, eps, prices=None
) -> LAPCertificate:
    """One :class:`SparseCosts` problem's certificate; a malformed CSR (the
    solvers' ``INVALID_STRUCTURE``) has no optimum to certify."""
    try:
        validate_csr(indptr, indices, shape[0], shape[1], what="SparseCosts")
    except GraphValidationError as err:
        return invalid(str(err))
    if data.shape != indices.shape:
        return invalid(f"SparseCosts: data of shape {data.shape}, indices of {indices.shape}")
    edges = edges_of_costs(indptr, indices, data, shape, maximize)
    bad = _has_invalid(data[: int(indptr[-1])], maximize)
    return _verify_edges(edges, solution, maximize, tol, eps, bad, prices)


def _has_invalid(weights: np.ndarray, maximize: bool) -> bool:
    """Whether stored weights hold NaN or ``-inf`` (``+inf`` when
    maximizing): such costs have no optimum, whatever the matching."""
    w = np.asarray(weights, np.float64)
    return bool(np.any(np.isnan(w) | (w == (np.inf if maximize else -np.inf))))


def _verify_edges(
    edges,
    solution,
    maximize: bool,
    tol: float | None,
    eps: float,
    invalid_entries: bool,
    prices: tuple[np.ndarray, np.ndarray] | None = None,
) -> LAPCertificate:
    """The certificate of ``solution`` (its ``col_for_row``, ``row_for_col``,
    ``u``, ``v``) on the weighted edges ``(r, c, w, (n, m))``, never optimal
    when the stored weights have ``invalid_entries`` (no optimum exists): the pairs are
    edges forming a full matching, ``u_i + v_j <= w_ij`` (``>=`` when
    maximizing) on every edge within ``tol``, equality on the matched edges,
    on a rectangular matrix the larger side's duals ``<= 0`` (``>= 0``) and
    0 on its unmatched vertices, and no duality gap; ``tol`` defaults to
    ``64 * eps * max(1, |w|, |u|, |v|)``. With ``prices`` (the row and
    column prices of staying unassigned, ``[n]`` and ``[m]``) the matching
    may be partial, the primal counts the prices of the unassigned, and
    ``u <= row prices``, ``v <= column prices`` (``>=`` when maximizing)
    hold, with equality on the unassigned rows and columns."""
    r, c, w, (n, m) = edges
    if invalid_entries:
        return invalid(f"C has NaN or {'+' if maximize else '-'}inf entries")
    sign = -1.0 if maximize else 1.0
    ws = sign * w
    u = sign * np.asarray(solution.u, np.float64)
    v = sign * np.asarray(solution.v, np.float64)
    cfr = np.asarray(solution.col_for_row).astype(np.int64)
    rfc = np.asarray(solution.row_for_col).astype(np.int64)
    if cfr.shape != (n,) or rfc.shape != (m,):
        return invalid(f"assignments of shapes {cfr.shape}, {rfc.shape} do not fit {n} x {m}")
    ri = np.flatnonzero(cfr >= 0)
    ci = cfr[ri]
    if ci.size and ci.max() >= m:
        return invalid("a matched index is out of range")
    if not np.array_equal(np.flatnonzero(rfc >= 0), np.sort(ci)) or np.any(rfc[ci] != ri):
        return invalid("col_for_row and row_for_col disagree")
    if u.shape != (n,) or v.shape != (m,):
        return invalid(f"duals of shapes {u.shape}, {v.shape} do not fit a {n} x {m} matrix")
    if prices is None and ri.size != min(n, m):
        return invalid(f"{ri.size} pairs; a full matching has {min(n, m)}")
    if np.unique(ri).size != ri.size or np.unique(ci).size != ci.size:
        return invalid("a vertex is matched twice")
    finite = np.isfinite(ws)
    key = r * max(m, 1) + c
    order = np.argsort(key)
    pos = np.searchsorted(key[order], ri * max(m, 1) + ci)
    found = pos < key.size
    found[found] = key[order][pos[found]] == (ri * max(m, 1) + ci)[found]
    if not np.all(found) or not np.all(finite[order][pos[found]]):
        return invalid("a matched pair is not an edge of finite weight")
    matched_w = ws[order][pos]
    primal = float(matched_w.sum())
    rs = cs = np.zeros(0)
    if prices is not None:
        rs, cs = (sign * np.asarray(x, np.float64) for x in prices)
        if not (np.all(np.isfinite(rs)) and np.all(np.isfinite(cs))):
            return invalid("unassigned_cost is NaN or infinite")
        if not (np.all(np.isfinite(u)) and np.all(np.isfinite(v))):
            return invalid("a dual is NaN or infinite")
        free_r, free_c = cfr < 0, rfc < 0
        primal += float(rs[free_r].sum() + cs[free_c].sum())
    if tol is None:
        scale = max(
            1.0, *(float(np.abs(x[np.isfinite(x)]).max(initial=0.0)) for x in (ws, u, v, rs, cs))
        )
        tol = 64 * eps * scale
    reduced = ws[finite] - u[r[finite]] - v[c[finite]]
    viol_dual = max(0.0, -float(reduced.min(initial=0.0)))
    viol_cs = float(np.abs(matched_w - u[ri] - v[ci]).max(initial=0.0))
    if prices is not None:
        # Each row's and column's price of staying unassigned bounds its
        # dual, tightly where it stays unassigned.
        viol_dual = max(viol_dual, -float((rs - u).min(initial=0.0)))
        viol_dual = max(viol_dual, -float((cs - v).min(initial=0.0)))
        tight = ((rs - u)[free_r], (cs - v)[free_c])
        viol_cs = max(viol_cs, *(float(np.abs(x).max(initial=0.0)) for x in tight))
        return certificate(primal, float(u.sum() + v.sum()), viol_dual, viol_cs, tol, sign, n + m)
    # Rectangular LP: the larger side's duals are <= 0, and 0 where that
    # vertex is unmatched (a square LP has equality constraints: no sign).
    if n != m:
        big = v if n < m else u
        free = np.ones(big.size, bool)
        free[ci if n < m else ri] = False
        viol_dual = max(viol_dual, float(big.max(initial=0.0)))
        viol_cs = max(viol_cs, float(np.abs(big[free]).max(initial=0.0)))
    return certificate(primal, float(u.sum() + v.sum()), viol_dual, viol_cs, tol, sign, n + m)
