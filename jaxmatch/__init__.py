"""jaxmatch: GPU matching and assignment algorithms as JAX primitives."""

from .bipartite import cheap_matching, max_cardinality_matching, maximum_bipartite_matching
from .graph import BipartiteGraph, GraphValidationError
from .lap import hungarian, linear_sum_assignment, solve_lap
from .types import (
    LAPCertificate,
    LAPResult,
    LAPStatus,
    MatchingCertificate,
    MatchingResult,
    MatchingStatus,
)
from .verify import verify_lap, verify_matching

__version__ = "0.1.0"

__all__ = [
    "BipartiteGraph",
    "GraphValidationError",
    "LAPCertificate",
    "LAPResult",
    "LAPStatus",
    "MatchingCertificate",
    "MatchingResult",
    "MatchingStatus",
    "cheap_matching",
    "hungarian",
    "linear_sum_assignment",
    "max_cardinality_matching",
    "maximum_bipartite_matching",
    "solve_lap",
    "verify_lap",
    "verify_matching",
]
