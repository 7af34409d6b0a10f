"""jaxmatch.Graph: constructors, validation, padding."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import jaxmatch
from jaxmatch import Graph, GraphValidationError


def test_from_edges_stores_both_directions_sorted():
    G = Graph.from_edges([2, 0], [0, 1], [5.0, 3.0], 3)
    np.testing.assert_array_equal(np.asarray(G.indptr), [0, 2, 3, 4])
    np.testing.assert_array_equal(np.asarray(G.indices), [1, 2, 0, 0])
    np.testing.assert_array_equal(np.asarray(G.data), [3.0, 5.0, 3.0, 5.0])
    assert int(G.n_edges) == 2
    G.validate()


def test_self_loops_dropped_duplicates_keep_the_heaviest():
    G = Graph.from_edges([0, 0, 1, 1], [0, 1, 0, 1], [9.0, 1.0, 4.0, 7.0], 2)
    u, v, w = G.edges()
    assert (u.tolist(), v.tolist(), w.tolist()) == ([0], [1], [4.0])


@pytest.mark.parametrize(
    "dtype, stored",
    [
        (np.float32, np.float32),
        (np.float64, np.float64),
        (np.float16, np.float32),
        (np.int32, np.int32),
        (np.int64, np.int32),
        (np.uint8, np.int32),
    ],
)
def test_weight_dtypes(dtype, stored):
    G = Graph.from_edges([0], [1], np.array([3], dtype), 2)
    assert G.data.dtype == stored


def test_scalar_weight_for_every_edge():
    G = Graph.from_edges([0, 1], [1, 2], 2.5, 3)
    np.testing.assert_array_equal(np.asarray(G.data), [2.5] * 4)


@pytest.mark.parametrize(
    "u, v, w, n, message",
    [
        ([0, 3], [1, 0], [1.0, 1.0], 3, "out of range"),
        ([0], [1, 2], [1.0], 3, "differ in length"),
        ([0], [1], [np.nan], 2, "finite"),
        ([0], [1], [np.inf], 2, "finite"),
        ([0], [1], [1.0, 2.0], 2, "shape"),
        ([0], [1], ["a"], 2, "real numbers"),
        ([0], [1], [2**40], 2, "int32"),
        ([0.5], [1], [1.0], 2, "integers"),
        ([0], [1], [1.0], -1, "negative"),
    ],
)
def test_from_edges_errors(u, v, w, n, message):
    with pytest.raises(GraphValidationError, match=message):
        Graph.from_edges(u, v, w, n)


def test_from_scipy_symmetric():
    A = sp.random(30, 30, density=0.2, random_state=1, format="csr")
    A = A + A.T
    A.setdiag(7.0)  # the diagonal is ignored
    G = Graph.from_scipy(A)
    u, v, w = G.edges()
    B = sp.triu(A, 1).tocoo()
    assert set(zip(u.tolist(), v.tolist())) == set(zip(B.row.tolist(), B.col.tolist()))
    np.testing.assert_allclose(np.sort(w), np.sort(B.data))


@pytest.mark.parametrize(
    "A, message",
    [
        (sp.csr_matrix(np.array([[0, 1.0], [0, 0]])), "symmetric"),
        (sp.csr_matrix(np.array([[0, 1.0], [2.0, 0]])), "symmetric"),
        (sp.csr_matrix(np.ones((2, 3))), "square"),
        (np.ones((2, 2)), "scipy sparse"),
        (sp.csr_matrix(np.array([[0, np.nan], [np.nan, 0]])), "finite"),
    ],
)
def test_from_scipy_errors(A, message):
    with pytest.raises(GraphValidationError, match=message):
        Graph.from_scipy(A)


def test_from_networkx_uses_node_order_and_default_weight():
    g = nx.Graph()
    g.add_edge("a", "b", weight=3.0)
    g.add_edge("b", "c")
    G = Graph.from_networkx(g)
    assert G.n == 3
    u, v, w = G.edges()
    assert sorted(zip(u.tolist(), v.tolist(), w.tolist())) == [(0, 1, 3.0), (1, 2, 1.0)]
    with pytest.raises(GraphValidationError, match="undirected"):
        Graph.from_networkx(nx.DiGraph([(0, 1)]))


def test_empty_graphs():
    for n in (0, 1, 5):
        G = Graph.from_edges([], [], [], n)
        assert G.indices.shape == (0,) and int(G.n_edges) == 0
        res = jaxmatch.approximate_weighted_matching(G)
        assert int(res.cardinality) == 0 and float(res.weight) == 0
        np.testing.assert_array_equal(np.asarray(res.mate), [-1] * n)
        assert jaxmatch.verify_weighted_matching(G, res).locally_dominant


def test_pad_to_and_validate():
    G = Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], 3)
    H = G.pad_to(10)
    assert H.indices.shape == (10,) and H.data.shape == (10,)
    H.validate()
    with pytest.raises(GraphValidationError, match="capacity"):
        G.pad_to(2)
    asym = Graph(indptr=G.indptr, indices=G.indices, data=G.data.at[0].set(9.0), shape=(3, 3))
    with pytest.raises(GraphValidationError, match="both ends"):
        asym.validate()
    assert "Graph(shape=(3, 3), capacity=4" in repr(G)


def test_validate_checks_each_pair_from_both_ends():
    """Symmetry is each pair's entries from both ends, not only as many
    entries in as out (a directed cycle has those); a pair stored twice with
    two weights is symmetric whatever order its copies come in."""
    cycle = Graph(
        indptr=np.array([0, 1, 2, 3], np.int32),
        indices=np.array([1, 2, 0], np.int32),
        data=np.ones(3, np.float32),
        shape=(3, 3),
    )
    with pytest.raises(GraphValidationError, match="both ends"):
        cycle.validate()
    twice = Graph(
        indptr=np.array([0, 2, 4], np.int32),
        indices=np.array([1, 1, 0, 0], np.int32),
        data=np.array([3.0, 5.0, 5.0, 3.0], np.float32),
        shape=(2, 2),
    )
    twice.validate()
    unsorted = Graph(
        indptr=np.array([0, 2, 3, 4], np.int32),
        indices=np.array([2, 1, 0, 0], np.int32),
        data=np.ones(4, np.float32),
        shape=(3, 3),
    )
    with pytest.raises(GraphValidationError, match="sorted"):
        unsorted.validate()


def test_a_self_loop_is_no_edge_of_the_certificate():
    """A hand-built graph may store a loop (validate() accepts it); no
    matching holds it, so it neither breaks dominance nor counts in the
    bound."""
    G = Graph(
        indptr=np.array([0, 2, 3], np.int32),
        indices=np.array([0, 1, 0], np.int32),
        data=np.float32([5.0, 1.0, 1.0]),
        shape=(2, 2),
    ).validate()
    res = jaxmatch.approximate_weighted_matching(G)
    assert res.status_name == "DOMINANT" and np.asarray(res.mate).tolist() == [1, 0]
    cert = jaxmatch.verify_weighted_matching(G, res)
    assert cert.valid and cert.locally_dominant, cert.reason
    assert cert.upper_bound == 1.0 and cert.ratio == 1.0
