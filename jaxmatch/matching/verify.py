"""The matching certificate: a Koenig vertex cover, checked in NumPy,
independently of the solver."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._csr import GraphValidationError, sorted_unique, validate_csr
from .graph import BipartiteGraph
from .types import MatchingCertificate


def _matching_fields(result):
    """``(col_for_row, row_for_col)`` as given, before any conversion."""
    if hasattr(result, "col_for_row") and hasattr(result, "row_for_col"):
        return result.col_for_row, result.row_for_col
    if isinstance(result, (tuple, list)) and len(result) == 2:
        return result[0], result[1]
    raise TypeError(
        "result must have col_for_row and row_for_col attributes (a MatchingResult) "
        f"or be a (col_for_row, row_for_col) pair, got {type(result).__name__}"
    )


def _as_match_array(x, name: str) -> tuple[np.ndarray | None, str]:
    """``(array, "")``, or ``(None, why)`` when ``x`` is no integer array."""
    try:
        a = np.asarray(x)
    except (TypeError, ValueError) as err:  # ragged lists, odd objects
        return None, f"{name} is not an array ({err})"
    if a.size and a.dtype.kind not in "iu":
        return None, f"{name} must hold integers, got dtype {a.dtype}"
    return a, ""


def _graph_validity(G: BipartiteGraph) -> str:
    """Empty string when both CSR structures of ``G`` are well formed (what the
    checks below index with), else the first problem. Whether the two CSRs
    hold the same edges is not needed: validity is judged on the column CSR,
    and the cover, grown along the row CSR, is checked against the column
    CSR's edges, so a disagreement can only make the certificate fail."""
    try:
        validate_csr(G.col_indptr, G.col_indices, G.n_cols, G.n_rows, what="column CSR")
        validate_csr(G.indptr, G.indices, G.n_rows, G.n_cols, what="row CSR")
    except GraphValidationError as err:
        return f"malformed graph: {err}"
    return ""


def _matching_validity(G: BipartiteGraph, rm: np.ndarray, cm: np.ndarray) -> str:
    """Empty string when the matching is valid, else the first problem. The
    graph is well formed and both arrays hold integers."""
    if rm.shape != (G.n_rows,) or cm.shape != (G.n_cols,):
        return f"shapes {rm.shape}, {cm.shape} do not fit a {G.n_rows} x {G.n_cols} graph"
    # Compare in the arrays' own dtypes: a cast of uint64 to int64 could wrap.
    if np.any((rm < -1) | (rm >= G.n_cols)) or np.any((cm < -1) | (cm >= G.n_rows)):
        return "a match index is out of range"
    rm, cm = rm.astype(np.int64), cm.astype(np.int64)
    rows = np.flatnonzero(rm >= 0)
    if np.any(cm[rm[rows]] != rows):
        return "col_for_row and row_for_col disagree"
    if np.count_nonzero(cm >= 0) != rows.size:
        return "row_for_col has matches that col_for_row lacks"
    # Each matched column must list its row: one pass over the column CSR.
    cx = np.asarray(G.col_indptr, np.int64)
    col_of_edge = np.repeat(np.arange(G.n_cols), np.diff(cx))
    hit = np.asarray(G.col_indices)[: cx[-1]] == cm[col_of_edge]
    listed = np.bincount(col_of_edge[hit], minlength=G.n_cols) > 0
    missing = np.flatnonzero((cm >= 0) & ~listed)
    if missing.size:
        j = missing[0]
        return f"matched pair ({cm[j]}, {j}) is not an edge"
    return ""


def _row_neighbours(G: BipartiteGraph, rows: np.ndarray) -> np.ndarray:
    """Every column adjacent to any of ``rows`` (with repeats)."""
    rp, cols = np.asarray(G.indptr, np.int64), np.asarray(G.indices)
    starts, counts = rp[rows], rp[rows + 1] - rp[rows]
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    return cols[np.arange(counts.sum()) + offsets]


#: Largest node or entry count scipy's compiled BFS indexes (int32).
_INT32_MAX = np.iinfo(np.int32).max


def _reach_by_levels(G: BipartiteGraph, rm: np.ndarray, cm: np.ndarray):
    """The alternating BFS a level at a time in NumPy: unmatched rows, their
    columns, the rows those columns are matched to, ... Each level costs a
    few NumPy calls, so a deep graph (a mesh) costs its depth in them."""
    seen_r = rm < 0
    seen_c = np.zeros(G.n_cols, bool)
    frontier = np.flatnonzero(seen_r)
    while frontier.size:
        cols = sorted_unique(_row_neighbours(G, frontier))
        cols = cols[~seen_c[cols]]
        seen_c[cols] = True
        rows = cm[cols]
        rows = rows[rows >= 0]
        rows = rows[~seen_r[rows]]
        seen_r[rows] = True
        frontier = rows
    return seen_r, seen_c


