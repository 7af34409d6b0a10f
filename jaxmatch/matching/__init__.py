"""Maximum-cardinality bipartite matching: Deveci et al.'s BFS augmenting paths."""

from .. import _tuning
from . import api
from .api import (
    AUTO_FREE_DIVISOR,
    FUSED_MAX_VERTICES,
    GREEDY_RESTART_LEVELS,
    HYBRID_DEPTH_FACTOR,
    LEVELS_PER_CALL,
    MAX_LEVELS_PER_CALL,
    cheap_matching,
    greedy_matching,
    karp_sipser_matching,
    max_cardinality_matching,
)
from .dropin import maximum_bipartite_matching
from .graph import BipartiteGraph, GraphValidationError
from .types import MatchingCertificate, MatchingResult, MatchingStatus
from .verify import verify_matching

__all__ = [
    "AUTO_FREE_DIVISOR",
    "FUSED_MAX_VERTICES",
    "GREEDY_RESTART_LEVELS",
    "HYBRID_DEPTH_FACTOR",
    "LEVELS_PER_CALL",
    "MAX_LEVELS_PER_CALL",
    "BipartiteGraph",
    "GraphValidationError",
    "MatchingCertificate",
    "MatchingResult",
    "MatchingStatus",
    "cheap_matching",
    "greedy_matching",
    "karp_sipser_matching",
    "max_cardinality_matching",
    "maximum_bipartite_matching",
    "verify_matching",
]

# Tuning constants (docs/matching.md, "Tuning constants"): setting
# jaxmatch.matching.HYBRID_DEPTH_FACTOR sets jaxmatch.matching.api's.
_tuning.forward_constants(
    __name__,
    api,
    (
        "AUTO_FREE_DIVISOR",
        "FUSED_MAX_VERTICES",
        "GREEDY_RESTART_LEVELS",
        "HYBRID_DEPTH_FACTOR",
        "LEVELS_PER_CALL",
        "MAX_LEVELS_PER_CALL",
    ),
)
