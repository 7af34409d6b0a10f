"""b-matching against its oracles: the exact optima agree with each other,
the b-greedy reaches at least the certified fraction of the optimum (and the
certificate at least 1/2), and approximate_b_matching returns the b-greedy's
b-matching exactly (CPU, and GPU twins through the ``device`` fixture)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from b_cases import (
    UNIFORM_B,
    b_greedy,
    capacities,
    optimum_brute,
    optimum_milp,
    optimum_tutte,
    random_b,
    random_graph,
)
from weighted_cases import greedy_mate

import jaxmatch
from jaxmatch.weighted.verify import verify_b_matching

FAMILIES = ("random", "sparse", "star", "path", "complete", "grid", "power_law")
KINDS = ("uniform", "equal", "two_values", "small_ints", "with_zeros")


@pytest.mark.parametrize("seed", range(6))
def test_exact_optima_agree(seed):
    """MILP, Tutte's gadget with networkx, and brute force: one optimum."""
    rng = np.random.default_rng(seed)
    for it in range(15):
        n = int(rng.integers(0, 8))
        G = random_graph(rng, n, family=FAMILIES[it % 5], kind=KINDS[it % 5])
        if G.n_edges > 14:
            continue
        b = random_b(rng, n, (0, 1, 2, 3, "per_vertex")[it % 5])
        brute = optimum_brute(G, b)
        assert optimum_milp(G, b) == pytest.approx(brute, abs=1e-9)
        assert optimum_tutte(G, b) == pytest.approx(brute, abs=1e-9)


@pytest.mark.parametrize("family", FAMILIES)
def test_observed_ratio_at_least_certified_at_least_half(family):
    rng = np.random.default_rng(sum(map(ord, family)))
    for it, b in enumerate((1, 2, 5, 20, "per_vertex", "large")):
        G = random_graph(rng, 60, family=family, kind=KINDS[it % 5])
        bb = random_b(rng, 60, b)
        g = b_greedy(G, bb)
        cert = verify_b_matching(G, bb, g.matched)
        assert cert.valid and cert.locally_dominant
        opt = optimum_milp(G, bb)
        assert cert.upper_bound >= opt - 1e-9 * max(1.0, opt)
        assert cert.ratio >= 0.5
        observed = 1.0 if opt == 0 else g.weight / opt
        assert observed >= cert.ratio - 1e-12, (b, observed, cert.ratio)


def test_b_one_is_the_greedy_matching():
    rng = np.random.default_rng(5)
    for it in range(20):
        G = random_graph(rng, 30, family=FAMILIES[it % 7], kind=KINDS[it % 5])
        g = b_greedy(G, 1)
        mate = greedy_mate(G)
        want = {(int(x), int(mate[x])) for x in np.flatnonzero(mate >= 0) if x < mate[x]}
        assert set(g.edges) == want


# --------------------------------------------------------------------------
# approximate_b_matching against the b-greedy
# --------------------------------------------------------------------------


def pad(G, capacity):
    """``G`` padded to a power-of-two capacity (shared compilations)."""
    return G.pad_to(max(capacity, 1 << max(int(G.indices.shape[0]) - 1, 0).bit_length()))


def check_equal(G, b, res):
    """``res`` is the b-greedy's b-matching of ``G`` and certified."""
    res = jax.device_get(res)
    g = b_greedy(G, b)
    assert res.status_name == "DOMINANT", res
    np.testing.assert_array_equal(np.asarray(res.matched), g.matched)
    np.testing.assert_array_equal(np.asarray(res.degree), g.degree)
    assert int(res.cardinality) == g.cardinality
    if np.asarray(G.data).dtype.kind == "f":
        assert float(res.weight) == pytest.approx(g.weight, rel=1e-5, abs=1e-6)
    else:
        assert int(res.weight) == g.weight
    cert = verify_b_matching(G, b, res)
    assert cert.valid and cert.locally_dominant and cert.reason == "", cert.reason
    assert cert.ratio >= 0.5


