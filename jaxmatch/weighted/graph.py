"""Undirected weighted graphs as CSR pytrees, for the weighted matching
solvers.

A :class:`Graph` is its symmetric weighted adjacency matrix ``[n, n]`` in
scipy's CSR names, every edge stored from both ends: vertex ``u``'s
neighbours are ``indices[indptr[u]:indptr[u + 1]]`` (sorted) with weights
``data[indptr[u]:indptr[u + 1]]``. ``shape == (n, n)`` is static (part of
the tree structure); the arrays are leaves, so graphs with equal ``n`` and
equal capacity can be stacked and ``vmap``-ed.

Every constructor drops self-loops and merges duplicate edges, keeping the
heaviest weight; weights must be finite. Float weights keep their dtype
(float16 and bfloat16 become float32; float64 needs ``jax_enable_x64``,
else JAX stores float32); integer weights become int32 (an error if they do
not fit).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax.numpy as jnp
import numpy as np

from .. import _limits
from .._csr import CSR, GraphValidationError, as_index_array, validate_csr
from .._float64 import warn_if_rounded


def as_weight_array(w, count: int) -> np.ndarray:
    """``w`` as a 1-D NumPy weight array of ``count`` entries in a supported
    dtype (float32, float64 or int32); raises :class:`GraphValidationError`
    for other shapes or dtypes, NaN or infinite weights."""
    a = np.asarray(w)
    if a.ndim == 0:
        a = np.full(count, a)
    if a.ndim != 1 or a.shape[0] != count:
        raise GraphValidationError(f"weights must have shape ({count},), got {a.shape}")
    kind = a.dtype.kind
    if kind == "f" or a.dtype.name == "bfloat16":
        if a.dtype not in (np.float32, np.float64):
            a = a.astype(np.float32)
        bad = ~np.isfinite(a)
        if np.any(bad):
            raise GraphValidationError(
                f"weights must be finite, got {a[bad][0]} at edge {int(np.flatnonzero(bad)[0])}"
            )
        warn_if_rounded(a, "edge weights", stacklevel=3)
        return a
    if kind in "iu" or kind == "b":
        a64 = a.astype(np.int64)
        if a64.size and (a64.min() < -(2**31) or a64.max() >= 2**31):
            raise GraphValidationError("integer weights must fit in int32")
        return a64.astype(np.int32)
    raise GraphValidationError(f"weights must be real numbers, got dtype {a.dtype}")


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class Graph(CSR):
    """An undirected weighted graph on ``n`` vertices, every edge stored
    from both ends.

    Leading dimensions ``...`` of the arrays are batch dimensions (graphs of
    one ``n`` and one capacity stacked, see :meth:`pad_to`).

    Attributes:
      indptr: int32 ``[..., n + 1]``. Vertex pointers: the neighbours of
        ``u`` are ``indices[indptr[u]:indptr[u + 1]]``.
      indices: int32 ``[..., capacity]``. Neighbour indices; entries past
        ``indptr[..., -1]`` are padding.
      data: float32, float64 or int32 ``[..., capacity]``: the weight of each
        stored edge (equal from both ends).
      shape: static ``(n, n)``.
    """

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.shape[0] != self.shape[1]:
            raise GraphValidationError(f"a graph's shape must be square, got {self.shape}")

    @property
    def n(self) -> int:
        """Static number of vertices (``shape[0]``)."""
        return self.shape[0]

    @property
    def n_edges(self):
        """Number of undirected edges (int32 ``[...]``): stored entries / 2."""
        return self.indptr[..., -1] // 2

    # -- constructors
    @classmethod
    def from_edges(cls, u, v, w, n: int) -> Graph:
        """From parallel arrays of edges, each given once (either direction).

        Args:
          u, v: integer ``[m]`` endpoints, in ``[0, n)``.
          w: ``[m]`` weights (or a scalar for all edges): finite floats or
            integers.
          n: number of vertices.

        Self-loops are dropped; an edge given more than once keeps its
        heaviest weight.

        Raises:
          GraphValidationError: endpoints out of range or of different
            lengths, non-finite weights or an unsupported dtype.
        """
        if n < 0:
            raise GraphValidationError(f"negative size {n}")
        a = as_index_array(u, "u")
        b = as_index_array(v, "v")
        _limits.check_csr((n, n), 2 * a.size, "the graph")  # both directions, before sorting
        if a.shape != b.shape:
            raise GraphValidationError(f"u and v differ in length ({a.shape[0]} vs {b.shape[0]})")
        wt = as_weight_array(w, a.shape[0])
        for name, x in (("u", a), ("v", b)):
            if x.size and (x.min() < 0 or x.max() >= n):
                bad = x[(x < 0) | (x >= n)][0]
                raise GraphValidationError(f"{name} index {bad} out of range [0, {n})")
        keep = a != b
        a, b, wt = a[keep], b[keep], wt[keep]
        # Both directions; sort by (source, target, weight) and keep each
        # pair's last (heaviest) entry.
        src = np.concatenate([a, b])
        dst = np.concatenate([b, a])
        ww = np.concatenate([wt, wt])
        order = np.lexsort((ww, dst, src))
        src, dst, ww = src[order], dst[order], ww[order]
        last = np.ones(src.size, bool)
        if src.size:
            last[:-1] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
        src, dst, ww = src[last], dst[last], ww[last]
        indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))]).astype(np.int32)
        return cls(
            indptr=jnp.asarray(indptr),
            indices=jnp.asarray(dst.astype(np.int32)),
            data=jnp.asarray(ww),
            shape=(n, n),
        )

    @classmethod
    def from_scipy(cls, A) -> Graph:
        """From a symmetric scipy sparse matrix (``A[u, v]`` is the weight of
        edge ``{u, v}``; stored entries are edges, explicit zeros included;
        the diagonal is ignored).

        Raises:
          GraphValidationError: not square, not symmetric in structure or
            values, a malformed CSR, or non-finite values.
        """
        import scipy.sparse as sp

        if not sp.issparse(A):
            raise GraphValidationError(f"expected a scipy sparse matrix, got {type(A).__name__}")
        if A.shape[0] != A.shape[1]:
            raise GraphValidationError(f"the matrix must be square, got shape {A.shape}")
        csr = sp.csr_matrix(A)
        validate_csr(csr.indptr, csr.indices, csr.shape[0], csr.shape[1], what="scipy CSR")
        csr.sum_duplicates()
        coo = csr.tocoo()
        r, c = coo.row.astype(np.int64), coo.col.astype(np.int64)
        w = as_weight_array(coo.data, coo.data.shape[0])
        n = csr.shape[0]
        fwd = np.lexsort((c, r))
        bwd = np.lexsort((r, c))
        if not (
            np.array_equal(r[fwd], c[bwd])
            and np.array_equal(c[fwd], r[bwd])
            and np.array_equal(w[fwd], w[bwd])
        ):
            raise GraphValidationError(
                "the matrix must be symmetric in structure and values (A == A.T)"
            )
        upper = r < c
        return cls.from_edges(r[upper], c[upper], w[upper], n)

    @classmethod
    def from_networkx(cls, g: Any, weight: str = "weight", default: float = 1.0) -> Graph:
        """From an undirected networkx graph; vertex ``i`` is the ``i``-th
        node of ``g.nodes``.

        Args:
          g: a ``networkx.Graph`` (directed graphs are refused).
          weight: the edge attribute that holds the weight.
          default: the weight of an edge without that attribute.
        """
        if g.is_directed():
            raise GraphValidationError("expected an undirected networkx graph")
        index = {node: i for i, node in enumerate(g.nodes)}
        edges = list(g.edges(data=weight, default=default))
        u = np.array([index[a] for a, _, _ in edges], np.int64)
        v = np.array([index[b] for _, b, _ in edges], np.int64)
        w = np.array([x for _, _, x in edges]) if edges else np.zeros(0, np.float32)
        return cls.from_edges(u, v, w, len(index))

    def validate(self) -> Graph:
        """Checks the CSR structure, the weights' finiteness and the symmetry
        of structure and weights (eager, one graph); returns ``self``."""
        validate_csr(self.indptr, self.indices, self.n, self.n, what="CSR")
        u, v, w = self.edges(both=True)
        as_weight_array(w, w.shape[0])
        fwd, bwd = np.lexsort((v, u)), np.lexsort((u, v))
        if not (np.array_equal(u[fwd], v[bwd]) and np.array_equal(w[fwd], w[bwd])):
            raise GraphValidationError("every edge must be stored from both ends, equally weighted")
        return self

    def edges(self, both: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(u, v, w)`` NumPy arrays of the edges (one graph): each once with
        ``u < v`` or, with ``both``, every stored entry."""
        p = np.asarray(self.indptr).astype(np.int64)
        u = np.repeat(np.arange(self.n), np.diff(p))
        v = np.asarray(self.indices)[: p[-1]].astype(np.int64)
        w = np.asarray(self.data)[: p[-1]]
        if both:
            return u, v, w
        keep = u < v
        return u[keep], v[keep], w[keep]
