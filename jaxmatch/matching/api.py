"""Maximum-cardinality bipartite matching by parallel BFS augmenting paths
or by push-relabel.

The GPU algorithms of Deveci, Kaya, Ucar and Catalyurek ("GPU accelerated
maximum cardinality matching algorithms for bipartite graphs", Euro-Par
2013): a BFS from every free column at once, one level per kernel, finds
augmenting paths; ``Alternate`` flips many of them in parallel and
``FixMatching`` repairs the conflicts the races leave.

* drivers: ``"apfb"`` runs each phase's BFS to its end, ``"apsb"`` stops it
  at the first level that reaches a free row (shortest paths), ``"hybrid"``
  (ours) at ``hybrid_depth_factor`` (a :class:`MatchingTuning` field)
  times that level's depth; ``"auto"`` (the default) runs as APFB when the
  initial matching leaves more than one column in ``auto_free_divisor``
  free with an edge, else as the hybrid;
* push-relabel: ``"pr"`` is G-PR (Deveci, Kaya, Ucar, Catalyurek, ICPP
  2013): lock- and atomic-free pushes from the active (free) columns along
  labels that bound the distance to a free row, global relabels (a BFS from
  the free rows, one level per step) after ``ceil(0.7 * maxLevel)`` push
  iterations, and FixMatching at the end; ``bfs`` does not apply to it;
* level kernels: ``"wr"`` (GPUBFS-WR) tracks each tree's root and stops
  growing trees whose root already found a path; ``"plain"`` (GPUBFS) does
  not;
* initial matching: the papers' cheap (greedy) matching, a parallel
  Karp-Sipser matching (``"karp-sipser"``), none, or a warm start.

Two execution shapes, as for the LAP solver:

* ``"stepped"`` -- ``lax.while_loop`` over a step call that runs the levels
  with small and mid-size frontiers on a thread-block cluster per graph (up
  to 1024 of them, on the GPU; one block on GPUs without clusters), then up
  to ``levels_per_call`` BFS level kernels and then, once the phase's BFS
  has ended, Alternate and FixMatching; for large graphs on the GPU;
* ``"fused"`` -- one call per solve (a thread block per graph on the GPU,
  the whole loop in C++ on the CPU); for the CPU and for batches of small
  graphs.

``"auto"`` picks per platform when the computation is lowered: fused on the
CPU; on the GPU fused up to ``MatchingTuning.fused_max_vertices`` vertices
per side and stepped above.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import lax

from .. import _ffi, _limits
from .._static import static_int, static_str
from . import _ffi as matching_ffi
from .graph import BipartiteGraph
from .tuning import MatchingTuning, tuning_of
from .types import MatchingResult, MatchingStatus

_METHODS = ("auto", "apfb", "apsb", "hybrid", "pr")
_EXECUTIONS = ("auto", "fused", "stepped")
_MAPPINGS = ("auto", "ct", "mt")
_BFS_KERNELS = ("wr", "plain")


def pr_max_iterations(n_rows: int, n_cols: int) -> int:
    """The default bound on the push iterations of ``method="pr"``.

    A generous safety net, not a theoretical bound of the parallel schedule:
    ``4 * (n_rows + n_cols + 2) ** 2`` iterations (at most ``2**31 - 1``).
    Sequential push-relabel makes ``O((n_rows + n_cols) * nnz)`` pushes,
    and an iteration pushes or retires at least one column; the bound only
    guarantees that a bug cannot hang a solve.
    """
    return min(4 * (n_rows + n_cols + 2) ** 2, 2**31 - 1)


def _check_graph(G: Any) -> BipartiteGraph:
    if not isinstance(G, BipartiteGraph):
        raise TypeError(
            "expected a jaxmatch.BipartiteGraph (build one with "
            f"BipartiteGraph.from_scipy / from_edges / from_dense), got {type(G).__name__}"
        )
    for name in ("col_indptr", "col_indices", "indptr", "indices"):
        a = getattr(G, name)
        if jnp.result_type(a) != jnp.int32:
            raise TypeError(f"graph.{name} must be int32, got {jnp.result_type(a)}")
    for name, n, what in (("col_indptr", G.n_cols, "n_cols"), ("indptr", G.n_rows, "n_rows")):
        if jnp.shape(getattr(G, name))[-1] != n + 1:
            raise ValueError(
                f"graph.{name} has {jnp.shape(getattr(G, name))[-1]} entries; "
                f"expected {what} + 1 = {n + 1}"
            )
    batch = jnp.shape(G.col_indptr)[:-1]
    if any(jnp.shape(getattr(G, k))[:-1] != batch for k in ("col_indices", "indptr", "indices")):
        raise ValueError(
            "graph.col_indptr, col_indices, indptr and indices have different batch shapes"
        )
    _check_limits(G)
    return G


def _check_limits(G: BipartiteGraph) -> None:
    """The int32 limits of ``G``'s buffers and, eagerly, its devices' memory
    (:mod:`jaxmatch._limits`): the graph, the state (``col_for_row``,
    ``row_for_col``, ``info``, the workspace) and the warm start's arrays."""
    what = f"a bipartite graph of shape {G.shape}"
    capacities = (G.capacity, jnp.shape(G.col_indices)[-1])
    for capacity in capacities:
        _limits.check_csr(G.shape, capacity, what)
    work = _ffi.matching_workspace_len(G.n_rows, G.n_cols)
    _limits.check_index("workspace", work, what)
    what += " and capacity " + " / ".join(map(_limits.size_text, capacities))
    state = 2 * (G.n_rows + G.n_cols) + _ffi.constant("MATCHING_INFO_LEN") + work
    arrays = (G.col_indptr, G.col_indices, G.indptr, G.indices)
    held = [_limits.Held(a, 4) for a in arrays]
    _limits.check_memory(what, held, jnp.ndim(G.col_indptr) - 1, 4 * state)


