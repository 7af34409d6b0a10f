"""Result types (NamedTuple pytrees) of the jaxmatch solvers."""

from __future__ import annotations

import enum
from typing import NamedTuple

import jax
import numpy as np


class LAPStatus(enum.IntEnum):
    """Why a LAP solve stopped (the ``status`` field of :class:`LAPResult`)."""

    RUNNING = 0  #: never returned
    OPTIMAL = 1  #: solved; the duals certify optimality
    INFEASIBLE = 2  #: no complete assignment avoids the forbidden entries
    OVERFLOW = 3  #: int32 arithmetic (duals or the total cost) would overflow
    ITERATION_LIMIT = 4  #: the safety bound on iterations was hit (a bug)
    INVALID_ENTRIES = 5  #: NaN, or -inf (+inf when maximizing), in the matrix


class LAPResult(NamedTuple):
    """Solution of a (batch of) linear assignment problem(s).

    Leading dimensions ``...`` are the batch dimensions of the input cost
    matrix ``C`` of shape ``[..., n, m]``.

    Attributes:
      col_for_row: int32 ``[..., n]``. The column assigned to each row; ``-1``
        for rows left unassigned (when ``n > m``), and everywhere when the
        problem is not feasible.
      row_for_col: int32 ``[..., m]``. The row assigned to each column; ``-1``
        for unassigned columns.
      cost: ``[...]``, the cost dtype. Total cost of the assignment (exact for
        int32, where an overflowing sum makes the result infeasible). ``nan``
        (floats) or ``0`` (int32) when not feasible. Differentiable: its
        gradient with respect to ``C`` is the assignment matrix.
      u: ``[..., n]``, the cost dtype. Row duals.
      v: ``[..., m]``, the cost dtype. Column duals. With ``maximize=False``,
        ``C - u[:, None] - v[None, :] >= 0`` with equality on assigned pairs;
        for rectangular problems the duals of the unassigned side are ``0``
        and those of the assigned side have the sign that keeps the LP dual
        feasible. With ``maximize=True`` the inequality is reversed.
      feasible: bool ``[...]``. False when the matrix has NaN (or ``-inf``;
        ``+inf`` with ``maximize=True``) entries, when no complete assignment
        avoids the forbidden (``+inf``) entries, or when int32 arithmetic
        would overflow; the other fields are then meaningless.
      n_iters: int32 ``[...]``. Iterations of the solver's main loop
        (forward-pass levels, dual updates and augmentations).
      status: int32 ``[...]``, a :class:`LAPStatus` code.
    """

    col_for_row: jax.Array
    row_for_col: jax.Array
    cost: jax.Array
    u: jax.Array
    v: jax.Array
    feasible: jax.Array
    n_iters: jax.Array
    status: jax.Array


class LAPCertificate(NamedTuple):
    """Outcome of :func:`jaxmatch.verify_lap` for one problem.

    Attributes:
      valid_assignment: every row (or every column, when ``n > m``) is
        assigned exactly once and no forbidden entry is used.
      dual_feasible: the reduced costs are non-negative within ``tol``.
      complementary_slackness: assigned pairs have zero reduced cost, and the
        duals of unassigned vertices are zero, within ``tol``.
      primal_cost: cost of the assignment (float64).
      dual_objective: ``sum(u) + sum(v)`` (float64).
      duality_gap: ``primal_cost - dual_objective`` (``dual - primal`` when
        maximizing); zero for an optimal pair.
      max_violation: largest violation of dual feasibility or complementary
        slackness found.
      optimal: all checks pass and ``|duality_gap| <= tol * scale``.
    """

    valid_assignment: bool
    dual_feasible: bool
    complementary_slackness: bool
    primal_cost: float
    dual_objective: float
    duality_gap: float
    max_violation: float
    optimal: bool


class MatchingStatus(enum.IntEnum):
    """Why a matching solve stopped (the ``status`` of :class:`MatchingResult`)."""

    RUNNING = 0  #: never returned
    MAXIMUM = 1  #: no augmenting path is left: the matching is maximum
    PHASE_LIMIT = 2  #: stopped by ``max_phases``: a valid matching, maybe not maximum
    INVALID_GRAPH = 3  #: malformed CSR (only possible for unvalidated arrays)
    INITIAL = 4  #: from :func:`jaxmatch.cheap_matching`: valid and maximal, not proven maximum


class MatchingResult(NamedTuple):
    """A bipartite matching (of a batch of graphs).

    Leading dimensions ``...`` are batch dimensions (from ``jax.vmap`` over
    graphs of the same padded shapes).

    Attributes:
      row_match: int32 ``[..., n_rows]``. The column matched to each row, -1
        when unmatched.
      col_match: int32 ``[..., n_cols]``. The row matched to each column, -1
        when unmatched.
      cardinality: int32 ``[...]``. Number of matched pairs.
      n_phases: int32 ``[...]``. Augmentation phases run (BFS + Alternate +
        FixMatching), 0 for an initial matching.
      n_levels: int32 ``[...]``. BFS level kernels run, over all phases.
      status: int32 ``[...]``, a :class:`MatchingStatus`.
    """

    row_match: jax.Array
    col_match: jax.Array
    cardinality: jax.Array
    n_phases: jax.Array
    n_levels: jax.Array
    status: jax.Array


class MatchingCertificate(NamedTuple):
    """Outcome of :func:`jaxmatch.verify_matching`.

    Attributes:
      valid: every matched pair is an edge, no vertex is used twice and
        ``row_match``/``col_match`` agree.
      cardinality: number of matched pairs.
      cover_rows: bool ``[n_rows]``, rows in the Koenig vertex cover.
      cover_cols: bool ``[n_cols]``, columns in the Koenig vertex cover.
      cover_size: number of vertices in the cover.
      is_cover: the cover touches every edge.
      maximum: ``valid and is_cover and cover_size == cardinality`` -- a
        vertex cover as small as the matching proves it maximum (Koenig).
      reason: why the check failed (empty when ``maximum``).
    """

    valid: bool
    cardinality: int
    cover_rows: "np.ndarray"
    cover_cols: "np.ndarray"
    cover_size: int
    is_cover: bool
    maximum: bool
    reason: str
