"""The LAP custom calls: one ``ffi_call`` per handler, state as named buffers.

Every call treats leading dimensions as batch dimensions; under ``jax.vmap``
the batched dimension becomes a leading dimension, and a batch sharded over
devices is solved where it lies (``jaxmatch._batch``); the kernels put the
batch on the grid.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .. import _ffi, _limits
from .._batch import batched_ffi_call, batched_shape
from .types import LAPStatus


class LapState(NamedTuple):
    """The state of a (batch of) LAP solve(s); each field is ``[..., len]``.

    Attributes:
      col_for_row: int32 ``[..., n]``, the column of each row, -1 free.
      row_for_col: int32 ``[..., m]``, the row of each column, -1 free.
      u: ``[..., n]``, the cost dtype. Row duals.
      v: ``[..., m]``, the cost dtype. Column duals.
      info: int32 ``[..., LAP_INFO_LEN]``: status and counters (read them
        with :func:`info_field`).
      work: int32 workspace (its layout is the library's).
      twork: cost-dtype workspace.
    """

    col_for_row: jax.Array
    row_for_col: jax.Array
    u: jax.Array
    v: jax.Array
    info: jax.Array
    work: jax.Array
    twork: jax.Array


@functools.cache
def checked() -> None:
    _ffi.register()
    _ffi.check_enum(LAPStatus, "LAP_STATUS_")


def variant_code(method: str) -> int:
    """The library's code of a variant ("tree", "classical" or "jv")."""
    checked()
    return _ffi.constant(f"LAP_VARIANT_{method.upper()}")


def info_field(info: jax.Array, name: str) -> jax.Array:
    """One field of ``info`` (``"STATUS"``, ``"ITERS"``, ``"N_DUAL"``,
    ``"N_AUG_PHASES"``): int32 ``[...]``."""
    return info[..., _ffi.constant(f"LAP_INFO_{name}")]


def info_field_added(info: jax.Array, name: str, amount: jax.Array) -> jax.Array:
    """``info`` with ``amount`` (int32 ``[...]``) added to its field ``name``."""
    return info.at[..., _ffi.constant(f"LAP_INFO_{name}")].add(amount)


def info_of(status: jax.Array, iterations: jax.Array) -> jax.Array:
    """A solve's ``info`` (int32 ``[LAP_INFO_LEN]``) holding ``status`` and
    ``iterations`` (int32 scalars), its other fields zero."""
    checked()
    info = jnp.zeros((_ffi.constant("LAP_INFO_LEN"),), jnp.int32)
    info = info.at[_ffi.constant("LAP_INFO_STATUS")].set(status)
    return info.at[_ffi.constant("LAP_INFO_ITERS")].set(iterations)


def _state_shapes(C: jax.Array, variant: int) -> Callable[[tuple[int, ...]], LapState]:
    """The state's shapes for leading dimensions ``lead`` (C's problem shape
    and dtype)."""
    n, m = C.shape[-2:]
    dtype = C.dtype
    work, twork = _ffi.lap_workspace_lens(n, m, variant)

    def shapes(lead: tuple[int, ...]) -> LapState:
        def shape(length, dt):
            return batched_shape(lead, length, dt)

        return LapState(
            col_for_row=shape(n, jnp.int32),
            row_for_col=shape(m, jnp.int32),
            u=shape(n, dtype),
            v=shape(m, dtype),
            info=shape(_ffi.constant("LAP_INFO_LEN"), jnp.int32),
            work=shape(work, jnp.int32),
            twork=shape(twork, dtype),
        )

    return shapes


def _from_costs(target: str, C: jax.Array, variant: int, max_iterations: int) -> LapState:
    """A call of ``target`` on the costs alone (a new state)."""
    checked()
    out = batched_ffi_call(
        target,
        _state_shapes(C, variant),
        [C],
        [2],
        dict(variant=np.int32(variant), max_iterations=np.int32(max_iterations)),
    )
    return LapState(*out)


def lap_init(C: jax.Array, *, variant: int, max_iterations: int = 0) -> LapState:
    """Initial reduction and greedy assignment.

    Args:
      C: ``[..., n, m]`` costs (float32, float64 or int32) with ``n <= m``.
      variant: the library's variant code (:func:`variant_code`).
      max_iterations: the main loop's iteration limit (0: the library's
        default bound, which a solve never reaches).
    """
    return _from_costs("jaxmatch_lap_init", C, variant, max_iterations)


def lap_step(C: jax.Array, state: LapState, *, variant: int, iterations: int) -> LapState:
    """``iterations`` iterations of the main loop (no-ops once finished)."""
    checked()
    out = batched_ffi_call(
        "jaxmatch_lap_step",
        _state_shapes(C, variant),
        [C, *state],
        [2] + [1] * len(state),
        dict(variant=np.int32(variant), iterations=np.int32(iterations)),
        input_output_aliases={k + 1: k for k in range(len(LapState._fields))},
    )
    return LapState(*out)


def lap_solve(C: jax.Array, *, variant: int, max_iterations: int = 0) -> LapState:
    """The whole solve in one call (the fused solver); ``max_iterations`` as
    for :func:`lap_init` (JV: augmenting searches)."""
    return _from_costs("jaxmatch_lap_solve", C, variant, max_iterations)


def _warm(
    target: str,
    C: jax.Array,
    x0: jax.Array,
    v0: jax.Array,
    variant: int,
    max_iterations: int,
    auction: bool = False,
) -> LapState:
    """A call of ``target`` on the costs and a warm start (a new state)."""
    checked()
    attrs = dict(
        max_iterations=np.int32(max_iterations),
        variant=np.int32(variant),
        auction=np.int32(auction),
    )
    out = batched_ffi_call(target, _state_shapes(C, variant), [C, x0, v0], [2, 1, 1], attrs)
    return LapState(*out)


def lap_solve_warm(
    C: jax.Array,
    x0: jax.Array,
    v0: jax.Array,
    *,
    variant: int,
    max_iterations: int = 0,
    auction: bool = False,
) -> LapState:
    """The whole solve from an earlier one: ``x0`` (int32 ``[..., n]``, the
    column of each row, -1 none) and ``v0`` (``[..., m]``, C's dtype, the
    column prices). JV (every shape), or the tree or classical variant,
    which start a square problem from ``v0`` and the pairs of ``x0`` that are
    tight there, and a rectangular one cold. ``auction``: the GPU's JV may
    start a square problem with its auction instead, where that runs (for a
    warm start from the tree variant, not from a user's)."""
    return _warm("jaxmatch_lap_solve_warm", C, x0, v0, variant, max_iterations, auction)


def lap_init_warm(
    C: jax.Array, x0: jax.Array, v0: jax.Array, *, variant: int, max_iterations: int = 0
) -> LapState:
    """:func:`lap_init` from an earlier solve (``x0``, ``v0`` as for
    :func:`lap_solve_warm`; the tree or classical variant)."""
    return _warm("jaxmatch_lap_init_warm", C, x0, v0, variant, max_iterations)


class HostSolution(NamedTuple):
    """One problem solved by the host entry point (NumPy arrays)."""

    col_for_row: np.ndarray  # int32 [n]
    row_for_col: np.ndarray  # int32 [m]
    u: np.ndarray  # [n], the cost dtype
    v: np.ndarray  # [m], the cost dtype
    status: int


_HOST_DTYPES = {np.dtype(np.float32): "FLOAT32", np.dtype(np.float64): "FLOAT64"}
_HOST_DTYPES[np.dtype(np.int32)] = "INT32"


@functools.cache
def _host_entry() -> tuple[Any, dict[Any, int], int, int]:
    """The host entry point with its argument types, the dtype codes, the
    info length and the status slot (looked up once)."""
    checked()
    fn = _ffi.cpu_library().jaxmatch_lap_solve_host
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_int] * 4 + [ctypes.c_void_p] * 6
    codes = {dt: _ffi.constant(f"LAP_HOST_{name}") for dt, name in _HOST_DTYPES.items()}
    return fn, codes, _ffi.constant("LAP_INFO_LEN"), _ffi.constant("LAP_INFO_STATUS")


