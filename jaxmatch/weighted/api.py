"""Approximate maximum weight matching on general graphs: Suitor and the
locally dominant (LD) matching.

Both return the locally dominant matching under one total order on the
edges -- by weight, ties by the larger endpoint, then the smaller one -- which
is unique: it is the matching of the sequential greedy algorithm (heaviest
remaining edge first), a 1/2-approximation of the maximum weight matching.
So the result is identical on the CPU and the GPU and from run to run.
Edges of weight <= 0 are never matched (no maximum weight matching needs
them).

* ``"suitor"`` (Manne and Halappanavar; on GPUs Naim et al.): every vertex
  proposes to its heaviest neighbour whose standing offer it beats; a
  dislodged suitor proposes again. One pass (a tile of a warp per vertex
  on the GPU, one 64-bit atomicMax per proposal).
* ``"ld"``: rounds in which every free vertex points to its heaviest free
  neighbour and mutual pairs match (what cuGraph implements); the rounds run
  in a ``lax.while_loop``, ``WeightedMatchingTuning.ld_rounds_per_call`` per
  custom call.
* ``"auto"``: Suitor (fewer passes over the edges on both platforms).

Weights reach the kernels as uint32 keys in the weights' order: float32 and
int32 weights directly (their bits), float64 weights by their rank among the
graph's weights (a sort).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from .. import _ffi, _limits
from .._batch import whole_problems
from .._exact_sum import exact_integer_sum
from .._static import static_int, static_str
from . import _ffi as weighted_ffi
from .graph import Graph
from .tuning import WeightedMatchingTuning, tuning_of
from .types import WeightedMatchingResult, WeightedMatchingStatus

_METHODS = ("auto", "suitor", "ld")
_WEIGHT_DTYPES = (jnp.float32, jnp.float64, jnp.int32)


def _check_graph(G: Any) -> Graph:
    if not isinstance(G, Graph):
        raise TypeError(
            "expected a jaxmatch.Graph (build one with Graph.from_scipy / from_edges / "
            f"from_networkx), got {type(G).__name__}"
        )
    for name in ("indptr", "indices"):
        a = getattr(G, name)
        if jnp.result_type(a) != jnp.int32:
            raise TypeError(f"graph.{name} must be int32, got {jnp.result_type(a)}")
    if G.data is None:
        raise TypeError("graph.data must hold the weights, got None")
    wt = jnp.result_type(G.data)
    if wt not in _WEIGHT_DTYPES:
        raise TypeError(f"graph.data must be float32, float64 or int32, got {wt}")
    if jnp.shape(G.indptr)[-1] != G.n + 1:
        raise ValueError(
            f"graph.indptr has {jnp.shape(G.indptr)[-1]} entries; expected n + 1 = {G.n + 1}"
        )
    if jnp.shape(G.indices) != jnp.shape(G.data):
        raise ValueError("graph.indices and graph.data must have the same shape")
    if jnp.shape(G.indptr)[:-1] != jnp.shape(G.indices)[:-1]:
        raise ValueError("graph.indptr and graph.indices have different batch shapes")
    _check_limits(G)
    return G


def _check_limits(G: Graph) -> None:
    """The int32 limits of ``G``'s buffers and, eagerly, its devices' memory
    (:mod:`jaxmatch._limits`): the graph, its uint32 edge keys and the
    state (``mate``, ``mate_edge``, ``info``, the workspace)."""
    what = f"a graph of shape {G.shape}"
    _limits.check_csr(G.shape, G.capacity, what)
    work = _ffi.weighted_workspace_len(G.n)
    _limits.check_index("workspace", work, what)
    what += f" and capacity {_limits.size_text(G.capacity)}"
    state = 2 * G.n + _ffi.constant("WEIGHTED_INFO_LEN") + work
    weight = _limits.device_itemsize(jnp.result_type(G.data))
    held = [_limits.Held(G.indptr, 4), _limits.Held(G.indices, 4), _limits.Held(G.data, weight)]
    per_member = 4 * (state + G.capacity)  # the state and the keys
    _limits.check_memory(what, held, jnp.ndim(G.indptr) - 1, per_member)


def edge_keys(weights: jax.Array) -> jax.Array:
    """uint32 keys ``[..., capacity]`` in the order of the weights: 0 for
    weights <= 0 (and NaN), larger for heavier edges, equal for equal
    weights.

    float32 and int32 weights give their bits; 64-bit weights their rank
    among the positive weights of the graph (a sort over the last axis).
    Floats are compared by their bits, which order positive floats as their
    values do: a subnormal weight is positive, although XLA flushes it to
    zero in floating-point comparisons.
    """
    w = jnp.asarray(weights)
    if jnp.issubdtype(w.dtype, jnp.floating):
        bits = lax.bitcast_convert_type(w, jnp.dtype(f"int{8 * w.dtype.itemsize}"))
        positive = (bits > 0) & ~jnp.isnan(w)  # sign bit clear, not +0
        w = bits  # the order of the positive weights
    else:
        positive = w > 0
    if w.dtype == jnp.int32:
        return jnp.where(positive, w, 0).astype(jnp.uint32)
    # 64-bit weights: 1 + the number of entries below w once the others are
    # zeroed (every zero is below a positive w, so keys start at 1).
    zeroed = jnp.where(positive, w, jnp.zeros((), w.dtype))
    search = jnp.searchsorted
    for _ in range(w.ndim - 1):
        search = jax.vmap(search)
    rank = search(jnp.sort(zeroed, axis=-1), zeroed)
    return jnp.where(positive, rank + 1, 0).astype(jnp.uint32)


def stores_nan(indptr: jax.Array, data: jax.Array) -> jax.Array:
    """bool ``[...]``: a stored entry (not padding) of the graph ``(indptr,
    data)`` is NaN (its result is ``INVALID_WEIGHTS``, whatever the kernels
    do with it)."""
    if not jnp.issubdtype(jnp.result_type(data), jnp.floating):
        return jnp.zeros(jnp.shape(indptr)[:-1], bool)
    used = jnp.arange(jnp.shape(data)[-1], dtype=jnp.int32) < indptr[..., -1:]
    return jnp.any(jnp.isnan(data) & used, axis=-1)


def total_weight(w_once: jax.Array, status: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The sum of the matched weights ``w_once [..., k]`` (0 where not
    matched) and the status: exact for integers, ``OVERFLOW`` where a
    ``DOMINANT`` total does not fit the dtype."""
    if not jnp.issubdtype(w_once.dtype, jnp.integer):
        return jnp.sum(w_once, axis=-1, dtype=w_once.dtype), status
    weight, fits = exact_integer_sum(w_once)
    overflow = (status == WeightedMatchingStatus.DOMINANT) & ~fits
    return weight, jnp.where(overflow, jnp.int32(WeightedMatchingStatus.OVERFLOW), status)


