"""approximate_b_matching: equality with the sequential b-greedy, b = 1,
edge cases, dtypes, jit, vmap, bad input, statuses."""

from __future__ import annotations

import zlib
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from b_cases import UNIFORM_B, b_greedy, random_b, random_graph
from host_emulation import run_host_emulation
from weighted_cases import FAMILIES, make_graph

import jaxmatch
from jaxmatch import BMatchingResult, Graph, WeightedMatchingStatus
from jaxmatch.weighted.verify import verify_b_matching


def check_equals_greedy(G: Graph, b, res: BMatchingResult) -> None:
    """``res`` is the b-greedy's b-matching of ``G``, field by field, and
    its certificate holds."""
    want = b_greedy(G, b)
    assert res.status_name == "DOMINANT"
    np.testing.assert_array_equal(np.asarray(res.matched), want.matched)
    np.testing.assert_array_equal(np.asarray(res.degree), want.degree)
    assert int(res.cardinality) == want.cardinality
    if isinstance(want.weight, int):
        assert int(res.weight) == want.weight
    else:
        np.testing.assert_allclose(float(res.weight), want.weight, rtol=1e-5)
    cert = verify_b_matching(G, b, res)
    assert cert.valid and cert.locally_dominant, cert.reason


def mask_of_mates(G: Graph, mate_edge) -> np.ndarray:
    """The stored entries of a matching given by ``mate_edge`` (both
    directions)."""
    mask = np.zeros(np.shape(G.indices)[-1], bool)
    edge = np.asarray(mate_edge)
    mask[edge[edge >= 0]] = True
    return mask


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("kind", ["uniform", "two_values", "small_ints"])
def test_b1_is_the_weighted_matching(device, family, kind):
    rng = np.random.default_rng(zlib.crc32(f"{family}-{kind}".encode()))
    G = make_graph(family, kind, rng, 60)
    res = jaxmatch.approximate_b_matching(G, 1)
    ref = jaxmatch.approximate_weighted_matching(G)
    np.testing.assert_array_equal(np.asarray(res.matched), mask_of_mates(G, ref.mate_edge))
    np.testing.assert_array_equal(np.asarray(res.degree), np.asarray(ref.mate) >= 0)
    assert int(res.cardinality) == int(ref.cardinality)
    # summed in another order: equal up to rounding
    np.testing.assert_allclose(float(res.weight), float(ref.weight), rtol=1e-12)


@pytest.mark.parametrize("b", UNIFORM_B)
@pytest.mark.parametrize("family", FAMILIES)
def test_uniform_b_equals_the_b_greedy(device, family, b):
    rng = np.random.default_rng(100 + b)
    for kind in ("uniform", "two_values"):
        G = random_graph(rng, 50, family=family, kind=kind)
        check_equals_greedy(G, b, jaxmatch.approximate_b_matching(G, b))


@pytest.mark.parametrize("kind", ["per_vertex", "large"])
@pytest.mark.parametrize("family", FAMILIES)
def test_per_vertex_b_equals_the_b_greedy(device, family, kind):
    rng = np.random.default_rng(7)
    for weights in ("uniform", "with_zeros", "small_ints"):
        G = random_graph(rng, 70, family=family, kind=weights)
        b = random_b(rng, G.n, kind)
        check_equals_greedy(G, b, jaxmatch.approximate_b_matching(G, b))


@pytest.mark.parametrize("seed", range(12))
def test_random_sweep_with_ties(device, seed):
    """Many equal weights: the result still is the b-greedy's under the
    documented order (ties by the larger endpoint, then the smaller)."""
    rng = np.random.default_rng(1000 + seed)
    n = int(rng.integers(2, 120))
    G = random_graph(rng, n, family="random", kind=("equal", "two_values")[seed % 2])
    b = random_b(rng, n, ("per_vertex", 2, 3, "large")[seed % 4])
    check_equals_greedy(G, b, jaxmatch.approximate_b_matching(G, b))


def test_b_above_every_degree_takes_every_positive_edge(device):
    rng = np.random.default_rng(3)
    G = random_graph(rng, 40, family="random", kind="small_ints")
    res = jaxmatch.approximate_b_matching(G, 10**6)
    _, _, w = G.edges(both=True)
    used = np.zeros(np.shape(G.indices)[-1], bool)
    used[: w.size] = w > 0
    np.testing.assert_array_equal(np.asarray(res.matched), used)
    check_equals_greedy(G, 10**6, res)


