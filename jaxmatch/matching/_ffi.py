"""The matching custom calls: one ``ffi_call`` per handler, state as named
buffers.

Graph operands (:class:`GraphOperands`): the column CSR, ``col_indptr``
int32 ``[..., n_cols + 1]`` and ``col_indices`` int32 ``[..., nnz_cap]``, and
the row CSR, ``indptr`` int32 ``[..., n_rows + 1]`` and ``indices`` int32
``[..., nnz_cap]`` (read by the greedy and Karp-Sipser initial matchings). Leading
dimensions are batch dimensions; under ``jax.vmap`` the batched dimension
becomes a leading dimension, and a batch sharded over devices is solved where
it lies (``jaxmatch._batch``); the kernels put the batch on the grid.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import numpy as np

from .. import _ffi, _limits
from .._batch import batched_ffi_call, batched_shape
from .types import MatchingStatus


class GraphOperands(NamedTuple):
    """A graph's arrays in the order the kernels take them (module docstring)."""

    col_indptr: jax.Array
    col_indices: jax.Array
    indptr: jax.Array
    indices: jax.Array


class MatchingState(NamedTuple):
    """The state of a (batch of) matching solve(s).

    Attributes:
      col_for_row: int32 ``[..., n_rows]``, the column matched to each row
        (-1 free; -2 transiently marks a path's end inside a phase).
      row_for_col: int32 ``[..., n_cols]``, the row matched to each column.
      info: int32 ``[..., MATCHING_INFO_LEN]``: status and counters (read
        them with :func:`info_field`).
      work: int32 workspace (its layout is the library's).
    """

    col_for_row: jax.Array
    row_for_col: jax.Array
    info: jax.Array
    work: jax.Array


@functools.cache
def _checked() -> None:
    _ffi.register()
    _ffi.check_enum(MatchingStatus, "MATCHING_STATUS_")


def code(kind: str, name: str) -> int:
    """The library's code of an option, e.g. ``code("DRIVER", "apfb")``."""
    _checked()
    return _ffi.constant(f"MATCHING_{kind}_{name.upper()}")


def info_field(info: jax.Array, name: str) -> jax.Array:
    """One field of ``info`` (``"STATUS"``, ``"N_PHASES"``, ``"N_LEVELS"``):
    int32 ``[...]``."""
    return info[..., _ffi.constant(f"MATCHING_INFO_{name}")]


def _state_shapes(n_rows: int, n_cols: int) -> Callable[[tuple[int, ...]], MatchingState]:
    """The state's shapes for leading dimensions ``lead``."""

    def shapes(lead: tuple[int, ...]) -> MatchingState:
        return MatchingState(
            col_for_row=batched_shape(lead, n_rows),
            row_for_col=batched_shape(lead, n_cols),
            info=batched_shape(lead, _ffi.constant("MATCHING_INFO_LEN")),
            work=batched_shape(lead, _ffi.matching_workspace_len(n_rows, n_cols)),
        )

    return shapes


def _attrs(**kw: int) -> dict[str, np.int32]:
    return {k: np.int32(v) for k, v in kw.items()}


def matching_init(graph: GraphOperands, rm0, cm0, *, init: int) -> MatchingState:
    """Initial matching (none, cheap, Karp-Sipser or the warm start rm0/cm0)
    and BFS array."""
    _checked()
    out = batched_ffi_call(
        "jaxmatch_matching_init",
        _state_shapes(rm0.shape[-1], cm0.shape[-1]),
        [*graph, rm0, cm0],
        [1] * 6,
        _attrs(init=init),
    )
    return MatchingState(*out)


def matching_step(
    graph: GraphOperands,
    state: MatchingState,
    *,
    levels: int,
    mapping: int,
    restart_levels: int,
    **options: int,
) -> MatchingState:
    """Up to ``levels`` BFS levels, then Alternate + FixMatching if due.

    ``restart_levels``: the stepped CUDA solver restarts once from the
    ordered greedy matching (which reads the row CSR ``indptr``/``indices``) once
    the BFS has run this many levels in all, in the middle of a phase or at
    its end; 0: never. ``options``: driver,
    bfs, max_phases, hybrid_depth, auto_free_divisor, keep_trees_divisor.
    """
    _checked()
    out = batched_ffi_call(
        "jaxmatch_matching_step",
        _state_shapes(state.col_for_row.shape[-1], state.row_for_col.shape[-1]),
        [*graph, *state],
        [1] * (4 + len(state)),
        _attrs(levels=levels, mapping=mapping, restart_levels=restart_levels, **options),
        input_output_aliases={k + 4: k for k in range(len(MatchingState._fields))},
    )
    return MatchingState(*out)


def matching_solve(graph: GraphOperands, rm0, cm0, *, init: int, **options: int) -> MatchingState:
    """Initialisation and the whole solve in one call (fused)."""
    _checked()
    out = batched_ffi_call(
        "jaxmatch_matching_solve",
        _state_shapes(rm0.shape[-1], cm0.shape[-1]),
        [*graph, rm0, cm0],
        [1] * 6,
        _attrs(init=init, **options),
    )
    return MatchingState(*out)


@functools.cache
def _host_entry() -> tuple[Any, int, int]:
    """The host entry point with its argument types, the info length and the
    status slot (looked up once)."""
    _checked()
    fn = _ffi.cpu_library().jaxmatch_matching_solve_host
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 2 + [ctypes.c_int] * 6
    fn.argtypes += [ctypes.c_void_p] * 3
    return fn, _ffi.constant("MATCHING_INFO_LEN"), _ffi.constant("MATCHING_INFO_STATUS")


def solve_host(
    col_indptr: np.ndarray, col_indices: np.ndarray, n_rows: int, *, init: str, **options: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Solves one graph on the calling thread, without XLA.

    Args:
      col_indptr: int32 ``[n_cols + 1]`` column pointers.
      col_indices: int32 ``[cap]`` row indices (duplicates in a column
        allowed).
      n_rows: number of rows.
      init: ``"none"`` or ``"cheap"`` (the host entry has no row CSR, so
        no ``"karp_sipser"``).
      options: driver, bfs, max_phases, hybrid_depth, auto_free_divisor
        (library codes and values).

    Returns:
      ``(col_for_row, row_for_col, status)``: int32 ``[n_rows]``, ``[n_cols]``
      and a :class:`MatchingStatus` code.
    """
    fn, info_len, status_slot = _host_entry()
    _limits.check_csr((n_rows, len(col_indptr) - 1), len(col_indices), "the graph")
    col_indptr = np.ascontiguousarray(col_indptr, np.int32)
    col_indices = np.ascontiguousarray(col_indices, np.int32)
    n_cols = col_indptr.shape[0] - 1
    out = np.empty(n_rows + n_cols + info_len, np.int32)  # col_for_row, row_for_col, info
    o = out.ctypes.data
    names = ("driver", "bfs", "max_phases", "hybrid_depth", "auto_free_divisor")
    rc = fn(
        n_rows, n_cols, col_indices.shape[0], col_indptr.ctypes.data, col_indices.ctypes.data,
        code("INIT", init), *(options[k] for k in names),
        o, o + 4 * n_rows, o + 4 * (n_rows + n_cols),
    )  # fmt: skip
    if rc != 0:  # pragma: no cover - the wrapper validates first
        raise ValueError(f"jaxmatch_matching_solve_host rejected its arguments ({rc})")
    status = int(out[n_rows + n_cols + status_slot])
    return out[:n_rows], out[n_rows : n_rows + n_cols], status
