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
from ..types import LAPResult, LAPStatus
from ._ffi import solve_sparse_host


def _csr_of(biadjacency: Any, transposed: bool = False):
    """The matrix (its transpose when ``transposed``) as a canonical float64
    CSR (duplicates summed, explicit zeros removed with scipy's warning),
    with scipy's type errors."""
    import scipy.sparse as sp

    if not sp.issparse(biadjacency):
        raise TypeError("graph must be sparse")
    if biadjacency.format not in ("csr", "csc", "coo"):
        raise TypeError("graph must be in CSC, CSR, or COO format.")
    _limits.check_csr(biadjacency.shape, biadjacency.nnz, "biadjacency")
    # The CSC of a matrix is the CSR of its transpose.
    wanted = "csc" if transposed else "csr"
    n, m = biadjacency.shape[::-1] if transposed else biadjacency.shape
    if biadjacency.format == wanted:  # read in place, no scipy object built
        B = _Csr(biadjacency.indptr, biadjacency.indices, biadjacency.data, (n, m))
        validate_csr(B.indptr, B.indices, n, m, what="scipy CSR")
        if biadjacency.has_canonical_format:
            B = B._replace(data=np.asarray(B.data[: B.indptr[-1]], np.float64))
            if not np.any(B.data == 0):
                if np.any(np.isnan(B.data)):
                    raise ValueError("matrix contains invalid numeric entries")
                return B
    # float64 before any conversion: a COO matrix's duplicates are summed on
    # the way to CSR, and small integer dtypes would wrap.
    A = biadjacency.astype(np.float64)
    A = sp.csc_matrix(A).T if transposed else sp.csr_matrix(A)
    validate_csr(A.indptr, A.indices, n, m, what="scipy CSR")
    A.sum_duplicates()
    if np.any(np.isnan(A.data)):
        raise ValueError("matrix contains invalid numeric entries")
    if np.any(A.data == 0):
        message = "explicit zero weights are removed before matching"
        warnings.warn(message, UserWarning, stacklevel=3)
        A.eliminate_zeros()
    return _Csr(A.indptr, A.indices, A.data, (n, m))


class _Csr(NamedTuple):
    """A canonical float64 CSR (sorted, no duplicates, no zeros)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    shape: tuple[int, int]


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
    shape: Any = getattr(biadjacency, "shape", ())
    transposed = len(shape) == 2 and shape[0] > shape[1]
    B = _csr_of(biadjacency, transposed)  # rows: the smaller side
    n, m = B.shape[::-1] if transposed else B.shape
    if n == 0 or m == 0:
        return _result(np.full(n, -1), np.full(m, -1), 0.0, np.zeros(n), np.zeros(m))
    cost = -B.data if maximize else B.data
    if np.any(np.isneginf(cost)):  # -inf (+inf when maximizing): no optimum
        raise ValueError("matrix contains invalid numeric entries")
    rows, cols = (m, n) if transposed else (n, m)
    nnz = int(B.indptr[-1])
    sol = run_host(solve_sparse_host, B.indptr, B.indices[:nnz], cost, rows, cols, work=nnz)
    if sol.status == LAPStatus.INFEASIBLE:
        raise ValueError("no full matching exists")
    if sol.status != LAPStatus.OPTIMAL:  # pragma: no cover - a bug if reached
        raise RuntimeError(f"jaxmatch sparse LAP stopped with status {LAPStatus(sol.status).name}")
    sign = -1.0 if maximize else 1.0
    cfr, rfc = sol.col_for_row.astype(np.int32), sol.row_for_col.astype(np.int32)
    matched = _matched_weights(B, cfr)  # by B's rows: every one is matched
    u, v = sign * sol.u, sign * sol.v
    if transposed:
        cfr, rfc, u, v = rfc, cfr, v, u
        matched = matched[cfr[cfr >= 0]]  # by the matrix's rows
    return _result(cfr, rfc, float(matched.sum()), u, v)


def _matched_weights(B: Any, col_for_row: np.ndarray) -> np.ndarray:
    """``B[i, col_for_row[i]]`` for every row of the canonical CSR ``B``
    (sorted, no duplicates): a binary search within every row at once."""
    lo = B.indptr[:-1].astype(np.int64)
    hi = B.indptr[1:].astype(np.int64)
    want = col_for_row.astype(B.indices.dtype)
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
    sol = solve_scipy(biadjacency, maximize)
    cfr = sol.col_for_row
    if cfr.size <= sol.row_for_col.size:  # every row matched
        return np.arange(cfr.size), cfr
    row_ind = np.flatnonzero(cfr >= 0).astype(np.int32)
    return row_ind, cfr[row_ind].astype(np.int64)