def solve_host(C: np.ndarray, *, variant: int) -> HostSolution:
    """Solves one ``[n, m]`` problem (``n <= m``; float32, float64 or int32)
    on the calling thread, without XLA (no compilation, any shape).

    Args:
      C: costs; ``+inf`` forbids a pair.
      variant: the library's variant code (:func:`variant_code`).
    """
    fn, codes, info_len, status_slot = _host_entry()
    _limits.check_dense_side(C.shape)  # ctypes would wrap larger ints
    n, m = C.shape
    C = np.ascontiguousarray(C)
    ints = np.empty(n + m + info_len, np.int32)  # col_for_row, row_for_col, info
    duals = np.empty(n + m, C.dtype)  # u, v
    i0, d0 = ints.ctypes.data, duals.ctypes.data
    size = C.dtype.itemsize
    rc = fn(
        codes[C.dtype], n, m, variant, C.ctypes.data, i0, i0 + 4 * n,
        d0, d0 + size * n, i0 + 4 * (n + m),
    )  # fmt: skip
    if rc != 0:  # pragma: no cover - the wrapper validates first
        raise ValueError(f"jaxmatch_lap_solve_host rejected its arguments ({rc})")
    status = int(ints[n + m + status_slot])
    return HostSolution(ints[:n], ints[n : n + m], duals[:n], duals[n:], status)


