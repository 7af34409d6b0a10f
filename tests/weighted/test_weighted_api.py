"""approximate_weighted_matching: jit, vmap, options, bad input, status."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from weighted_cases import METHODS, greedy_mate, make_graph

import jaxmatch
from jaxmatch import Graph, WeightedMatchingStatus


def stack(graphs):
    cap = max(int(g.adj.shape[0]) for g in graphs)
    return jax.tree.map(lambda *x: jnp.stack(x), *[g.pad_to(cap) for g in graphs])


@pytest.mark.parametrize("method", METHODS)
def test_vmap_over_padded_graphs(device, method):
    rng = np.random.default_rng(4)
    graphs = [make_graph(f, "two_values", rng, 64) for f in ("random", "star", "path", "grid")]
    graphs.append(Graph.from_edges([], [], [], 64))  # finishes at once
    batch = stack(graphs)
    solve = functools.partial(jaxmatch.approximate_weighted_matching, method=method)
    res = jax.jit(jax.vmap(solve))(batch)
    for i, G in enumerate(graphs):
        member = jax.tree.map(lambda x, i=i: x[i], res)
        np.testing.assert_array_equal(np.asarray(member.mate), greedy_mate(G))
        assert jaxmatch.verify_weighted_matching(G, member).locally_dominant
    assert res.status.shape == (5,)


def test_ld_rounds_per_call_does_not_change_the_result(device):
    rng = np.random.default_rng(8)
    G = make_graph("path", "uniform", rng, 200)
    expected = greedy_mate(G)
    counts = set()
    for rounds in (1, 2, 3, 64):
        res = jaxmatch.approximate_weighted_matching(G, method="ld", rounds_per_call=rounds)
        np.testing.assert_array_equal(np.asarray(res.mate), expected)
        counts.add(int(res.n_rounds))
    assert len(counts) == 1  # the round count does not depend on the call size


def test_ld_rounds_on_a_path_of_increasing_weights(device):
    """Mutual heaviest pairs appear one at a time from the heavy end: LD
    needs a round per matched pair, Suitor one pass."""
    n = 40
    G = Graph.from_edges(np.arange(n - 1), np.arange(1, n), np.arange(1, n, dtype=np.float32), n)
    ld = jaxmatch.approximate_weighted_matching(G, method="ld")
    suitor = jaxmatch.approximate_weighted_matching(G, method="suitor")
    assert int(ld.n_rounds) == n // 2
    assert int(suitor.n_rounds) == 1
    np.testing.assert_array_equal(np.asarray(ld.mate), np.asarray(suitor.mate))


def test_result_fields(device):
    G = Graph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 5.0, 1.0], 4)
    res = jaxmatch.approximate_weighted_matching(G)
    np.testing.assert_array_equal(np.asarray(res.mate), [-1, 2, 1, -1])
    edge = np.asarray(res.mate_edge)
    assert edge[0] == -1 and edge[3] == -1
    assert int(G.adj[edge[1]]) == 2 and int(G.adj[edge[2]]) == 1
    assert float(res.weight) == 5.0 and int(res.cardinality) == 1
    assert res.status_name == "DOMINANT"
    assert "weight=5" in repr(res)


def test_nan_weights_are_reported_under_jit(device):
    G = Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], 3)
    bad = Graph(G.xadj, G.adj, G.weights.at[1].set(jnp.nan), 3)
    res = jax.jit(jaxmatch.approximate_weighted_matching)(bad)
    assert int(res.status) == WeightedMatchingStatus.INVALID_WEIGHTS
    np.testing.assert_array_equal(np.asarray(res.mate), [-1, -1, -1])
    # NaN in padding is not an error
    padded = G.pad_to(6)
    padded = Graph(padded.xadj, padded.adj, padded.weights.at[5].set(jnp.nan), 3)
    status = jaxmatch.approximate_weighted_matching(padded).status
    assert int(status) == WeightedMatchingStatus.DOMINANT


@pytest.mark.parametrize("method", METHODS)
def test_malformed_csr_is_reported(device, method):
    G = Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], 3)
    cases = [
        Graph(G.xadj, G.adj.at[0].set(7), G.weights, 3),  # neighbour out of range
        Graph(G.xadj.at[1].set(9), G.adj, G.weights, 3),  # pointer past the capacity
        Graph(G.xadj.at[2].set(0), G.adj, G.weights, 3),  # pointers decrease
        Graph(G.xadj.at[0].set(1), G.adj, G.weights, 3),  # does not start at 0
    ]
    for bad in cases:
        res = jaxmatch.approximate_weighted_matching(bad, method=method)
        assert int(res.status) == WeightedMatchingStatus.INVALID_GRAPH
        np.testing.assert_array_equal(np.asarray(res.mate), [-1, -1, -1])


@pytest.mark.parametrize("method", METHODS)
def test_validation_reads_the_stored_entries_only(device, method):
    """The kernels check every stored neighbour, also deep in a hub's list
    (which the CUDA kernels give to whole blocks), and nothing past
    ``xadj[n]``: padding may hold anything."""
    n = 400
    hub = Graph.from_edges(np.zeros(n - 1, np.int64), np.arange(1, n), np.arange(1.0, n), n)
    cap = int(hub.adj.shape[0])
    padded = hub.pad_to(cap + 8)
    junk = Graph(padded.xadj, padded.adj.at[cap:].set(-5), padded.weights, n)
    res = jaxmatch.approximate_weighted_matching(junk, method=method)
    assert int(res.status) == WeightedMatchingStatus.DOMINANT
    assert int(res.cardinality) == 1 and int(res.mate[0]) == n - 1
    deep = int(hub.xadj[1]) - 1  # the last entry of vertex 0's list
    bad = Graph(hub.xadj, hub.adj.at[deep].set(n), hub.weights, n)
    res = jaxmatch.approximate_weighted_matching(bad, method=method)
    assert int(res.status) == WeightedMatchingStatus.INVALID_GRAPH
    assert np.all(np.asarray(res.mate) == -1)


def test_option_errors():
    G = Graph.from_edges([0], [1], [1.0], 2)
    with pytest.raises(ValueError, match="method must be one of"):
        jaxmatch.approximate_weighted_matching(G, method="greedy")
    with pytest.raises(TypeError, match="static_argnames"):
        jaxmatch.approximate_weighted_matching(G, method=1)
    with pytest.raises(ValueError, match="rounds_per_call"):
        jaxmatch.approximate_weighted_matching(G, rounds_per_call=0)
    with pytest.raises(TypeError, match="static_argnames"):
        jax.jit(lambda r: jaxmatch.approximate_weighted_matching(G, rounds_per_call=r))(4)


def test_graph_errors():
    G = Graph.from_edges([0], [1], [1.0], 2)
    with pytest.raises(TypeError, match=r"jaxmatch\.Graph"):
        jaxmatch.approximate_weighted_matching(jaxmatch.BipartiteGraph.from_dense(np.ones((2, 2))))
    with pytest.raises(TypeError, match="int32"):
        jaxmatch.approximate_weighted_matching(Graph(G.xadj.astype(jnp.int64), G.adj, G.weights, 2))
    with pytest.raises(TypeError, match="weights must be"):
        half = Graph(G.xadj, G.adj, G.weights.astype(jnp.float16), 2)
        jaxmatch.approximate_weighted_matching(half)
    with pytest.raises(ValueError, match="n \\+ 1"):
        jaxmatch.approximate_weighted_matching(Graph(G.xadj, G.adj, G.weights, 3))
    with pytest.raises(ValueError, match="same shape"):
        jaxmatch.approximate_weighted_matching(Graph(G.xadj, G.adj, G.weights[:1], 2))


def test_non_positive_weights_are_never_matched(device):
    G = Graph.from_edges([0, 1, 2], [1, 2, 3], [-1.0, 0.0, -5.0], 4)
    res = jaxmatch.approximate_weighted_matching(G)
    assert int(res.cardinality) == 0