def _reach_by_scipy(G: BipartiteGraph, rm: np.ndarray, cm: np.ndarray, breadth_first_order):
    """The same reached sets from one compiled BFS over a directed graph:
    node ``n_rows + n_cols`` (a source) points at every unmatched row, row
    ``r`` at ``n_rows + c`` for each of its columns ``c``, and column ``c``
    at its matched row. Its time does not grow with the depth."""
    import scipy.sparse as sp

    n_rows, n_cols = int(G.n_rows), int(G.n_cols)
    rp = np.asarray(G.indptr, np.int64)
    free_rows = np.flatnonzero(rm < 0)
    col_rows = cm[cm >= 0]
    indices = np.concatenate(
        [n_rows + np.asarray(G.indices)[: rp[-1]].astype(np.int64), col_rows, free_rows]
    )
    col_ptr = rp[-1] + np.concatenate([[0], np.cumsum(cm >= 0)])
    indptr = np.concatenate([rp, col_ptr[1:], [col_ptr[-1] + free_rows.size]])
    source = n_rows + n_cols
    graph = sp.csr_matrix(
        (np.ones(indices.size, np.int8), indices.astype(np.int32), indptr.astype(np.int32)),
        shape=(source + 1, source + 1),
    )
    reached = np.zeros(source + 1, bool)
    reached[breadth_first_order(graph, source, directed=True, return_predecessors=False)] = True
    return reached[:n_rows], reached[n_rows:source]


def _alternating_reach(G: BipartiteGraph, rm: np.ndarray, cm: np.ndarray):
    """``(seen_r, seen_c)``: the rows and columns that alternating paths from
    the unmatched rows reach (those rows included). By scipy's compiled BFS
    when scipy is installed and the graph fits its int32 indices, else a
    level at a time in NumPy. How the sets are found cannot make a wrong
    matching pass: the caller checks the cover they give edge by edge."""
    n_rows, n_cols = int(G.n_rows), int(G.n_cols)
    n_nodes = n_rows + n_cols + 1
    n_entries = int(np.asarray(G.indptr)[-1]) + n_cols + n_rows
    try:
        from scipy.sparse.csgraph import breadth_first_order
    except ImportError:
        breadth_first_order = None
    if breadth_first_order is None or max(n_nodes, n_entries) > _INT32_MAX:
        return _reach_by_levels(G, rm, cm)
    return _reach_by_scipy(G, rm, cm, breadth_first_order)


def verify_matching(G: BipartiteGraph, result: Any) -> MatchingCertificate:
    """Certifies a bipartite matching, independently of any solver.

    Validity: every matched pair is an edge of ``G``, no vertex is matched
    twice, and ``col_for_row``/``row_for_col`` are mutual inverses. Maximality:
    the alternating BFS from every unmatched row reaches a set Z of vertices;
    (rows not in Z) + (columns in Z) is a vertex cover, and it has as many
    vertices as the matching has pairs exactly when no augmenting path exists
    (Koenig's theorem), which proves the matching maximum. The BFS is scipy's
    compiled one where scipy is installed, else a level at a time in NumPy;
    either way the cover is checked against every edge.

    Args:
      G: the graph.
      result: an object with ``col_for_row`` (int ``[n_rows]``, -1 if
        unmatched) and ``row_for_col`` (int ``[n_cols]``) attributes, or a
        ``(col_for_row, row_for_col)`` pair (a tuple or a list).

    Returns:
      A :class:`MatchingCertificate`; its ``cover_rows``/``cover_cols`` are the
      Koenig vertex cover. Every input the certificate can judge gives one:
      a malformed graph (pointers that decrease or overrun, indices out of
      range, arrays of the wrong rank or dtype -- a batched graph included),
      match arrays of the wrong shape or a non-integer dtype, or indices out
      of range, give ``valid=False`` with the problem in ``reason`` (and an
      empty cover), never an exception.

    Raises:
      TypeError: ``result`` has no ``col_for_row``/``row_for_col`` attributes
        and is not a pair.
    """
    col_for_row, row_for_col = _matching_fields(result)
    n_rows, n_cols = int(G.n_rows), int(G.n_cols)
    empty_r, empty_c = np.zeros(max(n_rows, 0), bool), np.zeros(max(n_cols, 0), bool)
    reason = _graph_validity(G)
    rm, why_r = _as_match_array(col_for_row, "col_for_row")
    cm, why_c = _as_match_array(row_for_col, "row_for_col")
    reason = reason or why_r or why_c
    if not reason:
        assert rm is not None and cm is not None
        reason = _matching_validity(G, rm, cm)
    if reason:
        return MatchingCertificate(False, 0, empty_r, empty_c, 0, False, False, reason)
    assert rm is not None and cm is not None
    rm, cm = rm.astype(np.int64), cm.astype(np.int64)
    cardinality = int(np.count_nonzero(rm >= 0))
    seen_r, seen_c = _alternating_reach(G, rm, cm)
    cover_rows, cover_cols = ~seen_r, seen_c
    rows, cols = G.edges()
    is_cover = bool(np.all(cover_rows[rows] | cover_cols[cols]))
    cover_size = int(cover_rows.sum() + cover_cols.sum())
    maximum = is_cover and cover_size == cardinality
    reason = (
        ""
        if maximum
        else (
            "an augmenting path exists: the Koenig cover is larger than the matching"
            if is_cover
            else "the alternating-BFS cover misses an edge"
        )
    )
    return MatchingCertificate(
        True, cardinality, cover_rows, cover_cols, cover_size, is_cover, bool(maximum), reason
    )