def reported_status(
    status: jax.Array, info: jax.Array, has_nan: jax.Array, prefix: str
) -> jax.Array:
    """The kernels' status with NaN weights reported in Graph.validate()'s
    order: a bad structure (pointers, entries) first, then NaN weights
    (``INVALID_WEIGHTS``), then two ends that differ. ``prefix``: the info
    slots' (``"WEIGHTED_INFO_"`` or ``"WEIGHTED_B_INFO_"``)."""
    differ = weighted_ffi.ends_differ(info, prefix)
    structure = (status == WeightedMatchingStatus.INVALID_GRAPH) & ~differ
    return jnp.where(
        has_nan & ~structure, jnp.int32(WeightedMatchingStatus.INVALID_WEIGHTS), status
    )


def _result(
    G: Graph, state: weighted_ffi.WeightedState, has_nan: jax.Array
) -> WeightedMatchingResult:
    status = reported_status(
        weighted_ffi.info_field(state.info, "STATUS"), state.info, has_nan, "WEIGHTED_INFO_"
    )
    n = G.n
    once = (state.mate > jnp.arange(n, dtype=jnp.int32)) & (state.mate_edge >= 0)
    w_edge = jnp.take_along_axis(G.data, jnp.maximum(state.mate_edge, 0), axis=-1)
    w_once = jnp.where(once, w_edge, jnp.zeros((), w_edge.dtype))
    weight, status = total_weight(w_once, status)
    ok = status == WeightedMatchingStatus.DOMINANT
    mate = jnp.where(ok[..., None], state.mate, -1)
    mate_edge = jnp.where(ok[..., None], state.mate_edge, -1)
    once = once & ok[..., None]
    weight = jnp.where(ok, weight, jnp.zeros((), weight.dtype))
    return WeightedMatchingResult(
        mate=mate,
        mate_edge=mate_edge,
        weight=weight,
        cardinality=jnp.sum(once, axis=-1, dtype=jnp.int32),
        iterations=weighted_ffi.info_field(state.info, "N_ROUNDS"),
        status=status,
    )


