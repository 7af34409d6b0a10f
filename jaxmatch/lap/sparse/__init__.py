"""The sparse LAP: costs on the stored entries of a CSR matrix.

:class:`SparseCosts` under ``jax.jit``/``jax.vmap`` (solved by
:func:`jaxmatch.solve_lap` through :func:`solve_sparse_costs`, with or
without ``unassigned_cost``), the eager
host solve behind the scipy drop-in (:mod:`.host`), and the certificate
(:mod:`.verify`, reached through :func:`jaxmatch.verify_lap`)."""

from .costs import SparseCosts
from .host import min_weight_full_bipartite_matching, solve_scipy
from .solve import SPARSE_METHODS, solve_sparse_costs
from .verify import verify_sparse

__all__ = [
    "SPARSE_METHODS",
    "SparseCosts",
    "min_weight_full_bipartite_matching",
    "solve_scipy",
    "solve_sparse_costs",
    "verify_sparse",
]
