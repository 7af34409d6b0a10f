"""The drop-in for ``scipy.sparse.csgraph.maximum_bipartite_matching``.

It runs eagerly and calls the CPU library's host entry point directly on the
matrix's column CSR: no XLA compilation and no graph construction, so a loop
over graphs of varying shapes costs no more than the solves.
"""

from __future__ import annotations

import numpy as np

from .. import _limits
from .._csr import validate_csr
from .._interrupt import run_host
from . import _ffi as matching_ffi
from .tuning import DEFAULT_TUNING
from .types import MatchingStatus


def maximum_bipartite_matching(graph, perm_type: str = "row") -> np.ndarray:
    """Drop-in for ``scipy.sparse.csgraph.maximum_bipartite_matching``.

    Solved on the CPU by the same algorithm as :func:`max_cardinality_matching`
    with its defaults (``method="auto"``, GPUBFS-WR, cheap initial matching).

    Args:
      graph: a scipy sparse matrix or array in CSR, CSC or COO format; rows
        are one side, columns the other, stored entries (explicit zeros
        included) are edges.
      perm_type: ``"row"`` returns, for each column, the row matched to it;
        ``"column"`` returns, for each row, the column matched to it.

    Returns:
      int32 NumPy array, -1 for unmatched vertices (length ``n_cols`` for
      ``"row"``, ``n_rows`` for ``"column"``).

    Raises:
      TypeError: with scipy's messages, for non-sparse input or other formats.
      GraphValidationError: a corrupted CSR or CSC structure.
    """
    import scipy.sparse as sp

    if not sp.issparse(graph):
        raise TypeError("graph must be sparse")
    if graph.format not in ("csr", "csc", "coo"):
        raise TypeError("graph must be in CSC, CSR, or COO format.")
    _limits.check_csr(graph.shape, graph.nnz, "graph")
    # The solver reads a column CSR. A CSR matrix is the column CSR of its
    # transpose, whose maximum matchings are the same pairs: solve that and
    # swap the sides instead of converting.
    transposed = graph.format == "csr"
    csx = graph if graph.format in ("csr", "csc") else graph.tocsc()
    n_rows, n_cols = csx.shape[::-1] if transposed else csx.shape
    what = f"scipy {csx.format.upper()}"
    indptr, indices = csx.indptr, csx.indices
    # The library checks int32 pointers and indices itself (the solve reports
    # INVALID_GRAPH and reads nothing out of bounds once the pointer array has
    # n_cols + 1 entries); anything else is checked here first, so that no
    # value wraps in the conversion to int32.
    fast = (
        isinstance(indptr, np.ndarray)
        and isinstance(indices, np.ndarray)
        and indptr.dtype == np.int32
        and indices.dtype == np.int32
        and indptr.shape == (n_cols + 1,)
        and indices.ndim == 1
    )
    if not fast:
        validate_csr(indptr, indices, n_cols, n_rows, what=what)
    indices = indices if indices.size else np.zeros(1, np.int32)
    rm, cm, status = run_host(
        matching_ffi.solve_host,
        indptr,
        indices,
        n_rows,
        init="cheap",
        driver=matching_ffi.code("DRIVER", "auto"),
        bfs=matching_ffi.code("BFS", "wr"),
        max_phases=min(n_rows, n_cols) + 1,
        hybrid_depth=DEFAULT_TUNING.hybrid_depth_factor,
        auto_free_divisor=DEFAULT_TUNING.auto_free_divisor,
        work=indices.size,
    )
    if status == MatchingStatus.INVALID_GRAPH:
        validate_csr(indptr, csx.indices, n_cols, n_rows, what=what)  # raises, naming the fault
    if status != MatchingStatus.MAXIMUM:  # pragma: no cover - a bug if reached
        raise RuntimeError(f"jaxmatch matching stopped with status {MatchingStatus(status).name}")
    if transposed:
        rm, cm = cm, rm
    return rm if perm_type == "column" else cm
