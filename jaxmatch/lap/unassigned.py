"""Assignment with a price for leaving a row or a column unassigned: the
problem of MATLAB's ``matchpairs(Cost, costUnmatched)`` and lap's
``lapjv(C, cost_limit=...)``, solved in JV's kernels.

Minimizing, the objective is ::

    sum_{(i, j) assigned} C[i, j] + sum_{i unassigned} r[i] + sum_{j unassigned} c[j]

over every partial assignment (any number of pairs, any shape). Its LP dual,
which the kernels' duals ``u`` ``[n]``, ``v`` ``[m]`` meet and
:func:`jaxmatch.verify_lap` checks: ``u[i] + v[j] <= C[i, j]``,
``u[i] <= r[i]``, ``v[j] <= c[j]``, with equality on assigned pairs, on
unassigned rows (``u[i] = r[i]``) and on unassigned columns
(``v[j] = c[j]``); ``sum(u) + sum(v)`` is then the objective. Maximizing,
every inequality turns round.

The kernels (``jaxmatch_lap_solve_unassigned``: lap/jv/jv_cpu.h on the CPU,
lap/jv/jv_team.cuh on the GPU) run JV on the implicit ``n x (m + n)``
problem in which row ``i`` also has a private exit column of cost ``r[i]``
and the column prices start at ``c``; they take rows ``<=`` columns, so a
tall problem is solved transposed (rows and columns, ``r`` and ``c``
swapped: the same problem). Sparse costs (:class:`jaxmatch.SparseCosts`)
are solved by the sparse kernels on the same implicit problem, over the
stored entries (:mod:`jaxmatch.lap.sparse.solve`).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._batch import whole_problems
from . import _ffi as lap_ffi
from ._costs import cost_tangent, finished_result, flip
from .types import LAPResult, LAPStatus

#: What ``unassigned_cost`` may be, for the error messages.
_FORMS = "a scalar, or a pair (row_costs [..., n], col_costs [..., m])"


def _prices(x: Any, side: str, shape: tuple[int, ...], dtype) -> jax.Array:
    """One side's prices as a ``shape`` array of the kernel dtype ``dtype``,
    checked at trace time."""
    if not isinstance(x, jax.Array):
        x = np.asarray(x)
    if x.dtype == np.dtype(object) or not (
        jnp.issubdtype(x.dtype, jnp.number) or x.dtype == np.bool_
    ):
        raise TypeError(f"unassigned_cost ({side}s) must be real numbers, got dtype {x.dtype}")
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        raise TypeError(f"unassigned_cost ({side}s) must be real, got dtype {x.dtype}")
    if jnp.issubdtype(dtype, jnp.integer) and jnp.issubdtype(x.dtype, jnp.floating):
        raise TypeError(
            f"unassigned_cost ({side}s) is floating point ({x.dtype}) but the costs are "
            "integers: pass integer prices, or floating costs"
        )
    try:
        np.broadcast_shapes(np.shape(x), shape)
        fits = np.broadcast_shapes(np.shape(x), shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"unassigned_cost: the {side} prices of shape {np.shape(x)} do not broadcast to "
            f"{shape}; unassigned_cost must be {_FORMS}"
        )
    if isinstance(x, np.ndarray) and jnp.issubdtype(dtype, jnp.integer):
        info = np.iinfo(np.int32)
        if x.size and (x.min() < info.min or x.max() > info.max):
            raise OverflowError(f"unassigned_cost ({side}s) outside the int32 range of the costs")
    return jnp.broadcast_to(jnp.asarray(x, dtype), shape)


def unassigned_prices(
    unassigned_cost: Any, C: jax.Array | jax.ShapeDtypeStruct
) -> tuple[jax.Array, jax.Array]:
    """The row prices ``[..., n]`` and column prices ``[..., m]`` of
    ``unassigned_cost`` for the costs ``C`` (``[..., n, m]``, the kernel
    dtype; only its shape and dtype are read, so sparse costs pass a
    ``ShapeDtypeStruct``): a scalar prices every row and column alike; a
    pair gives each side's, broadcast to its shape."""
    *batch, n, m = C.shape
    if isinstance(unassigned_cost, (tuple, list)):
        if len(unassigned_cost) != 2:
            raise ValueError(f"unassigned_cost must be {_FORMS}; got {len(unassigned_cost)} items")
        rows, cols = unassigned_cost
    else:
        if np.ndim(unassigned_cost) != 0:
            raise ValueError(
                f"unassigned_cost must be {_FORMS}; got an array of shape "
                f"{np.shape(unassigned_cost)} (pass (row_costs, col_costs))"
            )
        rows = cols = unassigned_cost
    return (
        _prices(rows, "row", (*batch, n), C.dtype),
        _prices(cols, "column", (*batch, m), C.dtype),
    )


def _finite(x: jax.Array) -> jax.Array:
    """Per problem: every price of ``x`` (``[..., k]``) finite."""
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.ones(x.shape[:-1], bool)
    return jnp.all(jnp.isfinite(x), axis=-1)