def _choice(value: Any, allowed: tuple[str, ...], what: str) -> str:
    static_str(value, what)
    if value not in allowed:
        raise ValueError(f"{what} must be one of {allowed}, got {value!r}")
    return value


#: The string values of ``init`` and the library's name of each.
_INIT_NAMES = {"cheap": "cheap", "greedy": "greedy", "karp-sipser": "karp_sipser"}
_INIT_HELP = "init must be 'cheap', 'greedy', 'karp-sipser', None or (col_for_row, row_for_col)"


def _warm_start(init: Any, G: BipartiteGraph, batch: tuple[int, ...]):
    """``(mode, rm0, cm0)`` from the ``init`` argument (mode: the library's
    name, "none", "cheap", "greedy", "karp_sipser" or "given")."""
    # Derived from the graph's pointers, so that they lie (and are sharded)
    # where the graph does: an eager call on an Explicit mesh mixes no
    # single-device array into the sharded call.
    empty_r = jnp.full_like(G.indptr[..., :-1], -1, dtype=jnp.int32)
    empty_c = jnp.full_like(G.col_indptr[..., :-1], -1, dtype=jnp.int32)
    if init is None:
        return "none", empty_r, empty_c
    if isinstance(init, jax.core.Tracer):
        raise TypeError(f"{_INIT_HELP} pair of arrays; got a single traced value")
    if isinstance(init, str):
        if init not in _INIT_NAMES:
            raise ValueError(f"{_INIT_HELP}, got {init!r}")
        return _INIT_NAMES[init], empty_r, empty_c
    if isinstance(init, MatchingResult):
        rm, cm = init.col_for_row, init.row_for_col
    elif isinstance(init, (tuple, list)) and len(init) == 2:
        rm, cm = init
    else:
        raise TypeError(f"{_INIT_HELP.replace(' or (', ', a MatchingResult or (')}")
    rm, cm = jnp.asarray(rm), jnp.asarray(cm)
    for name, a, n in (("col_for_row", rm, G.n_rows), ("row_for_col", cm, G.n_cols)):
        if not jnp.issubdtype(a.dtype, jnp.integer):
            raise TypeError(f"warm start {name} must be integer, got {a.dtype}")
        if a.ndim < 1 or a.shape[-1] != n:
            raise ValueError(f"warm start {name} must have shape [..., {n}], got {a.shape}")
    rm = jnp.broadcast_to(rm.astype(jnp.int32), (*batch, G.n_rows))
    cm = jnp.broadcast_to(cm.astype(jnp.int32), (*batch, G.n_cols))
    return "given", rm, cm


