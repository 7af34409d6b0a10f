"""The sparse linear assignment problem on the CPU: scipy's
``min_weight_full_bipartite_matching`` as a drop-in, and the solution with
its duals for the LP-duality certificate.

Solved by Jonker and Volgenant's shortest augmenting paths on the CSR costs
(their LAPJVsp; ``cuda_ffi/lap/sparse/``) through the library's host
entry point: eager, no XLA compilation, float64 throughout.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import numpy as np

from ..._csr import validate_csr
from ..._interrupt import run_host
from ..types import LAPCertificate, LAPStatus
from ..verify import certificate
from ._ffi import solve_sparse_host


class SparseLAPSolution(NamedTuple):
    """A full matching of minimum (or maximum) weight of a sparse biadjacency
    matrix ``[n, m]`` and its LP duals (NumPy arrays).

    Attributes:
      row_ind: int ``[min(n, m)]``, the matched rows, sorted (scipy's first
        return value).
      col_ind: int ``[min(n, m)]``, the column matched to each of them.
      cost: the total weight, float64.
      u: float64 ``[n]``, the row duals (signs as in
        :func:`jaxmatch.verify_lap`: when maximizing, ``u + v >= weight`` on
        every edge).
      v: float64 ``[m]``, the column duals.
    """

    row_ind: np.ndarray
    col_ind: np.ndarray
    cost: float
    u: np.ndarray
    v: np.ndarray


def _csr_of(biadjacency: Any):
    """The matrix as a canonical float64 CSR (duplicates summed, explicit
    zeros removed with scipy's warning), with scipy's type errors."""
    import scipy.sparse as sp

    if not sp.issparse(biadjacency):
        raise TypeError("graph must be sparse")
    if biadjacency.format not in ("csr", "csc", "coo"):
        raise TypeError("graph must be in CSC, CSR, or COO format.")
    A = sp.csr_matrix(biadjacency, dtype=np.float64, copy=True)
    validate_csr(A.indptr, A.indices, A.shape[0], A.shape[1], what="scipy CSR")
    A.sum_duplicates()
    if np.any(np.isnan(A.data)):
        raise ValueError("matrix contains invalid numeric entries")
    if np.any(A.data == 0):
        message = "explicit zero weights are removed before matching"
        warnings.warn(message, UserWarning, stacklevel=3)
        A.eliminate_zeros()
    return A


def solve_sparse_lap(biadjacency: Any, maximize: bool = False) -> SparseLAPSolution:
    """A minimum (or maximum) weight full matching of a bipartite graph, with
    its duals.

    Args:
      biadjacency: a scipy sparse matrix or array (CSR, CSC or COO) ``[n,
        m]``; stored entries are edges weighted by their values (explicit
        zeros are removed with a warning, as scipy does; ``+inf`` entries
        are absent edges).
      maximize: maximize the total weight instead.

    Returns:
      A :class:`SparseLAPSolution`: ``min(n, m)`` matched pairs.

    Raises:
      TypeError: not a sparse matrix, or another format (scipy's messages).
      ValueError: ``"no full matching exists"``; NaN weights.
      GraphValidationError: a corrupted CSR/CSC structure.
    """
    A = _csr_of(biadjacency)
    n, m = A.shape
    empty = np.zeros(0, np.int64)
    if n == 0 or m == 0:
        return SparseLAPSolution(empty, empty, 0.0, np.zeros(n), np.zeros(m))
    transposed = n > m
    B = A.T.tocsr() if transposed else A
    B.sort_indices()
    cost = -B.data if maximize else B.data
    rows, cols = (m, n) if transposed else (n, m)
    sol = run_host(solve_sparse_host, B.indptr, B.indices, cost, rows, cols, work=B.nnz)
    if sol.status == LAPStatus.INFEASIBLE:
        raise ValueError("no full matching exists")
    if sol.status != LAPStatus.OPTIMAL:  # pragma: no cover - a bug if reached
        raise RuntimeError(f"jaxmatch sparse LAP stopped with status {LAPStatus(sol.status).name}")
    sign = -1.0 if maximize else 1.0
    u, v = sign * sol.u, sign * sol.v
    if transposed:
        col_ind = np.arange(m)
        row_ind = sol.col_for_row.astype(np.int32)
        order = np.argsort(row_ind, kind="stable")
        row_ind, col_ind, u, v = row_ind[order], col_ind[order], v, u
    else:
        row_ind, col_ind = np.arange(n), sol.col_for_row.astype(np.int32)
    total = float(np.asarray(A[row_ind, col_ind]).sum())
    return SparseLAPSolution(row_ind, col_ind, total, u, v)


def min_weight_full_bipartite_matching(biadjacency: Any, maximize: bool = False):
    """Drop-in for ``scipy.sparse.csgraph.min_weight_full_bipartite_matching``
    (eager, CPU, float64).

    Args:
      biadjacency: a sparse matrix or array (CSR, CSC or COO) ``[n, m]``:
        stored entries are edges weighted by their values (explicit zeros are
        removed with scipy's warning).
      maximize: calculate a maximum weight matching instead.

    Returns:
      ``(row_ind, col_ind)``: ``min(n, m)`` matched pairs, ``row_ind``
      sorted (``arange(n)`` when ``n <= m``), as scipy returns them.

    Raises:
      TypeError, ValueError: scipy's ("graph must be sparse", "no full
        matching exists", ...); NaN weights raise ``ValueError``.
    """
    sol = solve_sparse_lap(biadjacency, maximize)
    return sol.row_ind, sol.col_ind


def verify_sparse_lap(
    biadjacency: Any,
    solution: SparseLAPSolution,
    *,
    maximize: bool = False,
    tol: float | None = None,
) -> LAPCertificate:
    """Certifies a sparse LAP solution by LP duality (NumPy, independently of
    the solver): the pairs are edges forming a full matching, ``u_i + v_j <=
    w_ij`` (``>=`` when maximizing) on every edge within ``tol``, equality on
    the matched edges, on a rectangular matrix the larger side's duals ``<=
    0`` (``>= 0``) and 0 on its unmatched vertices, and no duality gap.

    Args:
      biadjacency: the sparse matrix that was solved.
      solution: a :class:`SparseLAPSolution` of it.
      maximize: as solved.
      tol: absolute tolerance; default ``64 * eps64 * max(1, |w|, |u|, |v|)``.

    Returns:
      A :class:`LAPCertificate` (``optimal`` when every check passes).
    """
    import scipy.sparse as sp

    A = sp.coo_matrix(biadjacency, dtype=np.float64)
    A.sum_duplicates()
    keep = A.data != 0
    r, c, w = A.row[keep], A.col[keep], A.data[keep]
    n, m = A.shape
    sign = -1.0 if maximize else 1.0
    ws = sign * w
    u = sign * np.asarray(solution.u, np.float64)
    v = sign * np.asarray(solution.v, np.float64)
    ri = np.asarray(solution.row_ind, np.int64)
    ci = np.asarray(solution.col_ind, np.int64)
    nan = float("nan")

    def invalid(why: str) -> LAPCertificate:
        return LAPCertificate(False, False, False, nan, nan, nan, nan, False, why)

    if u.shape != (n,) or v.shape != (m,):
        return invalid(f"duals of shapes {u.shape}, {v.shape} do not fit a {n} x {m} matrix")
    if ri.shape != ci.shape or ri.size != min(n, m):
        return invalid(f"{ri.size} pairs; a full matching has {min(n, m)}")
    if ri.size and (ri.min() < 0 or ri.max() >= n or ci.min() < 0 or ci.max() >= m):
        return invalid("a matched index is out of range")
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
    if tol is None:
        scale = max(1.0, *(float(np.abs(x[np.isfinite(x)]).max(initial=0.0)) for x in (ws, u, v)))
        tol = 64 * np.finfo(np.float64).eps * scale
    reduced = ws[finite] - u[r[finite]] - v[c[finite]]
    viol_dual = max(0.0, -float(reduced.min(initial=0.0)))
    viol_cs = float(np.abs(matched_w - u[ri] - v[ci]).max(initial=0.0))
    # Rectangular LP: the larger side's duals are <= 0, and 0 where that
    # vertex is unmatched (a square LP has equality constraints: no sign).
    if n != m:
        big = v if n < m else u
        free = np.ones(big.size, bool)
        free[ci if n < m else ri] = False
        viol_dual = max(viol_dual, float(big.max(initial=0.0)))
        viol_cs = max(viol_cs, float(np.abs(big[free]).max(initial=0.0)))
    return certificate(primal, float(u.sum() + v.sum()), viol_dual, viol_cs, tol, sign, n + m)