@pytest.mark.parametrize("b", [*UNIFORM_B, "per_vertex", "large"])
def test_equals_the_b_greedy(device, b):
    rng = np.random.default_rng(hash(str(b)) % 2**32)
    fn = jax.jit(jaxmatch.approximate_b_matching)
    for it in range(14):
        family, kind = FAMILIES[it % 7], KINDS[it % 5]
        G = pad(random_graph(rng, 50, family=family, kind=kind), 64)
        bb = random_b(rng, 50, b)
        bb = bb if isinstance(bb, int) else jnp.asarray(bb)
        check_equal(G, np.asarray(bb), fn(G, bb))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_weight_dtypes_and_ties(device, dtype):
    rng = np.random.default_rng(11)
    for it in range(10):
        G = random_graph(rng, 40, family=FAMILIES[it % 7], kind=KINDS[it % 5], dtype=dtype)
        G = pad(G, 64)
        b = random_b(rng, 40, (1, 2, 5, "per_vertex", 3)[it % 5])
        check_equal(G, capacities(b, 40), jaxmatch.approximate_b_matching(G, b))


def test_b_one_equals_approximate_weighted_matching(device):
    rng = np.random.default_rng(3)
    for it in range(10):
        G = pad(random_graph(rng, 64, family=FAMILIES[it % 7], kind=KINDS[it % 5]), 64)
        res = jax.device_get(jaxmatch.approximate_b_matching(G, 1))
        ref = jax.device_get(jaxmatch.approximate_weighted_matching(G))
        u, v, _ = G.edges(both=True)
        mate = np.asarray(ref.mate)
        want = np.zeros(G.indices.shape[0], bool)
        want[: u.size] = mate[u] == v
        np.testing.assert_array_equal(np.asarray(res.matched), want)
        assert int(res.cardinality) == int(ref.cardinality)


def test_hubs_with_large_b(device):
    """A star's centre of degree 3000 with b in the hundreds, plus a random
    graph: one vertex takes many edges."""
    rng = np.random.default_rng(9)
    n = 3001
    u = np.r_[np.zeros(n - 1, np.int64), rng.integers(1, n, 6000)]
    v = np.r_[np.arange(1, n), rng.integers(1, n, 6000)]
    w = rng.integers(1, 50, u.size).astype(np.float32)  # many ties
    G = jaxmatch.Graph.from_edges(u, v, w, n)
    for hub_b in (1, 300, 2999, 5000):
        b = rng.integers(0, 4, n).astype(np.int32)
        b[0] = hub_b
        check_equal(G, b, jaxmatch.approximate_b_matching(G, jnp.asarray(b)))


def test_vmapped_batch_equals_each_member(device):
    rng = np.random.default_rng(21)
    graphs = [random_graph(rng, 32, family=f, kind="two_values") for f in FAMILIES]
    capacity = max(int(G.indices.shape[0]) for G in graphs)
    graphs = [G.pad_to(capacity) for G in graphs]
    bs = np.stack([random_b(rng, 32, "per_vertex") for _ in graphs])
    batch = jax.tree.map(lambda *a: jnp.stack(a), *graphs)
    res = jax.device_get(jax.vmap(jaxmatch.approximate_b_matching)(batch, jnp.asarray(bs)))
    for i, G in enumerate(graphs):
        member = jax.tree.map(lambda a, i=i: a[i], res)
        check_equal(G, bs[i], member)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_many_seeds_equal_the_b_greedy(device, seed):
    """Larger random graphs, many seeds: every family, tie-heavy weights,
    uniform, per-vertex and large b."""
    rng = np.random.default_rng(5000 + seed)
    fn = jax.jit(jaxmatch.approximate_b_matching)
    for it in range(25):
        G = random_graph(rng, 700, family=FAMILIES[it % 7], kind=KINDS[it % 5])
        G = pad(G, 8192)
        b = random_b(rng, 700, (1, 2, 5, 20, "per_vertex", "large")[it % 6])
        b = np.asarray(capacities(b, 700), np.int32)
        check_equal(G, b, fn(G, jnp.asarray(b)))