def _result(state: matching_ffi.MatchingState) -> MatchingResult:
    status = matching_ffi.info_field(state.info, "STATUS")
    valid = status != MatchingStatus.INVALID_GRAPH
    rm = jnp.where(valid[..., None], state.col_for_row, -1)
    cm = jnp.where(valid[..., None], state.row_for_col, -1)
    return MatchingResult(
        col_for_row=rm,
        row_for_col=cm,
        cardinality=jnp.sum(cm >= 0, axis=-1, dtype=jnp.int32),
        iterations=matching_ffi.info_field(state.info, "N_PHASES"),
        levels=matching_ffi.info_field(state.info, "N_LEVELS"),
        status=status,
    )


def _operands(G: BipartiteGraph) -> matching_ffi.GraphOperands:
    """The graph's four arrays in the order the kernels take them."""
    return matching_ffi.GraphOperands(G.col_indptr, G.col_indices, G.indptr, G.indices)


def _stepped(G, init, rm0, cm0, *, levels, mapping, restart_levels, **options):
    state = matching_ffi.matching_init(_operands(G), rm0, cm0, init=init)
    running_code = int(MatchingStatus.RUNNING)

    def running(state):
        return jnp.any(matching_ffi.info_field(state.info, "STATUS") == running_code)

    def step(state):
        return matching_ffi.matching_step(
            _operands(G),
            state,
            levels=levels,
            mapping=mapping,
            restart_levels=restart_levels,
            **options,
        )

    return lax.while_loop(running, step, state)


def _fused(G, init, rm0, cm0, **options):
    return matching_ffi.matching_solve(_operands(G), rm0, cm0, init=init, **options)


