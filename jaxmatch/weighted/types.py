"""Result types (NamedTuple pytrees) of the weighted matching solvers."""

from __future__ import annotations

import enum
from typing import NamedTuple

import jax
import numpy as np

from .._display import result_repr, status_names


class WeightedMatchingStatus(enum.IntEnum):
    """Why a weighted matching solve stopped (``WeightedMatchingResult.status``)."""

    RUNNING = 0  #: never returned
    DOMINANT = 1  #: done: the locally dominant matching (a 1/2-approximation)
    INVALID_GRAPH = 2  #: malformed CSR (only possible for unvalidated arrays)
    INVALID_WEIGHTS = 3  #: a NaN weight (only possible for unvalidated arrays)
    OVERFLOW = 4  #: the total of integer weights does not fit their dtype
    INVALID_CAPACITY = 5  #: a negative b (only possible for traced b)


class WeightedMatchingResult(NamedTuple):
    """A matching of an undirected weighted graph (of a batch of graphs).

    Leading dimensions ``...`` are batch dimensions (from ``jax.vmap`` over
    graphs of the same padded shapes).

    Attributes:
      mate: int32 ``[..., n]``. The vertex matched to each vertex, -1 when
        unmatched (``mate[mate[u]] == u``).
      mate_edge: int32 ``[..., n]``. The position of edge ``(u, mate[u])`` in
        ``G.indices`` / ``G.data``, -1 when unmatched.
      weight: ``[...]`` in the weights' dtype. Total weight of the matching.
      cardinality: int32 ``[...]``. Number of matched pairs.
      iterations: int32 ``[...]``. The main loop's rounds: for ``"ld"`` the
        rounds of mutual-heaviest pairing; for ``"suitor"`` the passes over
        the vertices (1: every dislodged vertex proposes again within the
        pass).
      status: int32 ``[...]``, a :class:`WeightedMatchingStatus`.
    """

    mate: jax.Array
    mate_edge: jax.Array
    weight: jax.Array
    cardinality: jax.Array
    iterations: jax.Array
    status: jax.Array

    @property
    def status_name(self) -> str | np.ndarray:
        """The :class:`WeightedMatchingStatus` name of ``status`` (a ``str``
        array for a batch).

        Raises:
          TypeError: the result is traced.
        """
        return status_names(self.status, WeightedMatchingStatus)

    def __repr__(self) -> str:
        return result_repr(
            self, ("weight", "cardinality", "iterations", "status"), WeightedMatchingStatus
        )


class BMatchingResult(NamedTuple):
    """A b-matching of an undirected weighted graph (of a batch of graphs):
    the result of :func:`jaxmatch.approximate_b_matching`.

    Leading dimensions ``...`` are batch dimensions (from ``jax.vmap`` over
    graphs of the same padded shapes, or a batched ``b``).

    Attributes:
      matched: bool ``[..., capacity]``. Entry ``k`` of ``G.indices`` /
        ``G.data`` is a matched edge; both stored directions of an edge
        agree, padding entries are False.
      degree: int32 ``[..., n]``. The matched edges at each vertex (at most
        ``b[v]``).
      weight: ``[...]`` in the weights' dtype. Total weight of the matched
        edges, each edge once (summed exactly for integer weights: a total
        outside the dtype is ``OVERFLOW``, never wrapped).
      cardinality: int32 ``[...]``. Number of matched edges.
      iterations: int32 ``[...]``. Passes of b-Suitor: the first over every
        vertex, then one per round of the queue of dislodged vertices that
        the teams did not process at once (1 on the CPU for most graphs).
      status: int32 ``[...]``, a :class:`WeightedMatchingStatus`
        (``DOMINANT`` when done). On any other status ``matched`` is all
        False, ``degree`` 0 and ``weight`` 0.
    """

    matched: jax.Array
    degree: jax.Array
    weight: jax.Array
    cardinality: jax.Array
    iterations: jax.Array
    status: jax.Array

    @property
    def status_name(self) -> str | np.ndarray:
        """The :class:`WeightedMatchingStatus` name of ``status`` (a ``str``
        array for a batch).

        Raises:
          TypeError: the result is traced.
        """
        return status_names(self.status, WeightedMatchingStatus)

    def __repr__(self) -> str:
        return result_repr(
            self, ("weight", "cardinality", "iterations", "status"), WeightedMatchingStatus
        )


class WeightedMatchingCertificate(NamedTuple):
    """Outcome of :func:`jaxmatch.verify_weighted_matching`.

    Attributes:
      valid: every matched pair is an edge of the graph and ``mate`` is
        symmetric.
      weight: the matching's weight, recomputed from the graph (float64, or
        int64 for integer weights).
      cardinality: number of matched pairs.
      locally_dominant: no edge outside the matching is heavier than both
        matched edges at its ends (an unmatched end counts as weight 0):
        this proves ``weight >= optimum / 2``.
      upper_bound: a proven upper bound on the maximum weight matching's
        weight: the least of ``sum_v max(0, max incident weight) / 2`` (a
        fractional vertex cover) and, when locally dominant, ``2 * weight``.
      ratio: ``weight / upper_bound`` (1.0 when both are 0): the matching is
        at least this fraction of the optimum.
      reason: why the check failed (empty when valid and locally dominant).
    """

    valid: bool
    weight: float
    cardinality: int
    locally_dominant: bool
    upper_bound: float
    ratio: float
    reason: str
