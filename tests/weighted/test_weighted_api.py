"""approximate_weighted_matching: jit, vmap, options, bad input, status."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jaxpr_walk import ffi_attributes
from weighted_cases import METHODS, greedy_mate, make_graph

import jaxmatch
from jaxmatch import Graph, GraphValidationError, WeightedMatchingStatus
from jaxmatch.weighted import WeightedMatchingTuning


def stack(graphs):
    cap = max(int(g.indices.shape[0]) for g in graphs)
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
        counts.add(int(res.iterations))
    assert len(counts) == 1  # the round count does not depend on the call size


def test_ld_rounds_on_a_path_of_increasing_weights(device):
    """Mutual heaviest pairs appear one at a time from the heavy end: LD
    needs a round per matched pair, Suitor one pass."""
    n = 40
    G = Graph.from_edges(np.arange(n - 1), np.arange(1, n), np.arange(1, n, dtype=np.float32), n)
    ld = jaxmatch.approximate_weighted_matching(G, method="ld")
    suitor = jaxmatch.approximate_weighted_matching(G, method="suitor")
    assert int(ld.iterations) == n // 2
    assert int(suitor.iterations) == 1
    np.testing.assert_array_equal(np.asarray(ld.mate), np.asarray(suitor.mate))


def test_result_fields(device):
    G = Graph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 5.0, 1.0], 4)
    res = jaxmatch.approximate_weighted_matching(G)
    np.testing.assert_array_equal(np.asarray(res.mate), [-1, 2, 1, -1])
    edge = np.asarray(res.mate_edge)
    assert edge[0] == -1 and edge[3] == -1
    assert int(G.indices[edge[1]]) == 2 and int(G.indices[edge[2]]) == 1
    assert float(res.weight) == 5.0 and int(res.cardinality) == 1
    assert res.status_name == "DOMINANT"
    assert "weight=5" in repr(res)


def test_nan_weights_are_reported_under_jit(device):
    G = Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], 3)
    bad = Graph(indptr=G.indptr, indices=G.indices, data=G.data.at[1].set(jnp.nan), shape=(3, 3))
    res = jax.jit(jaxmatch.approximate_weighted_matching)(bad)
    assert int(res.status) == WeightedMatchingStatus.INVALID_WEIGHTS
    np.testing.assert_array_equal(np.asarray(res.mate), [-1, -1, -1])
    # NaN in padding is not an error
    padded = G.pad_to(6)
    padded = Graph(
        indptr=padded.indptr,
        indices=padded.indices,
        data=padded.data.at[5].set(jnp.nan),
        shape=(3, 3),
    )
    status = jaxmatch.approximate_weighted_matching(padded).status
    assert int(status) == WeightedMatchingStatus.DOMINANT


@pytest.mark.parametrize("method", METHODS)
def test_malformed_csr_is_reported(device, method):
    G = Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], 3)
    cases = [
        Graph(
            indptr=G.indptr, indices=G.indices.at[0].set(7), data=G.data, shape=(3, 3)
        ),  # neighbour out of range
        Graph(
            indptr=G.indptr.at[1].set(9), indices=G.indices, data=G.data, shape=(3, 3)
        ),  # pointer past the capacity
        Graph(
            indptr=G.indptr.at[2].set(0), indices=G.indices, data=G.data, shape=(3, 3)
        ),  # pointers decrease
        Graph(
            indptr=G.indptr.at[0].set(1), indices=G.indices, data=G.data, shape=(3, 3)
        ),  # does not start at 0
    ]
    for bad in cases:
        res = jaxmatch.approximate_weighted_matching(bad, method=method)
        assert int(res.status) == WeightedMatchingStatus.INVALID_GRAPH
        np.testing.assert_array_equal(np.asarray(res.mate), [-1, -1, -1])


@pytest.mark.parametrize("method", METHODS)
def test_validation_reads_the_stored_entries_only(device, method):
    """The kernels check every stored neighbour, also deep in a hub's list
    (which the CUDA kernels give to whole blocks), and nothing past
    ``indptr[n]``: padding may hold anything."""
    n = 400
    hub = Graph.from_edges(np.zeros(n - 1, np.int64), np.arange(1, n), np.arange(1.0, n), n)
    cap = int(hub.indices.shape[0])
    padded = hub.pad_to(cap + 8)
    junk = Graph(
        indptr=padded.indptr,
        indices=padded.indices.at[cap:].set(-5),
        data=padded.data,
        shape=(n, n),
    )
    res = jaxmatch.approximate_weighted_matching(junk, method=method)
    assert int(res.status) == WeightedMatchingStatus.DOMINANT
    assert int(res.cardinality) == 1 and int(res.mate[0]) == n - 1
    deep = int(hub.indptr[1]) - 1  # the last entry of vertex 0's list
    bad = Graph(indptr=hub.indptr, indices=hub.indices.at[deep].set(n), data=hub.data, shape=(n, n))
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


def test_tuning_sets_the_ld_rounds_per_call():
    """``tuning.ld_rounds_per_call`` is the default of ``rounds_per_call``
    (rounded up to an even number), read when the call is traced."""
    G = Graph.from_edges([0, 1, 2], [1, 2, 3], [1.0, 2.0, 3.0], 4)

    def rounds(**kw):
        jaxpr = jax.make_jaxpr(
            lambda G: jaxmatch.approximate_weighted_matching(G, method="ld", **kw)
        )(G)
        return [int(a["rounds"]) for a in ffi_attributes(jaxpr) if "rounds" in a]

    assert rounds() == [16]
    assert rounds(tuning=WeightedMatchingTuning(ld_rounds_per_call=5)) == [6]
    assert rounds(tuning=WeightedMatchingTuning(ld_rounds_per_call=5), rounds_per_call=2) == [2]
    tuned = WeightedMatchingTuning(ld_rounds_per_call=2)
    f = jax.jit(
        functools.partial(jaxmatch.approximate_weighted_matching, method="ld"),
        static_argnames=("tuning",),
    )
    np.testing.assert_array_equal(f(G, tuning=tuned).mate, [1, 0, 3, 2])
    assert hash(tuned) == hash(WeightedMatchingTuning(ld_rounds_per_call=2))
    with pytest.raises(TypeError, match="tuning must be a WeightedMatchingTuning or None"):
        jaxmatch.approximate_weighted_matching(G, tuning=16)
    with pytest.raises(ValueError, match="ld_rounds_per_call must be in"):
        WeightedMatchingTuning(ld_rounds_per_call=0)


def test_graph_errors():
    G = Graph.from_edges([0], [1], [1.0], 2)
    with pytest.raises(TypeError, match=r"jaxmatch\.Graph"):
        jaxmatch.approximate_weighted_matching(jaxmatch.BipartiteGraph.from_dense(np.ones((2, 2))))
    with pytest.raises(TypeError, match="int32"):
        jaxmatch.approximate_weighted_matching(
            Graph(indptr=G.indptr.astype(jnp.int64), indices=G.indices, data=G.data, shape=(2, 2))
        )
    with pytest.raises(TypeError, match=r"graph\.data must be float32, float64 or int32"):
        half = Graph(
            indptr=G.indptr, indices=G.indices, data=G.data.astype(jnp.float16), shape=(2, 2)
        )
        jaxmatch.approximate_weighted_matching(half)
    with pytest.raises(ValueError, match="n \\+ 1"):
        jaxmatch.approximate_weighted_matching(
            Graph(indptr=G.indptr, indices=G.indices, data=G.data, shape=(3, 3))
        )
    with pytest.raises(ValueError, match="same shape"):
        jaxmatch.approximate_weighted_matching(
            Graph(indptr=G.indptr, indices=G.indices, data=G.data[:1], shape=(2, 2))
        )
    with pytest.raises(TypeError, match=r"graph\.data must hold the weights"):
        jaxmatch.approximate_weighted_matching(
            Graph(indptr=G.indptr, indices=G.indices, data=None, shape=(2, 2))
        )
    with pytest.raises(GraphValidationError, match="must be square"):
        Graph(indptr=G.indptr, indices=G.indices, data=G.data, shape=(2, 3))
    with pytest.raises(TypeError, match="positional"):
        jaxmatch.approximate_weighted_matching(G, "ld")


def test_non_positive_weights_are_never_matched(device):
    G = Graph.from_edges([0, 1, 2], [1, 2, 3], [-1.0, 0.0, -5.0], 4)
    res = jaxmatch.approximate_weighted_matching(G)
    assert int(res.cardinality) == 0
