"""Differential fuzzing of ``approximate_weighted_matching`` on
:class:`jaxmatch.Graph` (methods auto / suitor / ld; eager, ``jit``,
``vmap``): self-loops, duplicate edges, isolated vertices, ties, zero and
negative weights, huge and tiny magnitudes, every weight dtype with x64 on
and off. Oracles: the sequential greedy matching (equal, ties included),
networkx's maximum weight matching (at least half of it, and below the
certificate's upper bound), and the certificate."""

from __future__ import annotations

import dataclasses
import functools

import jax
import ml_dtypes
import networkx as nx
import numpy as np
import pytest
from fuzz_cases import COUNTS, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

import jaxmatch
from jaxmatch import Graph, GraphValidationError, WeightedMatchingStatus

SIZES = (0, 1, 2, 3, 5, 8)
CAPACITY = 64
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
SOLVE_JIT = jax.jit(jaxmatch.approximate_weighted_matching, static_argnames=("method",))


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
    fits = w.dtype.kind not in "iu" or np.all(np.abs(w.astype(np.float64)) < 2**31)
    if not finite or not fits:
        with pytest.raises(GraphValidationError):
            Graph.from_edges(u, v, w, n)
        return None
    return Graph.from_edges(u, v, w, n).pad_to(CAPACITY)


def check(G: Graph, res, what):
    r = jax.tree.map(np.asarray, res)
    info = (what, G.n, [e.tolist() for e in G.edges()], r.mate)
    assert int(r.status) == WeightedMatchingStatus.DOMINANT, info
    want = greedy_mate(G)
    np.testing.assert_array_equal(r.mate, want, err_msg=str(info))
    cert = jaxmatch.verify_weighted_matching(G, r)
    assert cert.valid and cert.locally_dominant, (cert.reason, *info)
    assert int(r.cardinality) == cert.cardinality, info
    if np.isfinite(float(cert.weight)):
        assert np.isclose(float(r.weight), float(cert.weight), rtol=1e-6), (r.weight, cert, *info)
    u, _, w = G.edges()
    if u.size and np.abs(w.astype(np.float64)).max() < 1e15:
        opt = networkx_optimum(G)
        scale = 1e-9 * max(1.0, opt)
        assert float(cert.weight) >= opt / 2 - scale, (cert.weight, opt, *info)
        assert cert.upper_bound >= opt - scale, (cert.upper_bound, opt, *info)
    matched = np.flatnonzero(r.mate >= 0)
    edge = r.mate_edge[matched]
    assert np.all(np.asarray(G.indices)[edge] == r.mate[matched]), info


@fuzz_settings(quick=100)
@given(
    graph=weighted_graphs(),
    method=st.sampled_from(["auto", "suitor", "ld"]),
    mode=st.sampled_from(["eager", "jit"]),
    x64=st.booleans(),
)
def test_weighted_matching_equals_greedy(device, graph, method, mode, x64):
    u, v, w, n, kind = graph
    COUNTS[f"approximate_weighted_matching ({device.platform})"] += 1
    with jax.enable_x64(x64):
        G = build(u, v, w, n)
        if G is None:
            return
        solve = jaxmatch.approximate_weighted_matching if mode == "eager" else SOLVE_JIT
        check(G, solve(G, method=method), f"{method}/{mode}/x64={x64}/{kind}/{w.dtype}")


@functools.cache
def _vmapped(method: str):
    return jax.jit(jax.vmap(lambda g: jaxmatch.approximate_weighted_matching(g, method=method)))


@fuzz_settings(quick=25)
@given(data=st.data(), method=st.sampled_from(["suitor", "ld"]))
def test_vmap_over_graphs(device, data, method):
    n = data.draw(st.sampled_from(SIZES))
    members = []
    for _ in range(3):
        u, v, w, _, _ = data.draw(weighted_graphs(n))
        w = np.nan_to_num(w.astype(np.float64), posinf=1e30, neginf=-1e30).astype(np.float32)
        members.append(Graph.from_edges(u, v, w, n).pad_to(CAPACITY))
    COUNTS[f"approximate_weighted_matching vmap ({device.platform})"] += 1
    batch = jax.tree.map(lambda *a: np.stack([np.asarray(x) for x in a]), *members)
    res = _vmapped(method)(batch)
    for b, G in enumerate(members):
        check(G, jax.tree.map(lambda a, b=b: np.asarray(a)[b], res), f"vmap {method}")


@fuzz_settings(quick=20)
@given(graph=weighted_graphs(), method=st.sampled_from(["suitor", "ld"]), data=st.data())
def test_nan_weights_are_reported(device, graph, method, data):
    u, v, w, n, _ = graph
    G = build(u, v, np.nan_to_num(w.astype(np.float32)), n)
    if G is None or int(G.indptr[-1]) == 0:
        return
    COUNTS[f"approximate_weighted_matching NaN ({device.platform})"] += 1
    bad = np.array(G.data)
    bad[data.draw(st.integers(0, int(G.indptr[-1]) - 1))] = np.nan
    r = jaxmatch.approximate_weighted_matching(dataclasses.replace(G, data=bad), method=method)
    assert int(r.status) == WeightedMatchingStatus.INVALID_WEIGHTS
    assert (np.asarray(r.mate) == -1).all() and (np.asarray(r.mate_edge) == -1).all()
