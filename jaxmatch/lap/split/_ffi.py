"""The split forest's custom calls (``cuda_ffi/lap/split/``): one device's
scan of its pending rows and the update of the replicated state."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ... import _ffi
from .._ffi import checked


class SplitState(NamedTuple):
    """One device's state of a split solve (``jaxmatch.solve_lap_split``;
    ``cuda_ffi/lap/split/split_steps.h``): ``m`` columns, ``nl`` rows here,
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
    checked()
    return _ffi.constant(f"LAP_SPLIT_INFO_{name}")


def split_info(status: jax.Array, count: jax.Array, row0: jax.Array) -> jax.Array:
    """A split solve's ``info`` at its start (int32 scalars in)."""
    checked()
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
    checked()
    m = C.shape[1]
    shapes = (jax.ShapeDtypeStruct((m,), C.dtype), jax.ShapeDtypeStruct((m,), jnp.int32))
    # Under jax.vmap (a batch of split problems) members are scanned one
    # after another; the update leaves a finished member as it is.
    call = _ffi.ffi_call("jaxmatch_lap_split_scan", shapes, vmap_method="sequential")
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
    checked()
    shapes = tuple(jax.ShapeDtypeStruct(x.shape, x.dtype) for x in state)
    out = _ffi.ffi_call(
        "jaxmatch_lap_split_update",
        shapes,
        input_output_aliases={k + 3: k for k in range(len(state))},
        vmap_method="sequential",
    )(C, bests, args, *state, n=np.int32(n), max_iterations=np.int32(max_iterations))
    return SplitState(*out)


def int32_cost_bound() -> int:
    """int32 costs are solved exactly when every ``|C_ij|`` is below this
    bound (the duals stay within a few times the costs' range); larger
    ones report ``OVERFLOW``."""
    checked()
    return _ffi.constant("LAP_SPLIT_INT32_COST_BOUND")
