"""Approximate maximum weight b-matching on general graphs: b-Suitor.

A b-matching takes at most ``b[v]`` edges at each vertex ``v``. b-Suitor
(Khan, Pothen, Patwary, Halappanavar, Satish, Sundaram, Dubey, SIAM J. Sci.
Comput. 2016) returns the b-matching of the sequential b-greedy algorithm --
the heaviest remaining edge is taken when both its endpoints still have
room -- under the weighted family's total order on the edges (by weight,
ties by the larger endpoint, then the smaller one), a 1/2-approximation of
the maximum weight b-matching. So the result is identical on the CPU and the
GPU and from run to run, and ``b = 1`` gives
:func:`~jaxmatch.approximate_weighted_matching`'s matching. Edges of weight
``<= 0`` and self-loops are never matched.

Every vertex keeps the ``b[v]`` best proposals made to it in a small heap;
a proposal that dislodges the lightest one sends its proposer to propose
again (``cuda_ffi/weighted/b_suitor_steps.h``). The CPU runs sequential
b-Suitor; the GPU a tile of a warp per vertex and whole blocks for hubs.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _ffi, _limits
from .._batch import whole_problems
from . import _ffi as weighted_ffi
from .api import _check_graph, edge_keys, reported_status, stores_nan, total_weight
from .graph import Graph
from .tuning import WeightedMatchingTuning, tuning_of
from .types import BMatchingResult, WeightedMatchingStatus

_INT32_MAX = 2**31 - 1


def _check_b_limits(G: Graph) -> None:
    """The int32 limits of the b-matching workspace and, eagerly, the
    devices' memory for the state (:mod:`jaxmatch._limits`)."""
    what = f"a graph of shape {G.shape} and capacity {_limits.size_text(G.capacity)}"
    work = _ffi.b_matching_workspace_len(G.n, G.capacity)
    _limits.check_index("workspace", work, what)
    state = G.n + _ffi.constant("WEIGHTED_B_INFO_LEN") + work + 2 * G.capacity  # + mark, keys
    weight = _limits.device_itemsize(jnp.result_type(G.data))
    held = [_limits.Held(G.indptr, 4), _limits.Held(G.indices, 4), _limits.Held(G.data, weight)]
    _limits.check_memory(what, held, jnp.ndim(G.indptr) - 1, 4 * state)


def _capacities(b: Any, n: int, lead: tuple[int, ...]) -> jax.Array:
    """``b`` as int32 ``[..., n]`` (its own leading dimensions, or none),
    clipped to ``2**31 - 1``; negative entries stay negative (the kernels'
    ``INVALID_CAPACITY``).

    Raises:
      TypeError: ``b`` is a bool, a float or an array of a non-integer dtype.
      ValueError: a negative Python int or concrete entry; a shape that is
        neither ``()`` nor ``[..., n]`` broadcastable against ``lead``.
    """
    if isinstance(b, (bool, np.bool_)):
        raise TypeError(f"b must be an int or an integer array, got the bool {b!r}")
    if isinstance(b, (int, np.integer)):
        if b < 0:
            raise ValueError(f"b must be >= 0, got {b}")
        return jnp.full((n,), min(int(b), _INT32_MAX), jnp.int32)
    if isinstance(b, (float, complex, np.floating, np.complexfloating)):
        raise TypeError(f"b must be an int or an integer array, got the {type(b).__name__} {b!r}")
    if not hasattr(b, "dtype"):
        b = np.asarray(b)
    dtype = jnp.result_type(b)
    if dtype == jnp.bool_ or not jnp.issubdtype(dtype, jnp.integer):
        raise TypeError(f"b must be an int or an integer array, got an array of dtype {dtype}")
    shape = tuple(jnp.shape(b))
    if shape and shape[-1] != n:
        raise ValueError(f"b must have shape () or [..., n] with n = {n}, got {shape}")
    try:
        jnp.broadcast_shapes(lead, shape[:-1])
    except ValueError:
        raise ValueError(
            f"b's batch dimensions {shape[:-1]} do not broadcast against the graph's {lead}"
        ) from None
    if not isinstance(b, jax.core.Tracer) and np.any(np.asarray(b) < 0):
        raise ValueError("b must be >= 0 everywhere; got a negative entry")
    b = jnp.asarray(b)
    if dtype.itemsize > 4 or (jnp.issubdtype(dtype, jnp.unsignedinteger) and dtype.itemsize == 4):
        b = jnp.clip(b, -1, _INT32_MAX)
    b = b.astype(jnp.int32)
    return b if shape else jnp.broadcast_to(b, (n,))


