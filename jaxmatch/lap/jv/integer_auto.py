"""Integer costs on a GPU (``LAPTuning.jv_int_max_tied_rows``): JV alone
where rows rarely tie, else the tree variant for a bounded number of
iterations and JV from its duals. The choice is made on the device."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
from jax import lax

from .. import _ffi as lap_ffi
from ..types import LAPStatus

Solver = Callable[[jax.Array], lap_ffi.Solution]


def tied_rows(C: jax.Array) -> jax.Array:
    """The fraction of each problem's rows whose two least costs tie.

    Args:
      C: ``[..., n, m]`` costs, ``m >= 2``.

    Returns:
      ``[...]`` float32: per problem, the fraction of its ``n`` rows holding
      their least cost more than once.
    """
    least = jnp.min(C, axis=-1, keepdims=True)
    repeated = jnp.sum(least == C, axis=-1, dtype=jnp.int32) >= 2
    return jnp.mean(repeated, axis=-1, dtype=jnp.float32)


@jax.custom_batching.custom_vmap
def all_members(flag: jax.Array) -> jax.Array:
    """``flag`` (a bool scalar); under ``jax.vmap`` whether it holds for
    every member, unbatched, so that a ``lax.cond`` on it stays a branch
    rather than running both sides for the whole batch."""
    return flag


@all_members.def_vmap
def _all_members_vmap(axis_size, in_batched, flag):
    del axis_size
    (batched,) = in_batched
    return (all_members(jnp.all(flag, axis=0)) if batched else flag), False


def integer_auto(
    Ck: jax.Array,
    *,
    jv: Solver,
    tree: Callable[..., lap_ffi.Solution],
    max_tied_rows: float,
    tree_iterations_per_row: int,
    auction: bool,
) -> lap_ffi.Solution:
    """JV alone when every problem's rows rarely tie (at most
    ``max_tied_rows``), else :func:`tree_then_jv`.

    Args:
      Ck: ``[..., n, m]`` int32 costs, ``n <= m``, minimised.
      jv: JV's solve (with the user's warm start, if any).
      tree: the tree variant's solve (fused or stepped), taking a
        ``max_iterations`` keyword.
      max_tied_rows: see :attr:`jaxmatch.LAPTuning.jv_int_max_tied_rows`.
      tree_iterations_per_row: see
        :attr:`jaxmatch.LAPTuning.jv_int_tree_iterations_per_row`.
      auction: JV may start square problems from its auction (no warm start
        of the user's).
    """

    def tree_jv(C):
        return tree_then_jv(C, tree, tree_iterations_per_row, auction)

    distinct = all_members(jnp.all(tied_rows(Ck) <= max_tied_rows))
    return lax.cond(distinct, jv, tree_jv, Ck)


def tree_then_jv(
    Ck: jax.Array, tree: Callable[..., lap_ffi.Solution], iterations_per_row: int, auction: bool
) -> lap_ffi.Solution:
    """The tree variant for at most ``iterations_per_row`` iterations per
    row, then, when some problem of the batch is left unsolved, JV from the
    tree variant's column duals and assignment (JV keeps the rows whose
    column attains their least reduced cost, as the tree variant's feasible
    duals make every assigned row's), or, with ``auction`` where the GPU's
    auction start runs (square problems whose rows' least columns are few),
    from the auction instead. The iterations are the sum of both."""
    first = tree(Ck, max_iterations=iterations_per_row * Ck.shape[-2])
    limited = lap_ffi.info_field(first.info, "STATUS") == int(LAPStatus.ITERATION_LIMIT)

    def finish(sol: lap_ffi.Solution) -> lap_ffi.Solution:
        warm = (sol.col_for_row, sol.v)
        jv = lap_ffi.solve_fused(Ck, lap_ffi.variant_code("jv"), 0, warm=warm, auction=auction)
        iters = lap_ffi.info_field(sol.info, "ITERS")
        return jv._replace(info=lap_ffi.info_field_added(jv.info, "ITERS", iters))

    solved = all_members(~jnp.any(limited))
    return lax.cond(solved, lambda sol: sol, finish, first)
