"""A dense solve on the device holding the costs: the plan of
:func:`jaxmatch.lap._plan.plan_dense` run by the solvers it names (the
Hungarian variants, JV, the alternating forest), chosen per platform when
the computation is lowered; the cost's tangent; the compiled eager
programs."""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
from jax import lax

from .. import _limits
from .._batch import whole_problems
from . import _ffi as lap_ffi
from . import _plan
from ._costs import cost_tangent, empty_result, finished_result, flip, valid_entries
from .hungarian import solve_stepped
from .jv import integer_auto, tied_rows
from .split import fits_int32_forest, solve_on_one_device
from .types import LAPResult, LAPStatus

Solver = Callable[[jax.Array], lap_ffi.Solution]


def plan_of(
    Ck: jax.Array,
    method: str,
    execution: str,
    max_iterations: int,
    warm: bool,
    tuning: _plan.LAPTuning,
) -> _plan.DensePlan:
    """The plan of ``Ck`` (``[..., n, m]``, ``n <= m``, the kernel dtype)."""
    n, m = Ck.shape[-2:]
    return _plan.plan_dense(
        n,
        m,
        bool(jnp.issubdtype(Ck.dtype, jnp.floating)),
        method=method,
        execution=execution,
        max_iterations=max_iterations,
        single=Ck.ndim == 2,
        warm=warm,
        tuning=tuning,
    )


def _run(
    Ck: jax.Array,
    plan: _plan.DensePlan,
    max_iterations: int,
    warm: tuple[jax.Array, jax.Array] | None,
    tuning: _plan.LAPTuning,
) -> lap_ffi.Solution:
    """Runs ``plan`` on ``Ck``: its CPU solver on CPUs, its GPU solver on
    GPUs. ``warm`` (the internal ``x0``, ``v0``) goes to every solver."""
    jv = functools.partial(
        lap_ffi.solve_fused,
        variant=lap_ffi.variant_code("jv"),
        max_iterations=max_iterations,
        warm=warm,
    )
    variant = lap_ffi.variant_code(plan.variant)
    fused = functools.partial(
        lap_ffi.solve_fused, variant=variant, max_iterations=max_iterations, warm=warm
    )
    stepped = functools.partial(
        solve_stepped,
        variant=variant,
        max_iterations=max_iterations,
        warm=warm,
        iterations_per_call=tuning.stepped_iterations_per_call,
    )
    solvers: dict[str, Solver] = {"jv": jv, "fused": fused, "stepped": stepped}
    gpu = solvers[plan.gpu]
    if plan.gpu_integer_auto:
        gpu = functools.partial(
            integer_auto,
            jv=jv,
            tree=gpu,
            max_tied_rows=tuning.jv_int_max_tied_rows,
            tree_iterations_per_row=tuning.jv_int_tree_iterations_per_row,
            auction=warm is None,
        )
    if plan.gpu_forest:
        gpu = _forest_for_single_problems(gpu, plan.gpu_integer_auto, tuning)
    if plan.cpu == plan.gpu and not (plan.gpu_integer_auto or plan.gpu_forest):
        return gpu(Ck)
    return lax.platform_dependent(Ck, cpu=solvers[plan.cpu], cuda=gpu)


def _forest(Ck: jax.Array, per_trip: int) -> lap_ffi.Solution:
    """The alternating forest on ``Ck``'s device, for a single problem."""
    cfr, rfc, u, v, iters, status = solve_on_one_device(Ck, per_trip)
    return lap_ffi.Solution(cfr, rfc, u, v, lap_ffi.info_of(status, iters))


def _forest_suits(Ck: jax.Array, in_jv_range: bool, tuning: _plan.LAPTuning) -> jax.Array | None:
    """Whether the forest runs the single problem ``Ck`` (rows <= columns)
    on the GPU: a bool scalar, or None when it always does (float costs
    wider than JV's range)."""
    if not jnp.issubdtype(Ck.dtype, jnp.integer):
        return None
    suits = fits_int32_forest(Ck)
    if in_jv_range:
        wide = Ck.shape[-1] >= tuning.forest_wide_columns
        floor = tuning.forest_min_tied_rows if wide else tuning.jv_int_max_tied_rows
        suits &= tied_rows(Ck) > floor
    return suits


