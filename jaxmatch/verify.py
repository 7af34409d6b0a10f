"""Independent certificates of solver results (NumPy, float64)."""

from __future__ import annotations

import numpy as np

from .graph import BipartiteGraph, sorted_unique
from .types import LAPCertificate, LAPResult, MatchingCertificate


def _default_tol(C: np.ndarray, dtype: np.dtype, u, v) -> float:
    if np.issubdtype(dtype, np.integer):
        return 0.0
    finite = C[np.isfinite(C)]
    scale = max(
        1.0,
        float(np.abs(finite).max()) if finite.size else 0.0,
        float(np.abs(u).max()) if u.size else 0.0,
        float(np.abs(v).max()) if v.size else 0.0,
    )
    eps = np.finfo(np.float32 if dtype == np.float32 else np.float64).eps
    return 64.0 * eps * scale


def _verify_one(C, cfr, rfc, u, v, maximize, tol, dtype) -> LAPCertificate:
    n, m = C.shape
    sign = -1.0 if maximize else 1.0
    Cs = sign * C.astype(np.float64)  # minimisation form; forbidden = +inf
    us, vs = sign * u.astype(np.float64), sign * v.astype(np.float64)
    if tol is None:
        tol = _default_tol(C.astype(np.float64), dtype, u, v)

    k = min(n, m)
    assigned_rows = np.flatnonzero(cfr >= 0)
    cols = cfr[assigned_rows]
    valid = (
        len(assigned_rows) == k
        and np.all(cols < m)
        and len(np.unique(cols)) == k
        and np.all(rfc[cols] == assigned_rows)
        and np.count_nonzero(rfc >= 0) == k
        and bool(np.all(np.isfinite(Cs[assigned_rows, cols])))
    )
    if not valid:
        nan = float("nan")
        return LAPCertificate(False, False, False, nan, nan, nan, nan, False)

    with np.errstate(invalid="ignore"):
        reduced = Cs - us[:, None] - vs[None, :]
    reduced = np.where(np.isposinf(Cs), np.inf, reduced)
    viol_dual = max(0.0, -float(reduced.min())) if reduced.size else 0.0
    viol_cs = float(np.abs(reduced[assigned_rows, cols]).max()) if k else 0.0
    # Rectangular LP: the duals of the larger side are <= 0, and 0 where
    # that vertex is unassigned.
    if n < m:
        free = rfc < 0
        viol_cs = max(viol_cs, float(np.abs(vs[free]).max()) if free.any() else 0.0)
        viol_dual = max(viol_dual, float(vs.max()) if m else 0.0)
    elif n > m:
        free = cfr < 0
        viol_cs = max(viol_cs, float(np.abs(us[free]).max()) if free.any() else 0.0)
        viol_dual = max(viol_dual, float(us.max()) if n else 0.0)
    primal = float(Cs[assigned_rows, cols].sum())
    dual = float(us.sum() + vs.sum())
    gap = primal - dual
    dual_feasible = viol_dual <= tol
    slack_ok = viol_cs <= tol
    optimal = dual_feasible and slack_ok and abs(gap) <= tol * max(1, n + m)
    return LAPCertificate(
        valid_assignment=True,
        dual_feasible=dual_feasible,
        complementary_slackness=slack_ok,
        primal_cost=sign * primal,
        dual_objective=sign * dual,
        duality_gap=gap,
        max_violation=max(viol_dual, viol_cs),
        optimal=optimal,
    )


def verify_lap(C, result: LAPResult, *, maximize: bool = False, tol: float | None = None):
    """Certifies a LAP solution by LP duality, independently of the solver.

    Checks that the assignment is valid (each row of the smaller side assigned
    to a distinct column, ``row_for_col`` consistent, no forbidden entry used),
    that the duals are feasible (``C - u - v >= -tol``, reversed when
    maximizing; on rectangular problems the larger side's duals are ``<= 0``),
    complementary slackness (zero reduced cost on assigned pairs, zero duals
    on unassigned vertices), and that the duality gap vanishes.

    Args:
      C: ``[..., n, m]`` the costs that were solved.
      result: the :class:`LAPResult` of ``solve_lap(C, maximize=maximize)``.
      maximize: whether ``result`` maximizes.
      tol: absolute tolerance; default 0 for integer costs, else
        ``64 * eps(dtype) * max(1, |C|, |u|, |v|)``.

    Returns:
      A :class:`LAPCertificate` for a single matrix, or a list of them (in
      row-major batch order) for a batch.
    """
    C = np.asarray(C)
    dtype = C.dtype
    cfr, rfc = np.asarray(result.col_for_row), np.asarray(result.row_for_col)
    u, v = np.asarray(result.u), np.asarray(result.v)
    if C.ndim == 2:
        return _verify_one(C, cfr, rfc, u, v, maximize, tol, dtype)
    n, m = C.shape[-2:]
    B = int(np.prod(C.shape[:-2]))
    return [
        _verify_one(
            C.reshape(B, n, m)[b], cfr.reshape(B, n)[b], rfc.reshape(B, m)[b],
            u.reshape(B, n)[b], v.reshape(B, m)[b], maximize, tol, dtype,
        )
        for b in range(B)
    ]


