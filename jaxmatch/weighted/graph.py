"""Undirected weighted graphs as CSR pytrees, for the weighted matching
solvers.

A :class:`Graph` is its symmetric weighted adjacency matrix ``[n, n]`` in
scipy's CSR names, every edge stored from both ends: vertex ``u``'s
neighbours are ``indices[indptr[u]:indptr[u + 1]]`` (sorted) with weights
``data[indptr[u]:indptr[u + 1]]``. ``shape == (n, n)`` is static (part of
the tree structure); the arrays are leaves, so graphs with equal ``n`` and
equal capacity can be stacked and ``vmap``-ed.

Every constructor drops self-loops and merges duplicate edges, keeping the
heaviest weight; weights must be finite. A graph built by hand may store a
pair more than once (side by side in the sorted list, from both ends): the
solvers take it as one edge at its heaviest copy. Float weights keep their dtype
(float16 and bfloat16 become float32; float64 needs ``jax_enable_x64``,
else JAX stores float32); integer weights become int32 (an error if they do
not fit).
"""

from __future__ import annotations

import dataclasses
from typing import Any

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
    nondecreasing,
    on_device,
    pointer_of_sorted,
    rows_canonical,
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
)
from .._float64 import warn_if_rounded
from .._static import static_int


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
        # A finite sum proves every weight finite (NaN and infinities
        # propagate); only a sum that is not finite (or overflows) needs the
        # entry-by-entry test.
        with np.errstate(over="ignore", invalid="ignore"):
            total = a.sum()
        bad = np.zeros(0, bool) if np.isfinite(total) else ~np.isfinite(a)
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


def _device_weights(w: Any, count: int) -> tuple[jax.Array, jax.Array]:
    """``w`` as ``[count]`` device weights (float32, float64 or int32, as
    :func:`as_weight_array` stores them) and a bool scalar: one is NaN,
    infinite or an integer beyond int32. Shape and dtype errors at trace
    time (``ValueError``, ``TypeError``)."""
    a = jnp.asarray(w)
    if a.ndim == 0:
        a = jnp.broadcast_to(a, (count,))
    if a.shape != (count,):
        raise ValueError(f"weights must have shape ({count},), got {a.shape}")
    if jnp.issubdtype(a.dtype, jnp.floating):
        if a.dtype not in (jnp.float32, jnp.float64):
            a = a.astype(jnp.float32)
        return a, ~jnp.all(jnp.isfinite(a))
    if a.dtype == jnp.bool_:
        return a.astype(jnp.int32), jnp.zeros((), bool)
    if jnp.issubdtype(a.dtype, jnp.integer):
        info = jnp.iinfo(a.dtype)
        bad = jnp.zeros((), bool)
        if info.max > 2**31 - 1:
            bad = bad | jnp.any(a > 2**31 - 1)
        if info.min < -(2**31):
            bad = bad | jnp.any(a < -(2**31))
        return a.astype(jnp.int32), bad
    raise TypeError(f"weights must be real numbers, got dtype {a.dtype}")


