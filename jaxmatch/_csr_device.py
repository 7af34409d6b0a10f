"""Building a CSR from edge arrays on the device, under ``jax.jit``: the
sort and the segmentation of the graph constructors ``from_edges_device``.

Shapes are static, so the number of stored entries cannot be: the caller
gives a ``capacity`` (the length of ``indices``) and the entries past the
real count are padding. Input that the host constructors would refuse with
a :class:`~jaxmatch.GraphValidationError` cannot raise under ``jax.jit``;
it gives a *refused* graph instead: its pointer arrays are filled with
``-status`` (a :class:`GraphStatus`), a malformed CSR that every solver
reports as ``INVALID_GRAPH`` (and ``validate`` refuses), and whose
``status`` property reads the reason back.

Entries are ordered by two stable single-key sorts (by column, then by
row): on GPUs XLA runs each as one radix sort of ``(key, position)``
pairs, where a sort on two keys would compare them one by one.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax import lax

__all__ = ["DeviceCSR", "GraphStatus", "csr_of_device_pairs", "refused", "status_of"]


class GraphStatus(enum.IntEnum):
    """Whether a device constructor (``Graph.from_edges_device``,
    ``BipartiteGraph.from_edges_device``) built the graph, and why not
    (the graph's ``status``)."""

    VALID = 0  #: built (any graph not from a device constructor reads VALID too)
    INDEX_OUT_OF_RANGE = 1  #: an endpoint outside ``[0, n)``
    OVER_CAPACITY = 2  #: more distinct stored entries than ``capacity``
    INVALID_WEIGHTS = 3  #: a NaN or infinite weight, or an integer beyond int32


class DeviceCSR(NamedTuple):
    """A canonical CSR built on the device, padded to its capacity.

    Attributes:
      indptr: int32 ``[n_rows + 1]``.
      indices: int32 ``[capacity]``, zero past ``indptr[-1]``.
      data: ``[capacity]`` (zero past ``indptr[-1]``) or None.
      rows: int32 ``[capacity]``: each entry's row, ``n_rows`` past
        ``indptr[-1]`` (the entries in row-major order).
      over: bool scalar: the distinct entries did not fit ``capacity``.
    """

    indptr: jax.Array
    indices: jax.Array
    data: jax.Array | None
    rows: jax.Array
    over: jax.Array


def _stable_order(key: jax.Array) -> jax.Array:
    """int32 ``[k]``: the permutation that sorts ``key`` stably."""
    iota = lax.iota(jnp.int32, key.shape[0])
    return lax.sort((key, iota), num_keys=1, is_stable=True)[1]


def pointer_of_sorted(rows: jax.Array, n_rows: int) -> jax.Array:
    """int32 ``[n_rows + 1]``: the CSR pointer of non-decreasing ``rows``
    (entries of row ``n_rows`` are padding)."""
    bounds = jnp.arange(n_rows + 1, dtype=jnp.int32)
    return jnp.searchsorted(rows, bounds, side="left").astype(jnp.int32)


def csr_of_device_pairs(
    rows: jax.Array,
    cols: jax.Array,
    data: jax.Array | None,
    n_rows: int,
    n_cols: int,
    capacity: int,
) -> DeviceCSR:
    """The canonical CSR of entries in any order; repeated pairs merged
    (the largest value kept). Jittable; shapes static.

    Args:
      rows: int32 ``[k]``, in ``[0, n_rows]``; ``n_rows`` marks an entry to
        drop.
      cols: int32 ``[k]``, in ``[0, n_cols)`` where ``rows < n_rows``.
      data: ``[k]`` values, or None (a pattern).
      capacity: static, the number of entry slots of the result.

    Returns:
      A :class:`DeviceCSR`; ``over`` when more than ``capacity`` distinct
      entries (the first ``capacity`` of them are kept).
    """
    k = rows.shape[0]
    first = _stable_order(cols)
    second = _stable_order(rows[first])
    order = first[second]
    r, c = rows[order], cols[order]
    starts = jnp.ones(k, bool)
    if k > 1:
        starts = starts.at[1:].set((r[1:] != r[:-1]) | (c[1:] != c[:-1]))
    kept = r < n_rows
    slot = jnp.cumsum(starts, dtype=jnp.int32) - 1
    count = jnp.sum(starts & kept, dtype=jnp.int32)
    # Dropped entries sort last; their slots (and any past the capacity)
    # fall outside [0, capacity) and are dropped by the scatters.
    target = jnp.where(starts & kept, slot, capacity)
    out_rows = jnp.full(capacity, n_rows, jnp.int32).at[target].set(r, mode="drop")
    out_cols = jnp.zeros(capacity, jnp.int32).at[target].set(c, mode="drop")
    out_data = None
    if data is not None:
        ids = jnp.where(kept, slot, capacity)
        best = jax.ops.segment_max(data[order], ids, capacity, indices_are_sorted=True)
        out_data = jnp.where(jnp.arange(capacity) < count, best, jnp.zeros((), best.dtype))
    return DeviceCSR(
        pointer_of_sorted(out_rows, n_rows), out_cols, out_data, out_rows, count > capacity
    )


def transpose_of_device_csr(csr: DeviceCSR, n_rows: int, n_cols: int) -> tuple[Any, Any]:
    """``(indptr int32 [n_cols + 1], indices int32 [capacity])``: the
    transpose's pattern, rows sorted (one stable sort by column)."""
    used = csr.rows < n_rows
    key = jnp.where(used, csr.indices, n_cols)
    col, row = lax.sort((key, csr.rows), num_keys=1, is_stable=True)
    return pointer_of_sorted(col, n_cols), jnp.where(col < n_cols, row, 0)


def index_status(x: jax.Array, bound: int) -> jax.Array:
    """bool ``[k]``: the entries of integer ``x`` inside ``[0, bound)``,
    compared in ``x``'s own dtype (no wrap-around)."""
    if jnp.issubdtype(x.dtype, jnp.unsignedinteger):
        return x < bound if bound <= jnp.iinfo(x.dtype).max else jnp.ones(x.shape, bool)
    return (x >= 0) & (x < bound if bound <= jnp.iinfo(x.dtype).max else True)


def refused(pointer: jax.Array, status: jax.Array) -> jax.Array:
    """``pointer`` itself when ``status`` is VALID, else filled with
    ``-status`` (a malformed pointer: the solvers' ``INVALID_GRAPH``)."""
    return jnp.where(status == GraphStatus.VALID, pointer, -status.astype(jnp.int32))


def status_of(indptr: Any) -> jax.Array:
    """int32 ``[...]``: the :class:`GraphStatus` recorded in a pointer
    array by :func:`refused` (VALID for any other)."""
    head = -jnp.asarray(indptr)[..., 0]
    recorded = (head >= GraphStatus.INDEX_OUT_OF_RANGE) & (head <= GraphStatus.INVALID_WEIGHTS)
    return jnp.where(recorded, head, GraphStatus.VALID).astype(jnp.int32)


def check_edge_arrays(names: tuple[str, ...], arrays: tuple[Any, ...]) -> tuple[jax.Array, ...]:
    """The endpoint arrays as JAX arrays, checked at trace time: 1-D,
    integer, one length.

    Raises:
      TypeError: an array is not integer.
      ValueError: not one-dimensional, or of different lengths.
    """
    out = tuple(jnp.asarray(a) for a in arrays)
    for name, a in zip(names, out):
        if a.ndim != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {a.shape}")
        if not jnp.issubdtype(a.dtype, jnp.integer):
            raise TypeError(f"{name} must hold integers, got dtype {a.dtype}")
    if len({a.shape for a in out}) > 1:
        lengths = " vs ".join(str(a.shape[0]) for a in out)
        raise ValueError(f"{' and '.join(names)} differ in length ({lengths})")
    return out
