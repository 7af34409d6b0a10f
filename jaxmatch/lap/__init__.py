"""The linear assignment problem: Date & Nagi's GPU Hungarian algorithms."""

from .. import _tuning
from . import api
from .api import (
    FUSED_MAX_COLUMNS,
    STEPPED_ITERATIONS_PER_CALL,
    hungarian,
    solve_lap,
)
from .dropin import linear_sum_assignment
from .types import LAPCertificate, LAPResult, LAPStatus
from .verify import verify_lap

__all__ = [
    "FUSED_MAX_COLUMNS",
    "STEPPED_ITERATIONS_PER_CALL",
    "LAPCertificate",
    "LAPResult",
    "LAPStatus",
    "hungarian",
    "linear_sum_assignment",
    "solve_lap",
    "verify_lap",
]

# Tuning constants (docs/lap.md, "Tuning constants"): setting
# jaxmatch.lap.FUSED_MAX_COLUMNS sets jaxmatch.lap.api.FUSED_MAX_COLUMNS.
_tuning.forward_constants(__name__, api, ("FUSED_MAX_COLUMNS", "STEPPED_ITERATIONS_PER_CALL"))
