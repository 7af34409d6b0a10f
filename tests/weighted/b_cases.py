"""Graphs, capacities and oracles for the b-matching tests.

* :func:`b_greedy`: the sequential b-greedy in NumPy and Python loops (the
  definition of ``approximate_b_matching``'s result): edges heaviest first
  in jaxmatch's total order (weight, then larger endpoint, then smaller
  endpoint), an edge taken when both ends are below capacity.
* :func:`optimum_milp`: the maximum weight b-matching as an integer program
  solved exactly by HiGHS (``scipy.optimize.milp``, zero gap).
* :func:`optimum_tutte`: the same optimum through Tutte's reduction of
  b-matching to matching (W. T. Tutte, "A short proof of the factor theorem
  for finite graphs", Canad. J. Math. 6, 1954; A. Schrijver, Combinatorial
  Optimization, Vol. A, Ch. 32) and networkx's exact ``max_weight_matching``.
* :func:`optimum_brute`: every subset of the edges, for tiny graphs.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numpy as np
from weighted_cases import WEIGHT_KINDS, family_edges

import jaxmatch

#: Uniform capacities of the sweeps.
UNIFORM_B = (0, 1, 2, 5, 20)


class Greedy(NamedTuple):
    """The b-greedy's b-matching of a graph.

    Attributes:
      matched: bool ``[capacity]``: the matched stored entries (both ends).
      degree: int64 ``[n]``: matched edges at each vertex.
      weight: int (integer weights) or float: the total weight.
      cardinality: the number of matched edges.
      edges: ``(u, v)`` of the matched edges (``u < v``), in the order taken.
    """

    matched: np.ndarray
    degree: np.ndarray
    weight: int | float
    cardinality: int
    edges: list[tuple[int, int]]


def capacities(b, n: int) -> np.ndarray:
    """``b`` (an int or an array ``[n]``) as int64 ``[n]``."""
    a = np.asarray(b, np.int64)
    return np.full(n, int(a), np.int64) if a.ndim == 0 else a.copy()


def b_greedy(G: jaxmatch.Graph, b, *, ties: str = "larger") -> Greedy:
    """The sequential b-greedy b-matching of ``G`` (one graph).

    Edges (each stored pair ``u < v``) by weight, heaviest first; ties by
    the larger endpoint then the smaller one, larger first (jaxmatch's
    order; ``ties="smaller"``: by the smaller endpoint first, smaller first,
    another valid order). An edge of positive weight that is not a self
    loop is taken when both ends have fewer than ``b`` matched edges and the
    pair is not matched yet (a graph storing a pair twice matches one copy,
    the first in the order). Weights compare as float64 (int64 for
    integers), which orders float32 and float64 weights as jaxmatch's keys
    do.

    Args:
      G: the graph.
      b: an int or an integer array ``[n]``.
      ties: ``"larger"`` (jaxmatch) or ``"smaller"``.

    Returns:
      The :class:`Greedy` b-matching.
    """
    n = G.n
    cap = capacities(b, n)
    u, v, w = G.edges(both=True)
    is_int = w.dtype.kind in "iu"
    wt = w.astype(np.int64 if is_int else np.float64)
    up = np.flatnonzero(u < v)
    hi, lo = v[up], u[up]
    if ties == "larger":
        order = up[np.lexsort((-lo, -hi, -wt[up]))]
    elif ties == "smaller":
        order = up[np.lexsort((hi, lo, -wt[up]))]
    else:
        raise ValueError(ties)
    # The stored twins v -> u of each entry u -> v, to mark both ends.
    twins: dict[tuple[int, int, float], list[int]] = {}
    for k in np.flatnonzero(u > v):
        twins.setdefault((int(u[k]), int(v[k]), wt[k].item()), []).append(int(k))
    deg = np.zeros(n, np.int64)
    matched = np.zeros(np.shape(G.indices)[-1], bool)
    taken: set[tuple[int, int]] = set()
    edges = []
    total = 0 if is_int else 0.0
    for k in order:
        if not wt[k] > 0:
            continue
        a, c = int(u[k]), int(v[k])
        if deg[a] >= cap[a] or deg[c] >= cap[c] or (a, c) in taken:
            continue
        twin = twins.get((c, a, wt[k].item()))
        if not twin:
            continue  # an edge stored from one end only is not an edge
        deg[a] += 1
        deg[c] += 1
        taken.add((a, c))
        matched[k] = matched[twin.pop(0)] = True
        edges.append((a, c))
        total += wt[k].item()
    return Greedy(matched, deg, total, len(edges), edges)


# --------------------------------------------------------------------------
# Exact optima
# --------------------------------------------------------------------------


def _positive_edges(G: jaxmatch.Graph, b) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(u, v, w, cap)``: the edges ``u < v`` of positive weight (a simple
    graph's, from the constructors) and the capacities."""
    u, v, w = G.edges()
    keep = w > 0
    return u[keep], v[keep], w[keep].astype(np.float64), capacities(b, G.n)


