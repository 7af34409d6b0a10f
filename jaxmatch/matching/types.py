"""Result types (NamedTuple pytrees) of the matching solvers."""

from __future__ import annotations

import enum
from typing import NamedTuple

import jax
import numpy as np

from .._display import result_repr, status_names


class MatchingStatus(enum.IntEnum):
    """Why a matching solve stopped (the ``status`` of :class:`MatchingResult`)."""

    RUNNING = 0  #: never returned
    MAXIMUM = 1  #: no augmenting path is left: the matching is maximum
    ITERATION_LIMIT = 2  #: stopped by ``max_iterations``: a valid matching, maybe not maximum
    INVALID_GRAPH = 3  #: malformed CSR (only possible for unvalidated arrays)
    INITIAL = 4  #: from :func:`jaxmatch.cheap_matching`: valid and maximal, not proven maximum


class MatchingResult(NamedTuple):
    """A bipartite matching (of a batch of graphs).

    Leading dimensions ``...`` are batch dimensions (from ``jax.vmap`` over
    graphs of the same padded shapes).

    Attributes:
      col_for_row: int32 ``[..., n_rows]``. The column matched to each row,
        -1 when unmatched.
      row_for_col: int32 ``[..., n_cols]``. The row matched to each column,
        -1 when unmatched.
      cardinality: int32 ``[...]``. Number of matched pairs.
      iterations: int32 ``[...]``. The main loop's iterations: for the
        augmenting-path methods (``"apfb"``, ``"apsb"``, ``"hybrid"``,
        ``"auto"``) the augmentation phases run (BFS + Alternate +
        FixMatching); for ``method="pr"`` the push iterations; 0 for an
        initial matching (:func:`jaxmatch.cheap_matching` and friends).
      levels: int32 ``[...]``. For the augmenting-path methods the BFS level
        kernels run, over all phases; for ``method="pr"`` the global-relabel
        levels; 0 for an initial matching.
      status: int32 ``[...]``, a :class:`MatchingStatus`. For one concrete
        graph, ``MatchingStatus(int(res.status))`` is the enum member and
        ``res.status_name`` its name.

    The result is a pytree (a NamedTuple): it passes through ``jit`` and
    ``vmap`` and supports ``_replace``. Its ``repr`` is compact: arrays as
    ``dtype[shape]``, and ``cardinality``, ``iterations``, ``levels`` and the
    status name as values when concrete and at most a few graphs (status
    counts for a larger batch; only shapes when traced).
    """

    col_for_row: jax.Array
    row_for_col: jax.Array
    cardinality: jax.Array
    iterations: jax.Array
    levels: jax.Array
    status: jax.Array

    @property
    def status_name(self) -> str | np.ndarray:
        """The :class:`MatchingStatus` name of ``status``: a ``str`` such as
        ``"MAXIMUM"`` for one graph, a ``str`` array of the batch shape for a
        batch (``"UNKNOWN(code)"`` for a code outside the enum).

        Raises:
          TypeError: the result is traced (inside ``jit`` or ``vmap``), where
            ``status`` has no value yet.
        """
        return status_names(self.status, MatchingStatus)

    def __repr__(self) -> str:
        return result_repr(self, ("cardinality", "iterations", "levels", "status"), MatchingStatus)


class MatchingCertificate(NamedTuple):
    """Outcome of :func:`jaxmatch.verify_matching`.

    Attributes:
      valid: every matched pair is an edge, no vertex is used twice and
        ``col_for_row``/``row_for_col`` agree.
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
    cover_rows: np.ndarray
    cover_cols: np.ndarray
    cover_size: int
    is_cover: bool
    maximum: bool
    reason: str
