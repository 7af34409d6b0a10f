"""The points sweep's custom call (``cuda_ffi/lap/points/``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ... import _ffi
from .._ffi import checked


def points_limit(name: str) -> int:
    """A limit of :func:`points_sweep`: ``"MAX_K"`` (pairs per row) or
    ``"MAX_DIM"`` (the points' dimension)."""
    checked()
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
    checked()
    b, dtype = X.shape[0], X.dtype
    shapes = (
        jax.ShapeDtypeStruct((b, k), jnp.int32),
        jax.ShapeDtypeStruct((b, k), dtype),
        jax.ShapeDtypeStruct((b,), dtype),
    )
    code = _ffi.constant(f"LAP_POINTS_{metric.upper()}")
    call = _ffi.ffi_call("jaxmatch_lap_points_sweep", shapes)
    cols, cost, cost_max = call(X, u, YT, v, metric=np.int32(code), negate=np.int32(bool(negate)))
    return cols, cost, cost_max
