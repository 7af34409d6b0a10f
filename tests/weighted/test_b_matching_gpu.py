"""approximate_b_matching on the GPU: bit for bit the CPU's result and the
b-greedy's, on graphs with hubs (whole blocks), large b, ties, batches, and
many seeds (the kernels race by design; the result must not)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from b_cases import b_greedy, random_b, random_graph

import jaxmatch
from jaxmatch import Graph
from jaxmatch.weighted.verify import verify_b_matching

pytestmark = pytest.mark.gpu


def solve_on(platform: str, G: Graph, b):
    dev = jax.devices(platform)[0]
    G, b = jax.device_put((G, jnp.asarray(b)), dev)
    res = jax.jit(jaxmatch.approximate_b_matching)(G, b)
    return jax.tree.map(np.asarray, res)


EXACT_FIELDS = ("matched", "degree", "cardinality", "status")


def assert_same_result(gpu, cpu) -> None:
    """Every field equal; the float weight up to the rounding of a sum, whose
    order differs between the platforms' reductions: each total of k
    positive terms is within (k - 1) eps of the exact sum, relative."""
    for field in EXACT_FIELDS:
        np.testing.assert_array_equal(getattr(gpu, field), getattr(cpu, field), err_msg=field)
    w_gpu, w_cpu = np.asarray(gpu.weight), np.asarray(cpu.weight)
    assert w_gpu.dtype == w_cpu.dtype
    if np.issubdtype(w_gpu.dtype, np.integer):
        np.testing.assert_array_equal(w_gpu, w_cpu, err_msg="weight")
    else:
        terms = np.maximum(np.asarray(cpu.cardinality), 1)
        bound = 2 * terms * np.finfo(w_cpu.dtype).eps * np.abs(w_cpu)
        assert np.all(np.abs(w_gpu - w_cpu) <= bound), (w_gpu, w_cpu)


def check_gpu(G: Graph, b) -> None:
    """The GPU's result equals the CPU's field by field (iterations aside:
    the GPU hands work on between rounds; the float weight up to a sum's
    rounding), and the b-greedy's."""
    b = np.broadcast_to(np.asarray(b, np.int32), (G.n,))
    gpu = solve_on("gpu", G, b)
    cpu = solve_on("cpu", G, b)
    assert int(gpu.status) == jaxmatch.WeightedMatchingStatus.DOMINANT
    assert_same_result(gpu, cpu)
    want = b_greedy(G, b)
    np.testing.assert_array_equal(gpu.matched, want.matched)
    np.testing.assert_array_equal(gpu.degree, want.degree)
    cert = verify_b_matching(G, b, gpu)
    assert cert.valid and cert.locally_dominant, cert.reason


@pytest.mark.parametrize("family", ["random", "power_law", "star", "grid", "complete", "path"])
@pytest.mark.parametrize("b", [1, 2, 5, 20, "per_vertex", "large"])
def test_gpu_equals_cpu_and_greedy(family, b):
    rng = np.random.default_rng(5)
    n = 60 if family == "complete" else 1500
    for kind in ("uniform", "two_values"):
        G = random_graph(rng, n, family=family, kind=kind)
        check_gpu(G, random_b(rng, n, b))


@pytest.mark.parametrize("seed", range(40))
def test_many_seeds(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 3000))
    family = ("random", "power_law", "sparse", "star")[seed % 4]
    kind = ("uniform", "equal", "two_values", "small_ints", "with_zeros")[seed % 5]
    G = random_graph(rng, n, family=family, kind=kind, dtype=(np.float32, np.int32)[seed % 2])
    check_gpu(G, random_b(rng, n, (1, 2, 5, "per_vertex", "large")[seed % 5]))


def test_hubs_with_large_b():
    """Hubs of degree in the thousands (whole blocks) with b in the
    hundreds, among light vertices that dislodge each other."""
    rng = np.random.default_rng(77)
    n, hubs = 20000, 8
    u = np.concatenate([np.repeat(np.arange(hubs), 4000), rng.integers(0, n, 3 * n)])
    v = np.concatenate([rng.integers(hubs, n, hubs * 4000), rng.integers(0, n, 3 * n)])
    w = rng.integers(1, 50, u.size).astype(np.float32)  # many ties
    G = Graph.from_edges(u, v, w, n)
    b = np.full(n, 3, np.int32)
    b[:hubs] = (300, 500, 1, 0, 4000, 64, 128, 999)
    check_gpu(G, b)
    check_gpu(G, 1)


def test_hub_proposals_only():
    """A star: every leaf proposes to the hub, which keeps its b best."""
    n = 50000
    G = Graph.from_edges(np.zeros(n - 1, np.int64), np.arange(1, n), np.arange(1, n) % 997 + 1.0, n)
    for b_hub in (1, 7, 300, n):
        b = np.ones(n, np.int32)
        b[0] = b_hub
        check_gpu(G, b)


def test_gpu_vmap_batch():
    rng = np.random.default_rng(3)
    graphs = [random_graph(rng, 500, family=f) for f in ("random", "power_law", "star", "grid")]
    graphs.append(Graph.from_edges([], [], np.zeros(0), 500))
    cap = max(int(g.indices.shape[0]) for g in graphs)
    batch = jax.tree.map(lambda *x: jnp.stack(x), *[g.pad_to(cap) for g in graphs])
    bs = np.stack([random_b(rng, 500, "large") for _ in graphs])
    solve = jax.jit(jax.vmap(jaxmatch.approximate_b_matching))
    gpu = jax.tree.map(np.asarray, solve(*jax.device_put((batch, bs), jax.devices("gpu")[0])))
    cpu = jax.tree.map(np.asarray, solve(*jax.device_put((batch, bs), jax.devices("cpu")[0])))
    assert_same_result(gpu, cpu)
    for i, G in enumerate(graphs):
        want = b_greedy(G, bs[i])
        np.testing.assert_array_equal(gpu.matched[i][: int(G.indices.shape[0])], want.matched)


def test_gpu_statuses():
    G = random_graph(np.random.default_rng(1), 100)
    b = jnp.full(100, 2, jnp.int32).at[3].set(-1)
    res = solve_on("gpu", G, b)
    assert int(res.status) == jaxmatch.WeightedMatchingStatus.INVALID_CAPACITY
    assert not res.matched.any()
    bad = Graph(indptr=G.indptr, indices=G.indices.at[0].set(500), data=G.data, shape=G.shape)
    res = solve_on("gpu", bad, 2)
    assert int(res.status) == jaxmatch.WeightedMatchingStatus.INVALID_GRAPH


@pytest.mark.parametrize("b", [1, 5])
def test_large_graph(b):
    """About a million edges, power-law: many rounds of dislodging."""
    rng = np.random.default_rng(11)
    n = 200_000
    deg = np.minimum(rng.zipf(1.8, n), 20_000)
    u = np.repeat(np.arange(n), deg)
    v = rng.integers(0, n, u.size)
    G = Graph.from_edges(u, v, rng.random(u.size).astype(np.float32), n)
    gpu = solve_on("gpu", G, np.full(n, b, np.int32))
    cpu = solve_on("cpu", G, np.full(n, b, np.int32))
    assert_same_result(gpu, cpu)
