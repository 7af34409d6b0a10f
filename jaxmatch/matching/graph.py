"""Bipartite graphs as CSR pytrees, for the matching solvers.

A :class:`BipartiteGraph` stores, for each column, its neighbouring rows
(``cxadj``/``cadj``, the CSR layout of Deveci et al.), and the row-major
transpose (``rxadj``/``radj``) that the row-side kernels read. ``n_rows`` and
``n_cols`` are static (part of the tree structure); the index arrays are
leaves, so graphs with equal sizes and equal edge capacity can be stacked and
``vmap``-ed.

Duplicate edges are removed by every constructor (the structure is a simple
graph); each column's rows, and each row's columns, are sorted.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


class GraphValidationError(ValueError):
    """A malformed CSR structure or edge list."""


def sorted_unique(a: np.ndarray) -> np.ndarray:
    """``np.unique`` of a 1-D integer array, by sorting and keeping each value
    that differs from its predecessor (``np.unique`` can take a hash-based
    path that is far slower than a sort on large integer arrays)."""
    a = np.sort(a)
    if a.size < 2:
        return a
    keep = np.empty(a.size, bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def as_index_array(x, name: str) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim != 1:
        raise GraphValidationError(f"{name} must be one-dimensional, got shape {a.shape}")
    if a.size and a.dtype.kind not in "iu":
        raise GraphValidationError(f"{name} must hold integers, got dtype {a.dtype}")
    return a.astype(np.int64)


def _index_view(x, name: str) -> np.ndarray:
    """``x`` as a 1-D integer NumPy array in its own dtype (no copy when it
    is one already); comparisons in that dtype cannot wrap."""
    a = np.asarray(x)
    if a.ndim != 1:
        raise GraphValidationError(f"{name} must be one-dimensional, got shape {a.shape}")
    if a.size and a.dtype.kind not in "iu":
        raise GraphValidationError(f"{name} must hold integers, got dtype {a.dtype}")
    return a


def validate_csr(indptr, indices, n_major: int, n_minor: int, *, what: str = "CSR") -> None:
    """Checks a CSR structure; raises :class:`GraphValidationError` if malformed.

    Args:
      indptr: ``[n_major + 1]`` index pointer.
      indices: ``[nnz]`` (or more: entries past ``indptr[-1]`` are ignored).
      n_major: number of compressed vertices (rows of ``indptr``).
      n_minor: number of vertices the indices refer to.
      what: a name for the messages.
    """
    if n_major < 0 or n_minor < 0:
        raise GraphValidationError(f"{what}: negative size ({n_major}, {n_minor})")
    p = _index_view(indptr, f"{what} index pointer")
    idx = _index_view(indices, f"{what} indices")
    if p.shape[0] != n_major + 1:
        raise GraphValidationError(
            f"{what}: index pointer has length {p.shape[0]}, expected {n_major + 1}"
        )
    if p[0] != 0:
        raise GraphValidationError(f"{what}: index pointer must start at 0, got {p[0]}")
    # Compare neighbours rather than take np.diff, which can wrap around for
    # pointers near the int64 limits (or uint64 ones cast to int64).
    decreases = p[1:] < p[:-1]
    if np.any(decreases):
        k = int(np.flatnonzero(decreases)[0])
        raise GraphValidationError(
            f"{what}: index pointer must be non-decreasing (decreases at {k}: {p[k]} -> {p[k + 1]})"
        )
    if p[-1] > idx.shape[0]:
        raise GraphValidationError(
            f"{what}: index pointer ends at {p[-1]} but there are only {idx.shape[0]} indices"
        )
    used = idx[: p[-1]]
    if used.size and (used.min() < 0 or used.max() >= n_minor):
        bad = used[(used < 0) | (used >= n_minor)][0]
        raise GraphValidationError(f"{what}: index {bad} out of range [0, {n_minor})")


def _csr_from_pairs(major: np.ndarray, minor: np.ndarray, n_major: int, n_minor: int):
    # Sort one int64 key (several times faster than lexsort on two arrays).
    width = max(n_minor, 1)
    key = np.sort(np.asarray(major, np.int64) * width + np.asarray(minor, np.int64))
    major, minor = key // width, key % width
    counts = np.bincount(major, minlength=n_major)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    return indptr.astype(np.int32), minor.astype(np.int32)


def _check_unbatched(M: Any, fmt: str) -> None:
    n_batch, n_dense = int(getattr(M, "n_batch", 0)), int(getattr(M, "n_dense", 0))
    if n_batch or n_dense or len(M.shape) != 2:
        raise GraphValidationError(
            f"expected an unbatched 2-D {fmt} matrix (n_batch = n_dense = 0), got shape "
            f"{tuple(M.shape)} with n_batch={n_batch}, n_dense={n_dense}"
        )


@jax.tree_util.register_pytree_node_class
class BipartiteGraph:
    """A bipartite graph between ``n_rows`` rows and ``n_cols`` columns.

    Attributes:
      cxadj: int32 ``[n_cols + 1]``. Column pointers: the rows adjacent to
        column ``j`` are ``cadj[cxadj[j]:cxadj[j + 1]]``.
      cadj: int32 ``[capacity]``. Row indices; entries past ``cxadj[-1]`` are
        padding.
      rxadj: int32 ``[n_rows + 1]``. Row pointers of the transpose.
      radj: int32 ``[capacity]``. Column indices of the transpose.
      n_rows, n_cols: static sizes.
    """

    def __init__(self, cxadj, cadj, rxadj, radj, n_rows: int, n_cols: int):
        self.cxadj, self.cadj, self.rxadj, self.radj = cxadj, cadj, rxadj, radj
        self.n_rows, self.n_cols = int(n_rows), int(n_cols)

    # -- pytree
    def tree_flatten(self):
        return (self.cxadj, self.cadj, self.rxadj, self.radj), (self.n_rows, self.n_cols)

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children, *aux)

    def __repr__(self) -> str:
        return (
            f"BipartiteGraph(n_rows={self.n_rows}, n_cols={self.n_cols}, "
            f"capacity={np.shape(self.cadj)[-1]})"
        )

    @property
    def nnz(self):
        """Number of edges (an int32 scalar, or ``[...]`` when batched)."""
        return self.cxadj[..., -1]

    # -- constructors
    @classmethod
    def from_edges(cls, rows, cols, n_rows: int, n_cols: int) -> BipartiteGraph:
        """From parallel arrays of edge endpoints (duplicates removed).

        Args:
          rows: integer ``[nnz]`` row of each edge.
          cols: integer ``[nnz]`` column of each edge.
          n_rows, n_cols: vertex counts.
        """
        if n_rows < 0 or n_cols < 0:
            raise GraphValidationError(f"negative size ({n_rows}, {n_cols})")
        r = as_index_array(rows, "rows")
        c = as_index_array(cols, "cols")
        if r.shape != c.shape:
            raise GraphValidationError(
                f"rows and cols differ in length ({r.shape[0]} vs {c.shape[0]})"
            )
        for name, a, bound in (("row", r, n_rows), ("column", c, n_cols)):
            if a.size and (a.min() < 0 or a.max() >= bound):
                bad = a[(a < 0) | (a >= bound)][0]
                raise GraphValidationError(f"{name} index {bad} out of range [0, {bound})")
        if r.size:
            key = sorted_unique(r * max(n_cols, 1) + c)
            r, c = key // max(n_cols, 1), key % max(n_cols, 1)
        cxadj, cadj = _csr_from_pairs(c, r, n_cols, n_rows)
        rxadj, radj = _csr_from_pairs(r, c, n_rows, n_cols)
        return cls(
            jnp.asarray(cxadj),
            jnp.asarray(cadj),
            jnp.asarray(rxadj),
            jnp.asarray(radj),
            n_rows,
            n_cols,
        )

    @classmethod
    def from_dense(cls, mask) -> BipartiteGraph:
        """From a ``[n_rows, n_cols]`` mask (edges where it is non-zero)."""
        m = np.asarray(mask)
        if m.ndim != 2:
            raise GraphValidationError(f"mask must be 2-D, got shape {m.shape}")
        r, c = np.nonzero(m)
        return cls.from_edges(r, c, m.shape[0], m.shape[1])

    @classmethod
    def from_scipy(cls, A) -> BipartiteGraph:
        """From any scipy sparse matrix (rows x columns; stored entries are
        edges, explicit zeros included, as in scipy's matching routines)."""
        import scipy.sparse as sp

        if not sp.issparse(A):
            raise GraphValidationError(f"expected a scipy sparse matrix, got {type(A).__name__}")
        csr = sp.csr_matrix(A) if not isinstance(A, sp.csr_matrix) else A
        validate_csr(csr.indptr, csr.indices, csr.shape[0], csr.shape[1], what="scipy CSR")
        coo = csr.tocoo()
        return cls.from_edges(coo.row, coo.col, *csr.shape)

    @classmethod
    def from_csr(cls, indptr, indices, n_rows: int, n_cols: int) -> BipartiteGraph:
        """From a row-major CSR structure, validated first."""
        validate_csr(indptr, indices, n_rows, n_cols, what="CSR")
        p = np.asarray(indptr, dtype=np.int64)
        idx = np.asarray(indices, dtype=np.int64)[: p[-1]]
        rows = np.repeat(np.arange(n_rows), np.diff(p))
        return cls.from_edges(rows, idx, n_rows, n_cols)

    @classmethod
    def from_bcsr(cls, M: Any) -> BipartiteGraph:
        """From a 2-D ``jax.experimental.sparse.BCSR`` matrix (eager).

        A ``BCOO`` matrix is passed on to :meth:`from_bcoo`. Stored entries
        are edges (explicit zeros included); indices past ``indptr[-1]`` are
        padding.

        Args:
          M: an unbatched ``[n_rows, n_cols]`` BCSR (or BCOO) matrix with no
            dense dimensions.

        Raises:
          GraphValidationError: batched or dense dimensions, another type, or
            a malformed CSR structure.
        """
        from jax.experimental import sparse as jsparse

        if isinstance(M, jsparse.BCOO):
            return cls.from_bcoo(M)
        if not isinstance(M, jsparse.BCSR):
            raise GraphValidationError(
                "from_bcsr takes a jax.experimental.sparse.BCSR (or BCOO) matrix, got "
                f"{type(M).__name__}; use from_scipy for scipy sparse matrices and "
                "from_dense for dense masks"
            )
        _check_unbatched(M, "BCSR")
        return cls.from_csr(np.asarray(M.indptr), np.asarray(M.indices), *M.shape)

    @classmethod
    def from_bcoo(cls, M: Any) -> BipartiteGraph:
        """From a 2-D ``jax.experimental.sparse.BCOO`` matrix (eager).

        Stored entries are edges (explicit zeros included, as in
        :meth:`from_scipy`); entries with an index past the matrix's shape
        are padding (BCOO's own convention, e.g. from ``fromdense(...,
        nse=k)``) and are dropped; duplicates are merged.

        Args:
          M: an unbatched ``[n_rows, n_cols]`` BCOO matrix with no dense
            dimensions (``M.indices``: integer ``[nse, 2]``).

        Raises:
          GraphValidationError: batched or dense dimensions, another type, or
            a negative index.
        """
        from jax.experimental import sparse as jsparse

        if not isinstance(M, jsparse.BCOO):
            raise GraphValidationError(
                f"from_bcoo takes a jax.experimental.sparse.BCOO matrix, got {type(M).__name__}"
            )
        _check_unbatched(M, "BCOO")
        n_rows, n_cols = M.shape
        idx = np.asarray(M.indices).astype(np.int64)
        rows, cols = idx[:, 0], idx[:, 1]
        if np.any(idx < 0):
            bad = int(idx[idx < 0][0])
            raise GraphValidationError(f"BCOO: negative index {bad}")
        keep = (rows < n_rows) & (cols < n_cols)
        return cls.from_edges(rows[keep], cols[keep], n_rows, n_cols)

    def pad_to(self, capacity: int) -> BipartiteGraph:
        """The same graph with edge arrays padded to ``capacity`` entries (for
        stacking graphs of different edge counts into one batch)."""
        size = int(np.shape(self.cadj)[-1])
        if capacity < size:
            raise GraphValidationError(f"capacity {capacity} < current {size}")
        pad = [(0, 0)] * (np.ndim(self.cadj) - 1) + [(0, capacity - size)]
        return BipartiteGraph(
            self.cxadj,
            jnp.pad(self.cadj, pad),
            self.rxadj,
            jnp.pad(self.radj, pad),
            self.n_rows,
            self.n_cols,
        )

    def validate(self) -> BipartiteGraph:
        """Checks both CSR structures (eager); returns ``self``."""
        validate_csr(self.cxadj, self.cadj, self.n_cols, self.n_rows, what="column CSR")
        validate_csr(self.rxadj, self.radj, self.n_rows, self.n_cols, what="row CSR")
        if int(self.cxadj[-1]) != int(self.rxadj[-1]):
            raise GraphValidationError("column and row CSR hold different edge counts")
        return self

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, cols)`` NumPy arrays of the edges, column-major order."""
        p = np.asarray(self.cxadj)
        cols = np.repeat(np.arange(self.n_cols), np.diff(p))
        return np.asarray(self.cadj)[: p[-1]].astype(np.int64), cols
