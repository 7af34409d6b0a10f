"""Approximate maximum weight matching and b-matching on general graphs:
Suitor, the locally dominant matching and b-Suitor."""

from .api import approximate_weighted_matching
from .b_matching import approximate_b_matching
from .graph import Graph
from .tuning import WeightedMatchingTuning
from .types import (
    BMatchingResult,
    WeightedMatchingCertificate,
    WeightedMatchingResult,
    WeightedMatchingStatus,
)
from .verify import verify_b_matching, verify_weighted_matching

__all__ = [
    "BMatchingResult",
    "Graph",
    "WeightedMatchingCertificate",
    "WeightedMatchingResult",
    "WeightedMatchingStatus",
    "WeightedMatchingTuning",
    "approximate_b_matching",
    "approximate_weighted_matching",
    "verify_b_matching",
    "verify_weighted_matching",
]
