"""Suitor and LD against the sequential greedy matching (equal, ties
included) and against networkx's exact optimum (at least half), on the CPU
and the GPU; every result certified."""

from __future__ import annotations

import itertools

import jax
import numpy as np
import pytest
from weighted_cases import (
    FAMILIES,
    METHODS,
    WEIGHT_KINDS,
    check_mate_edge,
    greedy_mate,
    make_graph,
    networkx_optimum,
)

import jaxmatch


def check(G, res):
    cert = jaxmatch.verify_weighted_matching(G, res)
    assert cert.valid and cert.locally_dominant, cert.reason
    assert int(res.status) == jaxmatch.WeightedMatchingStatus.DOMINANT
    assert int(res.cardinality) == cert.cardinality
    np.testing.assert_allclose(float(res.weight), float(cert.weight), rtol=1e-5)
    check_mate_edge(G, res)
    return cert


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("family", FAMILIES)
def test_equals_greedy_on_every_family_and_weight_kind(device, method, family):
    rng = np.random.default_rng(hash((family, method)) % 2**32)
    for kind, n in itertools.product(WEIGHT_KINDS, (1, 2, 9, 60, 257)):
        G = make_graph(family, kind, rng, n)
        res = jaxmatch.approximate_weighted_matching(G, method=method)
        check(G, res)
        np.testing.assert_array_equal(np.asarray(res.mate), greedy_mate(G), err_msg=kind)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_every_weight_dtype(device, dtype):
    rng = np.random.default_rng(7)
    for seed in range(20):
        kind = ("uniform", "small_ints", "two_values")[seed % 3]
        G = make_graph("random", kind, rng, 40 + seed, dtype=dtype)
        assert G.data.dtype == dtype
        for method in METHODS:
            res = jaxmatch.approximate_weighted_matching(G, method=method)
            assert res.weight.dtype == dtype
            check(G, res)
            np.testing.assert_array_equal(np.asarray(res.mate), greedy_mate(G))


def test_float64_weights_closer_than_float32_resolve(device):
    """Weights that float32 rounds to one value keep their float64 order: the
    middle edge of the path is the heaviest (as ties, the last would win)."""
    base = 1e6
    w = base + np.array([1e-3, 3e-3, 2e-3])
    G = jaxmatch.Graph.from_edges([0, 1, 2], [1, 2, 3], w, 4)
    assert G.data.dtype == np.float64
    res = jaxmatch.approximate_weighted_matching(G)
    np.testing.assert_array_equal(np.asarray(res.mate), [-1, 2, 1, -1])
    np.testing.assert_array_equal(np.asarray(res.mate), greedy_mate(G))


@pytest.mark.parametrize("method", METHODS)
def test_at_least_half_of_networkx_optimum(method):
    rng = np.random.default_rng(3)
    ratios = []
    for seed in range(30):
        family = ("random", "grid", "power_law", "complete")[seed % 4]
        G = make_graph(family, "uniform", rng, 12 + seed)
        res = jaxmatch.approximate_weighted_matching(G, method=method)
        cert = check(G, res)
        opt = networkx_optimum(G)
        assert float(res.weight) >= opt / 2 - 1e-9
        assert cert.upper_bound >= opt - 1e-9  # the bound is an upper bound
        ratios.append(float(res.weight) / opt if opt else 1.0)
    # Greedy is far better than 1/2 on random weights (reported, not a bound).
    assert min(ratios) > 0.5
    print(f"weight / optimum: min {min(ratios):.3f}, median {np.median(ratios):.3f}")


def test_permuted_labels_give_the_same_weight(device):
    rng = np.random.default_rng(11)
    for _ in range(10):
        G = make_graph("power_law", "uniform", rng, 80, permute=False)
        perm = rng.permutation(G.n)
        u, v, w = G.edges()
        H = jaxmatch.Graph.from_edges(perm[u], perm[v], w, G.n)
        a = jaxmatch.approximate_weighted_matching(G)
        b = jaxmatch.approximate_weighted_matching(H)
        # distinct random weights: the same edges whatever the labels
        mate = np.asarray(a.mate)
        expected = np.full(G.n, -1)
        matched = mate >= 0
        expected[perm[matched]] = perm[mate[matched]]
        np.testing.assert_array_equal(np.asarray(b.mate), expected)


@pytest.mark.parametrize("method", METHODS)
def test_methods_agree_on_larger_graphs(device, method):
    rng = np.random.default_rng(5)
    for family in ("random", "power_law", "grid"):
        G = make_graph(family, "two_values", rng, 3000)
        res = jaxmatch.approximate_weighted_matching(G, method=method)
        check(G, res)
        np.testing.assert_array_equal(np.asarray(res.mate), greedy_mate(G))


def test_jit_result_matches_eager(device):
    rng = np.random.default_rng(2)
    G = make_graph("random", "uniform", rng, 50)
    f = jax.jit(jaxmatch.approximate_weighted_matching, static_argnames=("method",))
    for method in METHODS:
        np.testing.assert_array_equal(np.asarray(f(G, method=method).mate), greedy_mate(G))
