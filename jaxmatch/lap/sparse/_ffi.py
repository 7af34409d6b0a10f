"""The sparse LAP's host entry point (Jonker and Volgenant on the stored
entries, ``cuda_ffi/lap/sparse/``), called without XLA by the eager sparse
solves."""

from __future__ import annotations

import ctypes
import functools
from typing import Any

import numpy as np

from ... import _ffi, _limits
from .._ffi import HostSolution, checked


@functools.cache
def _sparse_host_entry() -> Any:
    checked()
    fn = _ffi.cpu_library().jaxmatch_sparse_lap_solve_host
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_int] * 2 + [ctypes.c_void_p] * 5 + [ctypes.c_int]
    fn.argtypes += [ctypes.c_void_p] * 5
    return fn


@functools.cache
def _info_layout() -> tuple[int, int]:
    """The length of a solve's ``info`` and the slot of its status."""
    return _ffi.constant("LAP_INFO_LEN"), _ffi.constant("LAP_INFO_STATUS")


def solve_sparse_host(
    indptr: np.ndarray,
    indices: np.ndarray,
    cost: np.ndarray,
    n: int,
    m: int,
    warm: tuple[np.ndarray, np.ndarray] | None = None,
    row_reduction_bound: int = 0,
) -> HostSolution:
    """Solves one sparse ``n x m`` problem (CSR, float64 costs, ``+inf`` = no
    edge) on the calling thread; the duals are float64. With more rows than
    columns the library solves it by the column minima where each column's
    least-cost row differs, else through the transpose it builds.

    ``warm``: an earlier assignment ``col_for_row [n]`` (``-1``: none) and
    column duals ``v [m]`` to start from (square problems only): rows keep
    their column where it is still at their least reduced cost.
    ``row_reduction_bound``: visits per row of the augmenting row reduction
    (``cuda_ffi/lap/sparse/``); 0 for Jonker and Volgenant's ``n``.

    The caller validates the CSR (pointers non-decreasing from 0 to
    ``len(indices)``, column indices in ``[0, m)``).
    """
    fn = _sparse_host_entry()
    _limits.check_csr((n, m), len(indices), "the sparse costs")  # ctypes would wrap
    info_len, status_slot = _info_layout()
    indptr = np.ascontiguousarray(indptr, np.int64)
    indices = np.ascontiguousarray(indices, np.int32)
    cost = np.ascontiguousarray(cost, np.float64)
    x0 = v0 = None
    if warm is not None:
        if n != m:
            raise ValueError("a warm start needs a square problem")
        x0 = np.ascontiguousarray(warm[0], np.int32)
        v0 = np.ascontiguousarray(warm[1], np.float64)
        if x0.shape != (n,) or v0.shape != (m,):
            raise ValueError(f"a warm start of shapes {x0.shape}, {v0.shape} for {n} x {m}")
    ints = np.empty(n + m + info_len, np.int32)  # col_for_row, row_for_col, info
    duals = np.empty(n + m, np.float64)  # u, v
    i0, d0 = ints.ctypes.data, duals.ctypes.data
    rc = fn(
        n, m, indptr.ctypes.data, indices.ctypes.data, cost.ctypes.data,
        None if x0 is None else x0.ctypes.data, None if v0 is None else v0.ctypes.data,
        int(row_reduction_bound), i0, i0 + 4 * n, d0, d0 + 8 * n, i0 + 4 * (n + m),
    )  # fmt: skip
    if rc != 0:  # pragma: no cover - the wrapper validates first
        raise ValueError(f"jaxmatch_sparse_lap_solve_host rejected its arguments ({rc})")
    return HostSolution(
        col_for_row=ints[:n],
        row_for_col=ints[n : n + m],
        u=duals[:n],
        v=duals[n:],
        status=int(ints[n + m + status_slot]),
    )
