"""Sparse costs: a CSR matrix as a pytree (:class:`SparseCosts`)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from ..._csr import CSR


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class SparseCosts(CSR):
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
      shape: static ``(n_rows, n_cols)``.
    """

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
            (int(A.shape[0]), int(A.shape[1])),
        )
