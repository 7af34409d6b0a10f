"""jaxmatch: GPU matching and assignment algorithms as JAX primitives."""

from .graph import BipartiteGraph, GraphValidationError
from .lap import hungarian, linear_sum_assignment, solve_lap
from .types import LAPCertificate, LAPResult, LAPStatus, MatchingCertificate
from .verify import verify_lap, verify_matching

__version__ = "0.1.0"

__all__ = [
    "BipartiteGraph",
    "GraphValidationError",
    "LAPCertificate",
    "LAPResult",
    "LAPStatus",
    "MatchingCertificate",
    "hungarian",
    "linear_sum_assignment",
    "solve_lap",
    "verify_lap",
    "verify_matching",
]
