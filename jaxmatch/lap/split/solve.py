"""One linear assignment problem split over devices by rows:
:func:`solve_lap_split`, the alternating forest of :mod:`.forest` in
``shard_map`` over a mesh axis."""

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

from ... import _limits
from ..._interrupt import wait_ready
from ..._static import static_int
from .. import _plan
from .._costs import canonical_costs, cost_tangent, empty_result, finished_result, valid_entries
from ..types import LAPResult, LAPStatus
from .forest import (
    AxisName,
    ForestPlan,
    overflow_status,
    solve_local,
)


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


def _check_memory(C: Any, mesh: Mesh, axis: AxisName) -> None:
    """Refuses an eager split solve of ``C`` (``[n, m]``, not yet in the
    kernel dtype) whose block, outputs and duals do not fit a device of the
    mesh (:mod:`jaxmatch._limits`): each holds ``ceil(min(n, m) / parts)``
    rows of ``max(n, m)`` columns and the replicated result."""
    size = _limits.device_itemsize(C.dtype, at_least=4)  # kernel dtypes: >= 32 bits
    n, m = sorted(np.shape(C))
    block = -(-n // _axis_size(mesh, axis)) * m * size
    what = f"a split LAP of shape {np.shape(C)} over {_axis_size(mesh, axis)} devices"
    _limits.check_memory_on(what, mesh.devices.flat, block + (n + m) * (4 + size))


def _solve_split(C, *, mesh, axis, maximize, max_iterations, per_trip):
    n0, m0 = C.shape
    transposed = n0 > m0
    Ck = C.T if transposed else C
    n, m = Ck.shape
    plan = ForestPlan(n, m, _axis_size(mesh, axis), axis, max_iterations, Ck.dtype, per_trip)
    if maximize:  # the devices minimise -C; u, v and the costs flip back below
        # The barrier keeps the negation out of the start's row minima: XLA
        # on GPUs (jax 0.11.2) fuses min(-C, axis=1) with -C as a second
        # output and gets some int32 row minima wrong.
        Ck = lax.optimization_barrier(-Ck)
    valid = valid_entries(Ck)
    status0 = jnp.where(valid, LAPStatus.RUNNING, LAPStatus.INVALID_ENTRIES)
    status0 = overflow_status(Ck, status0).astype(jnp.int32)
    if plan.n_pad > n:
        Ck = jnp.pad(Ck, ((0, plan.n_pad - n), (0, 0)))
    spec = PartitionSpec(axis, None)
    Ck = _laid_out(Ck, NamedSharding(mesh, spec))
    local = functools.partial(solve_local, plan=plan, square=n == m)
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


def _laid_out(x: jax.Array, sharding: NamedSharding) -> jax.Array:
    """``x`` (inside ``jit``) laid out as ``sharding``: a resharding of its
    type on a mesh of Explicit axes, a constraint on one of Auto axes."""
    explicit = jax.sharding.AxisType.Explicit in tuple(sharding.mesh.axis_types)
    if explicit:
        return jax.sharding.reshard(x, sharding)
    return lax.with_sharding_constraint(x, sharding)


_STATIC = ("mesh", "axis", "maximize", "max_iterations", "per_trip")
_solve_split_tuned = jax.jit(_solve_split, static_argnames=_STATIC)
# For blocks too large for XLA's autotuner (``LAPTuning.autotune_max_fraction``).
_solve_split_untuned = jax.jit(
    _solve_split, static_argnames=_STATIC, compiler_options=_plan.UNTUNED_COMPILER_OPTIONS
)


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3, 4, 5, 6))
def _solve_differentiable(C, mesh, axis, maximize, max_iterations, untuned, per_trip) -> LAPResult:
    solve = _solve_split_untuned if untuned else _solve_split_tuned
    return solve(
        C,
        mesh=mesh,
        axis=axis,
        maximize=maximize,
        max_iterations=max_iterations,
        per_trip=per_trip,
    )


@_solve_differentiable.defjvp
def _solve_jvp(mesh, axis, maximize, max_iterations, untuned, per_trip, primals, tangents):
    (C,), (dC,) = primals, tangents
    res = _solve_differentiable(C, mesh, axis, maximize, max_iterations, untuned, per_trip)
    return res, cost_tangent(C, dC, res)


def solve_lap_split(
    C: jax.Array,
    *,
    maximize: bool = False,
    mesh: Mesh | None = None,
    axis_name: AxisName | None = None,
    devices: Sequence[Any] | None = None,
    max_iterations: int | None = None,
    tuning: _plan.LAPTuning | None = None,
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
      tuning: static; the tuning values (:class:`jaxmatch.LAPTuning`; here
        ``autotune_max_fraction`` and ``split_iterations_per_trip`` apply).

    Returns:
      A :class:`LAPResult` of the single problem, its arrays replicated over
      the mesh: the same optimum (cost), status codes and certificate
      (``verify_lap``) as :func:`jaxmatch.solve_lap`. ``iterations`` counts
      forest iterations. int32 costs of magnitude ``2**28`` or more report
      ``OVERFLOW``. ``jax.grad`` of ``cost`` is the assignment matrix, as
      for :func:`jaxmatch.solve_lap`.

    Raises:
      TypeError: non-numeric or complex costs, a non-bool ``maximize``.
      ValueError: ``C`` not 2-D; ``mesh`` without ``axis_name`` or the
        reverse; an ``axis_name`` the mesh lacks; ``max_iterations`` < 1; a
        side of ``2**30`` or more (the kernels' int32 indices,
        ``jaxmatch/_limits.py``).
      MemoryError: called eagerly, a device's block of rows and the
        replicated result do not fit its memory (before any kernel runs).
    """
    if np.ndim(C) != 2:
        C = canonical_costs(C)  # its own rank and dtype errors first
        raise ValueError(
            f"solve_lap_split solves one problem: C must be [n, m], got shape {C.shape}; "
            "use solve_lap (or jax.vmap) for batches"
        )
    _limits.check_dense_side(np.shape(C))
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
    if not isinstance(C, jax.core.Tracer) and hasattr(C, "dtype"):
        _check_memory(C, mesh, axis)  # before canonical_costs casts or copies C
    C = canonical_costs(C)
    n, m = C.shape
    if n == 0 or m == 0:
        return empty_result((), n, m, C.dtype)
    traced = isinstance(C, jax.core.Tracer)
    # XLA takes compiler options from the outermost jit only: an eager call.
    block = -(-min(n, m) // _axis_size(mesh, axis)) * max(n, m) * C.dtype.itemsize
    tuning = tuning or _plan.DEFAULT_TUNING
    untuned = not traced and _plan.autotune_off(block, list(mesh.devices.flat), tuning)
    per_trip = static_int(tuning.split_iterations_per_trip, "split_iterations_per_trip")
    res = _solve_differentiable(C, mesh, axis, bool(maximize), limit, untuned, per_trip)
    return res if traced else wait_ready(res)