def _forest_for_single_problems(
    other: Solver, in_jv_range: bool, tuning: _plan.LAPTuning
) -> Solver:
    """``other`` (the GPU's solver), except for a single problem that suits
    the forest (:func:`_forest_suits`); under ``jax.vmap`` a batch of
    problems always goes to ``other``, whose kernels solve the members side
    by side."""

    @jax.custom_batching.custom_vmap
    def solve(Ck: jax.Array) -> lap_ffi.Solution:
        forest = functools.partial(_forest, per_trip=tuning.split_iterations_per_trip)
        suits = _forest_suits(Ck, in_jv_range, tuning)
        if suits is None:
            return forest(Ck)
        return lax.cond(suits, forest, other, Ck)

    @solve.def_vmap
    def solve_batch(axis_size, in_batched, Ck):
        del axis_size
        (batched,) = in_batched
        out = jax.vmap(other)(Ck) if batched else solve(Ck)
        return out, jax.tree.map(lambda _: batched, out)

    return solve


def _internal_warm_start(init, Ck, maximize, transposed):
    """``init`` (a :class:`LAPResult`'s four arrays) in the kernels'
    convention: rows <= columns, minimisation, C's dtype; a non-finite price
    (an infeasible earlier solve) becomes 0."""
    cfr, rfc, u, v = init
    x0 = (rfc if transposed else cfr).astype(jnp.int32)
    v0 = flip((u if transposed else v).astype(Ck.dtype), maximize, 1)
    if jnp.issubdtype(v0.dtype, jnp.floating):
        v0 = jnp.where(jnp.isfinite(v0), v0, jnp.zeros((), v0.dtype))
    return x0, v0


def solve_dense(
    C: jax.Array,
    init,
    maximize: bool | jax.Array,
    method: str,
    execution: str,
    max_iterations: int,
    tuning: _plan.LAPTuning,
) -> LAPResult:
    """One dense solve of ``C`` (``[..., n, m]``, the kernel dtype).

    ``maximize`` is a Python bool, or a bool array (traced or not)
    broadcastable to the batch shape, in which case the signs are flipped
    with ``jnp.where``; ``init`` is None or the four arrays (col_for_row,
    row_for_col, u, v) of a warm start."""
    C = whole_problems(C, 2)
    *batch, n, m = C.shape
    solve = functools.partial(
        _solve_oriented,
        init=init,
        maximize=maximize,
        method=method,
        execution=execution,
        max_iterations=max_iterations,
        tuning=tuning,
    )
    if _limits.is_concrete(n) and _limits.is_concrete(m):
        if min(n, m) == 0:  # an empty side: the empty assignment is optimal
            return empty_result(tuple(batch), n, m, C.dtype)
        return solve(C, transposed=n > m)
    # Symbolic sizes (jax.export): the orientation is chosen when the
    # program runs, from the sizes it is called with.
    tall = jnp.asarray(n) > jnp.asarray(m)
    return lax.cond(
        tall,
        functools.partial(solve, transposed=True),
        functools.partial(solve, transposed=False),
        C,
    )


