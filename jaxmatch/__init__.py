"""jaxmatch: GPU matching and assignment algorithms as JAX primitives."""

from .lap import hungarian, linear_sum_assignment, solve_lap
from .types import LAPCertificate, LAPResult, LAPStatus
from .verify import verify_lap

__version__ = "0.1.0"

__all__ = [
    "LAPCertificate",
    "LAPResult",
    "LAPStatus",
    "hungarian",
    "linear_sum_assignment",
    "solve_lap",
    "verify_lap",
]
