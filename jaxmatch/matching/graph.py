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

import jax
import jax.numpy as jnp
import numpy as np

from .. import _limits
from .._csr import (
    CSR,
    GraphValidationError,
    canonical_csr,
    check_range,
    csr_of_pairs,
    index_view,
    on_device,
    transpose_csr,
    validate_csr,
)
from .._csr_device import (
    GraphStatus,
    check_edge_arrays,
    csr_of_device_pairs,
    index_status,
    refused,
    status_of,
    transpose_of_device_csr,
)
from .._static import static_int

__all__ = ["BipartiteGraph"]


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
    def _of_rows(cls, indptr, indices, n_rows: int, n_cols: int, private: bool) -> BipartiteGraph:
        """From a canonical row CSR; the column CSR is its transpose."""
        col_indptr, col_indices, _ = transpose_csr(indptr, indices, None, n_rows, n_cols)
        return cls(
            indptr=on_device(indptr, np.int32, private=private),
            indices=on_device(indices, np.int32, private=private),
            data=None,
            shape=(n_rows, n_cols),
            col_indptr=on_device(col_indptr, private=True),
            col_indices=on_device(col_indices, private=True),
        )

    @classmethod
    def from_edges(cls, rows, cols, n_rows: int, n_cols: int) -> BipartiteGraph:
        """From parallel arrays of edge endpoints (duplicates removed).

        Edges already sorted by ``(row, col)`` without repeats are stored
        without a sort.

        Args:
          rows: integer ``[nnz]`` row of each edge.
          cols: integer ``[nnz]`` column of each edge.
          n_rows, n_cols: vertex counts.
        """
        if n_rows < 0 or n_cols < 0:
            raise GraphValidationError(f"negative size ({n_rows}, {n_cols})")
        r = index_view(rows, "rows")
        c = index_view(cols, "cols")
        _limits.check_csr((n_rows, n_cols), r.size, "the graph")  # before sorting
        if r.shape != c.shape:
            raise GraphValidationError(
                f"rows and cols differ in length ({r.shape[0]} vs {c.shape[0]})"
            )
        check_range(r, n_rows, "row index")
        check_range(c, n_cols, "column index")
        indptr, indices, _, private = csr_of_pairs(r, c, None, n_rows, n_cols)
        return cls._of_rows(indptr, indices, n_rows, n_cols, private)

    @classmethod
    def from_edges_device(
        cls, rows: Any, cols: Any, n_rows: int, n_cols: int, *, capacity: int | None = None
    ) -> BipartiteGraph:
        """From edge arrays on the device, without the host: jittable and
        ``vmap``-able (the sorts and segmentation run as XLA operations).

        The same graph as :meth:`from_edges` (duplicates removed, both CSR
        structures sorted), padded to ``capacity`` edge slots. Input that
        :meth:`from_edges` refuses cannot raise under ``jax.jit``: it gives
        a graph whose ``status`` says why (a :class:`GraphStatus`), with
        malformed pointers that the solvers report as ``INVALID_GRAPH`` and
        :meth:`validate` refuses.

        Args:
          rows: integer ``[m]`` row of each edge, in ``[0, n_rows)``.
          cols: integer ``[m]`` column of each edge, in ``[0, n_cols)``.
          n_rows, n_cols: static vertex counts.
          capacity: static, the number of edge slots; default ``m``, which
            always fits.

        Returns:
          A :class:`BipartiteGraph` with ``indptr`` int32 ``[n_rows + 1]``,
          ``indices`` and ``col_indices`` int32 ``[capacity]``,
          ``col_indptr`` int32 ``[n_cols + 1]``; ``status`` ``VALID``, or
          ``INDEX_OUT_OF_RANGE`` or ``OVER_CAPACITY``.

        Raises:
          TypeError: non-integer endpoints, or traced sizes.
          ValueError: arrays that are not 1-D or of different lengths,
            negative sizes, or sizes beyond the int32 limits (at trace
            time).
        """
        n_rows = static_int(n_rows, "n_rows")
        n_cols = static_int(n_cols, "n_cols")
        r, c = check_edge_arrays(("rows", "cols"), (rows, cols))
        m = r.shape[0]
        cap = m if capacity is None else static_int(capacity, "capacity")
        if n_rows < 0 or n_cols < 0 or cap < 0:
            raise ValueError(f"negative size ({n_rows}, {n_cols}, capacity={cap})")
        _limits.check_csr((n_rows, n_cols), max(cap, m), "the graph")
        inside = index_status(r, n_rows) & index_status(c, n_cols)
        r32 = jnp.where(inside, r, n_rows).astype(jnp.int32)
        c32 = jnp.where(inside, c, 0).astype(jnp.int32)
        csr = csr_of_device_pairs(r32, c32, None, n_rows, n_cols, cap)
        col_indptr, col_indices = transpose_of_device_csr(csr, n_rows, n_cols)
        status = jnp.where(
            ~jnp.all(inside),
            GraphStatus.INDEX_OUT_OF_RANGE,
            jnp.where(csr.over, GraphStatus.OVER_CAPACITY, GraphStatus.VALID),
        ).astype(jnp.int32)
        return cls(
            indptr=refused(csr.indptr, status),
            indices=csr.indices,
            data=None,
            shape=(n_rows, n_cols),
            col_indptr=refused(col_indptr, status),
            col_indices=col_indices,
        )

    @property
    def status(self) -> jax.Array:
        """int32 ``[...]``: a :class:`GraphStatus`, VALID unless a device
        constructor (:meth:`from_edges_device`) refused its input."""
        return status_of(self.col_indptr)

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
        edges, explicit zeros included, as in scipy's matching routines).

        A canonical CSR (sorted indices, no repeats) is checked in one pass
        and stored without a sort."""
        import scipy.sparse as sp

        if not sp.issparse(A):
            raise GraphValidationError(f"expected a scipy sparse matrix, got {type(A).__name__}")
        csr = A if A.format == "csr" else A.tocsr()
        n_rows, n_cols = csr.shape
        return cls._of_csr(csr.indptr, csr.indices, n_rows, n_cols, "scipy CSR")

    @classmethod
    def from_csr(cls, indptr, indices, n_rows: int, n_cols: int) -> BipartiteGraph:
        """From a row-major CSR structure, validated first (indices past
        ``indptr[-1]`` are ignored; repeated entries are one edge). A
        canonical CSR (sorted indices, no repeats) is checked in one pass
        and stored without a sort.

        Args:
          indptr: integer ``[n_rows + 1]``.
          indices: integer ``[nnz]``.
          n_rows, n_cols: vertex counts.

        Raises:
          GraphValidationError: a malformed CSR: a pointer that does not
            start at 0, decreases, has the wrong length or ends past the
            indices; an index out of range.
        """
        return cls._of_csr(indptr, indices, n_rows, n_cols, "CSR")

    @classmethod
    def _of_csr(cls, indptr, indices, n_rows: int, n_cols: int, what: str) -> BipartiteGraph:
        validate_csr(indptr, indices, n_rows, n_cols, what=what)
        p, idx, _, private = canonical_csr(
            np.asarray(indptr), np.asarray(indices), None, n_rows, n_cols
        )
        return cls._of_rows(p, idx, n_rows, n_cols, private)

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
