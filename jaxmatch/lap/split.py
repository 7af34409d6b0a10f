"""One linear assignment problem split over devices by rows.

:func:`solve_lap_split` solves ``min sum_i C[i, x(i)]`` with the rows of
``C`` divided among the devices of a mesh axis, after Date and Nagi's
multi-GPU Hungarian algorithm (the seed paper's section 5): each device
holds a block of rows of the cost matrix, their duals and their place in
the forest, and scans only those; the state of the columns (duals, keys,
the forest and the matching) is replicated, kept equal on every device by
collectives (``pmin`` and ``all_gather`` of column-wise minima). There is
no communication layer of its own: it is JAX's ``shard_map`` and XLA's
collectives (NCCL on GPUs).

The algorithm is the alternating-forest Hungarian method with lazy dual
updates (as in Jonker and Volgenant's shortest augmenting paths, but from
every free row at once):

* *Start.* ``u_i = min_j C_ij``; on a square problem also
  ``v_j = min_i (C_ij - u_i)`` (a rectangular one keeps ``v = 0``, the
  sign its LP dual needs). A greedy matching of tight pairs: each column
  takes its least tight row, each row its least column among those that
  chose it.
* *Phase.* Every free row roots a tree. Each iteration the devices scan
  the rows that joined the forest last (``key_j = min (C_ij - u_i + D_i)``
  over them, ``D_i`` the forest's total dual change when row ``i``
  joined), reduce ``key`` and its row over the devices, and raise
  the total ``D`` to the least ``key_j - v_j`` of the columns outside the
  forest. The columns that become tight join it; their rows join next
  iteration. When a tight column is free, the phase ends: the duals are
  settled (``u_i += D - D_i``, ``v_j -= D - D_j``), one augmenting path
  per tree is flipped (paths of different trees are vertex-disjoint), the
  matched rows' duals are re-tightened from their costs, and the next
  phase starts from the remaining free rows.

Each dual is updated once per phase, from one sum, so float32 duals keep
their certificates (``verify_lap``'s tolerance) without carried errors.

The start is XLA operations; an iteration is two custom calls per device
(``cuda_ffi/lap/lap_split_steps.h``, CUDA kernels on GPUs and C++ on
CPUs) around one all-gather of ``2m`` values: the *scan* of the device's
pending rows, and the *update* of the state, which every device applies to
the same gathered minima. Column state and the matching are replicated;
row duals and the forest's rows stay on their device.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .._interrupt import wait_ready
from .._static import static_int
from . import _ffi as lap_ffi
from . import api
from .api import _canonical_costs, _cost_tangent, _valid_entries, finished_result
from .types import LAPResult, LAPStatus

#: int32 costs are solved exactly when every ``|C_ij|`` is below this bound
#: (duals stay within a few times the costs' range); larger ones report
#: ``OVERFLOW``.
INT32_COST_BOUND = 1 << 28

#: Forest iterations per trip of the ``while_loop``. On a GPU each trip's
#: predicate is a device-to-host copy that no kernel overlaps; an iteration
#: after the solve has ended is a no-op (the update keeps a finished state,
#: whatever the scan found), so the trip count only bounds the waste.
ITERATIONS_PER_TRIP = 4


AxisName = str | tuple[str, ...]


def _axis_size(mesh: Mesh, axis: AxisName) -> int:
    names = (axis,) if isinstance(axis, str) else tuple(axis)
    return math.prod(mesh.shape[a] for a in names)


def _default_mesh(devices: Sequence[Any] | None) -> tuple[Mesh, str]:
    devs = list(jax.devices() if devices is None else devices)
    if not devs:
        raise ValueError("devices must name at least one device")
    return Mesh(np.array(devs), ("rows",)), "rows"


def row_split_axis(C: Any) -> tuple[Mesh, AxisName] | None:
    """The mesh and axis (or axes) over which a concrete 2-D array's rows
    are sharded, or None when they are not split."""
    sharding = getattr(C, "sharding", None)
    if not isinstance(sharding, NamedSharding) or C.ndim != 2:
        return None
    if not isinstance(sharding.mesh, Mesh):  # an abstract mesh: no devices
        return None
    spec = tuple(sharding.spec) + (None, None)
    if spec[0] is None or spec[1] is not None:
        return None
    axis = spec[0]
    if _axis_size(sharding.mesh, axis) < 2:
        return None
    return sharding.mesh, axis


class _Plan:
    """The static description of one split solve: ``n`` real rows (``n <=
    m``) in blocks of ``n_local`` over ``devices``, ``n_pad`` in all;
    ``axis`` None: one device outside ``shard_map`` (no collectives)."""

    def __init__(self, n, m, devices, axis, max_iterations, dtype, per_trip):
        self.n, self.m = n, m
        self.n_local = -(-n // devices)
        self.n_pad = self.n_local * devices
        self.axis = axis
        self.max_iterations, self.dtype = max_iterations, dtype
        self.per_trip = per_trip
        if jnp.issubdtype(dtype, jnp.floating):
            self.inf: Any = np.array(np.inf, dtype)[()]
        else:
            self.inf = np.array(np.iinfo(dtype).max, dtype)[()]


def _device_index(plan: _Plan) -> jax.Array | int:
    return 0 if plan.axis is None else lax.axis_index(plan.axis)


def _pmin(plan: _Plan, x: jax.Array) -> jax.Array:
    return x if plan.axis is None else lax.pmin(x, plan.axis)


def _all_gather(plan: _Plan, x: jax.Array, tiled: bool = False) -> jax.Array:
    if plan.axis is None:
        return x if tiled else x[None]
    return lax.all_gather(x, plan.axis, tiled=tiled)


def _local_rows(plan: _Plan, x: jax.Array) -> jax.Array:
    """This device's slice of a replicated ``[n_pad]`` array."""
    start = _device_index(plan) * plan.n_local
    return lax.dynamic_slice_in_dim(x, start, plan.n_local)


