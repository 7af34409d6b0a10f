"""The tuning of the matching solvers: one frozen, hashable value.

The defaults are the values the benchmarks chose; the measurements behind
the driver choice (``auto_free_divisor``) and the restart
(``greedy_restart_levels``) are in ``docs/benchmarks.md``, section "Why the
planner chooses what it does"; the launch-count bounds (``fused_max_vertices``,
``hybrid_depth_factor``, the levels per call) have no table there yet.
"""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class MatchingTuning:
    """Tuning of :func:`jaxmatch.max_cardinality_matching`.

    Passed as ``tuning=``; frozen and hashable, so it is static under
    ``jax.jit`` (pass it as a ``static_argnames`` argument or close over it).
    Change one field with ``dataclasses.replace(MatchingTuning(), ...)``.

    Attributes:
      fused_max_vertices: on the GPU, ``execution="auto"`` runs graphs with
        at most this many rows and columns fused (a thread block per graph),
        larger ones stepped.
      levels_per_call: the default ``levels_per_call`` of the drivers
        ``"apfb"``, ``"hybrid"``, ``"auto"`` and ``"pr"``: BFS level kernels
        per stepped call (for ``"pr"``: push iterations plus global-relabel
        levels).
      apsb_levels_per_call: the default ``levels_per_call`` of ``"apsb"``.
      max_levels_per_call: upper bound on ``levels_per_call`` (larger values
        are clamped): the GPU launches this many level kernels per call.
      hybrid_depth_factor: the hybrid driver stops a phase's BFS once it is
        this many times as deep as the level that found the phase's first
        augmenting path.
      auto_free_divisor: ``method="auto"`` runs as APFB when more than
        ``n_cols / auto_free_divisor`` columns with an edge are free after
        the initial matching, else as the hybrid (chosen per graph, on the
        device).
      greedy_restart_levels: from ``init="cheap"``, the stepped GPU solver
        restarts once from :func:`jaxmatch.greedy_matching` once the BFS has
        run this many levels in all, without waiting for the phase to end
        (0: never). The GPU's racing cheap
        matching can leave long augmenting paths on large graphs numbered
        along their geometry, where the ordered greedy matching does not
        (``docs/matching.md``).
      keep_trees_divisor: the drivers ``"apfb"`` and ``"auto"`` (where it
        runs as APFB), with ``bfs="wr"``, keep the search trees that found
        no augmenting path across a phase when fewer than one visited column
        in ``keep_trees_divisor`` was released by the paths found (tree
        grafting: the next phase grows them from the released vertices
        instead of searching from every free column again); 0: never. A
        phase from kept trees that finds no path expands every tree's
        columns once more before it ends the solve.
    """

    fused_max_vertices: int = 4096
    levels_per_call: int = 16
    apsb_levels_per_call: int = 8
    max_levels_per_call: int = 1024
    hybrid_depth_factor: int = 4
    auto_free_divisor: int = 50
    greedy_restart_levels: int = 4096
    keep_trees_divisor: int = 0

    def __post_init__(self) -> None:
        least = {
            "fused_max_vertices": 0,
            "levels_per_call": 1,
            "apsb_levels_per_call": 1,
            "max_levels_per_call": 1,
            "hybrid_depth_factor": 1,
            "auto_free_divisor": 1,
            "greedy_restart_levels": 0,
            "keep_trees_divisor": 0,
        }
        for name, low in least.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"MatchingTuning.{name} must be an int, got {value!r}")
            if not low <= value < 2**31:
                raise ValueError(f"MatchingTuning.{name} must be in [{low}, 2**31), got {value}")

    def levels_per_call_of(self, method: str) -> int:
        """The default ``levels_per_call`` of the driver ``method``."""
        return self.apsb_levels_per_call if method == "apsb" else self.levels_per_call


def tuning_of(tuning: Any) -> MatchingTuning:
    """``tuning``, or the defaults for ``None``.

    Raises:
      TypeError: ``tuning`` is neither ``None`` nor a :class:`MatchingTuning`.
    """
    if tuning is None:
        return DEFAULT_TUNING
    if not isinstance(tuning, MatchingTuning):
        raise TypeError(f"tuning must be a MatchingTuning or None, got {type(tuning).__name__}")
    return tuning


DEFAULT_TUNING = MatchingTuning()