def test_b_zero_matches_nothing(device):
    G = random_graph(np.random.default_rng(5), 30)
    res = jaxmatch.approximate_b_matching(G, 0)
    assert res.status_name == "DOMINANT"
    assert not np.asarray(res.matched).any() and int(res.cardinality) == 0
    assert float(res.weight) == 0.0


def test_empty_graph_single_vertex_and_isolated_vertices(device):
    empty = Graph.from_edges([], [], np.zeros(0), 0)
    res = jaxmatch.approximate_b_matching(empty, 3)
    assert res.status_name == "DOMINANT" and res.matched.shape == (0,) and res.degree.shape == (0,)
    one = Graph.from_edges([], [], np.zeros(0), 1)
    res = jaxmatch.approximate_b_matching(one, 2)
    assert res.status_name == "DOMINANT"
    np.testing.assert_array_equal(np.asarray(res.degree), [0])
    # vertices 3..9 isolated
    G = Graph.from_edges([0, 1, 0], [1, 2, 2], [3.0, 2.0, 1.0], 10)
    res = jaxmatch.approximate_b_matching(G, np.array([2, 1, 2, 5, 0, 0, 0, 0, 0, 0]))
    np.testing.assert_array_equal(np.asarray(res.degree), [2, 1, 1, 0, 0, 0, 0, 0, 0, 0])
    assert float(res.weight) == 4.0 and int(res.cardinality) == 2


def test_result_fields(device):
    # triangle 0-1-2 (weights 5, 4, 3) and a pendant 2-3 (weight 1)
    G = Graph.from_edges([0, 1, 0, 2], [1, 2, 2, 3], [5.0, 4.0, 3.0, 1.0], 4)
    res = jaxmatch.approximate_b_matching(G, 2)
    # greedy: (0,1) 5, (1,2) 4, (0,2) 3 -> every vertex of the triangle full
    np.testing.assert_array_equal(np.asarray(res.degree), [2, 2, 2, 0])
    assert float(res.weight) == 12.0 and int(res.cardinality) == 3
    assert int(res.iterations) >= 1
    assert res.status_name == "DOMINANT"
    assert "weight=12" in repr(res)
    assert res.matched.dtype == jnp.bool_ and res.degree.dtype == jnp.int32


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_weight_dtypes(device, dtype):
    rng = np.random.default_rng(11)
    G = random_graph(rng, 60, kind="small_ints", dtype=dtype)
    b = random_b(rng, 60, "per_vertex")
    res = jaxmatch.approximate_b_matching(G, b)
    assert res.weight.dtype == dtype
    check_equals_greedy(G, b, res)


def test_integer_total_overflow_is_reported(device):
    big = np.int32(2**30)
    G = Graph.from_edges([0, 2, 4], [1, 3, 5], np.array([big, big, big], np.int32), 6)
    res = jaxmatch.approximate_b_matching(G, 1)
    assert int(res.status) == WeightedMatchingStatus.OVERFLOW
    assert not np.asarray(res.matched).any() and float(res.weight) == 0


def test_nan_weights_are_reported(device):
    G = Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], 3)
    bad = Graph(indptr=G.indptr, indices=G.indices, data=G.data.at[1].set(jnp.nan), shape=(3, 3))
    res = jax.jit(jaxmatch.approximate_b_matching, static_argnums=1)(bad, 2)
    assert int(res.status) == WeightedMatchingStatus.INVALID_WEIGHTS
    assert not np.asarray(res.matched).any()
    np.testing.assert_array_equal(np.asarray(res.degree), [0, 0, 0])


def test_malformed_graph_is_reported(device):
    G = Graph.from_edges([0, 1], [1, 2], [1.0, 2.0], 3)
    bad = Graph(indptr=G.indptr, indices=G.indices.at[0].set(7), data=G.data, shape=(3, 3))
    res = jax.jit(jaxmatch.approximate_b_matching)(bad, jnp.array([1, 1, 1]))
    assert int(res.status) == WeightedMatchingStatus.INVALID_GRAPH
    assert not np.asarray(res.matched).any()