class Solution(NamedTuple):
    """A dense solve's state without its workspaces, whose lengths differ by
    variant (so that every solver a plan may pick returns one shape)."""

    col_for_row: jax.Array
    row_for_col: jax.Array
    u: jax.Array
    v: jax.Array
    info: jax.Array


def solution(state: LapState) -> Solution:
    """``state`` without its workspaces."""
    return Solution(state.col_for_row, state.row_for_col, state.u, state.v, state.info)


def solve_fused(
    Ck: jax.Array,
    variant: int,
    max_iterations: int,
    warm: tuple[jax.Array, jax.Array] | None = None,
    auction: bool = False,
) -> Solution:
    """A whole solve in one call (:func:`lap_solve`, or :func:`lap_solve_warm`
    from ``warm``'s internal ``x0``, ``v0``)."""
    if warm is not None:
        x0, v0 = warm
        state = lap_solve_warm(
            Ck, x0, v0, variant=variant, max_iterations=max_iterations, auction=auction
        )
        return solution(state)
    return solution(lap_solve(Ck, variant=variant, max_iterations=max_iterations))


def lap_solve_unassigned(
    C: jax.Array, row_cost: jax.Array, col_cost: jax.Array, *, max_iterations: int = 0
) -> Solution:
    """JV with a price for leaving each row and column unassigned.

    Minimises the matched costs plus ``row_cost[i]`` for every row left
    unassigned plus ``col_cost[j]`` for every column left unassigned, in one
    call: on the CPU any ``n`` and ``m``; on the GPU ``n <= m`` (a warp or
    a block per problem; :func:`jaxmatch.solve_lap` transposes a tall
    problem).

    Args:
      C: ``[..., n, m]`` costs (float32, float64 or int32); ``+inf`` forbids
        a pair.
      row_cost: ``[..., n]``, C's dtype: the price of leaving each row
        unassigned (finite). Fewer leading dimensions than C's are
        broadcast to C's.
      col_cost: ``[..., m]``, C's dtype: the price of leaving each column
        unassigned (finite); broadcast as ``row_cost``.
      max_iterations: the limit on JV's shortest-path searches (0: none).

    Returns:
      A :class:`Solution`: ``col_for_row`` int32 ``[..., n]`` and
      ``row_for_col`` int32 ``[..., m]`` (-1: unassigned; all -1 unless the
      status is optimal), ``u`` ``[..., n]`` and ``v`` ``[..., m]`` in C's
      dtype (``u_i + v_j <= C_ij``, ``u <= row_cost``, ``v <= col_cost``,
      tight on the matched pairs, ``u_i = row_cost[i]`` on an unassigned
      row, ``v_j = col_cost[j]`` on an unassigned column), and ``info``
      int32 ``[..., LAP_INFO_LEN]`` (:func:`info_field`: ``STATUS`` is
      OPTIMAL, INVALID_ENTRIES for NaN or -inf in C or a non-finite price,
      ITERATION_LIMIT, or OVERFLOW for int32 costs whose total or duals do
      not fit int32; ``ITERS`` counts the searches).
    """
    checked()
    n, m = C.shape[-2:]
    info_len = _ffi.constant("LAP_INFO_LEN")

    def shapes(lead: tuple[int, ...]) -> Solution:
        return Solution(
            col_for_row=batched_shape(lead, n),
            row_for_col=batched_shape(lead, m),
            u=batched_shape(lead, n, C.dtype),
            v=batched_shape(lead, m, C.dtype),
            info=batched_shape(lead, info_len),
        )

    out = batched_ffi_call(
        "jaxmatch_lap_solve_unassigned",
        shapes,
        [C, row_cost, col_cost],
        [2, 1, 1],
        dict(max_iterations=np.int32(max_iterations)),
    )
    return Solution(*out)
