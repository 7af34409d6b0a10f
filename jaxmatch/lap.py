"""The linear assignment problem: GPU Hungarian algorithms as JAX primitives.

Two variants of Date & Nagi (2016), both finding many vertex-disjoint
augmenting paths per pass:

* ``"tree"`` -- the alternating-tree (Lawler, O(n^3)) variant: one thread per
  column keeps its least slack and predecessor row.
* ``"classical"`` -- the Munkres (O(n^4)) variant: zero-slack edges are
  compressed into per-row lists, rebuilt after each dual update.

Two execution shapes:

* ``"stepped"`` -- ``lax.while_loop`` over a step call (forward pass, reverse
  + augmentation or dual update, control); a problem is spread over many
  thread blocks. Right for large problems.
* ``"fused"`` -- one call runs the whole solve, a thread block per problem on
  the GPU. Right for small problems and large batches (launch latency
  dominates them).
"""

from __future__ import annotations

import functools
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import _compat
from . import _lap_layout as layout
from . import _primitives
from .types import LAPResult, LAPStatus

Method = Literal["auto", "tree", "classical"]
Execution = Literal["auto", "fused", "stepped"]

#: Main-loop iterations per ``lax.while_loop`` iteration of the stepped solver.
STEPPED_ITERATIONS_PER_CALL = 4
#: On the GPU, problems with at most this many columns run fused by default.
#: Measured on an H100 (benchmarks/README.md): fused wins at 16 x 1024^2
#: (57 ms vs 154 ms stepped with command buffers), stepped wins at 2000^2
#: (19-27 ms vs 41 ms).
FUSED_MAX_COLUMNS = 1024


def _canonical_costs(C) -> jax.Array:
    """Checks rank and dtype (at trace time) and picks the kernel dtype."""
    if not isinstance(C, jax.Array) and not hasattr(C, "dtype"):
        C = np.asarray(C)
    dtype = np.dtype(C.dtype)
    if dtype.kind == "c":
        raise TypeError(f"cost matrix must be real, got dtype {dtype}")
    if dtype.kind not in "biuf":
        raise TypeError(f"cost matrix must be numeric, got dtype {dtype}")
    if C.ndim < 2:
        raise ValueError(
            "expected a matrix (2-D array) or a batch of matrices [..., n, m], "
            f"got a {C.ndim} array"
        )
    if dtype.kind == "f":
        wide = dtype == np.float64 and _compat.x64_enabled()
        target = jnp.float64 if wide else jnp.float32
    elif dtype.itemsize <= 4 and not (dtype.kind == "u" and dtype.itemsize == 4):
        target = jnp.int32
    elif _compat.x64_enabled():
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
            f"{dtype} costs need jax_enable_x64 (solved in float64); cast to "
            "int32 or float32 first"
        )
    return jnp.asarray(C, dtype=target)


def _resolve_method(method: str) -> int:
    if method == "auto":
        method = "tree"
    if method not in layout.VARIANTS:
        raise ValueError(
            f"method must be one of 'auto', 'tree', 'classical'; got {method!r}"
        )
    return layout.VARIANTS[method]


def _resolve_execution(execution: str, n: int, m: int) -> str:
    if execution not in ("auto", "fused", "stepped"):
        raise ValueError(
            f"execution must be one of 'auto', 'fused', 'stepped'; got {execution!r}"
        )
    if execution != "auto":
        return execution
    if _compat.default_backend() == "cpu":
        return "fused"
    return "fused" if m <= FUSED_MAX_COLUMNS else "stepped"


def _valid_entries(Ck: jax.Array) -> jax.Array:
    """Per problem: no NaN and no -inf (forbidden entries are +inf)."""
    if jnp.issubdtype(Ck.dtype, jnp.floating):
        bad = jnp.isnan(Ck) | (Ck == -jnp.inf)
        return ~jnp.any(bad, axis=(-2, -1))
    return jnp.ones(Ck.shape[:-2], dtype=bool)


