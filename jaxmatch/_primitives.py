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
from . import _mcm_layout as mcm_layout


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


# ---------------------------------------------------------------- matching
# Graph operands: cxadj int32 [..., n_cols + 1], cadj int32 [..., nnz_cap];
# the state is int32 [..., state_len(n_rows, n_cols)].


def _mcm_state_shape(cxadj: jax.Array, n_rows: int):
    *batch, ncp1 = cxadj.shape
    return jax.ShapeDtypeStruct(
        (*batch, mcm_layout.state_len(n_rows, ncp1 - 1)), jnp.int32
    )


def _mcm_from_scratch(target: str, cxadj, cadj, rm0, cm0, **attrs):
    _ensure_registered()
    call = _compat.ffi_call(
        target, _mcm_state_shape(cxadj, rm0.shape[-1]), vmap_method="broadcast_all"
    )
    return call(cxadj, cadj, rm0, cm0, **{k: np.int32(v) for k, v in attrs.items()})


def mcm_init(cxadj, cadj, rm0, cm0, *, init: int):
    """Initial matching (none, cheap or the warm start rm0/cm0) and BFS array."""
    return _mcm_from_scratch("jaxmatch_mcm_init", cxadj, cadj, rm0, cm0, init=init)


def mcm_step(cxadj, cadj, state, *, n_rows: int, driver: int, bfs: int,
             max_phases: int, levels: int, mapping: int):
    """Up to ``levels`` BFS levels, then Alternate + FixMatching if due."""
    _ensure_registered()
    call = _compat.ffi_call(
        "jaxmatch_mcm_step",
        _mcm_state_shape(cxadj, n_rows),
        vmap_method="broadcast_all",
        input_output_aliases={2: 0},
    )
    return call(
        cxadj,
        cadj,
        state,
        driver=np.int32(driver),
        bfs=np.int32(bfs),
        max_phases=np.int32(max_phases),
        levels=np.int32(levels),
        mapping=np.int32(mapping),
    )


def mcm_solve(cxadj, cadj, rm0, cm0, *, init: int, driver: int, bfs: int,
              max_phases: int):
    """Initialisation and the whole solve in one call (fused)."""
    return _mcm_from_scratch(
        "jaxmatch_mcm_solve", cxadj, cadj, rm0, cm0,
        init=init, driver=driver, bfs=bfs, max_phases=max_phases,
    )
