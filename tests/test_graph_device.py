"""The device constructors ``Graph.from_edges_device`` and
``BipartiteGraph.from_edges_device``: under ``jax.jit`` and ``jax.vmap``,
on the CPU and (marked ``gpu``) the GPU, equal to the host constructors on
the same edges; refused input recorded in the graph's ``status``, which
the solvers report as ``INVALID_GRAPH``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxmatch
from jaxmatch import BipartiteGraph, Graph, GraphValidationError
from jaxmatch._csr_device import GraphStatus


def random_edges(rng, n, m, dtype=np.float32):
    u = rng.integers(0, max(n, 1), m)
    v = rng.integers(0, max(n, 1), m)
    w = rng.integers(1, 6, m).astype(dtype)  # ties between repeated edges
    return u, v, w


def assert_same_graph(D, H):
    """``D`` (device, padded) holds ``H``'s (host) graph."""
    assert int(D.status) == GraphStatus.VALID
    k = int(np.asarray(H.indptr)[-1])
    np.testing.assert_array_equal(np.asarray(D.indptr), np.asarray(H.indptr))
    for name in ("indices", "data", "col_indices"):
        h = getattr(H, name, None)
        if h is None:
            continue
        d = np.asarray(getattr(D, name))
        assert d.dtype == np.asarray(h).dtype, name
        np.testing.assert_array_equal(d[:k], np.asarray(h), err_msg=name)
        assert not d[k:].any(), name  # zero padding
    if isinstance(H, BipartiteGraph):
        np.testing.assert_array_equal(np.asarray(D.col_indptr), np.asarray(H.col_indptr))
    D.validate()


SIZES = ((0, 0), (1, 3), (2, 5), (300, 900))
DTYPES = (np.float64, np.int32, np.int64, np.float16, bool)


@pytest.mark.parametrize(
    "n, m, dtype", [(n, m, np.float32) for n, m in SIZES] + [(40, 200, d) for d in DTYPES]
)
def test_graph_equals_the_host_constructor(device, n, m, dtype):
    rng = np.random.default_rng(n)
    u, v, w = random_edges(rng, n, m, dtype)
    H = Graph.from_edges(u, v, w, n)
    build = jax.jit(lambda u, v, w, n=n: Graph.from_edges_device(u, v, w, n))
    D = build(u, v, w)
    assert D.capacity == 2 * m and D.shape == (n, n)
    assert_same_graph(D, H)
    exact = int(np.asarray(H.indptr)[-1])
    E = jax.jit(lambda u, v, w, n=n, c=exact: Graph.from_edges_device(u, v, w, n, capacity=c))
    assert_same_graph(E(u, v, w), H)


def test_graph_of_a_scalar_weight_and_other_index_dtypes(device):
    u = np.array([0, 1, 2, 2], np.uint8)
    v = np.array([1, 2, 0, 2], np.int16)
    D = jax.jit(lambda u, v: Graph.from_edges_device(u, v, 2.5, 3))(u, v)
    assert_same_graph(D, Graph.from_edges(u, v, 2.5, 3))


def test_graph_refused_input_sets_the_status(device):
    u, v, w = np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([1.0, 2.0, 3.0])
    build = jax.jit(Graph.from_edges_device, static_argnames=("n", "capacity"))
    cases = {
        GraphStatus.INDEX_OUT_OF_RANGE: [(u, np.array([1, 2, 4]), w), (np.array([0, -1, 2]), v, w)],
        GraphStatus.INVALID_WEIGHTS: [
            (u, v, np.array([1.0, np.nan, 3.0])),
            (u, v, np.array([1.0, -np.inf, 3.0])),
            (u, v, np.array([1, 2**31, 3], np.int64)),
            (u, v, np.array([1, -(2**31) - 1, 3], np.int64)),
        ],
    }
    for status, inputs in cases.items():
        for a, b, c in inputs:
            G = build(a, b, c, n=4)
            assert int(G.status) == status
            res = jaxmatch.approximate_weighted_matching(G)
            assert res.status_name == "INVALID_GRAPH" and np.all(np.asarray(res.mate) == -1)
            with pytest.raises(GraphValidationError, match="start at 0"):
                G.validate()
            assert not jaxmatch.verify_weighted_matching(G, res).valid
    G = build(u, v, w, n=4, capacity=5)  # 6 stored entries
    assert int(G.status) == GraphStatus.OVER_CAPACITY
    assert jaxmatch.approximate_weighted_matching(G).status_name == "INVALID_GRAPH"
    assert int(build(u, v, w, n=4, capacity=6).status) == GraphStatus.VALID
    assert int(Graph.from_edges(u, v, w, 4).status) == GraphStatus.VALID


def test_graph_under_vmap_with_one_refused_member(device):
    rng = np.random.default_rng(1)
    n, m = 30, 80
    edges = [random_edges(rng, n, m) for _ in range(3)]
    U, V, W = (np.stack(x) for x in zip(*edges))
    U[1, 7] = n  # member 1 refused
    batch = jax.jit(jax.vmap(lambda u, v, w: Graph.from_edges_device(u, v, w, n)))(U, V, W)
    np.testing.assert_array_equal(np.asarray(batch.status), [0, GraphStatus.INDEX_OUT_OF_RANGE, 0])
    res = jax.jit(jaxmatch.approximate_weighted_matching)(batch)
    assert res.status_name.tolist() == ["DOMINANT", "INVALID_GRAPH", "DOMINANT"]
    for k in (0, 2):
        member = jax.tree.map(lambda x, k=k: x[k], batch)
        H = Graph.from_edges(*edges[k], n)
        assert_same_graph(member, H)
        alone = jaxmatch.approximate_weighted_matching(H)
        np.testing.assert_array_equal(np.asarray(res.mate[k]), np.asarray(alone.mate))
        cert = jaxmatch.verify_weighted_matching(H, jax.tree.map(lambda x, k=k: x[k], res))
        assert cert.valid and cert.locally_dominant


