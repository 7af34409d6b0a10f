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

from ... import _limits
from ..._csr import validate_csr
from ..._interrupt import run_host
from .._ffi import HostSolution
from ..types import LAPResult, LAPStatus
from ._ffi import solve_sparse_host


class _Csr(NamedTuple):
    """A canonical CSR (sorted, no duplicates) of the matrix or, when
    ``transposed``, of its transpose (a CSC matrix read in place), with the
    float64 costs of its ``nnz`` entries (``+inf``: no edge)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    cost: np.ndarray
    shape: tuple[int, int]
    transposed: bool


def _canonical(biadjacency: Any) -> tuple[Any, Any, Any, bool]:
    """``(indptr, indices, data, transposed)``: the structure of a CSR or
    CSC matrix in place when it is canonical, else of a canonical float64
    copy (duplicates summed, in float64 so that small integer dtypes do not
    wrap), with scipy's type errors."""
    import scipy.sparse as sp

    if not sp.issparse(biadjacency):
        raise TypeError("graph must be sparse")
    fmt = biadjacency.format
    if fmt not in ("csr", "csc", "coo"):
        raise TypeError("graph must be in CSC, CSR, or COO format.")
    _limits.check_csr(biadjacency.shape, biadjacency.nnz, "biadjacency")
    transposed = fmt == "csc"  # the CSC of a matrix is the CSR of its transpose
    n, m = biadjacency.shape[::-1] if transposed else biadjacency.shape
    if fmt != "coo":  # read in place, no scipy object built
        A = biadjacency
        validate_csr(A.indptr, A.indices, n, m, what="scipy CSR")
        if A.has_canonical_format:
            return A.indptr, A.indices, A.data, transposed
    A = biadjacency.astype(np.float64)
    A = sp.csc_matrix(A) if transposed else sp.csr_matrix(A)
    validate_csr(A.indptr, A.indices, n, m, what="scipy CSR")
    A.sum_duplicates()
    return A.indptr, A.indices, A.data, transposed


def _csr_of(biadjacency: Any, maximize: bool) -> _Csr:
    """The matrix as a canonical CSR of itself or its transpose with the
    costs to minimise: the weights (negated when maximizing), stored zeros
    absent (``+inf``, with scipy's warning).

    Raises:
      TypeError: not a sparse matrix, or another format (scipy's messages).
      ValueError: ``"matrix contains invalid numeric entries"`` for NaN or
        ``-inf`` costs.
      GraphValidationError: a corrupted CSR/CSC structure.
    """
    indptr, indices, data, transposed = _canonical(biadjacency)
    shape = biadjacency.shape[::-1] if transposed else biadjacency.shape
    data = np.asarray(data[: indptr[-1]], np.float64)
    cost = -data if maximize else data
    # One pass for the common case: every cost finite and nonzero.
    if not (cost.all() and np.isfinite(cost).all()):
        if np.isnan(cost).any():
            raise ValueError("matrix contains invalid numeric entries")
        zero = cost == 0
        if zero.any():
            message = "explicit zero weights are removed before matching"
            warnings.warn(message, UserWarning, stacklevel=4)
            cost = np.where(zero, np.inf, cost)
        if (cost == -np.inf).any():  # -inf (+inf when maximizing): no optimum
            raise ValueError("matrix contains invalid numeric entries")
    return _Csr(indptr, indices, data, cost, shape, transposed)


def _solve_host(B: _Csr) -> HostSolution:
    """Solves the costs of ``B`` (any shape: the library solves a matrix of
    more rows than columns through its transpose) on the calling thread, in
    B's orientation.

    Raises:
      ValueError: ``"no full matching exists"``.
    """
    n, m = B.shape
    sol = solve_sparse_host(B.indptr, B.indices, B.cost, n, m)
    if sol.status == LAPStatus.INFEASIBLE:
        raise ValueError("no full matching exists")
    if sol.status != LAPStatus.OPTIMAL:  # pragma: no cover - a bug if reached
        raise RuntimeError(f"jaxmatch sparse LAP stopped with status {LAPStatus(sol.status).name}")
    return sol


