"""The k best assignments (Murty's ranking with Miller, Stone and Cox's
optimizations; ``cuda_ffi/lap/kbest/``): :func:`k_best_assignments` and
its certificate :func:`verify_k_best`."""

from .api import KBestResult, k_best_assignments
from .verify import KBestCertificate, verify_k_best

__all__ = ["KBestCertificate", "KBestResult", "k_best_assignments", "verify_k_best"]