def test_jit_with_traced_b(device):
    rng = np.random.default_rng(21)
    G = random_graph(rng, 80, family="power_law")
    solve = jax.jit(jaxmatch.approximate_b_matching)
    for kind in ("per_vertex", "large"):
        b = random_b(rng, G.n, kind)
        check_equals_greedy(G, b, solve(G, jnp.asarray(b)))
    # a traced scalar array broadcasts like an int
    check_equals_greedy(G, 3, solve(G, jnp.int32(3)))


def test_negative_traced_b_is_invalid_capacity(device):
    G = random_graph(np.random.default_rng(2), 20)
    b = jnp.full(20, 2, jnp.int32).at[5].set(-1)
    res = jax.jit(jaxmatch.approximate_b_matching)(G, b)
    assert int(res.status) == WeightedMatchingStatus.INVALID_CAPACITY
    assert res.status_name == "INVALID_CAPACITY"
    assert not np.asarray(res.matched).any() and int(res.cardinality) == 0
    np.testing.assert_array_equal(np.asarray(res.degree), np.zeros(20))


def _stack(graphs):
    cap = max(int(g.indices.shape[0]) for g in graphs)
    return jax.tree.map(lambda *x: jnp.stack(x), *[g.pad_to(cap) for g in graphs])


def test_vmap_over_padded_graphs_and_b(device):
    rng = np.random.default_rng(4)
    graphs = [random_graph(rng, 64, family=f) for f in ("random", "star", "path", "grid")]
    graphs.append(Graph.from_edges([], [], np.zeros(0), 64))  # finishes at once
    batch = _stack(graphs)
    bs = np.stack([random_b(rng, 64, "per_vertex") for _ in graphs])
    res = jax.jit(jax.vmap(jaxmatch.approximate_b_matching))(batch, bs)
    assert res.status.shape == (5,) and res.matched.shape == batch.indices.shape
    for i, G in enumerate(graphs):
        member = jax.tree.map(lambda x, i=i: x[i], res)
        cap = int(G.indices.shape[0])
        assert not np.asarray(member.matched)[cap:].any()  # padding
        member = member._replace(matched=member.matched[:cap])
        check_equals_greedy(G, bs[i], member)


def test_batched_b_over_one_graph(device):
    """b with leading dimensions solves the graph once per row of b."""
    rng = np.random.default_rng(9)
    G = random_graph(rng, 40)
    bs = np.stack([np.full(40, k, np.int32) for k in (0, 1, 2, 5)])
    res = jaxmatch.approximate_b_matching(G, bs)
    assert res.weight.shape == (4,)
    for i, k in enumerate((0, 1, 2, 5)):
        member = jax.tree.map(lambda x, i=i: x[i], res)
        check_equals_greedy(G, k, member)
    again = jax.vmap(jaxmatch.approximate_b_matching, in_axes=(None, 0))(G, bs)
    np.testing.assert_array_equal(np.asarray(again.matched), np.asarray(res.matched))


def test_a_batch_with_a_bad_member(device):
    """A member with a negative b fails alone; the others are solved."""
    rng = np.random.default_rng(12)
    G = random_graph(rng, 30)
    bs = jnp.stack([jnp.full(30, 2), jnp.full(30, 2).at[0].set(-3), jnp.full(30, 1)])
    res = jax.jit(jaxmatch.approximate_b_matching)(G, bs)
    names = list(res.status_name)
    assert names == ["DOMINANT", "INVALID_CAPACITY", "DOMINANT"]
    check_equals_greedy(G, 2, jax.tree.map(lambda x: x[0], res))
    check_equals_greedy(G, 1, jax.tree.map(lambda x: x[2], res))


@pytest.mark.parametrize(
    ("b", "error", "match"),
    [
        (-1, ValueError, "b must be >= 0"),
        (True, TypeError, "bool"),
        (2.0, TypeError, "float"),
        (np.ones(10, np.float32), TypeError, "dtype float32"),
        (np.ones(10, bool), TypeError, "dtype bool"),
        (np.ones(9, np.int32), ValueError, r"shape \(\) or \[..., n\]"),
        (np.ones((3, 2, 10), np.int32), ValueError, "do not broadcast"),
        (np.array([1] * 9 + [-2]), ValueError, "negative entry"),
        (jnp.array([1] * 9 + [-2]), ValueError, "negative entry"),
        ("2", TypeError, "dtype"),
    ],
)
def test_bad_b(b, error, match):
    G = random_graph(np.random.default_rng(0), 10)
    G = jax.tree.map(lambda x: jnp.stack([x, x, x]), G)  # batch (3,)
    with pytest.raises(error, match=match):
        jaxmatch.approximate_b_matching(G, b)