def _exact_int32_sum(vals: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Exact sum over the last axis of int32 values (< 65536 of them).

    Returns ``(total, fits)``: the sum (wrapped when it does not fit) and
    whether it fits in int32.
    """
    hi = vals >> 16  # arithmetic shift: [-32768, 32767]
    mid = (vals >> 8) & 0xFF
    lo = vals & 0xFF
    s_hi, s_mid, s_lo = (jnp.sum(x, axis=-1) for x in (hi, mid, lo))
    t1 = s_mid + (s_lo >> 8)
    t2 = s_hi + (t1 >> 8)
    fits = (t2 >= -32768) & (t2 <= 32767)
    total = (t2 << 16) | ((t1 & 0xFF) << 8) | (s_lo & 0xFF)
    return total, fits


def _assignment_cost(C, col_for_row, ok):
    safe = jnp.clip(col_for_row, 0, None)
    vals = jnp.take_along_axis(C, safe[..., None], axis=-1)[..., 0]
    vals = jnp.where(col_for_row >= 0, vals, jnp.zeros((), C.dtype))
    if jnp.issubdtype(C.dtype, jnp.integer):
        if C.shape[-2] >= 65536:
            raise ValueError("int32 costs support at most 65535 rows; use floats")
        total, fits = _exact_int32_sum(vals)
        return jnp.where(ok & fits, total, 0), fits
    total = jnp.sum(vals, axis=-1)
    return jnp.where(ok, total, jnp.nan), jnp.ones(ok.shape, bool)


def _run_solver(Ck: jax.Array, variant: int, execution: str):
    if execution == "fused":
        return _primitives.lap_solve(Ck, variant=variant)
    state = _primitives.lap_init(Ck, variant=variant)

    def running(state):
        return jnp.any(state[0][..., layout.STATUS] == layout.RUNNING)

    def step(state):
        return _primitives.lap_step(
            Ck, *state, variant=variant, iterations=STEPPED_ITERATIONS_PER_CALL
        )

    return lax.while_loop(running, step, state)


def _solve(C: jax.Array, maximize: bool, method: str, execution: str) -> LAPResult:
    *batch, n, m = C.shape
    variant = _resolve_method(method)
    transposed = n > m
    Ck = jnp.swapaxes(C, -1, -2) if transposed else C
    nk, mk = Ck.shape[-2:]
    if maximize:
        Ck = -Ck
    valid = _valid_entries(Ck)
    overflow = jnp.zeros(valid.shape, bool)
    if maximize and jnp.issubdtype(C.dtype, jnp.integer):
        overflow = jnp.any(C == jnp.iinfo(jnp.int32).min, axis=(-2, -1))
    ok_input = valid & ~overflow

    if nk == 0:  # an empty side: the empty assignment is optimal
        status = jnp.full(batch, LAPStatus.OPTIMAL, jnp.int32)
        zeros_i = jnp.zeros(batch, jnp.int32)
        return LAPResult(
            col_for_row=jnp.full((*batch, n), -1, jnp.int32),
            row_for_col=jnp.full((*batch, m), -1, jnp.int32),
            cost=jnp.zeros(batch, C.dtype),
            u=jnp.zeros((*batch, n), C.dtype),
            v=jnp.zeros((*batch, m), C.dtype),
            feasible=jnp.ones(batch, bool),
            n_iters=zeros_i,
            status=status,
        )

    Ck = jnp.where(ok_input[..., None, None], Ck, jnp.zeros((), Ck.dtype))
    execution = _resolve_execution(execution, nk, mk)
    istate, tstate = _run_solver(Ck, variant, execution)

    status = istate[..., layout.STATUS]
    status = jnp.where(valid, status, LAPStatus.INVALID_ENTRIES)
    status = jnp.where(overflow, LAPStatus.OVERFLOW, status)
    cfr = istate[..., layout.col_for_row_slice(nk, mk)]
    rfc = istate[..., layout.row_for_col_slice(nk, mk)]
    u = tstate[..., layout.u_slice(nk, mk)]
    v = tstate[..., layout.v_slice(nk, mk)]
    if maximize:
        u, v = -u, -v
    if transposed:
        cfr, rfc, u, v = rfc, cfr, v, u

    ok = status == LAPStatus.OPTIMAL
    cost, fits = _assignment_cost(C, cfr, ok)
    status = jnp.where(ok & ~fits, LAPStatus.OVERFLOW, status)
    ok = status == LAPStatus.OPTIMAL
    return LAPResult(
        col_for_row=jnp.where(ok[..., None], cfr, -1),
        row_for_col=jnp.where(ok[..., None], rfc, -1),
        cost=cost,
        u=u,
        v=v,
        feasible=ok,
        n_iters=istate[..., layout.ITERS],
        status=status,
    )


@functools.partial(jax.custom_jvp, nondiff_argnums=(1, 2, 3))
def _solve_differentiable(C, maximize, method, execution) -> LAPResult:
    return _solve(C, maximize, method, execution)


@_solve_differentiable.defjvp
def _solve_jvp(maximize, method, execution, primals, tangents):
    (C,), (dC,) = primals, tangents
    res = _solve_differentiable(C, maximize, method, execution)
    m = C.shape[-1]
    assign = (res.col_for_row[..., None] == jnp.arange(m)) & (
        res.col_for_row[..., None] >= 0
    )
    dcost = jnp.sum(jnp.where(assign, dC, jnp.zeros((), dC.dtype)), axis=(-2, -1))
    dcost = jnp.where(res.feasible, dcost, jnp.zeros((), dcost.dtype))

    def no_tangent(x):
        if jnp.issubdtype(x.dtype, jnp.inexact):
            return jnp.zeros_like(x)
        return np.zeros(x.shape, dtype=jax.dtypes.float0)

    tangent = LAPResult(*(no_tangent(x) for x in res))._replace(cost=dcost)
    return res, tangent


def solve_lap(
    C: jax.Array,
    *,
    maximize: bool = False,
    method: Method = "auto",
    execution: Execution = "auto",
) -> LAPResult:
    """Solves the linear assignment problem min (or max) sum_i C[i, x(i)].

    Pure and jittable; ``C`` may carry leading batch dimensions, and
    ``jax.vmap`` batches the kernels (the batch is a grid dimension).

    Args:
      C: ``[..., n, m]`` costs: float32, float64 (with ``jax_enable_x64``) or
        int32 (smaller integer and bool dtypes are cast to int32; int64 is
        solved in float64 under x64). ``+inf`` marks a forbidden pair (``-inf``
        with ``maximize=True``). Any of ``n``, ``m`` may be larger, or zero.
      maximize: maximize the total instead.
      method: ``"tree"`` (alternating tree, Lawler), ``"classical"``
        (Munkres), or ``"auto"`` (the tree variant).
      execution: ``"fused"`` (the whole solve in one kernel),
        ``"stepped"`` (``lax.while_loop`` of step kernels) or ``"auto"``.

    Returns:
      A :class:`LAPResult`. Data-dependent failures (NaN, an infeasible
      ``+inf`` pattern, int32 overflow) do not raise: ``feasible`` is False
      and ``status`` says why. ``jax.grad`` of ``cost`` is the assignment
      matrix (the envelope theorem).

    Raises:
      TypeError: non-numeric or complex costs; uint32 costs without x64.
      ValueError: rank below 2, or an unknown ``method``/``execution``.
      OverflowError: concrete 64-bit integer costs outside the int32 range
        without x64 (never wrapped).
    """
    C = _canonical_costs(C)
    _resolve_method(method)
    _resolve_execution(execution, 0, 0)
    return _solve_differentiable(C, bool(maximize), method, execution)


def hungarian(
    C: jax.Array, *, maximize: bool = False, method: Method = "auto"
) -> jax.Array:
    """The optimal assignment of a (batch of) cost matrix(es).

    Args:
      C: ``[..., n, m]`` costs; see :func:`solve_lap`.
      maximize: maximize the total instead.
      method: ``"auto"``, ``"tree"`` or ``"classical"``.

    Returns:
      int32 ``[..., n]``: the column assigned to each row, ``-1`` for rows
      left unassigned when ``n > m`` (and for every row of an infeasible
      problem; use :func:`solve_lap` to tell).
    """
    return solve_lap(C, maximize=maximize, method=method).col_for_row


@functools.partial(jax.jit, static_argnames=("maximize",))
def _solve_jit(C, maximize):
    return solve_lap(C, maximize=maximize)


def linear_sum_assignment(cost_matrix, maximize: bool = False):
    """Drop-in for :func:`scipy.optimize.linear_sum_assignment` (eager).

    Args:
      cost_matrix: a 2-D array of costs.
      maximize: calculate a maximum weight matching instead.

    Returns:
      ``(row_ind, col_ind)``: NumPy integer arrays of length ``min(n, m)``,
      ``row_ind`` sorted, as scipy returns them.

    Raises:
      ValueError: with scipy's messages -- ``expected a matrix (2-D array),
        got a {ndim} array``, ``matrix contains invalid numeric entries``,
        ``cost matrix is infeasible``.
      TypeError: a non-numeric matrix.
      OverflowError: integer costs whose arithmetic does not fit in int32
        (pass float costs instead).
    """
    a = np.asarray(cost_matrix)
    if a.dtype.kind not in "biuf":
        raise TypeError(
            f"Cannot cast array data from {a.dtype!r} to dtype('float64') "
            "according to the rule 'safe'"
        )
    if a.ndim != 2:
        raise ValueError(f"expected a matrix (2-D array), got a {a.ndim} array")
    if a.size == 0:
        empty = np.array([], dtype=np.intp)
        return empty, empty.copy()
    if a.dtype.kind == "f":
        invalid = np.isnan(a) | (a == (np.inf if maximize else -np.inf))
        if invalid.any():
            raise ValueError("matrix contains invalid numeric entries")
    else:
        info = np.iinfo(np.int32)
        if a.min() >= info.min + 1 and a.max() <= info.max:
            a = a.astype(np.int32)  # exact int32 arithmetic whenever it fits
    # Canonicalise eagerly, on the NumPy array: inside jit, wide integers
    # would already have been narrowed.
    res = jax.device_get(_solve_jit(_canonical_costs(a), bool(maximize)))
    status = int(res.status)
    if status == LAPStatus.OVERFLOW:
        raise OverflowError(
            "int32 arithmetic overflowed while solving; pass float costs"
        )
    if not bool(res.feasible):
        raise ValueError("cost matrix is infeasible")
    cfr = np.asarray(res.col_for_row)
    row_ind = np.flatnonzero(cfr >= 0).astype(np.intp)
    return row_ind, cfr[row_ind].astype(np.intp)
