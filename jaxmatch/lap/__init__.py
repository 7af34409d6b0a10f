"""The linear assignment problem: Date & Nagi's GPU Hungarian algorithms."""

from .. import _tuning
from . import api
from .api import (
    AUTOTUNE_MAX_FRACTION,
    FOREST_MIN_TIED_ROWS,
    FOREST_WIDE_COLUMNS,
    FUSED_MAX_COLUMNS,
    JV_GPU_FLOAT_MAX_COLUMNS,
    JV_GPU_FLOAT_MIN_COLUMNS,
    JV_GPU_FLOAT_WARP_MAX_COLUMNS,
    JV_GPU_INT_MAX_TIED_ROWS,
    JV_GPU_INT_TREE_ITERATIONS_PER_ROW,
    JV_GPU_INT_WARP_MAX_COLUMNS,
    JV_GPU_MAX_COLUMNS,
    JV_GPU_MAX_ROWS,
    STEPPED_ITERATIONS_PER_CALL,
    hungarian,
    solve_lap,
)
from .csr import SparseCosts, solve_lap_csr
from .dropin import linear_sum_assignment
from .points import PointsLAPSolution, solve_lap_points, verify_lap_points
from .sparse import (
    SparseLAPSolution,
    min_weight_full_bipartite_matching,
    solve_sparse_lap,
    verify_sparse_lap,
)
from .split import solve_lap_split
from .types import LAPCertificate, LAPResult, LAPStatus
from .verify import verify_lap

__all__ = [
    "AUTOTUNE_MAX_FRACTION",
    "FOREST_MIN_TIED_ROWS",
    "FOREST_WIDE_COLUMNS",
    "FUSED_MAX_COLUMNS",
    "JV_GPU_FLOAT_MAX_COLUMNS",
    "JV_GPU_FLOAT_MIN_COLUMNS",
    "JV_GPU_FLOAT_WARP_MAX_COLUMNS",
    "JV_GPU_INT_MAX_TIED_ROWS",
    "JV_GPU_INT_TREE_ITERATIONS_PER_ROW",
    "JV_GPU_INT_WARP_MAX_COLUMNS",
    "JV_GPU_MAX_COLUMNS",
    "JV_GPU_MAX_ROWS",
    "STEPPED_ITERATIONS_PER_CALL",
    "LAPCertificate",
    "LAPResult",
    "LAPStatus",
    "PointsLAPSolution",
    "SparseCosts",
    "SparseLAPSolution",
    "hungarian",
    "linear_sum_assignment",
    "min_weight_full_bipartite_matching",
    "solve_lap",
    "solve_lap_csr",
    "solve_lap_points",
    "solve_lap_split",
    "solve_sparse_lap",
    "verify_lap",
    "verify_lap_points",
    "verify_sparse_lap",
]

# Tuning constants (docs/lap.md, "Tuning constants"): setting
# jaxmatch.lap.FUSED_MAX_COLUMNS sets jaxmatch.lap.api.FUSED_MAX_COLUMNS.
_tuning.forward_constants(
    __name__,
    api,
    (
        "AUTOTUNE_MAX_FRACTION",
        "FOREST_MIN_TIED_ROWS",
        "FOREST_WIDE_COLUMNS",
        "FUSED_MAX_COLUMNS",
        "JV_GPU_FLOAT_MAX_COLUMNS",
        "JV_GPU_FLOAT_MIN_COLUMNS",
        "JV_GPU_FLOAT_WARP_MAX_COLUMNS",
        "JV_GPU_INT_MAX_TIED_ROWS",
        "JV_GPU_INT_TREE_ITERATIONS_PER_ROW",
        "JV_GPU_INT_WARP_MAX_COLUMNS",
        "JV_GPU_MAX_ROWS",
        "STEPPED_ITERATIONS_PER_CALL",
    ),
)
