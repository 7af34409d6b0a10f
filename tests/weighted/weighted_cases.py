"""Graphs and oracles for the weighted matching tests."""

from __future__ import annotations

import numpy as np

import jaxmatch
from jaxmatch.weighted.api import edge_keys

METHODS = ("suitor", "ld")

#: Weight kinds: (name, generator of m weights)
WEIGHT_KINDS = {
    "uniform": lambda rng, m: rng.random(m),
    "equal": lambda rng, m: np.ones(m),
    "two_values": lambda rng, m: rng.integers(1, 3, m).astype(np.float64),
    "small_ints": lambda rng, m: rng.integers(-2, 6, m),
    "with_zeros": lambda rng, m: np.where(rng.random(m) < 0.3, 0.0, rng.random(m)),
}


def random_edges(rng, n: int, m: int):
    """``m`` random vertex pairs (self-loops and duplicates included)."""
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return rng.integers(0, n, m), rng.integers(0, n, m)


def family_edges(name: str, rng, n: int):
    """``(u, v)`` of a graph family on ``n`` vertices."""
    if name == "random":
        return random_edges(rng, n, 3 * n)
    if name == "sparse":
        return random_edges(rng, n, n // 2)
    if name == "star":
        others = np.arange(1, n)
        return np.zeros(n - 1, np.int64), others
    if name == "path":
        return np.arange(n - 1), np.arange(1, n)
    if name == "complete":
        iu = np.triu_indices(n, 1)
        return iu[0], iu[1]
    if name == "grid":
        k = max(int(np.sqrt(n)), 1)
        idx = np.arange(k * k).reshape(k, k)
        u = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
        v = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
        return u, v
    if name == "power_law":
        deg = np.minimum(rng.zipf(2.0, n), n)
        u = np.repeat(np.arange(n), deg)
        v = rng.integers(0, n, u.size)
        return u, v
    raise ValueError(name)


FAMILIES = ("random", "sparse", "star", "path", "complete", "grid", "power_law")


def make_graph(family: str, kind: str, rng, n: int, *, dtype=None, permute: bool = True):
    """A graph of ``family`` with ``kind`` weights; vertex labels permuted."""
    u, v = family_edges(family, rng, n)
    w = WEIGHT_KINDS[kind](rng, u.size)
    if dtype is not None:
        w = w.astype(dtype)
    if permute and n:
        perm = rng.permutation(n)
        u, v = perm[u], perm[v]
    G = jaxmatch.Graph.from_edges(u, v, w, n)
    # A power-of-two capacity: graphs of one size share compilations.
    return G.pad_to(max(16, 1 << (int(G.indices.shape[0]) - 1).bit_length()))


def greedy_mate(G: jaxmatch.Graph) -> np.ndarray:
    """The sequential greedy matching under jaxmatch's total order: edges by
    weight, then larger endpoint, then smaller endpoint, heaviest first;
    edges of weight <= 0 skipped."""
    u, v, w = G.edges()
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    w = w.astype(np.float64) if w.dtype.kind == "f" else w.astype(np.int64)
    order = np.lexsort((-lo, -hi, -w))
    mate = np.full(G.n, -1, np.int64)
    for k in order:
        if w[k] <= 0:
            break
        a, b = u[k], v[k]
        if mate[a] < 0 and mate[b] < 0:
            mate[a], mate[b] = b, a
    return mate


def check_mate_edge(G: jaxmatch.Graph, res) -> None:
    """``mate_edge[u]`` is the first position of edge ``(u, mate[u])`` of
    the matched weight in ``u``'s list, -1 for a free vertex."""
    indptr, indices = np.asarray(G.indptr), np.asarray(G.indices)
    mate, edge = np.asarray(res.mate), np.asarray(res.mate_edge)
    np.testing.assert_array_equal(edge[mate < 0], -1)
    key = np.asarray(edge_keys(G.data))
    for u in np.flatnonzero(mate >= 0):
        lo, hi = indptr[u], indptr[u + 1]
        k = edge[u]
        assert lo <= k < hi and indices[k] == mate[u], (u, k)
        earlier = np.flatnonzero((indices[lo:k] == mate[u]) & (key[lo:k] == key[k]))
        assert earlier.size == 0, (u, k, lo + earlier)


def networkx_optimum(G: jaxmatch.Graph) -> float:
    """The maximum weight matching's weight (networkx, exact)."""
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(G.n))
    for a, b, w in zip(*G.edges()):
        if w > 0:
            g.add_edge(int(a), int(b), weight=float(w))
    M = nx.max_weight_matching(g)
    return float(sum(g[a][b]["weight"] for a, b in M))