def _matching(biadjacency: Any, maximize: bool) -> tuple[_Csr, HostSolution]:
    """The matrix's canonical CSR ``B`` and its solution, in the orientation
    of ``B`` (see :func:`_solve_host`)."""
    B = _csr_of(biadjacency, maximize)
    n, m = B.shape
    if n == 0 or m == 0:
        free = (np.full(n, -1, np.int32), np.full(m, -1, np.int32))
        return B, HostSolution(*free, np.zeros(n), np.zeros(m), int(LAPStatus.OPTIMAL))
    return B, run_host(_solve_host, B, work=B.cost.size)


def solve_scipy(biadjacency: Any, maximize: bool = False) -> LAPResult:
    """A minimum (or maximum) weight full matching of a bipartite graph, with
    its duals.

    Args:
      biadjacency: a scipy sparse matrix or array (CSR, CSC or COO) ``[n,
        m]``; stored entries are edges weighted by their values (explicit
        zeros are removed with a warning, as scipy does; ``+inf`` entries
        are absent edges, ``-inf`` when maximizing).
      maximize: maximize the total weight instead.

    Returns:
      A :class:`~jaxmatch.LAPResult` of NumPy arrays for the one problem:
      ``min(n, m)`` matched pairs, float64 ``cost``, ``u`` and ``v``;
      ``iterations`` 0 (not counted by the host solver).

    Raises:
      TypeError: not a sparse matrix, or another format (scipy's messages).
      ValueError: ``"no full matching exists"``; ``"matrix contains invalid
        numeric entries"`` for NaN or ``-inf`` weights (``+inf`` when
        maximizing), which leave no optimum.
      GraphValidationError: a corrupted CSR/CSC structure.
    """
    B, sol = _matching(biadjacency, maximize)
    cfr, rfc = sol.col_for_row, sol.row_for_col
    sign = -1.0 if maximize else 1.0
    u, v = sign * sol.u, sign * sol.v
    rows = np.flatnonzero(cfr >= 0)
    matched = np.zeros(B.shape[0])  # by B's rows
    matched[rows] = _matched_weights(B, rows, cfr[rows])
    if B.transposed:
        cfr, rfc, u, v = rfc, cfr, v, u
        matched = matched[cfr[cfr >= 0]]  # by the matrix's rows
    else:
        matched = matched[rows]
    return _result(cfr, rfc, float(matched.sum()), u, v)


def _matched_weights(B: _Csr, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``B[rows[k], cols[k]]`` (stored entries of the canonical CSR ``B``,
    sorted, no duplicates): a binary search within every row at once."""
    lo = B.indptr[rows].astype(np.int64)
    hi = B.indptr[rows + 1].astype(np.int64)
    want = cols.astype(B.indices.dtype)
    active = lo < hi
    while np.any(active):
        mid = (lo + hi) // 2
        below = active & (B.indices[np.minimum(mid, B.indptr[-1] - 1)] < want)
        lo = np.where(below, mid + 1, lo)
        hi = np.where(active & ~below, mid, hi)
        active = lo < hi
    return B.data[lo]


def _result(cfr, rfc, cost, u, v) -> LAPResult:
    """An optimal :class:`LAPResult` of one problem, as NumPy values."""
    fields: dict[str, Any] = dict(
        col_for_row=np.asarray(cfr, np.int32),
        row_for_col=np.asarray(rfc, np.int32),
        cost=np.float64(cost),
        u=np.asarray(u, np.float64),
        v=np.asarray(v, np.float64),
        feasible=np.bool_(True),
        iterations=np.int32(0),
        status=np.int32(LAPStatus.OPTIMAL),
    )
    return LAPResult(**fields)


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
        matching exists", ...). NaN and ``-inf`` weights (``+inf`` when
        maximizing) raise ``ValueError("matrix contains invalid numeric
        entries")``, as scipy's ``linear_sum_assignment`` does for a dense
        matrix; ``+inf`` weights (``-inf`` when maximizing) are absent edges.
    """
    B, sol = _matching(biadjacency, maximize)
    cfr, rfc = sol.col_for_row, sol.row_for_col
    if B.transposed:
        cfr, rfc = rfc, cfr
    if cfr.size <= rfc.size:  # every row matched
        return np.arange(cfr.size), cfr
    row_ind = np.flatnonzero(cfr >= 0).astype(np.int32)
    return row_ind, cfr[row_ind].astype(np.int64)
