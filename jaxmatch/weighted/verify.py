"""The weighted matching certificate, checked in NumPy, independently of the
solver: a valid matching, locally dominant (which proves the
1/2-approximation), its weight recomputed, and an upper bound on the
optimum."""

from __future__ import annotations

import numpy as np

from .._csr import GraphValidationError, validate_csr
from .graph import Graph
from .types import WeightedMatchingCertificate


def _mate_of(result) -> np.ndarray:
    mate = getattr(result, "mate", result)
    a = np.asarray(mate)
    if a.ndim != 1 or (a.size and a.dtype.kind not in "iu"):
        raise TypeError(
            "result must be a WeightedMatchingResult of one graph or an integer mate "
            f"array [n], got {type(result).__name__} of shape {a.shape}"
        )
    return a.astype(np.int64)


def _failed(reason: str, cardinality: int = 0) -> WeightedMatchingCertificate:
    return WeightedMatchingCertificate(
        valid=False,
        weight=0.0,
        cardinality=cardinality,
        locally_dominant=False,
        upper_bound=float("inf"),
        ratio=0.0,
        reason=reason,
    )


def verify_weighted_matching(G: Graph, result) -> WeightedMatchingCertificate:
    """Certifies a matching of one graph (eager, NumPy).

    Checks that ``mate`` is a matching of edges of ``G`` (symmetric, every
    pair an edge), recomputes its weight from ``G``, checks that it is
    locally dominant (no edge outside it heavier than both matched edges at
    its ends), which proves ``weight >= optimum / 2``, and bounds the
    optimum from above (:class:`WeightedMatchingCertificate`).

    Args:
      G: one graph (no batch dimensions).
      result: a :class:`WeightedMatchingResult` of that graph, or an integer
        ``mate`` array ``[n]`` (-1 unmatched).

    Returns:
      A :class:`WeightedMatchingCertificate`; ``reason`` names the first
      problem found (empty when valid and locally dominant).
    """
    if np.ndim(G.indptr) != 1:
        raise ValueError("verify_weighted_matching takes one graph; index a batch first")
    mate = _mate_of(result)
    n = G.n
    try:
        validate_csr(G.indptr, G.indices, n, n, what="CSR")
    except GraphValidationError as err:
        return _failed(f"malformed graph: {err}")
    if mate.shape != (n,):
        return _failed(f"mate has shape {mate.shape}, expected ({n},)")
    if np.any((mate < -1) | (mate >= n)):
        return _failed("a mate index is out of range")
    matched = np.flatnonzero(mate >= 0)
    cardinality = matched.size // 2
    if np.any(mate[mate[matched]] != matched) or np.any(mate[matched] == matched):
        return _failed("mate is not symmetric (mate[mate[u]] != u) or matches a vertex to itself")

    u, v, w = G.edges(both=True)
    is_int = w.dtype.kind in "iu"
    wt = w.astype(np.int64 if is_int else np.float64)
    # Weight of each stored entry looked up by (u, v); for a pair stored more
    # than once, the heaviest.
    order = np.lexsort((wt, v, u))
    keys = (u * max(n, 1) + v)[order]
    wsorted = wt[order]
    last = np.ones(keys.size, bool)
    last[:-1] = keys[1:] != keys[:-1]
    keys, wsorted = keys[last], wsorted[last]
    pair = matched * max(n, 1) + mate[matched]
    pos = np.searchsorted(keys, pair)
    pos_ok = pos < keys.size
    found = np.zeros(pair.size, bool)
    found[pos_ok] = keys[pos[pos_ok]] == pair[pos_ok]
    if not np.all(found):
        bad = matched[~found][0]
        return _failed(f"({bad}, {mate[bad]}) is not an edge of the graph", cardinality)

    zero = wt.dtype.type(0)
    at = np.zeros(n, wt.dtype)  # weight of the matched edge at each vertex
    at[matched] = wsorted[pos]
    weight = at[matched].sum() / 2 if not is_int else int(at[matched].sum() // 2)

    # Locally dominant: every positive edge is no heavier than the heavier
    # matched edge at its ends.
    outside = (mate[u] != v) & (wt > zero)
    violating = outside & (wt > np.maximum(at[u], at[v]))
    dominant = not np.any(violating)
    best = np.zeros(n, wt.dtype)
    if u.size:
        np.maximum.at(best, u, np.maximum(wt, zero))
    bounds = [float(best.sum()) / 2]
    if dominant:
        bounds.append(2.0 * float(weight))
    upper = min(bounds)
    ratio = 1.0 if upper == 0 else float(weight) / upper
    reason = ""
    if not dominant:
        k = int(np.flatnonzero(violating)[0])
        reason = (
            f"not locally dominant: edge ({u[k]}, {v[k]}) of weight {wt[k]} is heavier than "
            f"the matched edges at its ends ({at[u[k]]}, {at[v[k]]})"
        )
    return WeightedMatchingCertificate(
        valid=True,
        weight=weight,
        cardinality=cardinality,
        locally_dominant=dominant,
        upper_bound=upper,
        ratio=ratio,
        reason=reason,
    )
