"""The linear assignment problem: Date & Nagi's GPU Hungarian algorithms,
Jonker & Volgenant's shortest augmenting paths, the alternating forest over
devices, sparse costs and point sets, behind one planner (:mod:`._plan`).

A room per solver: :mod:`.hungarian`, :mod:`.jv`, :mod:`.split`,
:mod:`.sparse`, :mod:`.points`, the k best assignments :mod:`.kbest`; the front door :mod:`.api`.
"""

from ._plan import LAPTuning
from .api import hungarian, solve_lap
from .dropin import linear_sum_assignment
from .kbest import KBestCertificate, KBestResult, k_best_assignments, verify_k_best
from .points import solve_lap_points, verify_lap_points
from .sparse import (
    SparseCosts,
    min_weight_full_bipartite_matching,
)
from .split import solve_lap_split
from .types import LAPCertificate, LAPResult, LAPStatus, PointsLAPResult
from .verify import verify_lap

__all__ = [
    "KBestCertificate",
    "KBestResult",
    "LAPCertificate",
    "LAPResult",
    "LAPStatus",
    "LAPTuning",
    "PointsLAPResult",
    "SparseCosts",
    "hungarian",
    "k_best_assignments",
    "linear_sum_assignment",
    "min_weight_full_bipartite_matching",
    "solve_lap",
    "solve_lap_points",
    "solve_lap_split",
    "verify_k_best",
    "verify_lap",
    "verify_lap_points",
]
