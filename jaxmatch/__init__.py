"""jaxmatch: GPU matching and assignment algorithms as JAX primitives."""

from . import _ffi
from ._csr_device import GraphStatus
from ._export import export_disabled_checks, ffi_targets, register_serialization
from ._ffi import backends
from ._float64 import Float64RoundingWarning
from ._version import __version__ as __version__
from .lap import (
    KBestCertificate,
    KBestResult,
    LAPCertificate,
    LAPResult,
    LAPStatus,
    LAPTuning,
    PointsLAPResult,
    SparseCosts,
    hungarian,
    k_best_assignments,
    linear_sum_assignment,
    min_weight_full_bipartite_matching,
    solve_lap,
    solve_lap_points,
    solve_lap_split,
    verify_k_best,
    verify_lap,
    verify_lap_points,
)
from .matching import (
    BipartiteGraph,
    GraphValidationError,
    MatchingCertificate,
    MatchingResult,
    MatchingStatus,
    MatchingTuning,
    cheap_matching,
    greedy_matching,
    karp_sipser_matching,
    max_cardinality_matching,
    maximum_bipartite_matching,
    verify_matching,
)
from .weighted import (
    BMatchingResult,
    Graph,
    WeightedMatchingCertificate,
    WeightedMatchingResult,
    WeightedMatchingStatus,
    WeightedMatchingTuning,
    approximate_b_matching,
    approximate_weighted_matching,
    verify_b_matching,
    verify_weighted_matching,
)

# Exported programs run in a process that imported jaxmatch: the targets
# and the pytree types are registered here, at no device cost.
_ffi.register_if_loadable()
register_serialization()

__all__ = [
    "BMatchingResult",
    "BipartiteGraph",
    "Float64RoundingWarning",
    "Graph",
    "GraphStatus",
    "GraphValidationError",
    "KBestCertificate",
    "KBestResult",
    "LAPCertificate",
    "LAPResult",
    "LAPStatus",
    "LAPTuning",
    "MatchingCertificate",
    "MatchingResult",
    "MatchingStatus",
    "MatchingTuning",
    "PointsLAPResult",
    "SparseCosts",
    "WeightedMatchingCertificate",
    "WeightedMatchingResult",
    "WeightedMatchingStatus",
    "WeightedMatchingTuning",
    "approximate_b_matching",
    "approximate_weighted_matching",
    "backends",
    "cheap_matching",
    "export_disabled_checks",
    "ffi_targets",
    "greedy_matching",
    "hungarian",
    "k_best_assignments",
    "karp_sipser_matching",
    "linear_sum_assignment",
    "max_cardinality_matching",
    "maximum_bipartite_matching",
    "min_weight_full_bipartite_matching",
    "solve_lap",
    "solve_lap_points",
    "solve_lap_split",
    "verify_b_matching",
    "verify_k_best",
    "verify_lap",
    "verify_lap_points",
    "verify_matching",
    "verify_weighted_matching",
]