def _global_rows(plan: _Plan) -> jax.Array:
    return _device_index(plan) * plan.n_local + jnp.arange(plan.n_local, dtype=jnp.int32)


def _matched_costs(plan: _Plan, Cl: jax.Array, cfr: jax.Array) -> jax.Array:
    """``C[i, cfr[i]]`` for every row (0 where free), replicated."""
    mine = _local_rows(plan, cfr)
    picked = jnp.take_along_axis(Cl, jnp.clip(mine, 0)[:, None], axis=1)[:, 0]
    picked = jnp.where(mine >= 0, picked, jnp.zeros((), plan.dtype))
    return _all_gather(plan, picked, tiled=True)


def _start(plan: _Plan, Cl: jax.Array, square: bool):
    """Initial duals and the greedy matching of tight pairs: ``cfr``,
    ``rfc`` and ``v`` replicated, ``ul`` this device's row duals."""
    rows = _global_rows(plan)
    real = rows < plan.n
    ul = jnp.min(Cl, axis=1)
    ul = jnp.where(real & (ul < plan.inf), ul, jnp.zeros((), plan.dtype))
    reduced = Cl - ul[:, None]
    if square:
        v = _pmin(plan, jnp.min(jnp.where(real[:, None], reduced, plan.inf), axis=0))
        v = jnp.where(v < plan.inf, v, jnp.zeros((), plan.dtype))
    else:
        v = jnp.zeros((plan.m,), plan.dtype)
    tight = real[:, None] & (reduced - v[None, :] == 0)
    choice = _pmin(plan, jnp.min(jnp.where(tight, rows[:, None], plan.n_pad), axis=0))
    cols = jnp.arange(plan.m, dtype=jnp.int32)
    first = jnp.full((plan.n_pad,), plan.m, jnp.int32).at[choice].min(cols, mode="drop")
    cfr = jnp.where(first < plan.m, first, -1)
    rfc = jnp.full((plan.m,), -1, jnp.int32)
    rfc = rfc.at[jnp.where(cfr >= 0, cfr, plan.m)].set(
        jnp.arange(plan.n_pad, dtype=jnp.int32), mode="drop"
    )
    return cfr, rfc, ul, v