def _solve_oriented(
    C: jax.Array,
    *,
    init,
    maximize: bool | jax.Array,
    method: str,
    execution: str,
    max_iterations: int,
    tuning: _plan.LAPTuning,
    transposed: bool,
) -> LAPResult:
    """:func:`solve_dense` of ``C`` (whole problems, no empty side), with
    the kernels given ``C`` transposed where ``transposed`` (the kernels
    take rows <= columns)."""
    Ck = jnp.swapaxes(C, -1, -2) if transposed else C
    Ck = flip(Ck, maximize, 2)
    plan = plan_of(Ck, method, execution, max_iterations, init is not None, tuning)
    # JV's kernels check the entries and finish the assignment themselves; a
    # maximized integer problem keeps the checks below, which see C's signs.
    self_checked = plan.self_checked and (
        maximize is False or jnp.issubdtype(C.dtype, jnp.floating)
    )
    if not self_checked:
        valid = valid_entries(Ck)
        overflow = jnp.zeros(valid.shape, bool)
        if maximize is not False and jnp.issubdtype(C.dtype, jnp.integer):
            # -INT32_MIN does not fit: such problems report OVERFLOW.
            overflow = maximize & jnp.any(jnp.iinfo(jnp.int32).min == C, axis=(-2, -1))
        ok_input = valid & ~overflow
        Ck = jnp.where(ok_input[..., None, None], Ck, jnp.zeros((), Ck.dtype))
    warm = None if init is None else _internal_warm_start(init, Ck, maximize, transposed)
    state = _run(Ck, plan, max_iterations, warm, tuning)

    status = lap_ffi.info_field(state.info, "STATUS")
    if not self_checked:
        status = jnp.where(valid, status, LAPStatus.INVALID_ENTRIES)
        status = jnp.where(overflow, LAPStatus.OVERFLOW, status)
    cfr, rfc = state.col_for_row, state.row_for_col
    u, v = flip(state.u, maximize, 1), flip(state.v, maximize, 1)
    if transposed:
        cfr, rfc, u, v = rfc, cfr, v, u

    picked = jnp.take_along_axis(C, jnp.clip(cfr, 0, None)[..., None], axis=-1)[..., 0]
    matched = jnp.where(cfr >= 0, picked, jnp.zeros((), C.dtype))
    iters = lap_ffi.info_field(state.info, "ITERS")
    return finished_result(cfr, rfc, matched, u, v, iters, status, assignment_final=self_checked)


# Two differentiable entry points: a Python-bool ``maximize`` stays static
# (no ``jnp.where`` in the graph); a traced one is an operand (so it may be
# batched by ``vmap``) that carries no tangent. ``init`` (None or a warm
# start's arrays) is an operand without a tangent.
@functools.partial(jax.custom_jvp, nondiff_argnums=(2, 3, 4, 5, 6))
def solve_static(C, init, maximize: bool, method, execution, max_iterations, tuning) -> LAPResult:
    return solve_dense(C, init, maximize, method, execution, max_iterations, tuning)


@solve_static.defjvp
def _solve_static_jvp(maximize, method, execution, max_iterations, tuning, primals, tangents):
    (C, init), (dC, _) = primals, tangents
    res = solve_static(C, init, maximize, method, execution, max_iterations, tuning)
    return res, cost_tangent(C, dC, res)


@functools.partial(jax.custom_jvp, nondiff_argnums=(3, 4, 5, 6))
def solve_traced(C, init, maximize: jax.Array, method, execution, max_iterations, tuning):
    return solve_dense(C, init, maximize, method, execution, max_iterations, tuning)


@solve_traced.defjvp
def _solve_traced_jvp(method, execution, max_iterations, tuning, primals, tangents):
    (C, init, maximize), (dC, _, _) = primals, tangents
    res = solve_traced(C, init, maximize, method, execution, max_iterations, tuning)
    return res, cost_tangent(C, dC, res)


# An eager call runs the whole solve as one compiled program: XLA's CPU
# client executes a program of a single custom call on the calling thread,
# which no Ctrl-C reaches, and dispatches larger ones asynchronously, so the
# caller can wait interruptibly (jaxmatch._interrupt.wait_ready). Costs too
# large for XLA's autotuner compile without it (LAPTuning.autotune_max_fraction).
_STATIC_ARGS = (2, 3, 4, 5, 6)
_TRACED_ARGS = (3, 4, 5, 6)
EAGER = {
    (False, False): jax.jit(solve_static, static_argnums=_STATIC_ARGS),
    (True, False): jax.jit(solve_traced, static_argnums=_TRACED_ARGS),
    (False, True): jax.jit(
        solve_static,
        static_argnums=_STATIC_ARGS,
        compiler_options=_plan.UNTUNED_COMPILER_OPTIONS,
    ),
    (True, True): jax.jit(
        solve_traced,
        static_argnums=_TRACED_ARGS,
        compiler_options=_plan.UNTUNED_COMPILER_OPTIONS,
    ),
}
