"""What every dense LAP solver shares: the checks and kernel dtype of the
costs, ``maximize`` as a sign, the entries' validity, and the finished
:class:`~jaxmatch.LAPResult` (exact int32 totals, the assignment cleared
unless optimal, the cost's tangent)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._exact_sum import exact_integer_sum
from .._float64 import warn_if_rounded
from .types import LAPResult, LAPStatus


def x64_enabled() -> bool:
    return bool(jax.config.read("jax_enable_x64"))


_ACCEPTED_DTYPES = (
    "bool, integer (int8-int32, uint8-uint16; int64/uint32/uint64 under "
    "jax_enable_x64) or floating (float16, bfloat16, float32; float64 under "
    "jax_enable_x64)"
)


def canonical_costs(C) -> jax.Array:
    """Checks rank and dtype (at trace time) and picks the kernel dtype.

    Floating dtypes narrower than 32 bits (float16, bfloat16 and the other
    ML floats) are solved in float32; float64 in float64 under x64, else
    float32.
    """
    if not isinstance(C, jax.Array) and not hasattr(C, "dtype"):
        C = np.asarray(C)
    dtype = np.dtype(C.dtype)
    if jnp.issubdtype(dtype, jnp.complexfloating):
        raise TypeError(f"cost matrix must be real, got dtype {dtype}")
    # jnp.issubdtype knows the ML dtypes (bfloat16, float8, int4), whose
    # NumPy kind is "V".
    is_float = jnp.issubdtype(dtype, jnp.floating)
    is_int = jnp.issubdtype(dtype, jnp.integer) or dtype == np.bool_
    if not (is_float or is_int):
        raise TypeError(
            f"cost matrix has the non-numeric dtype {dtype}; expected {_ACCEPTED_DTYPES}"
        )
    if C.ndim < 2:
        raise ValueError(
            "expected a matrix (2-D array) or a batch of matrices [..., n, m], "
            f"got a {C.ndim} array"
        )
    if is_float:
        if isinstance(C, np.ndarray):
            warn_if_rounded(C, "costs", stacklevel=3)
        wide = dtype == np.float64 and x64_enabled()
        target = jnp.float64 if wide else jnp.float32
    elif dtype.itemsize <= 4 and not (
        jnp.issubdtype(dtype, jnp.unsignedinteger) and dtype.itemsize == 4
    ):
        target = jnp.int32
    elif x64_enabled():
        # int64 / uint32 / uint64: exact in float64 up to 2**53.
        target = jnp.float64
    elif isinstance(C, np.ndarray):
        # Concrete wide integers without x64: int32 if every value fits.
        info = np.iinfo(np.int32)
        if C.size and (C.min() < info.min + 1 or C.max() > info.max):
            raise OverflowError(
                "integer costs outside the int32 range need jax_enable_x64 "
                "(they are then solved in float64)"
            )
        target = jnp.int32
    else:
        raise TypeError(
            f"{dtype} costs need jax_enable_x64 (solved in float64); cast to int32 or float32 first"
        )
    if isinstance(C, jax.Array) and dtype == target and not C.weak_type:
        return C  # as jnp.asarray would return it, without its eager call
    return jnp.asarray(C, dtype=target)


def maximize_flag(maximize, batch: tuple[int, ...]) -> bool | jax.Array:
    """A Python bool when ``maximize`` is concrete, else a traced bool array
    broadcastable to the batch shape (``jnp.where`` then flips the signs)."""
    if not isinstance(maximize, jax.core.Tracer):
        a = np.asarray(maximize)
        if a.ndim == 0:
            if a.dtype.kind not in "biu":
                raise TypeError(f"maximize must be a bool, got dtype {a.dtype}")
            return bool(a)
    flag = jnp.asarray(maximize)
    if not (flag.dtype == jnp.bool_ or jnp.issubdtype(flag.dtype, jnp.integer)):
        raise TypeError(f"maximize must be a bool, got dtype {flag.dtype}")
    try:
        shape = np.broadcast_shapes(flag.shape, batch)
    except ValueError:
        shape = None
    if shape != tuple(batch):
        raise ValueError(
            f"maximize of shape {flag.shape} does not broadcast to the batch shape {batch}"
        )
    return flag.astype(bool)


def flip(x: jax.Array, maximize: bool | jax.Array, axes: int) -> jax.Array:
    """``-x`` where ``maximize``; ``axes`` trailing axes of ``x`` are not
    batch axes (``maximize`` is a bool or a ``[...]`` batch array)."""
    if isinstance(maximize, bool):
        return -x if maximize else x
    return jnp.where(maximize.reshape(maximize.shape + (1,) * axes), -x, x)


def valid_entries(Ck: jax.Array) -> jax.Array:
    """Per problem: no NaN and no -inf (forbidden entries are +inf)."""
    if jnp.issubdtype(Ck.dtype, jnp.floating):
        bad = jnp.isnan(Ck) | (Ck == -jnp.inf)
        return ~jnp.any(bad, axis=(-2, -1))
    return jnp.ones(Ck.shape[:-2], dtype=bool)


def _total_cost(vals: jax.Array, ok: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The sum of the matched costs ``vals`` (``[..., k]``, 0 where none):
    exact for int32 (with whether it fits), NaN or 0 where not ``ok``."""
    if jnp.issubdtype(vals.dtype, jnp.integer):
        total, fits = exact_integer_sum(vals)
        return jnp.where(ok & fits, total, 0), fits
    total = jnp.sum(vals, axis=-1)
    return jnp.where(ok, total, jnp.nan), jnp.ones(ok.shape, bool)


