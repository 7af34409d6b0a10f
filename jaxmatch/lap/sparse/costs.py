"""Sparse costs: a CSR matrix as a pytree (:class:`SparseCosts`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


@jax.tree_util.register_pytree_node_class
@dataclass(frozen=True)
class SparseCosts:
    """A sparse cost matrix ``[n_rows, n_cols]`` in CSR form: a pytree whose
    arrays may carry leading batch dimensions (``jax.vmap`` over matrices of
    one shape and capacity, see :meth:`pad_to`).

    Every stored entry ``k < indptr[..., -1]`` is an edge (row, ``indices[k]``)
    of cost ``data[k]``, zeros included; ``+inf`` entries are absent edges
    (``-inf`` when maximizing). Entries past ``indptr[..., -1]`` are padding
    and never read. A pair stored twice costs the cheaper of its entries
    (the dearer when maximizing).

    Attributes:
      indptr: int32 ``[..., n_rows + 1]``, non-decreasing from 0.
      indices: int32 ``[..., capacity]``, the column of each entry.
      data: ``[..., capacity]``, float32, float64 (under ``jax_enable_x64``)
        or int32: the costs.
      n_cols: static int, the number of columns.
    """

    indptr: Any
    indices: Any
    data: Any
    n_cols: int

    def tree_flatten(self) -> tuple[tuple[Any, Any, Any], int]:
        return (self.indptr, self.indices, self.data), self.n_cols

    @classmethod
    def tree_unflatten(cls, n_cols: int, children: tuple[Any, Any, Any]) -> SparseCosts:
        return cls(*children, n_cols)

    @property
    def n_rows(self) -> int:
        return int(jnp.shape(self.indptr)[-1]) - 1

    @property
    def shape(self) -> tuple[int, int]:
        return self.n_rows, self.n_cols

    @classmethod
    def from_scipy(cls, A: Any) -> SparseCosts:
        """From a scipy sparse matrix or array (any format): its stored
        entries, explicit zeros included, duplicates kept, as NumPy arrays.

        Raises:
          TypeError: ``A`` is not sparse.
          ValueError: more than 2^31 - 1 stored entries.
        """
        import scipy.sparse as sp

        if not sp.issparse(A):
            raise TypeError(f"expected a scipy sparse matrix, got {type(A).__name__}")
        A = sp.csr_matrix(A)
        if A.nnz >= 2**31:
            raise ValueError(f"{A.nnz} stored entries do not fit int32 indices")
        return cls(
            np.asarray(A.indptr, np.int32),
            np.asarray(A.indices, np.int32),
            np.asarray(A.data),
            int(A.shape[1]),
        )

    def pad_to(self, capacity: int) -> SparseCosts:
        """The same matrix with room for ``capacity`` entries (padding is
        never read), so matrices of one shape stack into a batch."""
        cap = int(jnp.shape(self.indices)[-1])
        if capacity < cap:
            raise ValueError(f"capacity {capacity} is below the {cap} entries stored")
        extra = [(0, 0)] * (jnp.ndim(self.indices) - 1) + [(0, capacity - cap)]
        pad = np.pad if isinstance(self.indices, np.ndarray) else jnp.pad
        return SparseCosts(
            self.indptr, pad(self.indices, extra), pad(self.data, extra), self.n_cols
        )