def test_bad_b_is_raised_at_trace_time():
    G = random_graph(np.random.default_rng(0), 10)
    with pytest.raises(ValueError, match="b must have shape"):
        jax.jit(jaxmatch.approximate_b_matching).lower(G, jnp.ones(11, jnp.int32))
    with pytest.raises(TypeError, match="dtype float32"):
        jax.jit(jaxmatch.approximate_b_matching).lower(G, jnp.ones(10, jnp.float32))


def test_bad_graph_and_tuning():
    with pytest.raises(TypeError, match=r"jaxmatch\.Graph"):
        jaxmatch.approximate_b_matching(np.eye(3), 1)
    G = random_graph(np.random.default_rng(0), 10)
    with pytest.raises(TypeError, match="WeightedMatchingTuning"):
        jaxmatch.approximate_b_matching(G, 1, tuning="fast")


def test_int64_and_huge_b_are_clipped_not_wrapped(device):
    G = random_graph(np.random.default_rng(8), 30)
    b = np.full(30, 2**40, np.int64)
    res = jaxmatch.approximate_b_matching(G, b)
    check_equals_greedy(G, 10**6, res)
    res = jaxmatch.approximate_b_matching(G, np.full(30, 3, np.uint8))
    check_equals_greedy(G, 3, res)


