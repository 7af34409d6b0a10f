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

from .. import _ffi
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
def _checked() -> None:
    _ffi.register()
    _ffi.check_enum(LAPStatus, "LAP_STATUS_")


def variant_code(method: str) -> int:
    """The library's code of a variant ("tree", "classical" or "jv")."""
    _checked()
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
    _checked()
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
    _checked()
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
    _checked()
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
    _checked()
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


class SplitState(NamedTuple):
    """One device's state of a split solve (``jaxmatch.solve_lap_split``;
    ``cuda_ffi/lap/lap_split_steps.h``): ``m`` columns, ``nl`` rows here,
    ``n_pad`` rows over all devices. Column fields and ``cfr``/``winner`` are
    equal on every device; row fields are this device's.

    Attributes:
      key: ``[m]``, C's dtype. Least ``c_ij - u_i + D_i`` over the forest.
      col_D: ``[m]``, C's dtype. ``D`` when the column joined the forest.
      v: ``[m]``, C's dtype. Column duals.
      u: ``[nl]``, C's dtype. This device's row duals.
      row_D: ``[nl]``, C's dtype. ``D`` when the row joined the forest.
      D: ``[1]``, C's dtype. The phase's total dual change.
      parent: int32 ``[m]``. The row reaching ``key``.
      col_tree: int32 ``[m]``. 1 where the column is in the forest.
      row_for_col: int32 ``[m]``. -1 free.
      root: int32 ``[m]``. Scratch.
      col_for_row: int32 ``[n_pad]``. -1 free.
      winner: int32 ``[n_pad]``. Scratch, ``INT32_MAX`` between phases.
      row_tree: int32 ``[nl]``. 1 where the row is in the forest.
      pending: int32 ``[nl]``. This device's rows to scan (local indices),
        ``info[COUNT]`` of them.
      info: int32 ``[LAP_SPLIT_INFO_LEN]``: status, iterations, pending
        count, first row (read with :func:`split_info_slot`), then a back
        end's scratch, zero between iterations.
    """

    key: jax.Array
    col_D: jax.Array
    v: jax.Array
    u: jax.Array
    row_D: jax.Array
    D: jax.Array
    parent: jax.Array
    col_tree: jax.Array
    row_for_col: jax.Array
    root: jax.Array
    col_for_row: jax.Array
    winner: jax.Array
    row_tree: jax.Array
    pending: jax.Array
    info: jax.Array


def split_info_slot(name: str) -> int:
    """The slot of field ``name`` (``"STATUS"``, ``"ITERS"``, ``"COUNT"``,
    ``"ROW0"``) in a split solve's ``info``."""
    _checked()
    return _ffi.constant(f"LAP_SPLIT_INFO_{name}")


def split_info(status: jax.Array, count: jax.Array, row0: jax.Array) -> jax.Array:
    """A split solve's ``info`` at its start (int32 scalars in)."""
    _checked()
    info = jnp.zeros((_ffi.constant("LAP_SPLIT_INFO_LEN"),), jnp.int32)
    for name, value in (("STATUS", status), ("COUNT", count), ("ROW0", row0)):
        info = info.at[split_info_slot(name)].set(jnp.asarray(value, jnp.int32))
    return info


