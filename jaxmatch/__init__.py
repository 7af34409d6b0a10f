"""jaxmatch: GPU matching and assignment algorithms as JAX primitives."""

__version__ = "0.2.0.dev0"

from ._ffi import backends
from .lap import (
    LAPCertificate,
    LAPResult,
    LAPStatus,
    SparseCosts,
    SparseLAPSolution,
    hungarian,
    linear_sum_assignment,
    min_weight_full_bipartite_matching,
    solve_lap,
    solve_lap_csr,
    solve_sparse_lap,
    verify_lap,
    verify_sparse_lap,
)
from .matching import (
    BipartiteGraph,
    GraphValidationError,
    MatchingCertificate,
    MatchingResult,
    MatchingStatus,
    cheap_matching,
    karp_sipser_matching,
    max_cardinality_matching,
    maximum_bipartite_matching,
    verify_matching,
)
from .weighted import (
    Graph,
    WeightedMatchingCertificate,
    WeightedMatchingResult,
    WeightedMatchingStatus,
    approximate_weighted_matching,
    verify_weighted_matching,
)

__all__ = [
    "BipartiteGraph",
    "Graph",
    "GraphValidationError",
    "LAPCertificate",
    "LAPResult",
    "LAPStatus",
    "MatchingCertificate",
    "MatchingResult",
    "MatchingStatus",
    "SparseCosts",
    "SparseLAPSolution",
    "WeightedMatchingCertificate",
    "WeightedMatchingResult",
    "WeightedMatchingStatus",
    "approximate_weighted_matching",
    "backends",
    "cheap_matching",
    "hungarian",
    "karp_sipser_matching",
    "linear_sum_assignment",
    "max_cardinality_matching",
    "maximum_bipartite_matching",
    "min_weight_full_bipartite_matching",
    "solve_lap",
    "solve_lap_csr",
    "solve_sparse_lap",
    "verify_lap",
    "verify_matching",
    "verify_sparse_lap",
    "verify_weighted_matching",
]