@pytest.mark.parametrize("platform", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_export_with_a_symbolic_batch_and_capacity(platform):
    """One exported program serves every batch size and capacity (the
    workspace's length is linear in both)."""
    S = jax.ShapeDtypeStruct
    n = 8
    batch, cap = jax.export.symbolic_shape("batch, cap")
    G = Graph(
        S((batch, n + 1), np.int32), S((batch, cap), np.int32), S((batch, cap), np.float32), (n, n)
    )
    exp = jax.export.export(
        jax.jit(jaxmatch.approximate_b_matching),
        disabled_checks=jaxmatch.export_disabled_checks(),
        platforms=["cuda" if platform == "gpu" else platform],
    )(G, S((batch, n), np.int32))
    exp = jax.export.deserialize(exp.serialize())
    rng = np.random.default_rng(2)
    dev = jax.devices(platform)[0]
    for members, capacity in [(1, 30), (3, 64), (2, 101)]:
        graphs = [random_graph(rng, n, dtype=np.float32).pad_to(capacity) for _ in range(members)]
        stacked = jax.tree.map(lambda *x: jnp.stack(x), *graphs)
        bs = np.stack([random_b(rng, n, "per_vertex") for _ in graphs])
        stacked, bs = jax.device_put((stacked, jnp.asarray(bs)), dev)
        got = exp.call(stacked, bs)
        want = jax.jit(jaxmatch.approximate_b_matching)(stacked, bs)
        for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_array_equal(a, b)
        for i, G in enumerate(graphs):
            check_equals_greedy(G, np.asarray(bs[i]), jax.tree.map(lambda x, i=i: x[i], got))


def test_concurrency_emulation(tmp_path):
    """``b_suitor_emulation.cc``: the steps' CUDA branches on host threads
    with host atomics, teams of one to four workers whose collectives go
    through barriers (the kernels' schedule, hand-offs to the queue, several
    candidate depths), equal the serial solve, and the finalize's mutual
    check equals a search of the heaps."""
    # about 5 s on an idle 2-core host, minutes on a busy one
    run_host_emulation(Path(__file__).with_name("b_suitor_emulation.cc"), tmp_path)


def stored_twice(G: Graph, rng, share: float = 0.5) -> Graph:
    """``G`` with a random ``share`` of its pairs stored once more, from both
    ends, with another weight drawn from the weights of ``G`` (ties, heavier
    and lighter copies); each list sorted by neighbour, a pair's copies in
    a random order."""
    u, v, w = G.edges()
    again = rng.random(u.size) < share
    w2 = rng.choice(w, int(again.sum())) if w.size else w[:0]
    uu = np.concatenate([u, v, u[again], v[again]])
    vv = np.concatenate([v, u, v[again], u[again]])
    ww = np.concatenate([w, w, w2, w2])
    order = rng.permutation(uu.size)
    order = order[np.lexsort((vv[order], uu[order]))]
    return Graph(
        indptr=np.searchsorted(uu[order], np.arange(G.n + 1)).astype(np.int32),
        indices=vv[order].astype(np.int32),
        data=ww[order],
        shape=G.shape,
    ).validate()


def test_a_pair_stored_twice_is_one_edge(device):
    """A pair stored more than once is one edge, at its heaviest copy: b = 2
    takes it once (the kernels once proposed along both copies)."""
    G = Graph(
        indptr=np.array([0, 2, 4], np.int32),
        indices=np.array([1, 1, 0, 0], np.int32),
        data=np.array([3.0, 5.0, 3.0, 5.0], np.float32),
        shape=(2, 2),
    ).validate()
    res = jaxmatch.approximate_b_matching(G, 2)
    check_equals_greedy(G, 2, res)
    assert float(res.weight) == 5.0
    np.testing.assert_array_equal(np.asarray(res.matched), [False, True, False, True])


@pytest.mark.parametrize("kind", ["uniform", "two_values", "small_ints"])
@pytest.mark.parametrize("b_kind", [1, 2, 5, "per_vertex", "large"])
def test_pairs_stored_twice_equal_the_greedy(device, kind, b_kind):
    rng = np.random.default_rng(zlib.crc32(f"twice-{kind}-{b_kind}".encode()))
    for family, n in (("random", 70), ("star", 40), ("random", 300)):
        G = stored_twice(random_graph(rng, n, family=family, kind=kind), rng)
        b = random_b(rng, n, b_kind)
        check_equals_greedy(G, b, jax.jit(jaxmatch.approximate_b_matching)(G, b))


@pytest.mark.parametrize("what", ["out of order", "one end only", "unequal weights"])
def test_a_malformed_graph_that_reads_safely_is_reported(device, what):
    """The kernels check what validate() checks: sorted lists, and each edge
    stored from both ends with one weight (under jit too)."""
    G = Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], [1.0, 2.0, 3.0, 4.0], 4)
    indptr, indices, data = (np.asarray(a).copy() for a in (G.indptr, G.indices, G.data))
    if what == "out of order":  # vertex 0's list [1, 2] stored as [2, 1]
        indices[[0, 1]], data[[0, 1]] = indices[[1, 0]], data[[1, 0]]
    elif what == "one end only":  # 2 -> 3 stored, 3 -> 2 dropped
        keep = np.arange(indices.size) != indices.size - 1
        indices, data, indptr = indices[keep], data[keep], indptr.copy()
        indptr[-1] -= 1
    else:
        data[0] = 7.0
    bad = Graph(indptr=indptr, indices=indices, data=data, shape=(4, 4))
    with pytest.raises(jaxmatch.GraphValidationError):
        bad.validate()
    res = jax.jit(jaxmatch.approximate_b_matching, static_argnums=1)(bad, 2)
    assert int(res.status) == WeightedMatchingStatus.INVALID_GRAPH
    assert not np.asarray(res.matched).any()
    res = jaxmatch.approximate_weighted_matching(bad)
    assert int(res.status) == WeightedMatchingStatus.INVALID_GRAPH
    assert np.all(np.asarray(res.mate) == -1)


def test_a_malformed_graph_is_reported_before_its_nan_weights(device):
    """INVALID_GRAPH wins over INVALID_WEIGHTS, as validate() checks the
    structure first (an index out of range, a NaN weight)."""
    bad = Graph(
        indptr=np.array([0, 1, 2], np.int32),
        indices=np.array([1, 5], np.int32),
        data=np.float32([1.0, np.nan]),
        shape=(2, 2),
    )
    with pytest.raises(jaxmatch.GraphValidationError, match="out of range"):
        bad.validate()
    for res in (
        jaxmatch.approximate_weighted_matching(bad),
        jaxmatch.approximate_weighted_matching(bad, method="ld"),
        jaxmatch.approximate_b_matching(bad, 1),
    ):
        assert int(res.status) == WeightedMatchingStatus.INVALID_GRAPH