def split_scan(
    C: jax.Array, u: jax.Array, row_D: jax.Array, pending: jax.Array, info: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """The least ``C_ij - u_i + D_i`` per column over this device's pending
    rows (``C [nl, m]``), and the least global row attaining it
    (``INT32_MAX``: none): ``[m]`` each."""
    _checked()
    m = C.shape[1]
    shapes = (jax.ShapeDtypeStruct((m,), C.dtype), jax.ShapeDtypeStruct((m,), jnp.int32))
    # Under jax.vmap (a batch of split problems) members are scanned one
    # after another; the update leaves a finished member as it is.
    call = jax.ffi.ffi_call("jaxmatch_lap_split_scan", shapes, vmap_method="sequential")
    best, arg = call(C, u, row_D, pending, info)
    return best, arg


def split_update(
    C: jax.Array,
    bests: jax.Array,
    args: jax.Array,
    state: SplitState,
    *,
    n: int,
    max_iterations: int,
) -> SplitState:
    """One iteration of the split forest after the scans: ``bests`` and
    ``args`` ``[devices, m]`` are every device's :func:`split_scan` results;
    ``n`` the real rows."""
    _checked()
    shapes = tuple(jax.ShapeDtypeStruct(x.shape, x.dtype) for x in state)
    out = jax.ffi.ffi_call(
        "jaxmatch_lap_split_update",
        shapes,
        input_output_aliases={k + 3: k for k in range(len(state))},
        vmap_method="sequential",
    )(C, bests, args, *state, n=np.int32(n), max_iterations=np.int32(max_iterations))
    return SplitState(*out)


def points_limit(name: str) -> int:
    """A limit of :func:`points_sweep`: ``"MAX_K"`` (pairs per row) or
    ``"MAX_DIM"`` (the points' dimension)."""
    _checked()
    return _ffi.constant(f"LAP_POINTS_{name}")


def points_sweep(
    X: jax.Array, u: jax.Array, YT: jax.Array, v: jax.Array, *, metric: str, k: int, negate: bool
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """For each row of ``X [b, d]``: the ``k`` pairs of least reduced cost
    ``s * cost(x_i, y_j) - u_i - v_j`` over the points ``YT [d, m]`` (``Y``
    transposed), least value then least column first (NaN as ``-inf``), ``s
    = -1`` when ``negate``; built-in ``metric`` only, ``k <=
    points_limit("MAX_K")``, ``d <= points_limit("MAX_DIM")``. Returns
    ``cols`` int32 ``[b, k]``, their costs ``s * cost`` ``[b, k]`` and each
    row's largest ``|cost|`` ``[b]`` (NaN where a cost is)."""
    _checked()
    b, dtype = X.shape[0], X.dtype
    shapes = (
        jax.ShapeDtypeStruct((b, k), jnp.int32),
        jax.ShapeDtypeStruct((b, k), dtype),
        jax.ShapeDtypeStruct((b,), dtype),
    )
    code = _ffi.constant(f"LAP_POINTS_{metric.upper()}")
    call = jax.ffi.ffi_call("jaxmatch_lap_points_sweep", shapes)
    cols, cost, cost_max = call(X, u, YT, v, metric=np.int32(code), negate=np.int32(bool(negate)))
    return cols, cost, cost_max


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
    _checked()
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


@functools.cache
def _sparse_host_entry() -> Any:
    _checked()
    fn = _ffi.cpu_library().jaxmatch_sparse_lap_solve_host
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_int] * 2 + [ctypes.c_void_p] * 5 + [ctypes.c_int]
    fn.argtypes += [ctypes.c_void_p] * 5
    return fn


def solve_sparse_host(
    indptr: np.ndarray,
    indices: np.ndarray,
    cost: np.ndarray,
    n: int,
    m: int,
    warm: tuple[np.ndarray, np.ndarray] | None = None,
    row_reduction_bound: int = 0,
) -> HostSolution:
    """Solves one sparse problem of ``n <= m`` rows and columns (CSR, float64
    costs, ``+inf`` = no edge) on the calling thread; the duals are float64.

    ``warm``: an earlier assignment ``col_for_row [n]`` (``-1``: none) and
    column duals ``v [m]`` to start from (square problems only): rows keep
    their column where it is still at their least reduced cost.
    ``row_reduction_bound``: visits per row of the augmenting row reduction
    (``cuda_ffi/lap/lap_sparse_jv.h``); 0 for Jonker and Volgenant's ``n``.

    The caller validates the CSR (pointers non-decreasing from 0 to
    ``len(indices)``, column indices in ``[0, m)``).
    """
    fn = _sparse_host_entry()
    info_len, status_slot = _ffi.constant("LAP_INFO_LEN"), _ffi.constant("LAP_INFO_STATUS")
    indptr = np.ascontiguousarray(indptr, np.int64)
    indices = np.ascontiguousarray(indices, np.int32)
    cost = np.ascontiguousarray(cost, np.float64)
    x0 = v0 = None
    if warm is not None:
        if n != m:
            raise ValueError("a warm start needs a square problem")
        x0 = np.ascontiguousarray(warm[0], np.int32)
        v0 = np.ascontiguousarray(warm[1], np.float64)
        if x0.shape != (n,) or v0.shape != (m,):
            raise ValueError(f"a warm start of shapes {x0.shape}, {v0.shape} for {n} x {m}")
    ints = np.empty(n + m + info_len, np.int32)  # col_for_row, row_for_col, info
    duals = np.empty(n + m, np.float64)  # u, v
    i0, d0 = ints.ctypes.data, duals.ctypes.data
    rc = fn(
        n, m, indptr.ctypes.data, indices.ctypes.data, cost.ctypes.data,
        None if x0 is None else x0.ctypes.data, None if v0 is None else v0.ctypes.data,
        int(row_reduction_bound), i0, i0 + 4 * n, d0, d0 + 8 * n, i0 + 4 * (n + m),
    )  # fmt: skip
    if rc != 0:  # pragma: no cover - the wrapper validates first
        raise ValueError(f"jaxmatch_sparse_lap_solve_host rejected its arguments ({rc})")
    return HostSolution(
        col_for_row=ints[:n],
        row_for_col=ints[n : n + m],
        u=duals[:n],
        v=duals[n:],
        status=int(ints[n + m + status_slot]),
    )