def finished_result(
    col_for_row: jax.Array,
    row_for_col: jax.Array,
    matched_costs: jax.Array,
    u: jax.Array,
    v: jax.Array,
    iterations: jax.Array,
    status: jax.Array,
    assignment_final: bool = False,
) -> LAPResult:
    """The result of a solve: ``cost`` from ``matched_costs`` (``[..., k]``,
    the cost of each matched pair, 0 elsewhere; an int32 total that does not
    fit makes the status OVERFLOW), and the assignment -1 unless OPTIMAL.
    ``assignment_final``: the solver did both already (JV's kernels), so
    ``status`` and the assignment are taken as they are."""
    ok = status == LAPStatus.OPTIMAL
    cost, fits = _total_cost(matched_costs, ok)
    if assignment_final:
        return LAPResult(col_for_row, row_for_col, cost, u, v, ok, iterations, status)
    status = jnp.where(ok & ~fits, LAPStatus.OVERFLOW, status)
    ok = status == LAPStatus.OPTIMAL
    return LAPResult(
        col_for_row=jnp.where(ok[..., None], col_for_row, -1),
        row_for_col=jnp.where(ok[..., None], row_for_col, -1),
        cost=cost,
        u=u,
        v=v,
        feasible=ok,
        iterations=iterations,
        status=status,
    )


def cost_tangent(C, dC, res: LAPResult, dextra: jax.Array | None = None) -> LAPResult:
    """The tangent of a solve: ``cost`` moves with ``dC`` on the assignment
    (the envelope theorem), plus ``dextra`` (``[...]``: the tangent of the
    objective's other terms, such as the prices of unassigned rows and
    columns); nothing else moves."""
    m = C.shape[-1]
    assign = (res.col_for_row[..., None] == jnp.arange(m)) & (res.col_for_row[..., None] >= 0)
    dcost = jnp.sum(jnp.where(assign, dC, jnp.zeros((), dC.dtype)), axis=(-2, -1))
    if dextra is not None:
        dcost = dcost + dextra
    dcost = jnp.where(res.feasible, dcost, jnp.zeros((), dcost.dtype))

    def no_tangent(x):
        if jnp.issubdtype(x.dtype, jnp.inexact):
            return jnp.zeros_like(x)
        return np.zeros(x.shape, dtype=jax.dtypes.float0)

    return LAPResult(*(no_tangent(x) for x in res))._replace(cost=dcost)


def empty_result(batch: tuple[int, ...], n: int, m: int, dtype) -> LAPResult:
    """The optimal result of problems with an empty side (``n`` or ``m`` 0)."""
    return LAPResult(
        col_for_row=jnp.full((*batch, n), -1, jnp.int32),
        row_for_col=jnp.full((*batch, m), -1, jnp.int32),
        cost=jnp.zeros(batch, dtype),
        u=jnp.zeros((*batch, n), dtype),
        v=jnp.zeros((*batch, m), dtype),
        feasible=jnp.ones(batch, bool),
        iterations=jnp.zeros(batch, jnp.int32),
        status=jnp.full(batch, LAPStatus.OPTIMAL, jnp.int32),
    )
