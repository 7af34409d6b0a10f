"""The k lowest-cost assignments of a cost matrix (Murty's ranking with the
optimizations of Miller, Stone and Cox, 1997), with an optional price for
leaving rows and columns unassigned: the data association of
multiple-hypothesis trackers.

The kernel (``jaxmatch_lap_k_best``: cuda_ffi/lap/kbest/kbest_rank.h over
kbest_steps.h) runs on the CPU (a problem per core) and on a GPU (one fused
kernel for the batch, a crew of warps per problem searching a node's
children side by side, the whole ranking on the device: kbest_kernels.cu),
the platform's as for every solver; both find the same assignments in the
same order. Each child of the partition is solved from its parent's duals by one
shortest augmenting path, and children whose bound cannot enter the k best
are skipped. It takes rows ``<=`` columns: a tall problem is solved
transposed (rows and columns, row and column prices swapped: the same
problem) and its assignments turned back.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ... import _ffi
from ..._batch import batched_ffi_call, batched_shape, whole_problems
from ..._display import result_repr, status_names
from ..._exact_sum import exact_integer_sum
from .._costs import canonical_costs
from ..types import LAPStatus
from ..unassigned import unassigned_prices


class KBestResult(NamedTuple):
    """The k best assignments of a (batch of) cost matrix(es) ``C``
    ``[..., n, m]``, best first.

    Attributes:
      assignments: int32 ``[..., k, n]``. Assignment ``t`` gives the column
        of each row, ``-1`` for a row left unassigned (at its price with
        ``unassigned_cost``; the rows left over when ``n > m`` without
        it); every entry ``-1`` past ``found``.
      costs: ``[..., k]``, the cost dtype (float32, float64 or int32). The
        objectives, nondecreasing (nonincreasing when maximizing): the
        assigned pairs' costs plus, with ``unassigned_cost``, the prices
        of the unassigned rows and columns. Past ``found``: ``+inf``
        (``-inf`` when maximizing; the int32 extremes for integer costs).
      found: int32 ``[...]``. How many assignments were found: ``k``, or
        fewer when the problem has fewer; 0 when it has none, and on
        ``OVERFLOW`` (the result is then cleared, as
        :func:`jaxmatch.solve_lap` clears its own: every assignment ``-1``,
        every cost the fill value).
      iterations: int32 ``[...]``. Shortest augmenting path searches run
        (one per row for the best assignment, one per subproblem solved;
        subproblems skipped by their bound cost none).
      status: int32 ``[...]``, a :class:`LAPStatus` code: OPTIMAL,
        INFEASIBLE (no assignment avoids the forbidden entries),
        INVALID_ENTRIES (NaN or ``-inf``, ``+inf`` when maximizing, in
        ``C``; a non-finite price) or OVERFLOW (for int32 costs, a total of
        the ``k`` best that does not fit int32, or int32's minimum among
        the costs or prices when maximizing; nothing is returned).
    """

    assignments: jax.Array
    costs: jax.Array
    found: jax.Array
    iterations: jax.Array
    status: jax.Array

    @property
    def status_name(self) -> str | np.ndarray:
        """The :class:`LAPStatus` name of ``status``: a ``str`` for one
        problem, a ``str`` array of the batch shape for a batch.

        Raises:
          TypeError: the result is traced.
        """
        return status_names(self.status, LAPStatus)

    def __repr__(self) -> str:
        return result_repr(self, ("found", "iterations", "status"), LAPStatus)


def _static_k(k: Any) -> int:
    if isinstance(k, (bool, np.bool_, jax.core.Tracer)):
        raise TypeError(f"k must be a static Python int >= 1, got {k!r}")
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError(f"k must be a static Python int >= 1, got {k!r}") from None
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if k >= 1 << 24:
        raise ValueError(f"k must be below 2**24, got {k}")
    return k


def k_best_assignments(
    C: Any, k: int, *, unassigned_cost: Any = None, maximize: bool = False
) -> KBestResult:
    """The ``k`` lowest-cost (highest, maximizing) assignments, in order.

    Murty's partition of the solution space with Miller, Stone and Cox's
    optimizations (each subproblem solved from its parent's duals by one
    shortest augmenting path; a bounded queue; subproblems skipped by their
    lower bound). Every assignment is returned once; ties come in any order.

    Args:
      C: ``[..., n, m]`` costs (bool, integers or floating point; solved in
        float32, float64 under x64, or int32 as :func:`jaxmatch.solve_lap`).
        ``+inf`` (``-inf`` when maximizing) forbids a pair. Leading
        dimensions are a batch.
      k: how many assignments, a static Python int ``>= 1``.
      unassigned_cost: None (every row assigned when ``n <= m``, every
        column when ``n > m``, as :func:`jaxmatch.solve_lap`), or the price
        of leaving a row or a column unassigned: a scalar, or a pair
        ``(row_costs [..., n], col_costs [..., m])``; finite; integer prices
        for integer costs. The objective is then the assigned pairs' costs
        plus the prices of every unassigned row and column, over every
        partial assignment.
      maximize: a Python bool: rank from the highest objective.

    Returns:
      A :class:`KBestResult`. On ``OVERFLOW`` (int32 costs only) it holds
      no assignment: ``found`` 0, assignments ``-1``, costs the fill value.

    Raises:
      TypeError: ``k`` is not a Python int, ``maximize`` is not a bool, or
        ``C`` or ``unassigned_cost`` have an unsupported dtype.
      ValueError: ``k < 1``, ``C`` of rank < 2, or prices of the wrong
        shape.
    """
    k = _static_k(k)
    if not isinstance(maximize, (bool, np.bool_)):
        raise TypeError(f"maximize must be a Python bool, got {maximize!r}")
    maximize = bool(maximize)
    C = whole_problems(canonical_costs(C), 2)
    *batch, n, m = C.shape
    exits = unassigned_cost is not None
    if exits:
        r, c = unassigned_prices(unassigned_cost, C)
    else:
        r, c = jnp.zeros((*batch, n), C.dtype), jnp.zeros((*batch, m), C.dtype)
    tall = n > m
    Ck, rk, ck = (jnp.swapaxes(C, -1, -2), c, r) if tall else (C, r, c)
    overflow = None
    if maximize:
        if jnp.issubdtype(C.dtype, jnp.integer):
            low = jnp.iinfo(jnp.int32).min
            overflow = jnp.any(jnp.equal(C, low), axis=(-2, -1))
            if exits:
                overflow |= jnp.any(jnp.equal(r, low), axis=-1) | jnp.any(
                    jnp.equal(c, low), axis=-1
                )
        Ck, rk, ck = -Ck, -rk, -ck
    nk, mk = Ck.shape[-2:]
    if nk == 0:
        assignments, costs, count, status = _empty(batch, k, mk, rk, ck, exits)
        iterations = jnp.zeros(tuple(batch), jnp.int32)
    else:
        _ffi.register()

        def shapes(lead: tuple[int, ...]):
            return (
                jax.ShapeDtypeStruct((*lead, k, nk), jnp.int32),
                batched_shape(lead, k, C.dtype),
                batched_shape(lead, _ffi.constant("LAP_KBEST_INFO_LEN")),
            )

        assignments, costs, info = batched_ffi_call(
            "jaxmatch_lap_k_best",
            shapes,
            [Ck, rk, ck],
            [2, 1, 1],
            dict(k=np.int32(k), exits=np.int32(exits)),
        )
        count = info[..., _ffi.constant("LAP_KBEST_INFO_COUNT")]
        iterations = info[..., _ffi.constant("LAP_KBEST_INFO_ITERS")]
        status = info[..., _ffi.constant("LAP_KBEST_INFO_STATUS")]
    if tall:
        assignments = _inverse(assignments, n)
    if overflow is not None:
        # A total of 2**31 when maximizing: its negation, int32's minimum,
        # fits the kernel's int32 but the total does not.
        live = jnp.arange(k) < count[..., None]
        low = jnp.iinfo(jnp.int32).min
        overflow |= jnp.any(live & jnp.equal(costs, low), axis=-1)
        status = jnp.where(overflow, LAPStatus.OVERFLOW, status).astype(jnp.int32)
    if maximize:
        costs = -costs
    # An overflowing ranking returns nothing, as solve_lap does.
    count = jnp.where(status == LAPStatus.OVERFLOW, 0, count)
    live = jnp.arange(k) < count[..., None]
    fill: float
    if jnp.issubdtype(C.dtype, jnp.integer):
        info32 = jnp.iinfo(jnp.int32)
        fill = info32.min if maximize else info32.max
    else:
        fill = -jnp.inf if maximize else jnp.inf
    costs = jnp.where(live, costs, jnp.asarray(fill, C.dtype))
    assignments = jnp.where(live[..., None], assignments, -1)
    return KBestResult(
        assignments,
        costs,
        count.astype(jnp.int32),
        iterations.astype(jnp.int32),
        status.astype(jnp.int32),
    )


def _inverse(assign: jax.Array, n: int) -> jax.Array:
    """``[..., k, n]`` row for each column of the transposed assignments
    ``assign`` ``[..., k, m]`` (the column of each of its ``m < n`` rows)."""
    if assign.shape[-1] == 0:
        return jnp.full((*assign.shape[:-1], n), -1, jnp.int32)
    hit = assign[..., :, :, None] == jnp.arange(n, dtype=jnp.int32)
    return jnp.where(jnp.any(hit, axis=-2), jnp.argmax(hit, axis=-2), -1).astype(jnp.int32)


def _empty(batch, k: int, m: int, r: jax.Array, c: jax.Array, exits: bool):
    """No rows (after transposing): one assignment, every column unassigned
    (its objective the column prices' sum with exits, else 0; an int32 sum
    that does not fit is OVERFLOW)."""
    yes = jnp.ones(tuple(batch), bool)
    total, fits, finite = jnp.zeros(tuple(batch), c.dtype), yes, yes
    if exits and jnp.issubdtype(c.dtype, jnp.integer):
        total, fits = exact_integer_sum(c)
    elif exits:
        total, finite = jnp.sum(c, axis=-1), jnp.all(jnp.isfinite(c), axis=-1)
    costs = jnp.concatenate([total[..., None], jnp.zeros((*batch, k - 1), c.dtype)], axis=-1)
    count = jnp.where(finite & fits, 1, 0).astype(jnp.int32)
    status = jnp.where(
        finite,
        jnp.where(fits, LAPStatus.OPTIMAL, LAPStatus.OVERFLOW),
        LAPStatus.INVALID_ENTRIES,
    ).astype(jnp.int32)
    assignments = jnp.full((*batch, k, 0), -1, jnp.int32)
    return assignments, costs, count, status