def approximate_weighted_matching(
    G: Graph,
    *,
    method: str = "auto",
    rounds_per_call: int | None = None,
    tuning: WeightedMatchingTuning | None = None,
) -> WeightedMatchingResult:
    """A 1/2-approximate maximum weight matching of an undirected graph: the
    locally dominant matching, equal to the sequential greedy's.

    Jittable; ``jax.vmap`` over graphs of the same ``n`` and capacity (see
    :meth:`Graph.pad_to`) runs them as one batched kernel. ``G``'s arrays
    may be traced; ``method``, ``rounds_per_call`` and ``tuning`` are static
    (a traced value raises a ``TypeError`` naming the ``static_argnames``
    recipe).

    Args:
      G: the graph. Graphs from the :class:`Graph` constructors are
        validated; a CSR built otherwise whose structure
        :meth:`Graph.validate` refuses (pointers, indices, unsorted lists,
        an edge stored from one end only or with two weights) is reported
        as ``status == INVALID_GRAPH`` and NaN weights as
        ``INVALID_WEIGHTS``
        (``mate`` all -1 in both cases). Subnormal float weights count as
        positive (matched by their bits, not flushed to zero).
      method: static. ``"suitor"``, ``"ld"`` or ``"auto"`` (Suitor).
      rounds_per_call: static int. LD rounds per custom call (default
        ``tuning.ld_rounds_per_call``; rounded up to an even number).
        Ignored by Suitor.
      tuning: static :class:`WeightedMatchingTuning`; ``None``: the
        defaults.

    Returns:
      A :class:`WeightedMatchingResult`; ``status`` is ``DOMINANT``, or
      ``OVERFLOW`` (``mate`` all -1, ``weight`` 0) when the int32 total of
      the matching does not fit int32: it is summed exactly, never wrapped.

    Raises:
      TypeError: ``G`` is not a :class:`Graph` or has arrays of the wrong
        dtypes; an option (or ``tuning``) of the wrong type or traced.
      ValueError: an unknown method, ``rounds_per_call < 1``, or arrays of
        inconsistent shapes; at trace time, a graph whose capacity,
        ``n + 1`` or workspace (about ``5 * n`` entries) reaches ``2**30``
        (the kernels' int32 indices, ``jaxmatch/_limits.py``).
      MemoryError: called eagerly, the graph, its edge keys, the state and
        the workspaces of the batch members a device solves do not fit its
        memory (before any kernel runs).
    """
    G = _check_graph(G)
    # Each graph's arrays whole on the devices that solve it (the result
    # gathers weights along its edges).
    G = jax.tree.map(lambda a: whole_problems(jnp.asarray(a), 1), G)
    tuning = tuning_of(tuning)
    static_str(method, "method")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    if rounds_per_call is None:
        rounds_per_call = tuning.ld_rounds_per_call
    rounds = static_int(rounds_per_call, "rounds_per_call")
    if rounds < 1:
        raise ValueError("rounds_per_call must be >= 1")
    rounds = min(rounds + (rounds & 1), 1 << 20)
    code = weighted_ffi.method_code("suitor" if method == "auto" else method)

    key = edge_keys(G.data)
    state = weighted_ffi.weighted_init(G.indptr, G.indices, key)
    running_code = int(WeightedMatchingStatus.RUNNING)

    # A NaN weight can keep the LD rounds from settling: those graphs do not
    # hold the loop open (their result is INVALID_WEIGHTS).
    invalid = stores_nan(G.indptr, G.data)

    def running(state):
        status = weighted_ffi.info_field(state.info, "STATUS")
        return jnp.any((status == running_code) & ~invalid)

    def step(state):
        return weighted_ffi.weighted_step(
            G.indptr, G.indices, key, state, method=code, rounds=rounds
        )

    state = lax.while_loop(running, step, state)
    return _result(G, state, invalid)
