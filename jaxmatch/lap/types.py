"""Result types (NamedTuple pytrees) of the LAP solvers."""

from __future__ import annotations

import enum
from typing import NamedTuple

import jax
import numpy as np

from .._display import result_repr, status_names


class LAPStatus(enum.IntEnum):
    """Why a LAP solve stopped (the ``status`` field of :class:`LAPResult`)."""

    RUNNING = 0  #: never returned
    OPTIMAL = 1  #: solved; the duals certify optimality
    INFEASIBLE = 2  #: no complete assignment avoids the forbidden entries
    OVERFLOW = 3  #: int32 arithmetic (duals or the total cost) would overflow
    #: stopped early: ``max_iterations`` reached, or the solve was cancelled by
    #: an interrupted eager call (``docs/lap.md``); the assignment is partial
    ITERATION_LIMIT = 4
    INVALID_ENTRIES = 5  #: NaN, or -inf (+inf when maximizing), in the matrix
    INVALID_STRUCTURE = 6  #: a malformed sparse (CSR) cost matrix


class LAPResult(NamedTuple):
    """Solution of a (batch of) linear assignment problem(s).

    Leading dimensions ``...`` are the batch dimensions of the input cost
    matrix ``C`` of shape ``[..., n, m]``.

    Attributes:
      col_for_row: int32 ``[..., n]``. The column assigned to each row; ``-1``
        for rows left unassigned (when ``n > m``, or at their price with
        ``unassigned_cost``), and everywhere when the problem is not
        feasible.
      row_for_col: int32 ``[..., m]``. The row assigned to each column; ``-1``
        for unassigned columns.
      cost: ``[...]``, the cost dtype. Total cost of the assignment, with
        ``unassigned_cost`` the prices of the unassigned rows and columns
        included (exact for
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
      iterations: int32 ``[...]``. Iterations of the solver's main loop
        (forward-pass levels, dual updates and augmentations).
      status: int32 ``[...]``, a :class:`LAPStatus` code. For one concrete
        problem, ``LAPStatus(int(res.status))`` is the enum member and
        ``res.status_name`` its name.

    The result is a pytree (a NamedTuple): it passes through ``jit``,
    ``vmap`` and ``grad`` and supports ``_replace``. Its ``repr`` is compact:
    arrays as ``dtype[shape]``, and ``cost``, ``feasible``, ``iterations`` and
    the status name as values when concrete and at most a few problems
    (status counts for a larger batch; only shapes when traced).
    """

    col_for_row: jax.Array
    row_for_col: jax.Array
    cost: jax.Array
    u: jax.Array
    v: jax.Array
    feasible: jax.Array
    iterations: jax.Array
    status: jax.Array

    @property
    def status_name(self) -> str | np.ndarray:
        """The :class:`LAPStatus` name of ``status``: a ``str`` such as
        ``"OPTIMAL"`` for one problem, a ``str`` array of the batch shape for
        a batch (``"UNKNOWN(code)"`` for a code outside the enum).

        Raises:
          TypeError: the result is traced (inside ``jit``, ``vmap`` or
            ``grad``), where ``status`` has no value yet.
        """
        return status_names(self.status, LAPStatus)

    def __repr__(self) -> str:
        return result_repr(self, ("cost", "feasible", "iterations", "status"), LAPStatus)


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
      reason: why the certificate fails (the first problem found: a field of
        the wrong shape or dtype, an invalid assignment, NaN duals, a
        violation); empty when ``optimal``. Defaults to ``""`` so that the
        eight-field positional construction still works.

    Every field is a plain Python ``bool``, ``float`` or ``str``; the float
    fields are ``nan`` when they cannot be computed (an invalid assignment,
    or duals that do not fit).
    """

    valid_assignment: bool
    dual_feasible: bool
    complementary_slackness: bool
    primal_cost: float
    dual_objective: float
    duality_gap: float
    max_violation: float
    optimal: bool
    reason: str = ""


class PointsLAPResult(NamedTuple):
    """An assignment between two point sets and its LP duals (NumPy): the
    fields of :class:`LAPResult` for one problem, then the pricing's.

    Attributes:
      col_for_row: int32 ``[n]``, the point of ``Y`` assigned to each point
        of ``X``; ``-1`` for the points left over when ``n > m``.
      row_for_col: int32 ``[m]``, the point of ``X`` assigned to each point
        of ``Y``; ``-1`` when unassigned.
      cost: float, the total cost (float64 sum of the assigned pairs' costs).
      u: float64 ``[n]``, the row duals.
      v: float64 ``[m]``, the column duals; ``C - u[:, None] - v[None, :]
        >= -tol`` on every pair (``<= tol`` when maximizing), with equality
        on the assigned pairs, as for :func:`jaxmatch.solve_lap`.
      feasible: bool, ``status == OPTIMAL``.
      iterations: int, the sparse solves run.
      status: int, a :class:`jaxmatch.LAPStatus` code: ``OPTIMAL``, or
        ``ITERATION_LIMIT`` when ``max_iterations`` sparse solves still found
        violated pairs (the assignment is then optimal only on the candidate
        pairs).
      edges: int, the candidate pairs of the last sparse solve.
      max_violation: float, the largest ``-(c_ij - u_i - v_j)`` of the last
        pricing sweep (in the minimization form), ``<= tol`` when optimal.
      tol: float, the tolerance of the pricing.
      dtype: the dtype in which the costs were computed.
    """

    col_for_row: np.ndarray
    row_for_col: np.ndarray
    cost: float
    u: np.ndarray
    v: np.ndarray
    feasible: bool
    iterations: int
    status: int
    edges: int
    max_violation: float
    tol: float
    dtype: np.dtype

    @property
    def status_name(self) -> str:
        """The :class:`jaxmatch.LAPStatus` name of ``status``."""
        return LAPStatus(self.status).name
