"""Approximate maximum weight matching on general graphs: Suitor and the
locally dominant matching."""

from .api import approximate_weighted_matching
from .graph import Graph
from .tuning import WeightedMatchingTuning
from .types import WeightedMatchingCertificate, WeightedMatchingResult, WeightedMatchingStatus
from .verify import verify_weighted_matching

__all__ = [
    "Graph",
    "WeightedMatchingCertificate",
    "WeightedMatchingResult",
    "WeightedMatchingStatus",
    "WeightedMatchingTuning",
    "approximate_weighted_matching",
    "verify_weighted_matching",
]