def max_cardinality_matching(
    G: BipartiteGraph,
    *,
    method: str = "auto",
    bfs: str = "wr",
    init: Any = "cheap",
    mapping: str = "auto",
    execution: str = "auto",
    levels_per_call: int | None = None,
    max_iterations: int | None = None,
    tuning: MatchingTuning | None = None,
) -> MatchingResult:
    """A maximum-cardinality matching of a bipartite graph.

    Jittable; ``jax.vmap`` over graphs of the same padded shapes (see
    :meth:`BipartiteGraph.pad_to`) runs them as one batched kernel.

    Only ``G`` (its index arrays; ``shape`` is static pytree metadata) and
    the arrays of a warm-start ``init`` may be traced. The options
    ``method``, ``bfs``, ``init`` as a string or ``None``, ``mapping``,
    ``execution``, ``levels_per_call``, ``max_iterations`` and ``tuning`` are
    static: under ``jax.jit`` close over them, or mark them with
    ``jax.jit(f, static_argnames=("method", ...))`` or
    ``functools.partial(f, method=...)``; a traced value raises a
    ``TypeError`` naming the option.

    Args:
      G: the graph (its column CSR ``col_indptr``/``col_indices`` is what
        the kernels read). Graphs from the ``BipartiteGraph`` constructors are validated;
        a malformed CSR passed in some other way is detected by the kernels
        and reported as ``status == MatchingStatus.INVALID_GRAPH``.
      method: static. ``"apfb"`` (full BFS per phase, the papers' best), ``"apsb"``
        (BFS stops at the first level that finds a path), ``"hybrid"`` (BFS
        stops at ``tuning.hybrid_depth_factor`` times the depth of that
        level) or ``"auto"`` (APFB when more than one column in
        ``tuning.auto_free_divisor`` is free after ``init`` and has an edge,
        else hybrid; each
        graph of a batch chooses for itself), or ``"pr"`` (push-relabel,
        G-PR; ``auto`` never picks it).
      bfs: static. ``"wr"`` (GPUBFS-WR, root tracking) or ``"plain"`` (GPUBFS).
      init: ``"cheap"`` (greedy initial matching, see
        :func:`cheap_matching`), ``"greedy"`` (the sequential greedy matching
        on every back end, see :func:`greedy_matching`; it also reads the
        graph's row CSR), ``"karp-sipser"`` (a parallel Karp-Sipser
        matching, see :func:`karp_sipser_matching`; it also reads the row
        CSR) or ``None`` (start empty), all static; or a warm start
        ``(col_for_row, row_for_col)`` /
        :class:`MatchingResult` (int ``[..., n_rows]`` / ``[..., n_cols]``,
        -1 unmatched; these arrays may be traced); pairs that are not edges
        or whose two sides do not name each other are dropped.
      mapping: static. CUDA thread mapping of the stepped kernels: ``"ct"`` (a
        constant 256 x 256 grid, threads stride over vertices), ``"mt"``
        (about a thread per vertex) or ``"auto"`` (ct). Ignored on the CPU.
      execution: static. ``"fused"``, ``"stepped"`` or ``"auto"`` (module
        docstring).
      levels_per_call: static int. BFS levels per stepped call (for
        ``"pr"``: push iterations plus global-relabel levels; default
        ``tuning.levels_per_call_of(method)``; at most
        ``tuning.max_levels_per_call``).
      max_iterations: static int. Safety bound on ``iterations``: the
        augmentation phases (default ``min(n_rows, n_cols) + 1``, which the
        theory never reaches: each phase adds a pair); for ``"pr"`` the push
        iterations (default :func:`jaxmatch.matching.api.pr_max_iterations`).
        A solve stopped there reports ``MatchingStatus.ITERATION_LIMIT``
        with a valid (fixed) matching.
      tuning: static :class:`MatchingTuning`; ``None``: the defaults.

    Returns:
      A :class:`MatchingResult`; ``status`` is ``MatchingStatus.MAXIMUM``.

    Raises:
      TypeError: ``G`` is not a :class:`BipartiteGraph`; an option (or
        ``tuning``) is not of its type, or is traced (the message names the ``static_argnames``
        recipe); a malformed warm start.
      ValueError: an unknown option value, ``levels_per_call < 1``, or warm
        start arrays of the wrong shape; at trace time, a graph whose
        capacity, ``max(shape) + 1`` or workspace (``4 * n_cols + n_rows``
        entries) reaches ``2**30`` (the kernels' int32 indices,
        ``jaxmatch/_limits.py``).
      MemoryError: called eagerly, the graph, the state and the workspaces
        of the batch members a device solves do not fit its memory (before
        any kernel runs).
    """
    G = _check_graph(G)
    tuning = tuning_of(tuning)
    method = _choice(method, _METHODS, "method")
    bfs = _choice(bfs, _BFS_KERNELS, "bfs")
    mapping = _choice(mapping, _MAPPINGS, "mapping")
    execution = _choice(execution, _EXECUTIONS, "execution")
    if levels_per_call is None:
        levels_per_call = tuning.levels_per_call_of(method)
    levels_per_call = static_int(levels_per_call, "levels_per_call")
    if levels_per_call < 1:
        raise ValueError("levels_per_call must be >= 1")
    # The GPU launches this many level kernels per call: keep it bounded.
    levels_per_call = min(levels_per_call, tuning.max_levels_per_call)
    if max_iterations is None:
        if method == "pr":
            max_iterations = pr_max_iterations(G.n_rows, G.n_cols)
        else:
            max_iterations = min(G.n_rows, G.n_cols) + 1
    max_iterations = max(1, min(static_int(max_iterations, "max_iterations"), 2**31 - 1))

    batch = tuple(jnp.shape(G.col_indptr)[:-1])
    mode, rm0, cm0 = _warm_start(init, G, batch)
    init_code = matching_ffi.code("INIT", mode)
    opts = dict(
        driver=matching_ffi.code("DRIVER", method),
        bfs=matching_ffi.code("BFS", bfs),
        max_phases=max_iterations,
        hybrid_depth=tuning.hybrid_depth_factor,
        auto_free_divisor=tuning.auto_free_divisor,
        keep_trees_divisor=tuning.keep_trees_divisor,
    )
    mapping_code = matching_ffi.code("MAPPING", "ct" if mapping == "auto" else mapping)

    restart = tuning.greedy_restart_levels if mode == "cheap" and method != "pr" else 0

    def stepped(G, rm0, cm0):
        return _stepped(
            G,
            init_code,
            rm0,
            cm0,
            levels=int(levels_per_call),
            mapping=mapping_code,
            restart_levels=restart,
            **opts,
        )

    def fused(G, rm0, cm0):
        return _fused(G, init_code, rm0, cm0, **opts)

    if execution == "fused":
        state = fused(G, rm0, cm0)
    elif execution == "stepped":
        state = stepped(G, rm0, cm0)
    else:
        big = max(G.n_rows, G.n_cols) > tuning.fused_max_vertices
        state = lax.platform_dependent(G, rm0, cm0, cpu=fused, cuda=stepped if big else fused)
    return _result(state)