def optimum_milp(G: jaxmatch.Graph, b) -> float:
    """The maximum weight b-matching's weight: ``max w.x`` subject to
    ``sum_{e at v} x_e <= b[v]``, ``x`` binary, solved by HiGHS's branch and
    bound to zero gap."""
    import scipy.sparse as sp
    from scipy.optimize import Bounds, LinearConstraint, milp

    u, v, w, cap = _positive_edges(G, b)
    if w.size == 0:
        return 0.0
    m = w.size
    A = sp.csr_matrix(
        (np.ones(2 * m), (np.r_[u, v], np.r_[np.arange(m), np.arange(m)])), shape=(G.n, m)
    )
    res = milp(
        -w,
        constraints=LinearConstraint(A, -np.inf, cap.astype(np.float64)),
        integrality=np.ones(m),
        bounds=Bounds(0, 1),
        options={"mip_rel_gap": 0.0},
    )
    assert res.status == 0, res.message
    x = np.round(res.x)
    assert np.all(np.bincount(np.r_[u, v], weights=np.r_[x, x], minlength=G.n) <= cap)
    return float(w @ x)


def optimum_tutte(G: jaxmatch.Graph, b) -> float:
    """The maximum weight b-matching's weight by Tutte's gadget: vertex
    ``x`` becomes ``b[x]`` copies; edge ``e = {x, y}`` of weight ``w``
    becomes two vertices ``e_x, e_y`` joined by an edge of weight ``w``,
    ``e_x`` joined to every copy of ``x`` and ``e_y`` to every copy of ``y``
    by edges of weight ``w``. A matching of the gadget either pairs
    ``e_x e_y`` (``w``, ``e`` unused) or ``e_x`` and ``e_y`` with copies
    (``2 w``, ``e`` used, one copy of each end spent), so its maximum weight
    is ``sum w + OPT``."""
    import networkx as nx

    u, v, w, cap = _positive_edges(G, b)
    g = nx.Graph()
    for k, (x, y, we) in enumerate(zip(u.tolist(), v.tolist(), w.tolist())):
        g.add_edge(("e", k, 0), ("e", k, 1), weight=we)
        for end, z in ((0, x), (1, y)):
            for i in range(int(cap[z])):
                g.add_edge(("e", k, end), ("v", z, i), weight=we)
    M = nx.max_weight_matching(g)
    return float(sum(g[a][c]["weight"] for a, c in M) - w.sum())


def optimum_brute(G: jaxmatch.Graph, b) -> float:
    """The maximum weight b-matching's weight over every subset of the
    edges (at most 16 positive edges)."""
    u, v, w, cap = _positive_edges(G, b)
    assert w.size <= 16
    best = 0.0
    for r in range(w.size + 1):
        for S in itertools.combinations(range(w.size), r):
            s = list(S)
            deg = np.bincount(np.r_[u[s], v[s]].astype(np.int64), minlength=G.n)
            if np.all(deg <= cap):
                best = max(best, float(w[s].sum()))
    return best


# --------------------------------------------------------------------------
# Random cases
# --------------------------------------------------------------------------


def random_b(rng, n: int, kind: str | int):
    """Capacities: an int (``kind`` itself), or ``"per_vertex"``: int32
    ``[n]`` in ``[0, 4]`` (about a fifth zeros), or ``"large"``: ``[0, 40]``."""
    if isinstance(kind, int):
        return kind
    if kind == "per_vertex":
        return rng.integers(0, 5, n).astype(np.int32)
    if kind == "large":
        return rng.integers(0, 41, n).astype(np.int32)
    raise ValueError(kind)


def random_graph(
    rng, n: int, *, family: str = "random", kind: str = "uniform", dtype=None
) -> jaxmatch.Graph:
    """A graph of ``family`` (see ``weighted_cases.family_edges``: random
    pairs with repeats and self loops dropped by ``from_edges``, sparse ones
    with isolated vertices, stars, paths, ...) with ``kind`` weights
    (``weighted_cases.WEIGHT_KINDS``: ties, zeros, negative integers),
    vertex labels permuted."""
    if n == 0:
        return jaxmatch.Graph.from_edges([], [], np.zeros(0, dtype or np.float64), 0)
    u, v = family_edges(family, rng, n)
    w = WEIGHT_KINDS[kind](rng, u.size)
    if dtype is not None:
        w = w.astype(dtype)
    perm = rng.permutation(n)
    return jaxmatch.Graph.from_edges(perm[u], perm[v], w, n)


def symmetric_mask(G: jaxmatch.Graph, pairs) -> np.ndarray:
    """bool ``[capacity]`` marking both stored entries of each ``(x, y)`` in
    ``pairs``."""
    u, v, _ = G.edges(both=True)
    want = {(min(x, y), max(x, y)) for x, y in pairs}
    mask = np.zeros(np.shape(G.indices)[-1], bool)
    for k in range(u.size):
        if (min(u[k], v[k]), max(u[k], v[k])) in want:
            mask[k] = True
    return mask


def is_b_matching(G: jaxmatch.Graph, b, mask: np.ndarray) -> bool:
    """The oracle's validity, entry by entry in Python: a mask of stored
    entries of positive weight, no loops, each matched entry with exactly
    one matched twin of one weight, at most ``b`` matched edges a vertex."""
    cap = capacities(b, G.n)
    u, v, w = G.edges(both=True)
    if mask.shape != np.shape(G.indices) or mask[u.size :].any():
        return False
    fwd: dict[tuple[int, int], list[float]] = {}
    for k in np.flatnonzero(mask[: u.size]):
        if u[k] == v[k] or not w[k] > 0:
            return False
        fwd.setdefault((int(u[k]), int(v[k])), []).append(w[k].item())
    for (x, y), ws in fwd.items():
        if len(ws) != 1 or fwd.get((y, x)) != ws:
            return False
    deg = np.zeros(G.n, np.int64)
    for x, _ in fwd:
        deg[x] += 1
    return bool(np.all(deg <= cap))
