"""The alternating forest: one problem, its rows split over the devices of
a mesh axis (or on one device, without collectives), after Date and Nagi's
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
(``cuda_ffi/lap/split/``: CUDA kernels on GPUs, C++ on CPUs) around one
all-gather of ``2m`` values: the *scan* of the device's pending rows, and
the *update* of the state, which every device applies to the same gathered
minima. Column state and the matching are replicated; row duals and the
forest's rows stay on their device.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..types import LAPStatus
from . import _ffi as split_ffi

AxisName = str | tuple[str, ...]


class ForestPlan:
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


def _device_index(plan: ForestPlan) -> jax.Array | int:
    return 0 if plan.axis is None else lax.axis_index(plan.axis)


def _pmin(plan: ForestPlan, x: jax.Array) -> jax.Array:
    return x if plan.axis is None else lax.pmin(x, plan.axis)


def _all_gather(plan: ForestPlan, x: jax.Array, tiled: bool = False) -> jax.Array:
    if plan.axis is None:
        return x if tiled else x[None]
    return lax.all_gather(x, plan.axis, tiled=tiled)


def _local_rows(plan: ForestPlan, x: jax.Array) -> jax.Array:
    """This device's slice of a replicated ``[n_pad]`` array."""
    start = _device_index(plan) * plan.n_local
    return lax.dynamic_slice_in_dim(x, start, plan.n_local)


def _global_rows(plan: ForestPlan) -> jax.Array:
    return _device_index(plan) * plan.n_local + jnp.arange(plan.n_local, dtype=jnp.int32)


def _matched_costs(plan: ForestPlan, Cl: jax.Array, cfr: jax.Array) -> jax.Array:
    """``C[i, cfr[i]]`` for every row (0 where free), replicated."""
    mine = _local_rows(plan, cfr)
    picked = jnp.take_along_axis(Cl, jnp.clip(mine, 0)[:, None], axis=1)[:, 0]
    picked = jnp.where(mine >= 0, picked, jnp.zeros((), plan.dtype))
    return _all_gather(plan, picked, tiled=True)


def _start(plan: ForestPlan, Cl: jax.Array, square: bool):
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
    plan: ForestPlan, cfr: jax.Array, rfc: jax.Array, ul: jax.Array, v: jax.Array, status: jax.Array
) -> split_ffi.SplitState:
    """The state of the first phase: every free real row a root."""
    rows = _global_rows(plan)
    free = (_local_rows(plan, cfr) < 0) & (rows < plan.n)
    (pending,) = jnp.nonzero(free, size=plan.n_local, fill_value=0)
    m, nl = plan.m, plan.n_local
    zeros = functools.partial(jnp.zeros, dtype=plan.dtype)
    return split_ffi.SplitState(
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
        info=split_ffi.split_info(status, jnp.sum(free), rows[0]),
    )


def _iterate(plan: ForestPlan, Cl: jax.Array, s: split_ffi.SplitState) -> split_ffi.SplitState:
    """One iteration (see the module docstring): this device's scan, the
    all-gather of every device's minima, the update."""
    best, arg = split_ffi.split_scan(Cl, s.u, s.row_D, s.pending, s.info)
    # Two independent all-gathers (XLA combines them into one collective).
    bests = _all_gather(plan, best)
    args = _all_gather(plan, arg)
    return split_ffi.split_update(Cl, bests, args, s, n=plan.n, max_iterations=plan.max_iterations)


def solve_local(Cl: jax.Array, status0: jax.Array, *, plan: ForestPlan, square: bool):
    """The per-device program (inside ``shard_map``): ``Cl [n_local, m]``."""
    cfr, rfc, ul, v = _start(plan, Cl, square)
    none_free = ~jnp.any(cfr[: plan.n] < 0)
    status = jnp.where(none_free, LAPStatus.OPTIMAL, LAPStatus.RUNNING)
    status = jnp.where(status0 != LAPStatus.RUNNING, status0, status)
    s = _initial_state(plan, cfr, rfc, ul, v, status)
    slot = split_ffi.split_info_slot("STATUS")

    def trip(s: split_ffi.SplitState) -> split_ffi.SplitState:
        for _ in range(plan.per_trip):
            s = _iterate(plan, Cl, s)
        return s

    s = lax.while_loop(lambda s: s.info[slot] == LAPStatus.RUNNING, trip, s)
    cfr = s.col_for_row
    cm = _matched_costs(plan, Cl, cfr)
    u = _all_gather(plan, s.u, tiled=True)
    iters = s.info[split_ffi.split_info_slot("ITERS")]
    return cfr, s.row_for_col, u, s.v, cm, iters, s.info[slot]


def overflow_status(Ck: jax.Array, status: jax.Array) -> jax.Array:
    """``status``, or ``OVERFLOW`` where int32 costs reach the library's
    ``LAP_SPLIT_INT32_COST_BOUND``."""
    if not jnp.issubdtype(Ck.dtype, jnp.integer):
        return status
    return jnp.where(fits_int32_forest(Ck), status, LAPStatus.OVERFLOW)


def fits_int32_forest(Ck: jax.Array) -> jax.Array:
    """Whether every int32 cost of ``Ck`` is below the library's
    ``LAP_SPLIT_INT32_COST_BOUND`` in magnitude (a bool scalar)."""
    bound = split_ffi.int32_cost_bound()
    return jnp.max(jnp.abs(Ck.astype(jnp.float32))) < bound


def solve_on_one_device(Ck: jax.Array, per_trip: int) -> tuple[jax.Array, ...]:
    """The forest on the current device, without a mesh or collectives, for
    :func:`jaxmatch.solve_lap`'s single problems: ``Ck [n, m]`` (``n <=
    m``) to be minimized, its entries valid (no NaN or ``-inf``). Returns
    ``col_for_row [n]``, ``row_for_col [m]``, ``u [n]``, ``v [m]``, the
    forest iterations and the status (int32 scalars); ``per_trip``
    iterations per ``while_loop`` iteration."""
    n, m = Ck.shape
    plan = ForestPlan(n, m, 1, None, 2**31 - 1, Ck.dtype, per_trip)
    # As in _solve_split: a negation fused into the start's row minima can
    # give wrong int32 minima on GPUs.
    Ck = lax.optimization_barrier(Ck)
    status0 = overflow_status(Ck, jnp.asarray(LAPStatus.RUNNING, jnp.int32))
    cfr, rfc, u, v, _, iters, status = solve_local(Ck, status0, plan=plan, square=n == m)
    return cfr, rfc, u, v, iters, status
