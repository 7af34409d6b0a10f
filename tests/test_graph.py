"""BipartiteGraph constructors and validation; the matching certificate."""

from __future__ import annotations

import jax
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from jax.experimental import sparse as jsparse
from scipy.sparse.csgraph import maximum_bipartite_matching

import jaxmatch
from jaxmatch import BipartiteGraph, GraphValidationError


def _random_graph(rng, n_rows, n_cols, density):
    return sp.random(n_rows, n_cols, density=density, format="csr", random_state=rng,
                     data_rvs=lambda k: np.ones(k))


def _scipy_matching(A):
    cm = maximum_bipartite_matching(sp.csr_matrix(A), perm_type="row")  # row per column
    rm = np.full(A.shape[0], -1)
    rm[cm[cm >= 0]] = np.flatnonzero(cm >= 0)
    return rm, cm


def _edge_set(G):
    r, c = G.edges()
    return set(zip(r.tolist(), c.tolist()))


def test_constructors_agree_and_deduplicate():
    rows = np.array([0, 2, 2, 1, 2, 0])
    cols = np.array([1, 0, 0, 3, 2, 1])  # (2, 0) and (0, 1) twice
    G = BipartiteGraph.from_edges(rows, cols, 3, 4).validate()
    assert _edge_set(G) == {(0, 1), (2, 0), (1, 3), (2, 2)} and int(G.nnz) == 4
    mask = np.zeros((3, 4), bool)
    mask[rows, cols] = True
    A = sp.coo_matrix((np.ones(6), (rows, cols)), shape=(3, 4))  # duplicates summed
    csr = sp.csr_matrix(mask)
    for other in (BipartiteGraph.from_dense(mask), BipartiteGraph.from_scipy(A),
                  BipartiteGraph.from_scipy(A.tocsc()),
                  BipartiteGraph.from_csr(csr.indptr, csr.indices, 3, 4),
                  BipartiteGraph.from_bcsr(jsparse.BCSR.fromdense(mask.astype(np.float32)))):
        other.validate()
        for a, b in zip(jax.tree_util.tree_leaves(G), jax.tree_util.tree_leaves(other)):
            np.testing.assert_array_equal(a, b)


def test_pytree_and_vmap_over_padded_batch():
    rng = np.random.default_rng(0)
    graphs = [BipartiteGraph.from_scipy(_random_graph(rng, 6, 5, d)) for d in (0.2, 0.5, 0.8)]
    cap = max(int(np.shape(g.cadj)[0]) for g in graphs)
    padded = [g.pad_to(cap) for g in graphs]
    batch = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *padded)
    assert batch.n_rows == 6 and batch.n_cols == 5
    nnz = jax.vmap(lambda g: g.nnz)(batch)
    np.testing.assert_array_equal(nnz, [int(g.nnz) for g in graphs])
    assert jax.jit(lambda g: g.cxadj.sum())(graphs[0]) == np.asarray(graphs[0].cxadj).sum()


@pytest.mark.parametrize(
    "indptr, indices, match",
    [
        ([1, 2, 3], [0, 1, 0], "start at 0"),
        ([0, 2, 1], [0, 1], "non-decreasing"),
        ([0, 1, 5], [0, 1], "only 2 indices"),
        ([0, 1, 2], [0, 7], "out of range"),
        ([0, 1, 2], [0, -1], "out of range"),
        ([0, 1], [0], "length 2, expected 3"),
        ([[0, 1, 2]], [0, 1], "one-dimensional"),
        ([0.0, 1.0, 2.0], [0, 1], "integers"),
    ],
)
def test_malformed_csr_is_rejected(indptr, indices, match):
    with pytest.raises(GraphValidationError, match=match):
        BipartiteGraph.from_csr(np.array(indptr), np.array(indices), 2, 3)


def test_malformed_edges_are_rejected():
    with pytest.raises(GraphValidationError, match="negative size"):
        BipartiteGraph.from_edges([], [], -1, 3)
    with pytest.raises(GraphValidationError, match="differ in length"):
        BipartiteGraph.from_edges([0, 1], [0], 2, 2)
    with pytest.raises(GraphValidationError, match="column index 5"):
        BipartiteGraph.from_edges([0], [5], 2, 2)
    with pytest.raises(GraphValidationError, match="2-D"):
        BipartiteGraph.from_dense(np.ones(3))
    with pytest.raises(GraphValidationError, match="scipy sparse"):
        BipartiteGraph.from_scipy(np.ones((2, 2)))
    with pytest.raises(GraphValidationError):
        BipartiteGraph.from_edges([0], [0], 1, 1).pad_to(0)


def test_empty_graphs():
    for n_rows, n_cols in [(0, 0), (0, 3), (4, 0), (3, 3)]:
        G = BipartiteGraph.from_edges([], [], n_rows, n_cols).validate()
        cert = jaxmatch.verify_matching(G, (np.full(n_rows, -1), np.full(n_cols, -1)))
        assert cert.valid and cert.maximum and cert.cardinality == 0


def test_certificate_on_maximum_matchings():
    """scipy's maximum matchings certify, with networkx's cardinality, on
    random graphs of several densities, shapes and permutations."""
    rng = np.random.default_rng(1)
    for trial in range(120):
        n_rows, n_cols = rng.integers(1, 30, size=2)
        A = _random_graph(rng, n_rows, n_cols, rng.choice([0.02, 0.1, 0.3, 0.8]))
        if trial % 3 == 0:
            A = A[rng.permutation(n_rows)][:, rng.permutation(n_cols)]
        G = BipartiteGraph.from_scipy(A)
        rm, cm = _scipy_matching(A)
        cert = jaxmatch.verify_matching(G, (rm, cm))
        assert cert.valid and cert.is_cover and cert.maximum, cert.reason
        assert cert.cover_size == cert.cardinality
        B = nx.Graph()
        B.add_nodes_from(range(n_rows), bipartite=0)
        B.add_nodes_from(range(n_rows, n_rows + n_cols), bipartite=1)
        r, c = G.edges()
        B.add_edges_from(zip(r.tolist(), (c + n_rows).tolist()))
        nx_match = nx.bipartite.hopcroft_karp_matching(B, top_nodes=range(n_rows))
        assert cert.cardinality == len(nx_match) // 2


def test_certificate_rejects_non_maximum_and_invalid():
    # A path r0 - c0 - r1 - c1: matching {(r1, c0)} is maximal but not maximum.
    G = BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1], 2, 2)
    cert = jaxmatch.verify_matching(G, (np.array([-1, 0]), np.array([1, -1])))
    assert cert.valid and not cert.maximum and "augmenting path" in cert.reason
    best = jaxmatch.verify_matching(G, (np.array([0, 1]), np.array([0, 1])))
    assert best.maximum and best.cardinality == 2
    bad = [
        ((np.array([1, -1]), np.array([-1, 0])), "not an edge"),
        ((np.array([0, 0]), np.array([0, -1])), "disagree"),
        ((np.array([0, -1]), np.array([0, 0])), "lacks"),
        ((np.array([0, 5]), np.array([0, 1])), "out of range"),
        ((np.array([0]), np.array([0, -1])), "shapes"),
    ]
    for matching, reason in bad:
        cert = jaxmatch.verify_matching(G, matching)
        assert not cert.valid and not cert.maximum and reason in cert.reason, cert.reason
