"""The sparse LAP: costs on the stored entries of a CSR matrix.

:class:`SparseCosts` under ``jax.jit``/``jax.vmap`` (solved by
:func:`jaxmatch.solve_lap`, :func:`solve_sparse_costs`), and the eager
NumPy/scipy solve behind the scipy drop-in (:mod:`.host`)."""

from .costs import SparseCosts
from .host import (
    SparseLAPSolution,
    min_weight_full_bipartite_matching,
    solve_sparse_lap,
    verify_sparse_lap,
)
from .solve import SPARSE_METHODS, solve_sparse_costs

__all__ = [
    "SPARSE_METHODS",
    "SparseCosts",
    "SparseLAPSolution",
    "min_weight_full_bipartite_matching",
    "solve_sparse_costs",
    "solve_sparse_lap",
    "verify_sparse_lap",
]