def _solve(C, r, c, maximize, max_iterations: int) -> LAPResult:
    C = whole_problems(C, 2)
    n, m = C.shape[-2:]
    if n == 0 or m == 0:
        return _all_unassigned(C, r, c)
    tall = n > m
    Ck, rk, ck = (jnp.swapaxes(C, -1, -2), c, r) if tall else (C, r, c)
    Ck, rk, ck = flip(Ck, maximize, 2), flip(rk, maximize, 1), flip(ck, maximize, 1)
    status_fix = None
    if jnp.issubdtype(C.dtype, jnp.integer) and maximize is not False:
        # -INT32_MIN does not fit: such problems report OVERFLOW.
        low = jnp.iinfo(jnp.int32).min
        least = [jnp.any(x == low, axis=a) for x, a in ((C, (-2, -1)), (r, -1), (c, -1))]
        status_fix = maximize & (least[0] | least[1] | least[2])
    # The kernels take rows <= columns, minimizing.
    sol = lap_ffi.lap_solve_unassigned(Ck, rk, ck, max_iterations=max_iterations)
    cfr, rfc = sol.col_for_row, sol.row_for_col
    u, v = flip(sol.u, maximize, 1), flip(sol.v, maximize, 1)
    if tall:
        cfr, rfc, u, v = rfc, cfr, v, u
    status = lap_ffi.info_field(sol.info, "STATUS")
    if status_fix is not None:
        status = jnp.where(status_fix, LAPStatus.OVERFLOW, status)
    picked = jnp.take_along_axis(C, jnp.clip(cfr, 0, None)[..., None], axis=-1)[..., 0]
    row_part = jnp.where(cfr >= 0, picked, r)
    col_part = jnp.where(rfc >= 0, jnp.zeros((), C.dtype), c)
    parts = jnp.concatenate([row_part, col_part], axis=-1)
    iters = lap_ffi.info_field(sol.info, "ITERS")
    return finished_result(cfr, rfc, parts, u, v, iters, status)


def _all_unassigned(C, r, c) -> LAPResult:
    """An empty side: every row and column unassigned, each dual its price
    (the objective, the prices' sum, whether maximizing or not)."""
    batch = C.shape[:-2]
    valid = _finite(r) & _finite(c)
    status = jnp.where(valid, LAPStatus.OPTIMAL, LAPStatus.INVALID_ENTRIES).astype(jnp.int32)
    status = jnp.broadcast_to(status, batch)
    cfr = jnp.full(r.shape, -1, jnp.int32)
    rfc = jnp.full(c.shape, -1, jnp.int32)
    iters = jnp.zeros(batch, jnp.int32)
    return finished_result(cfr, rfc, jnp.concatenate([r, c], axis=-1), r, c, iters, status)


def _price_tangent(r, c, dr, dc, res: LAPResult) -> jax.Array | None:
    """The objective's tangent along the prices: ``dr`` on the unassigned
    rows, ``dc`` on the unassigned columns (the envelope theorem); None for
    integer prices, which have none."""
    if not jnp.issubdtype(r.dtype, jnp.inexact):
        return None
    zero = jnp.zeros((), r.dtype)
    dr = jnp.zeros_like(r) if _is_zero(dr) else dr
    dc = jnp.zeros_like(c) if _is_zero(dc) else dc
    rows = jnp.sum(jnp.where(res.col_for_row < 0, dr, zero), axis=-1)
    return rows + jnp.sum(jnp.where(res.row_for_col < 0, dc, zero), axis=-1)


def _is_zero(t) -> bool:
    """Whether ``t`` is the tangent of an operand without one (float0)."""
    return getattr(t, "dtype", None) == jax.dtypes.float0


# As the dense solve's entry points: a Python-bool ``maximize`` stays static,
# a traced one is an operand without a tangent.
@functools.partial(jax.custom_jvp, nondiff_argnums=(3, 4))
def solve_static(C, r, c, maximize: bool, max_iterations: int) -> LAPResult:
    return _solve(C, r, c, maximize, max_iterations)


@solve_static.defjvp
def _solve_static_jvp(maximize, max_iterations, primals, tangents):
    (C, r, c), (dC, dr, dc) = primals, tangents
    res = solve_static(C, r, c, maximize, max_iterations)
    return res, cost_tangent(C, dC, res, _price_tangent(r, c, dr, dc, res))


@functools.partial(jax.custom_jvp, nondiff_argnums=(4,))
def solve_traced(C, r, c, maximize: jax.Array, max_iterations: int) -> LAPResult:
    return _solve(C, r, c, maximize, max_iterations)


@solve_traced.defjvp
def _solve_traced_jvp(max_iterations, primals, tangents):
    (C, r, c, maximize), (dC, dr, dc, _) = primals, tangents
    res = solve_traced(C, r, c, maximize, max_iterations)
    return res, cost_tangent(C, dC, res, _price_tangent(r, c, dr, dc, res))


#: The eager calls' compiled programs (``maximize`` static or traced).
EAGER = {
    False: jax.jit(solve_static, static_argnums=(3, 4)),
    True: jax.jit(solve_traced, static_argnums=(4,)),
}
