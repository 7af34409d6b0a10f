"""Approximate maximum weight matching on general graphs: Suitor and the
locally dominant matching."""

from .. import _tuning
from . import api
from .api import LD_ROUNDS_PER_CALL, approximate_weighted_matching
from .graph import Graph
from .types import WeightedMatchingCertificate, WeightedMatchingResult, WeightedMatchingStatus
from .verify import verify_weighted_matching

__all__ = [
    "LD_ROUNDS_PER_CALL",
    "Graph",
    "WeightedMatchingCertificate",
    "WeightedMatchingResult",
    "WeightedMatchingStatus",
    "approximate_weighted_matching",
    "verify_weighted_matching",
]

# Tuning constants: setting jaxmatch.weighted.LD_ROUNDS_PER_CALL sets
# jaxmatch.weighted.api's.
_tuning.forward_constants(__name__, api, ("LD_ROUNDS_PER_CALL",))
