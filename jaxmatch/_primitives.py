"""One wrapped ``ffi_call`` per kernel step; batching is handled here.

Every call treats leading dimensions as batch dimensions, and under
``jax.vmap`` the batched dimension becomes a leading dimension
(``vmap_method="broadcast_all"``): the kernels put the batch on the grid.
"""

from __future__ import annotations

import jax
import numpy as np
import jax.numpy as jnp

from . import _compat, _lib
from . import _lap_layout as layout


def _state_shapes(C: jax.Array, variant: int):
    *batch, n, m = C.shape
    ilen = layout.istate_len(n, m, variant)
    tlen = layout.tstate_len(n, m)
    return (
        jax.ShapeDtypeStruct((*batch, ilen), jnp.int32),
        jax.ShapeDtypeStruct((*batch, tlen), C.dtype),
    )


def _ensure_registered() -> None:
    _lib.ensure_for_backend(_compat.default_backend())


def lap_init(C: jax.Array, *, variant: int):
    """Initial reduction and greedy assignment.

    Args:
      C: ``[..., n, m]`` costs (float32, float64 or int32) with ``n <= m``.
      variant: 0 (alternating tree) or 1 (classical).

    Returns:
      ``(istate, tstate)``: int32 ``[..., istate_len]`` and ``[..., tstate_len]``
      in the cost dtype.
    """
    _ensure_registered()
    call = _compat.ffi_call(
        "jaxmatch_lap_init", _state_shapes(C, variant), vmap_method="broadcast_all"
    )
    return call(C, variant=np.int32(variant))


def lap_step(C, istate, tstate, *, variant: int, iterations: int):
    """``iterations`` iterations of the main loop (no-ops once finished)."""
    _ensure_registered()
    call = _compat.ffi_call(
        "jaxmatch_lap_step",
        _state_shapes(C, variant),
        vmap_method="broadcast_all",
        input_output_aliases={1: 0, 2: 1},
    )
    return call(
        C, istate, tstate, variant=np.int32(variant), iterations=np.int32(iterations)
    )


def lap_solve(C: jax.Array, *, variant: int):
    """The whole solve in one call (the fused solver)."""
    _ensure_registered()
    call = _compat.ffi_call(
        "jaxmatch_lap_solve", _state_shapes(C, variant), vmap_method="broadcast_all"
    )
    return call(C, variant=np.int32(variant))
