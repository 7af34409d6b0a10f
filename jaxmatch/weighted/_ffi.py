"""The weighted matching custom calls: one ``ffi_call`` per handler, state as
named buffers.

Graph operands: ``indptr`` int32 ``[..., n + 1]``, ``indices`` int32
``[..., capacity]`` and ``key`` uint32 ``[..., capacity]`` (the order of each
stored edge's weight; 0 for edges that are never matched). Leading
dimensions are batch dimensions; under ``jax.vmap`` the batched dimension
becomes a leading dimension, and a batch sharded over devices is solved where
it lies (``jaxmatch._batch``); the kernels put the batch on the grid.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import numpy as np

from .. import _ffi
from .._batch import batched_ffi_call, batched_shape
from .types import WeightedMatchingStatus


class WeightedState(NamedTuple):
    """The state of a (batch of) weighted matching solve(s).

    Attributes:
      mate: int32 ``[..., n]``, the vertex matched to each vertex (-1 free).
      mate_edge: int32 ``[..., n]``, the position of the matched edge.
      info: int32 ``[..., WEIGHTED_INFO_LEN]``: status and counters (read
        them with :func:`info_field`).
      work: int32 workspace (its layout is the library's).
    """

    mate: jax.Array
    mate_edge: jax.Array
    info: jax.Array
    work: jax.Array


@functools.cache
def _checked() -> None:
    _ffi.register()
    _ffi.check_enum(WeightedMatchingStatus, "WEIGHTED_STATUS_")


def method_code(name: str) -> int:
    """The library's code of a method (``"suitor"`` or ``"ld"``)."""
    _checked()
    return _ffi.constant(f"WEIGHTED_METHOD_{name.upper()}")


def info_field(info: jax.Array, name: str) -> jax.Array:
    """One field of ``info`` (``"STATUS"``, ``"N_ROUNDS"``,
    ``"N_PROPOSALS"``): int32 ``[...]``."""
    return info[..., _ffi.constant(f"WEIGHTED_INFO_{name}")]


def ends_differ(info: jax.Array, prefix: str = "WEIGHTED_INFO_") -> jax.Array:
    """bool ``[...]``: the init found the graph's pointers and entries good
    but its two ends storing different pairs or keys (the stored entries'
    hash balance, a 64-bit word in two slots, is nonzero). ``prefix``:
    ``"WEIGHTED_INFO_"`` or ``"WEIGHTED_B_INFO_"``."""
    low = _ffi.constant(f"{prefix}BALANCE")
    high = _ffi.constant(f"{prefix}BALANCE_HIGH")
    return (info[..., low] != 0) | (info[..., high] != 0)


def _state_shapes(n: int) -> Callable[[tuple[int, ...]], WeightedState]:
    """The state's shapes for leading dimensions ``lead``."""

    def shapes(lead: tuple[int, ...]) -> WeightedState:
        return WeightedState(
            mate=batched_shape(lead, n),
            mate_edge=batched_shape(lead, n),
            info=batched_shape(lead, _ffi.constant("WEIGHTED_INFO_LEN")),
            work=batched_shape(lead, _ffi.weighted_workspace_len(n)),
        )

    return shapes


def weighted_init(indptr, indices, key) -> WeightedState:
    """The cleared state; the graph's CSR validated (status INVALID_GRAPH)."""
    _checked()
    out = batched_ffi_call(
        "jaxmatch_weighted_init",
        _state_shapes(indptr.shape[-1] - 1),
        [indptr, indices, key],
        [1] * 3,
    )
    return WeightedState(*out)


def weighted_step(
    indptr, indices, key, state: WeightedState, *, method: int, rounds: int
) -> WeightedState:
    """Suitor to its end, or ``rounds`` (even) LD rounds; a no-op on a
    problem that is not running."""
    _checked()
    out = batched_ffi_call(
        "jaxmatch_weighted_step",
        _state_shapes(indptr.shape[-1] - 1),
        [indptr, indices, key, *state],
        [1] * (3 + len(state)),
        dict(method=np.int32(method), rounds=np.int32(rounds)),
        input_output_aliases={k + 3: k for k in range(len(WeightedState._fields))},
    )
    return WeightedState(*out)


class BMatchingState(NamedTuple):
    """The state of a (batch of) b-matching solve(s) (b-Suitor).

    Attributes:
      mark: int32 ``[..., capacity]``: 0 an unmatched entry, 1 a matched
        one, 2 a matched one whose column is above its row (each edge once).
      degree: int32 ``[..., n]``, the matched edges at each vertex.
      info: int32 ``[..., WEIGHTED_B_INFO_LEN]``: status and counters (read
        them with :func:`b_info_field`).
      work: int32 workspace (its layout is the library's).
    """

    mark: jax.Array
    degree: jax.Array
    info: jax.Array
    work: jax.Array


def b_info_field(info: jax.Array, name: str) -> jax.Array:
    """One field of a b-matching ``info`` (``"STATUS"``, ``"N_ROUNDS"``,
    ``"N_PROPOSALS"``): int32 ``[...]``."""
    return info[..., _ffi.constant(f"WEIGHTED_B_INFO_{name}")]


def _b_state_shapes(n: int, capacity: int) -> Callable[[tuple[int, ...]], BMatchingState]:
    def shapes(lead: tuple[int, ...]) -> BMatchingState:
        return BMatchingState(
            mark=batched_shape(lead, capacity),
            degree=batched_shape(lead, n),
            info=batched_shape(lead, _ffi.constant("WEIGHTED_B_INFO_LEN")),
            work=batched_shape(lead, _ffi.b_matching_workspace_len(n, capacity)),
        )

    return shapes


def b_matching_init(indptr, indices, key, b) -> BMatchingState:
    """The cleared b-state; the CSR validated (status INVALID_GRAPH) and b
    (INVALID_CAPACITY for a negative entry). ``b``: int32 ``[..., n]``."""
    _checked()
    out = batched_ffi_call(
        "jaxmatch_weighted_b_init",
        _b_state_shapes(indptr.shape[-1] - 1, indices.shape[-1]),
        [indptr, indices, key, b],
        [1] * 4,
    )
    return BMatchingState(*out)


def b_matching_step(indptr, indices, key, state: BMatchingState) -> BMatchingState:
    """b-Suitor on (to its end on the CPU; a bounded number of rounds on the
    GPU); a no-op on a problem that is not running."""
    _checked()
    out = batched_ffi_call(
        "jaxmatch_weighted_b_step",
        _b_state_shapes(indptr.shape[-1] - 1, indices.shape[-1]),
        [indptr, indices, key, *state],
        [1] * (3 + len(state)),
        input_output_aliases={k + 3: k for k in range(len(BMatchingState._fields))},
    )
    return BMatchingState(*out)