def _initial_matching(G: BipartiteGraph, init: str) -> MatchingResult:
    """The initial matching ``init`` (a string value of ``init``) alone."""
    G = _check_graph(G)
    batch = tuple(jnp.shape(G.col_indptr)[:-1])
    mode, rm0, cm0 = _warm_start(init, G, batch)
    state = matching_ffi.matching_init(_operands(G), rm0, cm0, init=matching_ffi.code("INIT", mode))
    res = _result(state)
    initial = res.status == MatchingStatus.RUNNING
    return res._replace(status=jnp.where(initial, MatchingStatus.INITIAL, res.status))


def cheap_matching(G: BipartiteGraph) -> MatchingResult:
    """The papers' cheap matching: each column, in turn, takes its first free
    neighbouring row (on the GPU the columns race for rows with
    compare-and-swap, so the result may differ from the sequential greedy;
    on a graph numbered along its geometry they race in a scattered order,
    each from a position drawn from its index: ``docs/matching.md``).

    Jittable and vmappable like :func:`max_cardinality_matching`; ``status``
    is ``MatchingStatus.INITIAL`` (``INVALID_GRAPH`` for a malformed CSR).
    """
    return _initial_matching(G, "cheap")


def greedy_matching(G: BipartiteGraph) -> MatchingResult:
    """The sequential greedy matching (each column, in index order, takes
    its first free neighbouring row) on every back end: the matching that
    ``init="greedy"`` starts from.

    The GPU computes it in parallel rounds (``docs/matching.md``): a column's
    choice is final once no undecided column of lower index neighbours its
    row. On graphs numbered along their geometry (meshes, spatially ordered
    points) it leaves free columns next to free rows, where the GPU's
    :func:`cheap_matching` leaves long augmenting paths. The rounds follow
    chains of dependent choices (a band matrix has a chain of ``n``): after
    4,096 rounds, once they decide fewer than 4 columns a round on average,
    the columns still undecided take their first free row as in
    :func:`cheap_matching`, so the result is always a valid maximal
    matching, and the sequential greedy's when the rounds finish. It reads
    both CSRs of ``G`` (a row CSR that is not the transpose of the column
    CSR still gives a valid matching; a malformed one gives
    ``INVALID_GRAPH``).

    Jittable and vmappable like :func:`max_cardinality_matching`.

    Args:
      G: the graph, int32 ``col_indptr [..., n_cols + 1]``,
        ``col_indices [..., cap]``, ``indptr [..., n_rows + 1]``,
        ``indices [..., cap]``.

    Returns:
      A :class:`MatchingResult` (``col_for_row`` int32 ``[..., n_rows]``,
      ``row_for_col`` int32 ``[..., n_cols]``, ``iterations == levels == 0``)
      with ``status`` ``MatchingStatus.INITIAL``.
    """
    return _initial_matching(G, "greedy")


def karp_sipser_matching(G: BipartiteGraph) -> MatchingResult:
    """The parallel Karp-Sipser matching that ``init="karp-sipser"`` starts
    from (``docs/matching.md``).

    Rounds match every free vertex that has one free neighbour left (rows and
    columns; degrees count free neighbours only) to that neighbour; when none
    is left, a slice of the free columns takes their free rows of least
    degree, and the rounds go on; finally every free column takes its first
    free row. The result is a valid, maximal matching on every back end and
    interleaving; on a forest it is maximum (on the CPU and in the fused GPU
    kernel always; the stepped GPU initialisation runs a bounded number of
    rounds). It reads both CSRs of ``G``; a graph whose row CSR is malformed
    gives ``INVALID_GRAPH``.

    Args:
      G: the graph, int32 ``col_indptr [..., n_cols + 1]``,
        ``col_indices [..., cap]``, ``indptr [..., n_rows + 1]``,
        ``indices [..., cap]``.

    Returns:
      A :class:`MatchingResult` (``col_for_row`` int32 ``[..., n_rows]``,
      ``row_for_col`` int32 ``[..., n_cols]``, ``iterations == levels == 0``)
      with ``status`` ``MatchingStatus.INITIAL``.
    """
    return _initial_matching(G, "karp-sipser")