def _initial_state(
    plan: _Plan, cfr: jax.Array, rfc: jax.Array, ul: jax.Array, v: jax.Array, status: jax.Array
) -> lap_ffi.SplitState:
    """The state of the first phase: every free real row a root."""
    rows = _global_rows(plan)
    free = (_local_rows(plan, cfr) < 0) & (rows < plan.n)
    (pending,) = jnp.nonzero(free, size=plan.n_local, fill_value=0)
    m, nl = plan.m, plan.n_local
    zeros = functools.partial(jnp.zeros, dtype=plan.dtype)
    return lap_ffi.SplitState(
        key=jnp.full((m,), plan.inf),
        col_D=zeros((m,)),
        v=v,
        u=ul,
        row_D=zeros((nl,)),
        D=zeros((1,)),
        parent=jnp.full((m,), plan.n_pad, jnp.int32),
        col_tree=jnp.zeros((m,), jnp.int32),
        row_for_col=rfc,
        root=jnp.zeros((m,), jnp.int32),
        col_for_row=cfr,
        winner=jnp.full((plan.n_pad,), np.iinfo(np.int32).max, jnp.int32),
        row_tree=free.astype(jnp.int32),
        pending=pending.astype(jnp.int32),
        info=lap_ffi.split_info(status, jnp.sum(free), rows[0]),
    )


def _iterate(plan: _Plan, Cl: jax.Array, s: lap_ffi.SplitState) -> lap_ffi.SplitState:
    """One iteration (see the module docstring): this device's scan, the
    all-gather of every device's minima, the update."""
    best, arg = lap_ffi.split_scan(Cl, s.u, s.row_D, s.pending, s.info)
    # Two independent all-gathers (XLA combines them into one collective).
    bests = _all_gather(plan, best)
    args = _all_gather(plan, arg)
    return lap_ffi.split_update(Cl, bests, args, s, n=plan.n, max_iterations=plan.max_iterations)


def _solve_local(Cl: jax.Array, status0: jax.Array, *, plan: _Plan, square: bool):
    """The per-device program (inside ``shard_map``): ``Cl [n_local, m]``."""
    cfr, rfc, ul, v = _start(plan, Cl, square)
    none_free = ~jnp.any(cfr[: plan.n] < 0)
    status = jnp.where(none_free, LAPStatus.OPTIMAL, LAPStatus.RUNNING)
    status = jnp.where(status0 != LAPStatus.RUNNING, status0, status)
    s = _initial_state(plan, cfr, rfc, ul, v, status)
    slot = lap_ffi.split_info_slot("STATUS")

    def trip(s: lap_ffi.SplitState) -> lap_ffi.SplitState:
        for _ in range(plan.per_trip):
            s = _iterate(plan, Cl, s)
        return s

    s = lax.while_loop(lambda s: s.info[slot] == LAPStatus.RUNNING, trip, s)
    cfr = s.col_for_row
    cm = _matched_costs(plan, Cl, cfr)
    u = _all_gather(plan, s.u, tiled=True)
    iters = s.info[lap_ffi.split_info_slot("ITERS")]
    return cfr, s.row_for_col, u, s.v, cm, iters, s.info[slot]


def _overflow_status(Ck: jax.Array, status: jax.Array) -> jax.Array:
    """``status``, or ``OVERFLOW`` where int32 costs reach
    :data:`INT32_COST_BOUND`."""
    if not jnp.issubdtype(Ck.dtype, jnp.integer):
        return status
    return jnp.where(fits_int32_forest(Ck), status, LAPStatus.OVERFLOW)


def fits_int32_forest(Ck: jax.Array) -> jax.Array:
    """Whether every int32 cost of ``Ck`` is below :data:`INT32_COST_BOUND`
    in magnitude (a bool scalar)."""
    return jnp.max(jnp.abs(Ck.astype(jnp.float32))) < INT32_COST_BOUND


def solve_on_one_device(Ck: jax.Array) -> tuple[jax.Array, ...]:
    """The forest on the current device, without a mesh or collectives, for
    :func:`jaxmatch.solve_lap`'s single problems: ``Ck [n, m]`` (``n <=
    m``) to be minimized, its entries valid (no NaN or ``-inf``). Returns
    ``col_for_row [n]``, ``row_for_col [m]``, ``u [n]``, ``v [m]``, the
    forest iterations and the status (int32 scalars)."""
    n, m = Ck.shape
    plan = _Plan(n, m, 1, None, 2**31 - 1, Ck.dtype, ITERATIONS_PER_TRIP)
    # As in _solve_split: a negation fused into the start's row minima can
    # give wrong int32 minima on GPUs.
    Ck = lax.optimization_barrier(Ck)
    status0 = _overflow_status(Ck, jnp.asarray(LAPStatus.RUNNING, jnp.int32))
    cfr, rfc, u, v, _, iters, status = _solve_local(Ck, status0, plan=plan, square=n == m)
    return cfr, rfc, u, v, iters, status


