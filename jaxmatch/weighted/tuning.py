"""The tuning of the weighted matching solvers: one frozen, hashable value.

The default bounds the rounds each call of the locally dominant method runs
(a launch-count bound; ``docs/benchmarks.md`` has no table for it yet).
"""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
class WeightedMatchingTuning:
    """Tuning of :func:`jaxmatch.approximate_weighted_matching`.

    Passed as ``tuning=``; frozen and hashable, so it is static under
    ``jax.jit`` (pass it as a ``static_argnames`` argument or close over it).

    Attributes:
      ld_rounds_per_call: the default ``rounds_per_call`` of ``method="ld"``:
        rounds of mutual-heaviest pairing per custom call (each round is two
        kernels on the GPU; an odd value is rounded up to an even one).
    """

    ld_rounds_per_call: int = 16

    def __post_init__(self) -> None:
        value = self.ld_rounds_per_call
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(
                f"WeightedMatchingTuning.ld_rounds_per_call must be an int, got {value!r}"
            )
        if not 1 <= value < 2**31:
            raise ValueError(
                f"WeightedMatchingTuning.ld_rounds_per_call must be in [1, 2**31), got {value}"
            )


def tuning_of(tuning: Any) -> WeightedMatchingTuning:
    """``tuning``, or the defaults for ``None``.

    Raises:
      TypeError: ``tuning`` is neither ``None`` nor a
        :class:`WeightedMatchingTuning`.
    """
    if tuning is None:
        return DEFAULT_TUNING
    if not isinstance(tuning, WeightedMatchingTuning):
        raise TypeError(
            f"tuning must be a WeightedMatchingTuning or None, got {type(tuning).__name__}"
        )
    return tuning


DEFAULT_TUNING = WeightedMatchingTuning()
