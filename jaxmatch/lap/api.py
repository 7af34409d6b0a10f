"""The front door of the LAP family: :func:`solve_lap` and :func:`hungarian`.

Each call checks its options, asks the planner (:mod:`._plan`) how to
solve, and hands the costs to the room that does: a dense solve on the
device holding them (:mod:`._dense`: the Hungarian variants of
:mod:`.hungarian`, JV of :mod:`.jv`, the forest of :mod:`.split`), the
split forest over devices (:mod:`.split`), or the sparse solve
(:mod:`.sparse`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np

from .. import _ffi, _limits
from .._interrupt import wait_ready
from .._static import static_int, static_str
from . import _dense, _plan, unassigned
from . import _ffi as lap_ffi
from ._costs import canonical_costs, maximize_flag
from ._plan import LAPTuning
from .jv import tied_rows
from .sparse import SparseCosts, solve_sparse_costs
from .split import row_split_axis, solve_lap_split
from .types import LAPResult
from .unassigned import unassigned_prices

Method = Literal["auto", "tree", "classical", "jv"]
_METHODS = ("auto", "tree", "classical", "jv")
Execution = Literal["auto", "fused", "stepped"]


def _check_method(method: str, execution: str) -> str:
    static_str(method, "method")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    if method == "jv" and execution == "stepped":
        raise ValueError(
            "method 'jv' runs as one fused call (on the CPU); use execution 'auto' or "
            "'fused', or a GPU variant ('tree', 'classical') for 'stepped'"
        )
    return method


def _check_execution(execution: str) -> str:
    static_str(execution, "execution")
    if execution not in ("auto", "fused", "stepped"):
        raise ValueError(f"execution must be one of 'auto', 'fused', 'stepped'; got {execution!r}")
    return execution


def _check_tuning(tuning: Any) -> LAPTuning:
    if tuning is None:
        return _plan.DEFAULT_TUNING
    if not isinstance(tuning, LAPTuning):
        raise TypeError(f"tuning must be a jaxmatch.LAPTuning, got {type(tuning).__name__}")
    return tuning


def _eager_autotune_off(C: Any, tuning: LAPTuning) -> bool:
    """:func:`_plan.autotune_off` for concrete costs ``C``: their shards'
    bytes where ``C`` is a ``jax.Array``, else the whole on the default
    device."""
    itemsize = np.dtype(C.dtype).itemsize
    sharding = getattr(C, "sharding", None)
    if isinstance(sharding, jax.sharding.Sharding):
        block = math.prod(sharding.shard_shape(C.shape)) * itemsize
        return _plan.autotune_off(block, list(sharding.device_set), tuning)
    return _plan.autotune_off(math.prod(C.shape) * itemsize, [_limits.default_device()], tuning)


def _member_bytes(n: int, m: int, itemsize: int, method: str) -> int:
    """The bytes of one ``[n, m]`` problem's kernel outputs and workspaces
    (the kernels' state) with costs of ``itemsize`` bytes; for ``"auto"``
    the least over the variants the plan may pick (the tree variant, JV)."""
    n, m = min(n, m), max(n, m)
    if n == 0:  # no kernel runs
        return 0
    chosen = ("tree", "jv") if method == "auto" else (method,)
    work = min(
        w * 4 + t * itemsize
        for w, t in (_ffi.lap_workspace_lens(n, m, lap_ffi.variant_code(v)) for v in chosen)
    )
    return (n + m) * (4 + itemsize) + _ffi.constant("LAP_INFO_LEN") * 4 + work


def _check_dense_memory(C: Any, method: str, device: Any = None) -> None:
    """Refuses an eager dense solve of ``C`` (``[..., n, m]``, not yet in
    the kernel dtype) that does not fit the devices where it lies, or
    ``device`` where it is gathered (:mod:`jaxmatch._limits`)."""
    size = _limits.device_itemsize(C.dtype, at_least=4)  # kernel dtypes: >= 32 bits
    *batch, n, m = np.shape(C)
    per_member = _member_bytes(n, m, size, method)
    what = f"a dense LAP of shape {np.shape(C)}"
    if device is None:
        _limits.check_memory(what, [_limits.Held(C, size)], len(batch), per_member)
    else:
        members = math.prod(batch)
        need = math.prod(np.shape(C)) * size + members * per_member
        _limits.check_memory_on(what, [device], need, members)


def _tied_rows(C: jax.Array) -> Callable[[], float]:
    """The fraction of the smaller side's rows whose two least costs tie,
    computed where ``C`` lies when called (the planner's sharded rules)."""

    def compute() -> float:
        if min(C.shape) == 0:
            return 0.0
        return float(_tied_rows_of(C if C.shape[-2] <= C.shape[-1] else C.T))

    return compute


_tied_rows_of = jax.jit(tied_rows)


def _solve_sparse(
    S: SparseCosts, maximize, method, execution, max_iterations, init, tuning, unassigned_cost
):
    _check_tuning(tuning)  # the sparse solve has no tuning values yet
    if execution != "auto" or max_iterations is not None or init is not None:
        raise ValueError(
            "a SparseCosts solve takes no execution, max_iterations or init; "
            "pass them for dense costs only"
        )
    capacity = np.shape(S.indices)[-1] if np.ndim(S.indices) else 0
    _limits.check_csr(S.shape, capacity, f"SparseCosts of shape {S.shape}")
    _check_sparse_memory(S)
    return solve_sparse_costs(S, maximize=maximize, method=method, unassigned_cost=unassigned_cost)


def _check_sparse_memory(S: SparseCosts) -> None:
    """Refuses an eager sparse solve that does not fit its devices
    (:mod:`jaxmatch._limits`): the CSR's arrays (int32 indices, costs of at
    least 32 bits), the kernel's outputs and its workspaces (sized for the
    tree variant, whatever runs)."""
    arrays = (S.indptr, S.indices, S.data)
    if not all(hasattr(a, "dtype") for a in arrays) or np.ndim(S.indptr) < 1:
        return  # solve_sparse_costs converts and checks them
    cost = _limits.device_itemsize(S.data.dtype, at_least=4)
    rows, cols = sorted(S.shape)
    per_member = 0
    if rows:
        work, twork = _ffi.lap_workspace_lens(rows, cols, _ffi.constant("LAP_VARIANT_CSR_TREE"))
        info = _ffi.constant("LAP_INFO_LEN")
        per_member = (2 * rows + cols + info + work) * 4 + (rows + cols + twork) * cost
    held = [
        _limits.Held(S.indptr, 4),
        _limits.Held(S.indices, 4),
        _limits.Held(S.data, cost),
    ]
    capacity = _limits.size_text(np.shape(S.indices)[-1])
    what = f"SparseCosts of shape {S.shape} and capacity {capacity}"
    _limits.check_memory(what, held, np.ndim(S.indptr) - 1, per_member)


def solve_lap(
    C: jax.Array | SparseCosts,
    *,
    maximize: bool | jax.Array = False,
    method: Method = "auto",
    execution: Execution = "auto",
    max_iterations: int | None = None,
    init: LAPResult | None = None,
    tuning: LAPTuning | None = None,
    unassigned_cost: Any = None,
) -> LAPResult:
    """Solves the linear assignment problem min (or max) sum_i C[i, x(i)].

    Pure and jittable; ``C`` may carry leading batch dimensions, and
    ``jax.vmap`` batches the kernels (the batch is a grid dimension).
    ``method`` and ``execution`` are static: under ``jax.jit`` pass them as
    Python strings, with ``jax.jit(f, static_argnames=("method",
    "execution"))`` or ``functools.partial(f, method=...)``; ``C`` and
    ``maximize`` may be traced.

    Args:
      C: ``[..., n, m]`` costs: float32, float64 (with ``jax_enable_x64``) or
        int32 (smaller integer and bool dtypes are cast to int32; int64 is
        solved in float64 under x64; float16, bfloat16 and other floats
        narrower than 32 bits are solved in float32, and ``cost``, ``u``,
        ``v`` are then float32). ``+inf`` marks a forbidden pair (``-inf``
        with ``maximize=True``). Any of ``n``, ``m`` may be larger, or zero.
      maximize: maximize the total instead. A Python bool, or a bool array
        (traced under ``jit``, batched under ``vmap``) of shape ``[]`` or
        broadcastable to the batch shape ``[...]``, choosing per problem.
      method: static. ``"tree"`` (alternating tree, Lawler), ``"classical"``
        (Munkres), ``"jv"`` (Jonker-Volgenant, fused only), or ``"auto"``:
        the planner's choice by platform, shape and dtype (JV on the CPU; on
        a GPU JV, the tree variant, the tree variant then JV, or for a single
        problem the alternating forest of :func:`jaxmatch.solve_lap_split`
        on its device), every rule in ``jaxmatch/lap/_plan.py``
        (``docs/lap.md``, "How ``auto`` chooses"). A :class:`SparseCosts`
        takes ``"auto"``, ``"jv"`` (CPU only) or ``"tree"``.
      execution: static. ``"fused"`` (the whole solve in one kernel),
        ``"stepped"`` (``lax.while_loop`` of step kernels) or ``"auto"``.
      max_iterations: static int >= 1, or None. Stops a solve after this
        many iterations of the main loop (JV: augmenting searches) with
        ``status == ITERATION_LIMIT`` and ``feasible`` False; None: a bound
        no solve reaches. A way to bound the time of a solve under ``jit``.
      tuning: static. The planner's tuning values (:class:`LAPTuning`;
        default: its defaults).
      unassigned_cost: None, or the price of leaving a row or a column
        unassigned: a scalar (every row and column alike; MATLAB's
        ``matchpairs(C, costUnmatched)``), or a pair ``(row_costs, col_costs)``
        broadcastable to ``[..., n]`` and ``[..., m]`` (traced under ``jit``,
        batched under ``vmap``). The solve then minimizes the assigned costs
        plus the prices of the rows and columns left unassigned, over every
        partial assignment (maximizing: the same total, maximized, so the
        prices are rewards for staying unassigned); ``col_for_row`` and
        ``row_for_col`` hold -1 for those, ``cost`` is the whole objective,
        and the duals certify it (:func:`jaxmatch.verify_lap` with the same
        ``unassigned_cost``). Integer costs take integer prices. Prices must
        be finite (NaN or an infinite price: ``INVALID_ENTRIES``). Dense
        costs are solved by JV's kernels (``method`` ``"auto"`` or
        ``"jv"``, no ``init``); a :class:`SparseCosts` by its solvers
        (``"auto"``, ``"jv"`` or ``"tree"``), on its stored entries, and is
        then never infeasible (``docs/lap.md``, "Leaving rows and columns
        unassigned").
      init: a warm start: the :class:`LAPResult` of an earlier solve of a
        problem of the same shape and ``maximize`` (its arrays may be
        traced, and batched like ``C``). JV (``"jv"``, and ``"auto"`` where
        it runs JV) keeps each row's earlier column when it is still the
        row's cheapest at the earlier column prices ``v`` and augments the
        rest, so a slowly changing sequence of problems solves faster
        (tracking, iterated bounds); any ``init`` gives the same optimum.
        The tree and classical variants start a square problem from
        the column prices ``v`` (row duals: each row's least reduced cost)
        and the earlier pairs that are tight there, then run the greedy
        rounds and the main loop; a rectangular problem starts cold.

    A concrete ``[n, m]`` ``C`` whose rows are sharded over several devices
    (a ``NamedSharding``), with ``method`` and ``execution`` ``"auto"``, no
    ``init`` and a Python bool ``maximize``, is solved split over its mesh
    by :func:`jaxmatch.solve_lap_split` where no one device holds it and,
    on GPUs, where that is the faster way for integer costs (large
    matrices, or rows that often tie); otherwise it is gathered onto its
    first device and solved there (the planner's ``ROW_SHARDED_RULES``;
    ``docs/lap.md``, "How ``auto`` chooses").

    ``C`` may also be a :class:`SparseCosts` (a CSR matrix, batched by its
    arrays' leading dimensions): the solve then runs on its stored entries
    only (``jaxmatch/lap/sparse/``); ``maximize`` must be a Python bool and
    ``execution``, ``max_iterations`` and ``init`` keep their defaults.

    Called eagerly (no tracer in sight), it returns once the result is ready,
    and Ctrl-C interrupts the wait and cancels the CPU solves in flight
    (``docs/lap.md``, "Interrupting a solve").

    Returns:
      A :class:`LAPResult`. Data-dependent failures (NaN, an infeasible
      ``+inf`` pattern, int32 overflow) do not raise: ``feasible`` is False
      and ``status`` says why. ``jax.grad`` of ``cost`` is the assignment
      matrix (the envelope theorem).

    Raises:
      TypeError: non-numeric or complex costs; a ``jax.Array`` of uint32
        costs without x64 (concrete NumPy int64, uint32 and uint64 costs are
        solved in int32 when every value fits, else ``OverflowError``);
        ``method`` or ``execution`` not a Python string (e.g. traced by
        ``jax.jit`` without ``static_argnames``); a non-boolean ``maximize``;
        ``unassigned_cost`` not real, or floating point for integer costs.
      ValueError: rank below 2, an unknown ``method``/``execution``, a
        ``maximize`` array that does not broadcast to the batch shape,
        ``max_iterations`` below 1, an ``init`` whose shapes do not match
        ``C``; a :class:`SparseCosts` with ``execution``, ``max_iterations``
        or ``init``; at trace time, a side of ``2**30`` or more (a
        :class:`SparseCosts`: ``max(shape) + 1`` or its capacity), beyond
        the kernels' int32 indices (``jaxmatch/_limits.py``); an
        ``unassigned_cost`` that is neither a scalar nor a pair, or whose
        prices do not broadcast to ``[..., n]`` and ``[..., m]``, or (dense
        costs) with a ``method`` other than ``"auto"``/``"jv"``,
        ``execution="stepped"`` or an ``init``.
      OverflowError: concrete NumPy int64, uint32 or uint64 costs outside
        the int32 range without x64 (never wrapped); concrete integer
        ``unassigned_cost`` outside int32 for integer costs.
      MemoryError: called eagerly, the costs, the kernels' outputs and
        their workspaces do not fit the memory of a device the solve runs
        on (checked before any kernel runs; skipped under ``jax.jit``).
    """
    if isinstance(C, SparseCosts):
        return _solve_sparse(
            C, maximize, method, execution, max_iterations, init, tuning, unassigned_cost
        )
    if unassigned_cost is not None:
        return _solve_unassigned(
            C, unassigned_cost, maximize, method, execution, max_iterations, init, tuning
        )
    _check_execution(execution)
    _check_method(method, execution)
    _limits.check_dense_side(np.shape(C))
    if hasattr(C, "dtype") and np.ndim(C) >= 2 and not isinstance(C, jax.core.Tracer):
        _check_dense_memory(C, method)  # before canonical_costs casts or copies C
    C = canonical_costs(C)
    tuning = _check_tuning(tuning)
    limit = _iteration_limit(max_iterations)
    flag = maximize_flag(maximize, tuple(C.shape[:-2]))
    warm = _warm_start_arrays(init, C)
    eager = not any(isinstance(x, jax.core.Tracer) for x in jax.tree.leaves((C, flag, warm)))
    if eager and warm is None and method == execution == "auto" and isinstance(flag, bool):
        found = row_split_axis(C)
        if found is not None:
            mesh, axis = found
            device = next(iter(mesh.devices.flat))
            if _plan.plan_row_sharded(C.shape, C.dtype, device, tuning, _tied_rows(C)) == "split":
                return solve_lap_split(
                    C, maximize=flag, mesh=mesh, axis_name=axis, max_iterations=max_iterations,
                    tuning=tuning,
                )  # fmt: skip
            _check_dense_memory(C, method, device)
            # A SingleDeviceSharding drops an Explicit mesh's axes from C's type.
            C = jax.device_put(C, jax.sharding.SingleDeviceSharding(device))
    solve: Callable[..., LAPResult]
    if eager:
        solve = _dense.EAGER[(not isinstance(flag, bool), _eager_autotune_off(C, tuning))]
    else:
        solve = _dense.solve_static if isinstance(flag, bool) else _dense.solve_traced
    res = solve(C, warm, flag, method, execution, limit, tuning)
    return wait_ready(res) if eager else res


def _iteration_limit(max_iterations: int | None) -> int:
    """``max_iterations`` as the kernels' limit (0: none)."""
    if max_iterations is None:
        return 0
    limit = static_int(max_iterations, "max_iterations")
    if not 1 <= limit < 2**31:
        raise ValueError(f"max_iterations must be in [1, 2**31), got {limit}")
    return limit


def _solve_unassigned(
    C, unassigned_cost, maximize, method, execution, max_iterations, init, tuning
):
    """:func:`solve_lap` with ``unassigned_cost`` (:mod:`.unassigned`) on
    dense costs."""
    _check_execution(execution)
    _check_method(method, execution)
    if method not in ("auto", "jv") or execution == "stepped":
        raise ValueError(
            f"unassigned_cost is solved by JV's kernels: method 'auto' or 'jv' and execution "
            f"'auto' or 'fused'; got method {method!r}, execution {execution!r}"
        )
    if init is not None:
        raise ValueError("unassigned_cost takes no init (warm start)")
    _check_tuning(tuning)
    _limits.check_dense_side(np.shape(C))
    if hasattr(C, "dtype") and np.ndim(C) >= 2 and not isinstance(C, jax.core.Tracer):
        _check_dense_memory(C, "jv")
    C = canonical_costs(C)
    limit = _iteration_limit(max_iterations)
    r, c = unassigned_prices(unassigned_cost, C)
    flag = maximize_flag(maximize, tuple(C.shape[:-2]))
    traced = not isinstance(flag, bool)
    if any(isinstance(x, jax.core.Tracer) for x in jax.tree.leaves((C, r, c, flag))):
        solve = unassigned.solve_traced if traced else unassigned.solve_static
        return solve(C, r, c, flag, limit)
    return wait_ready(unassigned.EAGER[traced](C, r, c, flag, limit))


def _warm_start_arrays(init, C: jax.Array):
    """``init``'s (col_for_row, row_for_col, u, v) as arrays, checked against
    ``C``; None without a warm start."""
    if init is None:
        return None
    fields = ("col_for_row", "row_for_col", "u", "v")
    if not all(hasattr(init, f) for f in fields):
        raise TypeError(
            f"init must be the LAPResult of an earlier solve; got {type(init).__name__}"
        )
    *batch, n, m = C.shape
    want = {"col_for_row": n, "row_for_col": m, "u": n, "v": m}
    arrays = []
    for f in fields:
        x = jnp.asarray(getattr(init, f))
        if tuple(x.shape) != (*batch, want[f]):
            raise ValueError(
                f"init.{f} has shape {tuple(x.shape)}; a warm start for costs of shape "
                f"{tuple(C.shape)} needs {(*batch, want[f])}"
            )
        arrays.append(x)
    return tuple(arrays)


def hungarian(
    C: jax.Array,
    *,
    maximize: bool | jax.Array = False,
    method: Method = "auto",
    unassigned_cost: Any = None,
) -> jax.Array:
    """The optimal assignment of a (batch of) cost matrix(es).

    Jittable: ``jax.jit(hungarian)(C, maximize=True)`` traces ``maximize``;
    ``method`` is static (``jax.jit(hungarian, static_argnames=("method",))``).

    Args:
      C: ``[..., n, m]`` costs; see :func:`solve_lap` (float16 and bfloat16
        are solved in float32).
      maximize: maximize the total instead; a bool, traced or not (see
        :func:`solve_lap`).
      method: static. ``"auto"``, ``"tree"``, ``"classical"`` or ``"jv"``.
      unassigned_cost: None, or the price of leaving a row or a column
        unassigned (see :func:`solve_lap`).

    Returns:
      int32 ``[..., n]``: the column assigned to each row, ``-1`` for rows
      left unassigned (when ``n > m``, or at their price with
      ``unassigned_cost``; and for every row of an infeasible problem: use
      :func:`solve_lap` to tell).
    """
    res = solve_lap(C, maximize=maximize, method=method, unassigned_cost=unassigned_cost)
    return res.col_for_row