def _solve_split(C, *, mesh, axis, maximize, max_iterations, per_trip):
    n0, m0 = C.shape
    transposed = n0 > m0
    Ck = C.T if transposed else C
    n, m = Ck.shape
    plan = _Plan(n, m, _axis_size(mesh, axis), axis, max_iterations, Ck.dtype, per_trip)
    if maximize:  # the devices minimise -C; u, v and the costs flip back below
        # The barrier keeps the negation out of the start's row minima: XLA
        # on GPUs (jax 0.11.2) fuses min(-C, axis=1) with -C as a second
        # output and gets some int32 row minima wrong.
        Ck = lax.optimization_barrier(-Ck)
    valid = _valid_entries(Ck)
    status0 = jnp.where(valid, LAPStatus.RUNNING, LAPStatus.INVALID_ENTRIES)
    status0 = _overflow_status(Ck, status0).astype(jnp.int32)
    if plan.n_pad > n:
        Ck = jnp.pad(Ck, ((0, plan.n_pad - n), (0, 0)))
    spec = PartitionSpec(axis, None)
    local = functools.partial(_solve_local, plan=plan, square=n == m)
    rep = PartitionSpec()
    mapped = jax.shard_map(
        local, mesh=mesh, in_specs=(spec, rep), out_specs=(rep,) * 7, check_vma=False
    )
    cfr, rfc, u, v, cm, iters, status = mapped(Ck, status0)
    cfr, u, cm = cfr[:n], u[:n], cm[:n]
    if maximize:
        u, v, cm = -u, -v, -cm
    if transposed:
        cfr, rfc, u, v = rfc, cfr, v, u
    res = finished_result(cfr, rfc, cm, u, v, iters, status)
    return jax.lax.with_sharding_constraint(res, NamedSharding(mesh, PartitionSpec()))


_STATIC = ("mesh", "axis", "maximize", "max_iterations", "per_trip")
_solve_split_tuned = jax.jit(_solve_split, static_argnames=_STATIC)
# For blocks too large for XLA's autotuner (api.AUTOTUNE_MAX_FRACTION).
_solve_split_untuned = jax.jit(
    _solve_split, static_argnames=_STATIC, compiler_options=api.UNTUNED_COMPILER_OPTIONS
)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3, 4, 5))
def _solve_differentiable(C, mesh, axis, maximize, max_iterations, untuned) -> LAPResult:
    solve = _solve_split_untuned if untuned else _solve_split_tuned
    return solve(
        C,
        mesh=mesh,
        axis=axis,
        maximize=maximize,
        max_iterations=max_iterations,
        per_trip=ITERATIONS_PER_TRIP,
    )


@_solve_differentiable.defjvp
def _solve_jvp(mesh, axis, maximize, max_iterations, untuned, primals, tangents):
    (C,), (dC,) = primals, tangents
    res = _solve_differentiable(C, mesh, axis, maximize, max_iterations, untuned)
    return res, _cost_tangent(C, dC, res)