def _matching_arrays(matching):
    if isinstance(matching, tuple) and len(matching) == 2:
        return np.asarray(matching[0]), np.asarray(matching[1])
    return np.asarray(matching.row_match), np.asarray(matching.col_match)


def _matching_validity(G: BipartiteGraph, rm: np.ndarray, cm: np.ndarray) -> str:
    """Empty string when the matching is valid, else the first problem."""
    if rm.shape != (G.n_rows,) or cm.shape != (G.n_cols,):
        return f"shapes {rm.shape}, {cm.shape} do not fit a {G.n_rows} x {G.n_cols} graph"
    if np.any((rm < -1) | (rm >= G.n_cols)) or np.any((cm < -1) | (cm >= G.n_rows)):
        return "a match index is out of range"
    rows = np.flatnonzero(rm >= 0)
    if np.any(cm[rm[rows]] != rows):
        return "row_match and col_match disagree"
    if np.count_nonzero(cm >= 0) != rows.size:
        return "col_match has matches that row_match lacks"
    # Each matched column must list its row: one pass over the column CSR.
    cx = np.asarray(G.cxadj, np.int64)
    col_of_edge = np.repeat(np.arange(G.n_cols), np.diff(cx))
    hit = np.asarray(G.cadj)[: cx[-1]] == cm[col_of_edge]
    listed = np.bincount(col_of_edge[hit], minlength=G.n_cols) > 0
    missing = np.flatnonzero((cm >= 0) & ~listed)
    if missing.size:
        j = missing[0]
        return f"matched pair ({cm[j]}, {j}) is not an edge"
    return ""


def _row_neighbours(G: BipartiteGraph, rows: np.ndarray) -> np.ndarray:
    """Every column adjacent to any of ``rows`` (with repeats)."""
    rp, radj = np.asarray(G.rxadj, np.int64), np.asarray(G.radj)
    starts, counts = rp[rows], rp[rows + 1] - rp[rows]
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts)
    return radj[np.arange(counts.sum()) + offsets]


def verify_matching(G: BipartiteGraph, matching) -> MatchingCertificate:
    """Certifies a bipartite matching, independently of any solver.

    Validity: every matched pair is an edge of ``G``, no vertex is matched
    twice, and ``row_match``/``col_match`` are mutual inverses. Maximality:
    the alternating BFS from every unmatched row reaches a set Z of vertices;
    (rows not in Z) + (columns in Z) is a vertex cover, and it has as many
    vertices as the matching has pairs exactly when no augmenting path exists
    (Koenig's theorem), which proves the matching maximum.

    Args:
      G: the graph.
      matching: an object with ``row_match`` (int ``[n_rows]``, -1 if
        unmatched) and ``col_match`` (int ``[n_cols]``) attributes, or a
        ``(row_match, col_match)`` tuple.

    Returns:
      A :class:`MatchingCertificate`; its ``cover_rows``/``cover_cols`` are the
      Koenig vertex cover.
    """
    rm, cm = _matching_arrays(matching)
    rm, cm = rm.astype(np.int64), cm.astype(np.int64)
    reason = _matching_validity(G, rm, cm)
    empty_r, empty_c = np.zeros(G.n_rows, bool), np.zeros(G.n_cols, bool)
    if reason:
        return MatchingCertificate(False, 0, empty_r, empty_c, 0, False, False, reason)
    cardinality = int(np.count_nonzero(rm >= 0))
    # Alternating BFS, a level at a time: unmatched rows, their columns, the
    # rows those columns are matched to, ...
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
    cover_rows, cover_cols = ~seen_r, seen_c
    rows, cols = G.edges()
    is_cover = bool(np.all(cover_rows[rows] | cover_cols[cols]))
    cover_size = int(cover_rows.sum() + cover_cols.sum())
    maximum = is_cover and cover_size == cardinality
    reason = "" if maximum else (
        "an augmenting path exists: the Koenig cover is larger than the matching"
        if is_cover else "the alternating-BFS cover misses an edge")
    return MatchingCertificate(True, cardinality, cover_rows, cover_cols, cover_size,
                               is_cover, maximum, reason)