def _transpose_if_symmetric(
    p: np.ndarray, idx: np.ndarray, w: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The transpose of the canonical CSR ``[n, n]`` (new arrays, the
    constructor's own) when it equals the CSR, else None."""
    p_t, i_t, w_t = transpose_csr(p, idx, w, n, n)
    assert w_t is not None
    if np.array_equal(p_t, p) and np.array_equal(i_t, idx) and np.array_equal(w_t, w):
        return p_t, i_t, w_t
    return None


def _without_diagonal(
    p: np.ndarray, idx: np.ndarray, w: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A canonical CSR ``[n, n]`` without its diagonal entries (the arrays
    themselves when it has none)."""
    import scipy.sparse as sp

    # scipy's diagonal of the pattern (one C++ pass over the rows) says
    # whether there is any diagonal entry to drop.
    pattern = sp.csr_matrix((np.ones(idx.shape[0], np.int8), idx, p), shape=(n, n))
    if not pattern.diagonal().any():
        return p, idx, w
    rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(p))
    diagonal = idx == rows
    at = np.flatnonzero(diagonal)
    p = (p - np.searchsorted(at, p)).astype(np.int32)
    keep = ~diagonal
    return p, idx[keep], w[keep]


def _both_ends(
    p: np.ndarray, idx: np.ndarray, w: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The symmetric canonical CSR ``[n, n]`` of a strictly upper one: row
    ``u`` holds the transpose's row (neighbours below ``u``), then its own
    (above ``u``)."""
    p_t, i_t, w_t = transpose_csr(p, idx, w, n, n)
    assert w_t is not None
    counts = np.empty(2 * n, np.int64)
    counts[0::2], counts[1::2] = np.diff(p_t), np.diff(p)
    upper = np.repeat(np.tile(np.array([False, True]), n), counts)
    m = 2 * idx.shape[0]
    both_idx = np.empty(m, np.int32)
    both_w = np.empty(m, w.dtype)
    both_idx[upper], both_idx[~upper] = idx, i_t
    both_w[upper], both_w[~upper] = w, w_t
    return (p + p_t).astype(np.int32), both_idx, both_w


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
    def _of_arrays(cls, indptr, indices, data, n: int, private: bool) -> Graph:
        return cls(
            indptr=on_device(indptr, np.int32, private=private),
            indices=on_device(indices, np.int32, private=private),
            data=on_device(data, private=private),
            shape=(n, n),
        )

    @classmethod
    def from_edges(cls, u, v, w, n: int) -> Graph:
        """From parallel arrays of edges, each given once (either direction).

        Args:
          u, v: integer ``[m]`` endpoints, in ``[0, n)``.
          w: ``[m]`` weights (or a scalar for all edges): finite floats or
            integers.
          n: number of vertices.

        Self-loops are dropped; an edge given more than once keeps its
        heaviest weight. Edges sorted by ``(u, v)`` and given from both ends
        with equal weights (a symmetric matrix's stored entries in CSR
        order) or from one end (``u < v``) are stored without a sort.

        Raises:
          GraphValidationError: endpoints out of range or of different
            lengths, non-finite weights or an unsupported dtype.
        """
        if n < 0:
            raise GraphValidationError(f"negative size {n}")
        a = index_view(u, "u")
        b = index_view(v, "v")
        _limits.check_csr((n, n), 2 * a.size, "the graph")  # both directions, before sorting
        if a.shape != b.shape:
            raise GraphValidationError(f"u and v differ in length ({a.shape[0]} vs {b.shape[0]})")
        wt = as_weight_array(w, a.shape[0])
        for name, x in (("u", a), ("v", b)):
            check_range(x, n, f"{name} index")
        a = a.astype(np.int32, copy=False)
        b = b.astype(np.int32, copy=False)
        keep = a != b
        if not keep.all():
            a, b, wt = a[keep], b[keep], wt[keep]
        upward = -1
        if nondecreasing(a):
            upward = int(np.count_nonzero(a < b))
        if 2 * upward == a.size:
            # Sorted by source, as many edges up as down: the entries of a
            # symmetric canonical CSR need no sort, only their check.
            p = pointer_of_sorted(a, n)
            if rows_canonical(p, b):
                same = _transpose_if_symmetric(p, b, wt, n)
                if same is not None:
                    return cls._of_arrays(*same, n, private=True)
        # Each edge once from its smaller end (repeats keep the heaviest),
        # then stored from both ends.
        lo, hi = (a, b) if upward == a.size else (np.minimum(a, b), np.maximum(a, b))
        p, idx, ww, _ = csr_of_pairs(lo, hi, wt, n, n, np.maximum)
        assert ww is not None
        return cls._of_arrays(*_both_ends(p, idx, ww, n), n, private=True)

    @classmethod
    def from_scipy(cls, A) -> Graph:
        """From a symmetric scipy sparse matrix (``A[u, v]`` is the weight of
        edge ``{u, v}``; stored entries are edges, explicit zeros included;
        the diagonal is ignored; entries stored more than once are summed,
        as scipy does).

        A canonical CSR (sorted indices, no repeats) is checked in one pass
        and stored without a sort; the symmetry check is one transpose.

        Raises:
          GraphValidationError: not square, not symmetric in structure or
            values, a malformed CSR, or non-finite values.
        """
        import scipy.sparse as sp

        if not sp.issparse(A):
            raise GraphValidationError(f"expected a scipy sparse matrix, got {type(A).__name__}")
        if A.shape[0] != A.shape[1]:
            raise GraphValidationError(f"the matrix must be square, got shape {A.shape}")
        n = int(A.shape[0])
        csr = A if A.format == "csr" else A.tocsr()
        validate_csr(csr.indptr, csr.indices, n, n, what="scipy CSR")
        p, idx, x, _ = canonical_csr(csr.indptr, csr.indices, csr.data, n, n, np.add)
        assert x is not None
        w = as_weight_array(x, x.shape[0])
        p = p.astype(np.int32, copy=False)
        idx = idx.astype(np.int32, copy=False)
        same = _transpose_if_symmetric(p, idx, w, n)
        if same is None:
            raise GraphValidationError(
                "the matrix must be symmetric in structure and values (A == A.T)"
            )
        return cls._of_arrays(*_without_diagonal(*same, n), n, private=True)

    @classmethod
    def from_edges_device(
        cls, u: Any, v: Any, w: Any, n: int, *, capacity: int | None = None
    ) -> Graph:
        """From edge arrays on the device, without the host: jittable and
        ``vmap``-able (the sort and segmentation run as XLA operations).

        The same graph as :meth:`from_edges` (self-loops dropped, an edge
        given more than once keeps its heaviest weight, every edge stored
        from both ends, neighbours sorted), padded to ``capacity`` entry
        slots. Input that :meth:`from_edges` refuses cannot raise under
        ``jax.jit``: it gives a graph whose ``status`` says why (a
        :class:`GraphStatus`), with a malformed pointer that the solvers
        report as ``INVALID_GRAPH`` and :meth:`validate` refuses.

        Args:
          u, v: integer ``[m]`` endpoints, in ``[0, n)``.
          w: ``[m]`` weights or a scalar for all edges: float32, float64
            (under ``jax_enable_x64``) or integers (stored as int32;
            float16 and bfloat16 as float32).
          n: static, the number of vertices.
          capacity: static, the number of stored-entry slots (both ends of
            every distinct edge); default ``2 * m``, which always fits.

        Returns:
          A :class:`Graph` with ``indptr`` int32 ``[n + 1]``, ``indices``
          int32 ``[capacity]``, ``data`` ``[capacity]``; ``status``
          ``VALID``, or ``INDEX_OUT_OF_RANGE``, ``INVALID_WEIGHTS`` (NaN,
          infinite, or an integer beyond int32) or ``OVER_CAPACITY``.

        Raises:
          TypeError: non-integer endpoints, non-real weights, or a traced
            ``n`` or ``capacity``.
          ValueError: arrays that are not 1-D or of different lengths, a
            negative ``n`` or ``capacity``, or sizes beyond the int32
            limits (at trace time).
        """
        n = static_int(n, "n")
        a, b = check_edge_arrays(("u", "v"), (u, v))
        m = a.shape[0]
        cap = 2 * m if capacity is None else static_int(capacity, "capacity")
        if n < 0 or cap < 0:
            raise ValueError(f"negative size (n={n}, capacity={cap})")
        _limits.check_csr((n, n), max(cap, 2 * m), "the graph")
        wt, bad_weight = _device_weights(w, m)
        inside = index_status(a, n) & index_status(b, n)
        a32 = jnp.where(inside, a, 0).astype(jnp.int32)
        b32 = jnp.where(inside, b, 0).astype(jnp.int32)
        # Self-loops (and refused edges) get row n: dropped by the sort.
        kept = inside & (a32 != b32)
        lo = jnp.where(kept, jnp.minimum(a32, b32), n)
        hi = jnp.where(kept, jnp.maximum(a32, b32), 0)
        csr = csr_of_device_pairs(
            jnp.concatenate([lo, jnp.where(kept, hi, n)]),
            jnp.concatenate([hi, lo]),
            jnp.concatenate([wt, wt]),
            n,
            n,
            cap,
        )
        status = jnp.where(
            ~jnp.all(inside),
            GraphStatus.INDEX_OUT_OF_RANGE,
            jnp.where(
                bad_weight,
                GraphStatus.INVALID_WEIGHTS,
                jnp.where(csr.over, GraphStatus.OVER_CAPACITY, GraphStatus.VALID),
            ),
        ).astype(jnp.int32)
        return cls(
            indptr=refused(csr.indptr, status), indices=csr.indices, data=csr.data, shape=(n, n)
        )

    @property
    def status(self) -> jax.Array:
        """int32 ``[...]``: a :class:`GraphStatus`, VALID unless a device
        constructor (:meth:`from_edges_device`) refused its input."""
        return status_of(self.indptr)

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
        m = g.number_of_edges()
        ends = np.fromiter(
            (index[x] for a, b in g.edges() for x in (a, b)), np.int64, count=2 * m
        ).reshape(m, 2)
        w = [x for _, _, x in g.edges(data=weight, default=default)]
        return cls.from_edges(
            ends[:, 0], ends[:, 1], np.array(w) if m else np.zeros(0, np.float32), len(index)
        )

    def validate(self) -> Graph:
        """Checks the CSR structure, each vertex's neighbours sorted (a pair
        stored more than once has its copies side by side), the weights'
        finiteness and the symmetry of structure and weights: the entries
        ``u -> v`` and ``v -> u`` of every pair, as multisets of weights,
        are equal (eager, one graph); returns ``self``.

        The solvers check the same structure under ``jax.jit`` and report
        a graph that fails it as ``INVALID_GRAPH`` (``docs/weighted.md``).

        Raises:
          GraphValidationError: naming the first check that fails.
        """
        validate_csr(self.indptr, self.indices, self.n, self.n, what="CSR")
        p, idx = index_view(self.indptr, "indptr"), index_view(self.indices, "indices")
        if not rows_canonical(p, idx, repeats=True):
            raise GraphValidationError(
                "each vertex's neighbours must be sorted (indices[indptr[u]:indptr[u + 1]] "
                "nondecreasing)"
            )
        u, v, w = self.edges(both=True)
        as_weight_array(w, w.shape[0])
        fwd, bwd = np.lexsort((w, v, u)), np.lexsort((w, u, v))
        if not (
            np.array_equal(u[fwd], v[bwd])
            and np.array_equal(v[fwd], u[bwd])
            and np.array_equal(w[fwd], w[bwd])
        ):
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
