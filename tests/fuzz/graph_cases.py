"""Graphs and oracles shared by the matching, weighted matching and
certificate fuzz tests: bipartite graphs (duplicate edges given, isolated
vertices), general graphs (self-loops, duplicate edges, every weight dtype),
scipy's and networkx's maximum cardinality, the sequential greedy matching
and networkx's maximum weight matching."""

from __future__ import annotations

import ml_dtypes
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import strategies as st
from scipy.sparse import csgraph

from jaxmatch import BipartiteGraph, Graph, GraphValidationError

SIDES = (0, 1, 2, 3, 5, 8)
CAPACITY = 64


@st.composite
def graphs(draw, shape=None):
    """A graph with duplicate edges given, isolated vertices likely, padded
    to one capacity (one compilation per shape)."""
    n, m = shape or (draw(st.sampled_from(SIDES)), draw(st.sampled_from(SIDES)))
    k = draw(st.integers(0, min(n * m, CAPACITY))) if n * m else 0
    rows = draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=k, max_size=k))
    cols = draw(st.lists(st.integers(0, max(m - 1, 0)), min_size=k, max_size=k))
    G = BipartiteGraph.from_edges(np.asarray(rows, np.int64), np.asarray(cols, np.int64), n, m)
    return G.pad_to(CAPACITY)


def maximum_cardinality(G: BipartiteGraph) -> int:
    rows, cols = G.edges()
    A = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=G.shape)
    scipy_size = int(np.count_nonzero(csgraph.maximum_bipartite_matching(A, perm_type="row") >= 0))
    if rows.size <= 20:
        g = nx.Graph()
        top = [("r", i) for i in range(G.n_rows)]
        g.add_nodes_from(top)
        g.add_nodes_from(("c", j) for j in range(G.n_cols))
        g.add_edges_from((("r", int(a)), ("c", int(b))) for a, b in zip(rows, cols, strict=True))
        size = len(nx.bipartite.hopcroft_karp_matching(g, top_nodes=top)) // 2
        assert size == scipy_size, (size, scipy_size)
    return scipy_size


def matching_problem(G: BipartiteGraph, rm, cm, maximal: bool) -> str:
    """Empty when ``rm``/``cm`` is a valid matching of ``G`` (and maximal:
    no edge between two free vertices); else what is wrong."""
    rm, cm = np.asarray(rm), np.asarray(cm)
    if rm.shape != (G.n_rows,) or cm.shape != (G.n_cols,):
        return "shapes"
    if np.any((rm < -1) | (rm >= G.n_cols)) or np.any((cm < -1) | (cm >= G.n_rows)):
        return "index out of range"
    edges = set(zip(*(a.tolist() for a in G.edges()), strict=True))
    for r in np.flatnonzero(rm >= 0):
        if cm[rm[r]] != r or (int(r), int(rm[r])) not in edges:
            return f"row {r}: not a matched edge"
    if np.count_nonzero(cm >= 0) != np.count_nonzero(rm >= 0):
        return "row_for_col names a pair col_for_row does not"
    if maximal and any(rm[a] < 0 and cm[b] < 0 for a, b in edges):
        return "not maximal"
    return ""


SIZES = (0, 1, 2, 3, 5, 8)
WEIGHT_DTYPES = {
    "float32": np.float32,
    "float64": np.float64,
    "int32": np.int32,
    "int8": np.int8,
    "int64": np.int64,
    "bool": np.bool_,
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
}
WEIGHTS = {
    "ties": st.sampled_from([-1, 0, 1, 2, 2, 3]),
    "uniform": st.floats(-0.5, 1.0, allow_nan=False),
    "huge": st.sampled_from([1e30, 3e38, 1e300, 2.0**31 - 1, -(2.0**31), 7.0]),
    "tiny": st.sampled_from([1e-30, 2e-30, 1e-45, 5e-324, 0.0, 1e-300]),
    "near": st.sampled_from([1e6, 1e6 + 1e-3, 1e6 + 2e-3, 1e6 + 0.25]),
}


@st.composite
def weighted_graphs(draw, n=None):
    """``(u, v, w, n)`` edges (self-loops and duplicates included) and
    their weights in one dtype."""
    n = draw(st.sampled_from(SIZES)) if n is None else n
    k = draw(st.integers(0, CAPACITY // 2)) if n else 0
    u = np.asarray(draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=k, max_size=k)), np.int64)
    v = np.asarray(draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=k, max_size=k)), np.int64)
    name = draw(st.sampled_from(list(WEIGHT_DTYPES)))
    kind = draw(st.sampled_from(list(WEIGHTS)))
    w = np.asarray(draw(st.lists(WEIGHTS[kind], min_size=k, max_size=k)), np.float64)
    dtype = np.dtype(WEIGHT_DTYPES[name])
    if dtype.kind in "iub":
        w = np.clip(np.round(w), *(0, 1) if dtype == np.bool_ else (-(2**31), 2**31 - 1))
    with np.errstate(over="ignore"):
        return u, v, w.astype(dtype), n, kind


def greedy_mate(G: Graph) -> np.ndarray:
    """The sequential greedy matching under the documented total order:
    heaviest first, ties by the larger endpoint, then the smaller one;
    weights <= 0 never matched."""
    u, v, w = G.edges()
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    w = w.astype(np.float64) if w.dtype.kind == "f" else w.astype(np.int64)
    mate = np.full(G.n, -1, np.int64)
    for k in np.lexsort((-lo, -hi, -w)):
        if w[k] <= 0:
            break
        if mate[u[k]] < 0 and mate[v[k]] < 0:
            mate[u[k]], mate[v[k]] = v[k], u[k]
    return mate


def networkx_optimum(G: Graph) -> float:
    g = nx.Graph()
    g.add_nodes_from(range(G.n))
    for a, b, w in zip(*G.edges(), strict=True):
        if w > 0:
            g.add_edge(int(a), int(b), weight=float(w))
    return float(sum(g[a][b]["weight"] for a, b in nx.max_weight_matching(g)))


def build(u, v, w, n):
    """The graph, or the GraphValidationError its constructor must raise."""
    finite = np.all(np.isfinite(w.astype(np.float64)))
    wide = w.astype(np.float64)
    fits = w.dtype.kind not in "iu" or np.all((wide >= -(2**31)) & (wide < 2**31))
    if not finite or not fits:
        with pytest.raises(GraphValidationError):
            Graph.from_edges(u, v, w, n)
        return None
    return Graph.from_edges(u, v, w, n).pad_to(CAPACITY)
