"""Maximum-cardinality bipartite matching: Deveci et al.'s BFS augmenting paths."""

from .._csr import GraphValidationError
from .api import (
    cheap_matching,
    greedy_matching,
    karp_sipser_matching,
    max_cardinality_matching,
)
from .dropin import maximum_bipartite_matching
from .graph import BipartiteGraph
from .tuning import MatchingTuning
from .types import MatchingCertificate, MatchingResult, MatchingStatus
from .verify import verify_matching

__all__ = [
    "BipartiteGraph",
    "GraphValidationError",
    "MatchingCertificate",
    "MatchingResult",
    "MatchingStatus",
    "MatchingTuning",
    "cheap_matching",
    "greedy_matching",
    "karp_sipser_matching",
    "max_cardinality_matching",
    "maximum_bipartite_matching",
    "verify_matching",
]
