"""The drop-in for :func:`scipy.optimize.linear_sum_assignment`.

It runs eagerly on NumPy input and calls the CPU library's host entry point
directly: no XLA compilation (a loop over problems of varying shapes costs
no more than the solves), and scipy's arithmetic (float64 for every float
input, whatever ``jax_enable_x64`` says).
"""

from __future__ import annotations

import numpy as np

from .. import _limits
from .._interrupt import run_host
from . import _ffi as lap_ffi
from .types import LAPStatus

_INT32 = np.iinfo(np.int32)


def _as_numeric(cost_matrix) -> np.ndarray:
    a = np.asarray(cost_matrix)
    if a.dtype.kind not in "biuf":
        import jax.numpy as jnp

        if jnp.issubdtype(a.dtype, jnp.floating):  # bfloat16, float8: ml_dtypes
            return a.astype(np.float64)
        if not isinstance(cost_matrix, np.ndarray):
            # As scipy: anything else converts entry by entry to float64
            # (ValueError for a string that is no number).
            return np.asarray(cost_matrix, dtype=np.float64)
        raise TypeError(
            f"Cannot cast array data from {a.dtype!r} to dtype('float64') "
            "according to the rule 'safe'"
        )
    return a


def _solve(a: np.ndarray) -> np.ndarray:
    """The column of each row of a minimisation problem (-1 unassigned)."""
    transposed = a.shape[0] > a.shape[1]
    work = a.T if transposed else a
    jv = lap_ffi.variant_code("jv")
    sol = run_host(lap_ffi.solve_host, work, variant=jv, work=work.size)
    if sol.status == LAPStatus.OVERFLOW:
        # An int32 dual does not fit: every int32 value and every sum of at
        # most 2**21 of them is exact in float64.
        sol = run_host(lap_ffi.solve_host, work.astype(np.float64), variant=jv, work=work.size)
    if sol.status == LAPStatus.INFEASIBLE:
        raise ValueError("cost matrix is infeasible")
    if sol.status != LAPStatus.OPTIMAL:  # pragma: no cover - a bug if reached
        raise RuntimeError(f"jaxmatch LAP stopped with status {LAPStatus(sol.status).name}")
    return sol.row_for_col if transposed else sol.col_for_row


def linear_sum_assignment(cost_matrix, maximize: bool = False):
    """Drop-in for :func:`scipy.optimize.linear_sum_assignment` (eager).

    Solved on the CPU, in float64 for every float input (float16, bfloat16
    and float32 included, as scipy does), exactly in int32 for integer input
    whose arithmetic fits, else in float64; no XLA compilation.

    Args:
      cost_matrix: a 2-D array of costs (anything ``np.asarray`` takes).
      maximize: calculate a maximum weight matching instead.

    Returns:
      ``(row_ind, col_ind)``: NumPy ``intp`` arrays of length ``min(n, m)``,
      ``row_ind`` sorted, as scipy returns them.

    Raises:
      ValueError: with scipy's messages -- ``expected a matrix (2-D array),
        got a {ndim} array``, ``matrix contains invalid numeric entries``,
        ``cost matrix is infeasible``.
      TypeError: a NumPy array of a non-numeric dtype (scipy's message).
        Other input converts entry by entry to float64, as in scipy: a
        string that is no number raises ``ValueError``.
    """
    a = _as_numeric(cost_matrix)
    if a.ndim != 2:
        raise ValueError(f"expected a matrix (2-D array), got a {a.ndim} array")
    _limits.check_dense_side(a.shape, "cost_matrix")
    if a.size == 0:
        empty = np.array([], dtype=np.intp)
        return empty, empty.copy()
    if a.dtype.kind == "f":
        a = a.astype(np.float64, copy=False)
        # NaN (which min and max propagate), or -inf (+inf when maximizing),
        # fails the comparison.
        valid = a.max() < np.inf if maximize else a.min() > -np.inf
        if not valid:
            raise ValueError("matrix contains invalid numeric entries")
    elif a.min() >= _INT32.min + 1 and a.max() <= _INT32.max:
        a = a.astype(np.int32, copy=False)  # exact int32 arithmetic
    else:
        a = a.astype(np.float64)  # as scipy: exact up to 2**53
    if maximize:
        a = -a
    cols = _solve(a)
    row_ind = np.flatnonzero(cols >= 0)
    return row_ind.astype(np.intp), cols[row_ind].astype(np.intp)