def solve_lap_split(
    C: jax.Array,
    *,
    maximize: bool = False,
    mesh: Mesh | None = None,
    axis_name: AxisName | None = None,
    devices: Sequence[Any] | None = None,
    max_iterations: int | None = None,
) -> LAPResult:
    """Solves one linear assignment problem with its rows split over devices.

    Each device of the mesh axis holds a block of rows of ``C`` (``C`` is
    resharded so if it is not already) and the devices cooperate through
    collectives (module docstring; ``docs/lap.md``, "One problem over
    several devices"). Jittable with the static ``mesh``, ``axis_name``,
    ``maximize`` and ``max_iterations``; under ``jax.vmap`` the members of a
    batch iterate together, each iteration's custom calls taking them one
    after another (for many problems that each fit one device,
    :func:`jaxmatch.solve_lap` on a batch is the fast way).

    Args:
      C: ``[n, m]`` costs, one problem (no batch dimensions): float32,
        float64 (under ``jax_enable_x64``) or int32 (smaller integers and
        bool are cast), as for :func:`jaxmatch.solve_lap`; ``+inf`` (``-inf``
        when maximizing) forbids a pair. ``n > m`` is solved transposed (an
        all-to-all resharding of ``C``); ``n`` need not divide evenly (the
        last device's block is padded).
      maximize: static bool; maximize the total instead.
      mesh: the mesh to split over, with ``axis_name``. Default: ``C``'s own
        mesh and row axis when a concrete ``C`` is sharded by rows, else a
        one-axis mesh of ``devices``.
      axis_name: the mesh axis (or tuple of axes) that splits the rows;
        required with ``mesh``.
      devices: the devices of the default mesh (default: ``jax.devices()``).
      max_iterations: static int >= 1 or None; stops with
        ``ITERATION_LIMIT`` after this many forest iterations.

    Returns:
      A :class:`LAPResult` of the single problem, its arrays replicated over
      the mesh: the same optimum (cost), status codes and certificate
      (``verify_lap``) as :func:`jaxmatch.solve_lap`. ``n_iters`` counts
      forest iterations. int32 costs of magnitude ``2**28`` or more report
      ``OVERFLOW``. ``jax.grad`` of ``cost`` is the assignment matrix, as
      for :func:`jaxmatch.solve_lap`.

    Raises:
      TypeError: non-numeric or complex costs, a non-bool ``maximize``.
      ValueError: ``C`` not 2-D; ``mesh`` without ``axis_name`` or the
        reverse; an ``axis_name`` the mesh lacks; ``max_iterations`` < 1.
    """
    C = _canonical_costs(C)
    if C.ndim != 2:
        raise ValueError(
            f"solve_lap_split solves one problem: C must be [n, m], got shape {C.shape}; "
            "use solve_lap (or jax.vmap) for batches"
        )
    if not isinstance(maximize, (bool, np.bool_)):
        raise TypeError(f"maximize must be a Python bool here, got {type(maximize).__name__}")
    limit = 2**31 - 1
    if max_iterations is not None:
        limit = static_int(max_iterations, "max_iterations")
        if not 1 <= limit < 2**31:
            raise ValueError(f"max_iterations must be in [1, 2**31), got {limit}")
    if (mesh is None) != (axis_name is None):
        raise ValueError("pass mesh and axis_name together")
    if mesh is None:
        found = None if isinstance(C, jax.core.Tracer) else row_split_axis(C)
        mesh, axis_name = found if found is not None else _default_mesh(devices)
    assert axis_name is not None
    names = (axis_name,) if isinstance(axis_name, str) else tuple(axis_name)
    missing = [a for a in names if a not in mesh.shape]
    if missing:
        raise ValueError(f"mesh has no axis {missing[0]!r}; its axes are {tuple(mesh.shape)}")
    axis = names[0] if len(names) == 1 else names
    n, m = C.shape
    if n == 0 or m == 0:
        zero = jnp.zeros((), C.dtype)
        return LAPResult(
            col_for_row=jnp.full((n,), -1, jnp.int32),
            row_for_col=jnp.full((m,), -1, jnp.int32),
            cost=zero,
            u=jnp.zeros((n,), C.dtype),
            v=jnp.zeros((m,), C.dtype),
            feasible=jnp.ones((), bool),
            n_iters=jnp.zeros((), jnp.int32),
            status=jnp.array(LAPStatus.OPTIMAL, jnp.int32),
        )
    traced = isinstance(C, jax.core.Tracer)
    # XLA takes compiler options from the outermost jit only: an eager call.
    block = -(-min(n, m) // _axis_size(mesh, axis)) * max(n, m) * C.dtype.itemsize
    untuned = not traced and api.autotune_off(block, list(mesh.devices.flat))
    res = _solve_differentiable(C, mesh, axis, bool(maximize), limit, untuned)
    return res if traced else wait_ready(res)