def test_construction_and_matching_in_one_program(device):
    rng = np.random.default_rng(2)
    n = 500
    u, v, w = random_edges(rng, n, 3000)
    w = rng.random(3000).astype(np.float32)

    @jax.jit
    def match(u, v, w):
        return jaxmatch.approximate_weighted_matching(Graph.from_edges_device(u, v, w, n))

    res = match(jnp.asarray(u), jnp.asarray(v), jnp.asarray(w))
    H = Graph.from_edges(u, v, w, n)
    np.testing.assert_array_equal(
        np.asarray(res.mate), np.asarray(jaxmatch.approximate_weighted_matching(H).mate)
    )
    cert = jaxmatch.verify_weighted_matching(H, res)
    assert cert.valid and cert.locally_dominant


def test_trace_time_errors():
    with pytest.raises(TypeError, match="u must hold integers"):
        Graph.from_edges_device(jnp.zeros(3), jnp.zeros(3, int), 1.0, 4)
    with pytest.raises(ValueError, match="one-dimensional"):
        Graph.from_edges_device(jnp.zeros((2, 3), int), jnp.zeros(3, int), 1.0, 4)
    with pytest.raises(ValueError, match="differ in length"):
        Graph.from_edges_device(jnp.zeros(2, int), jnp.zeros(3, int), 1.0, 4)
    with pytest.raises(ValueError, match="weights must have shape"):
        Graph.from_edges_device(jnp.zeros(3, int), jnp.zeros(3, int), jnp.ones(2), 4)
    with pytest.raises(TypeError, match="real numbers"):
        Graph.from_edges_device(jnp.zeros(3, int), jnp.zeros(3, int), jnp.ones(3, complex), 4)
    with pytest.raises(ValueError, match="negative size"):
        Graph.from_edges_device(jnp.zeros(3, int), jnp.zeros(3, int), 1.0, -1)
    with pytest.raises(TypeError, match="static_argnames"):
        jax.jit(lambda u, n: Graph.from_edges_device(u, u, 1.0, n))(jnp.zeros(3, int), 4)
    with pytest.raises(ValueError, match="capacity"):
        Graph.from_edges_device(jnp.zeros(3, int), jnp.zeros(3, int), 1.0, 4, capacity=2**30)
    with pytest.raises(TypeError, match="cols must hold integers"):
        BipartiteGraph.from_edges_device(jnp.zeros(3, int), jnp.zeros(3), 4, 4)
    with pytest.raises(ValueError, match="negative size"):
        BipartiteGraph.from_edges_device(jnp.zeros(3, int), jnp.zeros(3, int), 4, 4, capacity=-1)


# ------------------------------------------------------------ BipartiteGraph


def test_bipartite_equals_the_host_constructor(device):
    rng = np.random.default_rng(3)
    for n_rows, n_cols, m in ((0, 3, 0), (1, 1, 4), (7, 3, 30), (50, 80, 400), (90, 20, 1000)):
        r = rng.integers(0, max(n_rows, 1), m)
        c = rng.integers(0, max(n_cols, 1), m)
        H = BipartiteGraph.from_edges(r, c, n_rows, n_cols)
        D = jax.jit(lambda r, c, a=n_rows, b=n_cols: BipartiteGraph.from_edges_device(r, c, a, b))(
            r, c
        )
        assert D.capacity == m
        assert_same_graph(D, H)
        exact = int(np.asarray(H.indptr)[-1])
        E = BipartiteGraph.from_edges_device(r, c, n_rows, n_cols, capacity=exact)
        assert_same_graph(E, H)


def test_bipartite_refused_input_and_vmap(device):
    rng = np.random.default_rng(4)
    n_rows, n_cols, m = 20, 30, 60
    R = rng.integers(0, n_rows, (3, m))
    C = rng.integers(0, n_cols, (3, m))
    C[2, 0] = n_cols  # member 2 refused
    build = jax.jit(jax.vmap(lambda r, c: BipartiteGraph.from_edges_device(r, c, n_rows, n_cols)))
    batch = build(R, C)
    np.testing.assert_array_equal(np.asarray(batch.status), [0, 0, GraphStatus.INDEX_OUT_OF_RANGE])
    res = jax.jit(jaxmatch.max_cardinality_matching)(batch)
    assert res.status_name.tolist() == ["MAXIMUM", "MAXIMUM", "INVALID_GRAPH"]
    for k in (0, 1):
        H = BipartiteGraph.from_edges(R[k], C[k], n_rows, n_cols)
        assert_same_graph(jax.tree.map(lambda x, k=k: x[k], batch), H)
        assert int(res.cardinality[k]) == int(jaxmatch.max_cardinality_matching(H).cardinality)
    G = BipartiteGraph.from_edges_device(R[0], C[0], n_rows, n_cols, capacity=3)
    assert int(G.status) == GraphStatus.OVER_CAPACITY
    assert jaxmatch.max_cardinality_matching(G).status_name == "INVALID_GRAPH"
    with pytest.raises(GraphValidationError, match="start at 0"):
        G.validate()
    G = BipartiteGraph.from_edges_device(np.array([-1]), np.array([0]), n_rows, n_cols)
    assert int(G.status) == GraphStatus.INDEX_OUT_OF_RANGE