def _result(
    data: jax.Array, state: weighted_ffi.BMatchingState, has_nan: jax.Array
) -> BMatchingResult:
    status = reported_status(
        weighted_ffi.b_info_field(state.info, "STATUS"), state.info, has_nan, "WEIGHTED_B_INFO_"
    )
    once = state.mark == 2
    w_once = jnp.where(once, data, jnp.zeros((), data.dtype))
    weight, status = total_weight(w_once, status)
    ok = status == WeightedMatchingStatus.DOMINANT
    return BMatchingResult(
        matched=(state.mark > 0) & ok[..., None],
        degree=jnp.where(ok[..., None], state.degree, 0),
        weight=jnp.where(ok, weight, jnp.zeros((), weight.dtype)),
        cardinality=jnp.sum(once & ok[..., None], axis=-1, dtype=jnp.int32),
        iterations=weighted_ffi.b_info_field(state.info, "N_ROUNDS"),
        status=status,
    )


def approximate_b_matching(
    G: Graph, b: int | Any, *, tuning: WeightedMatchingTuning | None = None
) -> BMatchingResult:
    """A 1/2-approximate maximum weight b-matching of an undirected graph:
    the b-matching of the sequential b-greedy algorithm (b-Suitor).

    Vertex ``v`` takes at most ``b[v]`` edges. Jittable; ``jax.vmap`` over
    graphs of the same ``n`` and capacity (see :meth:`Graph.pad_to`) and
    over ``b`` runs them as one batched kernel. ``G``'s arrays and ``b`` may
    be traced; ``tuning`` is static.

    Args:
      G: the graph. Graphs from the :class:`Graph` constructors are
        validated; a CSR built otherwise whose structure
        :meth:`Graph.validate` refuses (pointers, indices, unsorted lists,
        an edge stored from one end only or with two weights) is reported
        as ``status == INVALID_GRAPH`` and NaN weights as
        ``INVALID_WEIGHTS``.
      b: a Python int ``>= 0`` (every vertex) or an integer array ``[...,
        n]`` (per vertex; leading dimensions broadcast against ``G``'s).
        0 allowed (the vertex takes no edge); a ``b`` above a vertex's
        degree only means the degree bounds it.
      tuning: static :class:`WeightedMatchingTuning`; ``None``: the
        defaults (b-Suitor has no option of its own yet).

    Returns:
      A :class:`BMatchingResult`; ``status`` is ``DOMINANT``,
      ``INVALID_CAPACITY`` (a negative entry of a traced ``b``) or
      ``OVERFLOW`` (the int32 total weight does not fit int32).

    Raises:
      TypeError: ``G`` is not a :class:`Graph` or has arrays of the wrong
        dtypes; ``b`` is a bool, a float or a non-integer array; ``tuning``
        is not a :class:`WeightedMatchingTuning`.
      ValueError: a negative Python ``b`` or a negative entry of a concrete
        ``b``; ``b`` of the wrong shape; arrays of inconsistent shapes; at
        trace time, a graph whose capacity or workspace (about ``2 *
        capacity + 11 * n`` entries) reaches ``2**30``.
      MemoryError: called eagerly, the graph and the state of the batch
        members a device solves do not fit its memory.
    """
    G = _check_graph(G)
    tuning_of(tuning)
    _check_b_limits(G)
    lead = tuple(jnp.shape(G.indptr)[:-1])
    bs = _capacities(b, G.n, lead)
    lead = jnp.broadcast_shapes(lead, tuple(bs.shape[:-1]))
    # Each graph's arrays whole on the devices that solve it; the graph
    # broadcast to b's batch dimensions where b has more.
    indptr, indices, data = (
        whole_problems(jnp.broadcast_to(jnp.asarray(a), (*lead, a.shape[-1])), 1)
        for a in (G.indptr, G.indices, G.data)
    )
    bs = whole_problems(jnp.broadcast_to(bs, (*lead, G.n)), 1)
    key = edge_keys(data)
    state = weighted_ffi.b_matching_init(indptr, indices, key, bs)
    running_code = int(WeightedMatchingStatus.RUNNING)
    invalid = stores_nan(indptr, data)

    def running(state):
        status = weighted_ffi.b_info_field(state.info, "STATUS")
        return jnp.any((status == running_code) & ~invalid)

    def step(state):
        return weighted_ffi.b_matching_step(indptr, indices, key, state)

    state = lax.while_loop(running, step, state)
    return _result(data, state, invalid)
