"""Bipartite graphs as CSR pytrees, for the matching solvers.

A :class:`BipartiteGraph` is the pattern of its biadjacency matrix
``[n_rows, n_cols]`` in scipy's CSR names (``indptr``/``indices``: each row's
neighbouring columns) together with its transpose (``col_indptr``/
``col_indices``: each column's neighbouring rows, the layout of Deveci et al.
that the column kernels read). ``shape`` is static (part of the tree
structure); the index arrays are leaves, so graphs with equal sizes and equal
edge capacity can be stacked and ``vmap``-ed.

Duplicate edges are removed by every constructor (the structure is a simple
graph); each column's rows, and each row's columns, are sorted.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np

from .. import _limits
from .._csr import CSR, GraphValidationError, as_index_array, sorted_unique, validate_csr

__all__ = ["BipartiteGraph"]


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


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class BipartiteGraph(CSR):
    """A bipartite graph between ``n_rows`` rows and ``n_cols`` columns: the
    pattern of its biadjacency matrix, in CSR form both ways.

    Leading dimensions ``...`` of the arrays are batch dimensions (graphs of
    one shape and one capacity stacked, see :meth:`pad_to`).

    Attributes:
      indptr: int32 ``[..., n_rows + 1]``. Row pointers: the columns adjacent
        to row ``i`` are ``indices[indptr[i]:indptr[i + 1]]``.
      indices: int32 ``[..., capacity]``. Column indices; entries past
        ``indptr[..., -1]`` are padding.
      data: ``None`` (a pattern: edges carry no values).
      shape: static ``(n_rows, n_cols)``.
      col_indptr: int32 ``[..., n_cols + 1]``. Column pointers of the
        transpose: the rows adjacent to column ``j`` are
        ``col_indices[col_indptr[j]:col_indptr[j + 1]]``.
      col_indices: int32 ``[..., capacity]``. Row indices of the transpose;
        entries past ``col_indptr[..., -1]`` are padding.
    """

    col_indptr: Any
    col_indices: Any

    capacity_fields: ClassVar[tuple[str, ...]] = ("indices", "col_indices")

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
        _limits.check_csr((n_rows, n_cols), r.size, "the graph")  # before sorting
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
        col_indptr, col_indices = _csr_from_pairs(c, r, n_cols, n_rows)
        indptr, indices = _csr_from_pairs(r, c, n_rows, n_cols)
        return cls(
            indptr=jnp.asarray(indptr),
            indices=jnp.asarray(indices),
            data=None,
            shape=(n_rows, n_cols),
            col_indptr=jnp.asarray(col_indptr),
            col_indices=jnp.asarray(col_indices),
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

    def validate(self) -> BipartiteGraph:
        """Checks both CSR structures (eager); returns ``self``."""
        validate_csr(self.col_indptr, self.col_indices, self.n_cols, self.n_rows, what="column CSR")
        validate_csr(self.indptr, self.indices, self.n_rows, self.n_cols, what="row CSR")
        if int(self.col_indptr[-1]) != int(self.indptr[-1]):
            raise GraphValidationError("column and row CSR hold different edge counts")
        return self

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, cols)`` NumPy arrays of the edges, column-major order."""
        p = np.asarray(self.col_indptr)
        cols = np.repeat(np.arange(self.n_cols), np.diff(p))
        return np.asarray(self.col_indices)[: p[-1]].astype(np.int64), cols
