"""The sparse linear assignment problem under ``jax.jit`` and ``jax.vmap``:
CSR costs as a pytree (:class:`SparseCosts`), solved by
:func:`jaxmatch.solve_lap`.

Two solvers, one custom call:

* ``"jv"`` (the CPU's default): Jonker and Volgenant's shortest augmenting
  paths on the stored entries (LAPJVsp, ``cuda_ffi/lap/sparse/``),
  one batch member after another, in double precision;
* ``"tree"`` (the GPU's default, and on the CPU for checking it): the
  alternating-tree Hungarian algorithm of the dense GPU solver with its
  scans restricted to the stored entries (``cuda_ffi/lap/sparse/``),
  one thread block per batch member, in the cost dtype.

Either way the duals come back in the cost dtype and certify the answer by
LP duality (:func:`jaxmatch.verify_lap` checks them on the stored
entries). Both return an optimal assignment; where several are optimal they may return
different ones.

With ``unassigned_cost`` (``jaxmatch_lap_csr_solve_unassigned``, the same
kernels) every row and column may stay unassigned at its price: each row
has a private exit column of its price in the kernels, the column prices
start at the columns' prices, and a tall matrix is solved transposed
(:mod:`jaxmatch.lap.unassigned` states the objective and its dual). Such a
problem is always feasible.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ... import _ffi
from ..._batch import batched_ffi_call, batched_shape, whole_problems
from ..._float64 import warn_if_rounded
from ..._static import static_bool
from .. import _ffi as lap_ffi
from .._costs import empty_result, finished_result
from ..types import LAPResult, LAPStatus
from ..unassigned import unassigned_prices
from .costs import SparseCosts


def _kernel_dtype(dtype: Any) -> Any:
    """The cost dtype of the kernel: float32 (float64 under x64) for floats,
    int32 for integers of at most 32 bits."""
    dtype = np.dtype(dtype)
    if jnp.issubdtype(dtype, jnp.floating):
        wide = dtype == np.float64 and bool(jax.config.read("jax_enable_x64"))
        return jnp.float64 if wide else jnp.float32
    small_int = jnp.issubdtype(dtype, jnp.integer) and dtype.itemsize <= 4
    uint32 = jnp.issubdtype(dtype, jnp.unsignedinteger) and dtype.itemsize == 4
    if (small_int and not uint32) or dtype == np.bool_:
        return jnp.int32
    raise TypeError(
        f"sparse costs have the dtype {dtype}; expected floating or integer of at most 32 bits"
    )


def _structure_ok(indptr: jax.Array, indices: jax.Array, n_cols: int) -> jax.Array:
    """bool ``[...]``: pointers non-decreasing from 0 to at most the
    capacity, stored columns in [0, n_cols)."""
    cap = indices.shape[-1]
    ends = indptr[..., -1:]
    used = jnp.arange(cap, dtype=jnp.int32) < ends
    in_range = (indices >= 0) & (indices < n_cols)
    return (
        (indptr[..., 0] == 0)
        & jnp.all(jnp.diff(indptr, axis=-1) >= 0, axis=-1)
        & (ends[..., 0] <= cap)
        & jnp.all(in_range | ~used, axis=-1)
    )


def _transpose_one(indptr: jax.Array, indices: jax.Array, data: jax.Array, n_cols: int):
    """The CSR of the transpose of one matrix (rows in order within each
    column; padding last)."""
    cap = indices.shape[-1]
    pos = jnp.arange(cap, dtype=jnp.int32)
    used = pos < indptr[-1]
    row = (jnp.searchsorted(indptr, pos, side="right") - 1).astype(jnp.int32)
    col = jnp.where(used, indices, n_cols)
    order = jnp.argsort(col, stable=True)
    counts = jnp.zeros(n_cols + 1, jnp.int32).at[col].add(1)[:n_cols]
    t_indptr = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(counts, dtype=jnp.int32)])
    return t_indptr, jnp.where(used[order], row[order], 0), data[order]


def _over_batch(fn, *arrays):
    """``fn`` of one problem applied over the leading dimensions."""
    lead = arrays[0].shape[:-1]
    flat = [a.reshape((-1, a.shape[-1])) for a in arrays]
    out = jax.vmap(fn)(*flat)
    return tuple(o.reshape((*lead, o.shape[-1])) for o in out)


SPARSE_METHODS = ("auto", "jv", "tree")
_SPARSE_VARIANTS = {
    "auto": "LAP_VARIANT_CSR_AUTO",
    "jv": "LAP_VARIANT_JV",
    "tree": "LAP_VARIANT_CSR_TREE",
}


def solve_sparse_costs(
    S: SparseCosts, *, maximize: bool = False, method: str = "auto", unassigned_cost: Any = None
) -> LAPResult:
    """A minimum (or maximum) cost assignment of a sparse cost matrix, with
    its duals: every row assigned when ``n_rows <= n_cols`` (else every
    column), along stored entries only; with ``unassigned_cost``, any
    number of pairs, each row and column left out paying its price
    (:mod:`jaxmatch.lap.unassigned`).

    Jittable; ``jax.vmap`` over matrices of one shape and capacity runs them
    as one batched call, on the CPU or a GPU.

    Args:
      S: the costs (see :class:`SparseCosts`); arrays may be traced.
      maximize: static bool. Maximize the total cost instead.
      method: static str. ``"auto"`` (JV on the CPU, the tree variant on a
        GPU), ``"jv"`` (CPU only: a GPU computation fails with a message)
        or ``"tree"`` (both platforms; float32 costs are solved in float32).
      unassigned_cost: None, or the price of leaving a row or a column
        unassigned (see :func:`jaxmatch.solve_lap`): a scalar or a pair
        ``(row_costs, col_costs)`` broadcastable to ``[..., n_rows]`` and
        ``[..., n_cols]``, in the costs' kind (integer prices for integer
        costs); may be traced.

    Returns:
      A :class:`LAPResult` as for dense costs: ``cost`` is
      differentiable with respect to ``S.data`` (and the prices);
      ``status`` is ``OPTIMAL``,
      ``INFEASIBLE`` (no full assignment along stored entries; never with
      ``unassigned_cost``), ``INVALID_ENTRIES`` (NaN, or ``-inf`` /
      ``+inf`` when maximizing; a NaN or infinite price),
      ``INVALID_STRUCTURE`` (a malformed CSR) or ``OVERFLOW`` (int32
      duals); the assignment is -1 unless ``OPTIMAL``.

    Raises:
      TypeError: ``S`` is not a :class:`SparseCosts`, an index array is not
        integer, or the costs are complex or of another dtype; a traced
        ``maximize``; ``unassigned_cost`` not real, or floating point for
        integer costs.
      ValueError: inconsistent shapes; an unknown ``method``; an
        ``unassigned_cost`` that is neither a scalar nor a pair, or does
        not broadcast.
    """
    if not isinstance(S, SparseCosts):
        raise TypeError(f"expected SparseCosts, got {type(S).__name__}")
    maximize = static_bool(maximize, "maximize")
    if not isinstance(method, str) or method not in SPARSE_METHODS:
        raise ValueError(f"method must be one of {SPARSE_METHODS}, got {method!r}")
    if isinstance(S.data, np.ndarray):
        warn_if_rounded(S.data, "sparse costs", stacklevel=4)
    indptr, indices, data = (
        whole_problems(jnp.asarray(a), 1) for a in (S.indptr, S.indices, S.data)
    )
    for name, a in (("indptr", indptr), ("indices", indices)):
        if not jnp.issubdtype(a.dtype, jnp.integer):
            raise TypeError(f"SparseCosts.{name} must hold integers, got {a.dtype}")
    if (
        indices.shape != data.shape
        or indptr.shape[:-1] != indices.shape[:-1]
        or indptr.shape[-1] != S.n_rows + 1
    ):
        raise ValueError(
            f"SparseCosts arrays of inconsistent shapes: indptr {indptr.shape}, "
            f"indices {indices.shape}, data {data.shape} for shape {S.shape}"
        )
    dtype = _kernel_dtype(data.dtype)
    indptr, indices = indptr.astype(jnp.int32), indices.astype(jnp.int32)
    data = data.astype(dtype)
    n, m = S.n_rows, S.n_cols
    lead = indptr.shape[:-1]

    ok_structure = _structure_ok(indptr, indices, m)
    used = jnp.arange(data.shape[-1], dtype=jnp.int32) < indptr[..., -1:]
    signed = -data if maximize else data
    bad = jnp.isnan(signed) if jnp.issubdtype(dtype, jnp.floating) else jnp.zeros_like(used)
    if jnp.issubdtype(dtype, jnp.floating):
        bad = bad | (signed == -jnp.inf)
    overflow = jnp.zeros(lead, bool)
    if maximize and dtype == jnp.int32:  # -INT32_MIN does not fit
        overflow = jnp.any(used & (data == jnp.iinfo(jnp.int32).min), axis=-1)
    ok_entries = ~jnp.any(bad & used, axis=-1) & ~overflow
    if unassigned_cost is not None:
        return _solve_priced(
            S, unassigned_cost, maximize, method, indptr, indices, data,
            ok_structure, ok_entries, overflow,
        )  # fmt: skip
    ok_input = ok_structure & ok_entries

    if min(n, m) == 0:  # an empty side: the empty assignment is optimal
        status = jnp.full(lead, LAPStatus.OPTIMAL, jnp.int32)
        status = jnp.where(ok_entries, status, LAPStatus.INVALID_ENTRIES)
        status = jnp.where(ok_structure, status, LAPStatus.INVALID_STRUCTURE)
        empty = empty_result(tuple(lead), n, m, dtype)
        return empty._replace(feasible=status == LAPStatus.OPTIMAL, status=status)

    transposed = n > m
    rows, cols = (m, n) if transposed else (n, m)
    # The costs in the order of the solved CSR (the transpose's when
    # transposed), differentiable; a malformed CSR transposes to garbage
    # that is never read: a rejected problem is solved as an empty one.
    oriented = data
    if transposed:
        indptr, indices, oriented = _over_batch(
            lambda p, i, c: _transpose_one(p, i, c, m), indptr, indices, data
        )
    indptr = jnp.where(ok_input[..., None], indptr, 0)
    costs = jax.lax.stop_gradient(-oriented if maximize else oriented)

    def shapes(lead_dims: tuple[int, ...]) -> tuple[jax.ShapeDtypeStruct, ...]:
        def shape(length: int, dt: Any) -> jax.ShapeDtypeStruct:
            return batched_shape(lead_dims, length, dt)

        info = _ffi.constant("LAP_INFO_LEN")
        return (
            shape(rows, jnp.int32), shape(cols, jnp.int32), shape(rows, dtype),
            shape(cols, dtype), shape(info, jnp.int32), shape(rows, jnp.int32),
            shape(work, jnp.int32), shape(twork, dtype),
        )  # fmt: skip

    lap_ffi.variant_code("jv")  # loads and checks the library
    variant = _ffi.constant(_SPARSE_VARIANTS[method])
    work, twork = _ffi.lap_workspace_lens(rows, cols, _ffi.constant("LAP_VARIANT_CSR_TREE"))
    cfr, rfc, u, v, info, edge, _, _ = batched_ffi_call(
        "jaxmatch_lap_csr_solve",
        shapes,
        [indptr, indices, costs],
        [1, 1, 1],
        dict(variant=np.int32(variant)),
    )
    status = lap_ffi.info_field(info, "STATUS")
    status = jnp.where(ok_entries, status, LAPStatus.INVALID_ENTRIES)
    status = jnp.where(overflow, LAPStatus.OVERFLOW, status)
    status = jnp.where(ok_structure, status, LAPStatus.INVALID_STRUCTURE)

    # the matched entries of the solved orientation, in the input's sign
    picked = jnp.take_along_axis(oriented, jnp.maximum(edge, 0), axis=-1)
    matched = jnp.where(edge >= 0, picked, jnp.zeros((), dtype))
    if maximize:
        u, v = -u, -v
    if transposed:
        cfr, rfc, u, v = rfc, cfr, v, u
    return finished_result(cfr, rfc, matched, u, v, lap_ffi.info_field(info, "ITERS"), status)


def _solve_priced(
    S, unassigned_cost, maximize, method, indptr, indices, data, ok_structure, ok_entries,
    overflow,
) -> LAPResult:  # fmt: skip
    """:func:`solve_sparse_costs` with ``unassigned_cost``: the checked CSR
    (int32 pointers and columns, costs in the kernel dtype) solved by
    ``jaxmatch_lap_csr_solve_unassigned``."""
    dtype = data.dtype
    n, m = S.n_rows, S.n_cols
    lead = tuple(indptr.shape[:-1])
    r, c = unassigned_prices(unassigned_cost, jax.ShapeDtypeStruct((*lead, n, m), dtype))
    ok_prices = _finite_prices(r) & _finite_prices(c)
    if maximize and dtype == jnp.int32:  # -INT32_MIN does not fit
        low = jnp.iinfo(jnp.int32).min
        overflow = overflow | jnp.any(r == low, axis=-1) | jnp.any(c == low, axis=-1)

    def checked(status: jax.Array) -> jax.Array:
        status = jnp.where(ok_entries & ok_prices, status, LAPStatus.INVALID_ENTRIES)
        status = jnp.where(overflow, LAPStatus.OVERFLOW, status)
        return jnp.where(ok_structure, status, LAPStatus.INVALID_STRUCTURE).astype(jnp.int32)

    if min(n, m) == 0:  # an empty side: every row and column unassigned
        status = checked(jnp.full(lead, LAPStatus.OPTIMAL, jnp.int32))
        cfr = jnp.full((*lead, n), -1, jnp.int32)
        rfc = jnp.full((*lead, m), -1, jnp.int32)
        parts = jnp.concatenate([r, c], axis=-1)
        iters = jnp.zeros(lead, jnp.int32)
        return finished_result(cfr, rfc, parts, r, c, iters, status)

    transposed = n > m
    rows, cols = (m, n) if transposed else (n, m)
    ok_input = ok_structure & ok_entries & ok_prices & ~overflow
    oriented = data
    rk, ck = (c, r) if transposed else (r, c)
    if transposed and data.shape[-1] == 0:  # no entries: nothing to move
        indptr = jnp.zeros((*lead, rows + 1), jnp.int32)
    elif transposed:
        indptr, indices, oriented = _over_batch(
            lambda p, i, x: _transpose_one(p, i, x, m), indptr, indices, data
        )
    # A rejected problem is solved as one without entries (all on exits).
    indptr = jnp.where(ok_input[..., None], indptr, 0)
    sign = -1 if maximize else 1
    zero = jnp.zeros((), dtype)
    costs, row_cost, col_cost = (
        jax.lax.stop_gradient(jnp.where(ok_input[..., None], sign * x, zero))
        for x in (oriented, rk, ck)
    )

    def shapes(lead_dims: tuple[int, ...]) -> tuple[jax.ShapeDtypeStruct, ...]:
        def shape(length: int, dt: Any) -> jax.ShapeDtypeStruct:
            return batched_shape(lead_dims, length, dt)

        info = _ffi.constant("LAP_INFO_LEN")
        return (
            shape(rows, jnp.int32), shape(cols, jnp.int32), shape(rows, dtype),
            shape(cols, dtype), shape(info, jnp.int32), shape(rows, jnp.int32),
            shape(work, jnp.int32), shape(twork, dtype),
        )  # fmt: skip

    lap_ffi.variant_code("jv")  # loads and checks the library
    variant = _ffi.constant(_SPARSE_VARIANTS[method])
    work, twork = _ffi.lap_workspace_lens(rows, cols, _ffi.constant("LAP_VARIANT_CSR_TREE"))
    cfr, rfc, u, v, info, edge, _, _ = batched_ffi_call(
        "jaxmatch_lap_csr_solve_unassigned",
        shapes,
        [indptr, indices, costs, row_cost, col_cost],
        [1, 1, 1, 1, 1],
        dict(variant=np.int32(variant)),
    )
    status = checked(lap_ffi.info_field(info, "STATUS"))
    # The objective in the input's sign: each solved row's entry or its
    # price, each solved column's price where it stays unassigned.
    picked = jnp.take_along_axis(oriented, jnp.maximum(edge, 0), axis=-1)
    row_part = jnp.where(edge >= 0, picked, rk)
    col_part = jnp.where(rfc >= 0, zero, ck)
    parts = jnp.concatenate([row_part, col_part], axis=-1)
    if maximize:
        u, v = -u, -v
    if transposed:
        cfr, rfc, u, v = rfc, cfr, v, u
    return finished_result(cfr, rfc, parts, u, v, lap_ffi.info_field(info, "ITERS"), status)


def _finite_prices(x: jax.Array) -> jax.Array:
    """Per problem: every price of ``x`` (``[..., k]``) finite."""
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return jnp.ones(x.shape[:-1], bool)
    return jnp.all(jnp.isfinite(x), axis=-1)
