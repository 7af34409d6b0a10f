"""Sparse cost matrices and their oracle, shared by the sparse LAP and the
certificate fuzz tests."""

from __future__ import annotations

import jax
import numpy as np
from fuzz_cases import SIDES, check_lap_one, cost_arrays, lap_oracle
from hypothesis import strategies as st

import jaxmatch
from jaxmatch import LAPStatus, SparseCosts

SPARSE_DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "uint8",
    "uint16",
    "float16",
    "bfloat16",
    "float32",
    "float64",
)
CAPACITY = 48  # one capacity for every drawn matrix: one compilation per shape


@st.composite
def sparse_problems(draw, shape=None):
    """``(indptr, indices, data, shape, corrupt)`` of one matrix: entries
    grouped by row, columns in any order, duplicates, padding of garbage;
    ``corrupt``: the CSR structure was broken on purpose."""
    n, m = shape or (draw(st.sampled_from(SIDES)), draw(st.sampled_from(SIDES)))
    k = draw(st.integers(0, min(3 * n * m, CAPACITY - 4))) if n * m else 0
    rows = np.sort(
        np.asarray(draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=k, max_size=k)), np.int64)
    )
    cols = np.asarray(
        draw(st.lists(st.integers(0, max(m - 1, 0)), min_size=k, max_size=k)), np.int64
    )
    data, kind = draw(cost_arrays((CAPACITY,), SPARSE_DTYPES))
    indptr = np.searchsorted(rows, np.arange(n + 1)).astype(np.int32)
    indices = np.full(CAPACITY, -7, np.int32)  # padding: out of range, never read
    indices[:k] = cols
    corrupt = draw(st.sampled_from([None] * 6 + ["index", "indptr"]))
    if corrupt == "index" and k:
        indices[draw(st.integers(0, k - 1))] = draw(st.sampled_from([-1, m, m + 5]))
    elif corrupt == "indptr" and n >= 2:
        indptr[1] = indptr[-1] + 1 if indptr[-1] < CAPACITY else CAPACITY + 1
    else:
        corrupt = None
    return indptr, indices, data, (n, m), corrupt, kind


def seen_dtype(dtype: np.dtype, x64: bool) -> np.dtype:
    """The dtype a sparse solve runs in."""
    if jax.numpy.issubdtype(dtype, jax.numpy.floating):
        return np.dtype(np.float64 if dtype == np.float64 and x64 else np.float32)
    return np.dtype(np.int32)


def sparse_oracle(indptr, indices, data, shape, maximize, x64):
    """``(D, invalid)``: the dense problem the sparse one stands for (absent
    pairs forbidden, a pair stored twice at its cheaper cost; the dearer
    when maximizing) in float64, and whether a stored entry is invalid."""
    n, _m = shape
    nnz = int(indptr[-1])
    vals = data[:nnz].astype(seen_dtype(data.dtype, x64)).astype(np.float64)
    rows = np.repeat(np.arange(n), np.diff(indptr))
    absent = -np.inf if maximize else np.inf
    invalid = bool(np.any(np.isnan(vals) | (vals == -absent)))
    D = np.full(shape, absent)
    for r, c, w in zip(rows, indices[:nnz], vals, strict=True):
        if w != absent:
            D[r, c] = max(D[r, c], w) if maximize else min(D[r, c], w)
    return D, invalid


def check_sparse_member(S: SparseCosts, member, res, maximize, x64, what):
    """One solved sparse problem (``member`` as :func:`sparse_problems` draws
    it) against the oracle; an optimal answer certified on ``S`` too."""
    indptr, indices, data, shape, corrupt, kind = member
    r = jax.tree.map(np.asarray, res)
    info = (what, kind, corrupt, shape, indptr.tolist(), indices.tolist(), data.tolist(), maximize)
    if corrupt is not None:
        assert int(r.status) == LAPStatus.INVALID_STRUCTURE, (LAPStatus(int(r.status)).name, *info)
        assert not bool(r.feasible) and (r.col_for_row == -1).all(), info
        return
    D, invalid = sparse_oracle(indptr, indices, data, shape, maximize, x64)
    want = lap_oracle(D, maximize)
    if invalid:
        want = want._replace(status=LAPStatus.INVALID_ENTRIES)
    if want.status == LAPStatus.OPTIMAL and data.dtype.kind in "biu":
        want = want._replace(cost=int(want.cost))
    seen = D  # float64 holds every value of the solve's dtype, and +-inf for absent pairs
    if data.dtype.kind in "biu" and np.isfinite(D).all():
        seen = D.astype(np.int32)
    elif data.dtype.kind not in "biu" and seen_dtype(data.dtype, x64) == np.float32:
        seen = D.astype(np.float32)  # the float32 solve's tolerance
    check_lap_one(
        seen,
        maximize,
        r.col_for_row,
        r.row_for_col,
        r.cost,
        r.u,
        r.v,
        r.feasible,
        r.status,
        want,
        info,
    )
    if want.status == LAPStatus.OPTIMAL and int(r.status) == LAPStatus.OPTIMAL:
        cert = jaxmatch.verify_lap(S, r, maximize=maximize)
        assert cert.optimal, (cert.reason, *info)
