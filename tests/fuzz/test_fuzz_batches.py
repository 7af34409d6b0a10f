"""Many problems per case (dense and sparse LAP, cardinality and weighted
matching): each hypothesis example draws a seed, a shape, a dtype and a
value kind, and NumPy makes a batch of problems of them
(``BATCH`` problems: 8 in the quick profile, 256 in the deep one), solved in
one batched call and checked member by member against the oracles. The
deep profile reaches 10**5 problems per entry point in a few hundred
examples, where one problem per example would take hours on a device."""

from __future__ import annotations

import functools

import jax
import numpy as np
from dropin_cases import (
    check_linear_sum_assignment,
    check_maximum_bipartite_matching,
    check_min_weight_full_bipartite_matching,
)
from fuzz_cases import COUNTS, PROFILE, check_lap_batch, fuzz_settings, random_costs
from graph_cases import greedy_mate, maximum_cardinality
from hypothesis import given
from hypothesis import strategies as st
from points_cases import METRICS, check_points
from sparse_cases import check_sparse_member

import jaxmatch
from jaxmatch import BipartiteGraph, Graph, MatchingStatus, SparseCosts, WeightedMatchingStatus

BATCH = 256 if PROFILE == "deep" else 8
DEEP_CASES = -(-100_000 // 256)  # 10**5 problems per entry point
SHAPES = ((1, 1), (2, 3), (5, 5), (7, 4), (16, 16), (31, 40))


@functools.cache
def _solve(method: str):
    return jax.jit(lambda C, mx: jaxmatch.solve_lap(C, maximize=mx, method=method))


@fuzz_settings(quick=12, deep=DEEP_CASES)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.sampled_from(SHAPES),
    dtype=st.sampled_from(["float32", "float64", "int32"]),
    kind=st.sampled_from(["ties", "ints", "uniform", "forbidden", "huge", "tiny"]),
    method=st.sampled_from(["auto", "jv", "tree", "classical"]),
)
def test_solve_lap_batches_against_scipy(device, seed, shape, dtype, kind, method):
    rng = np.random.default_rng(seed)
    C = random_costs(rng, (BATCH, *shape), dtype, kind)
    flags = rng.random(BATCH) < 0.5
    res = _solve(method)(C, flags)
    check_lap_batch(C, flags, res, f"batch {method} {dtype} {kind} seed={seed}")
    COUNTS[f"solve_lap dense, batched problems ({device.platform})"] += BATCH


@functools.cache
def _match(method: str, init: str | None):
    return jax.jit(
        jax.vmap(lambda g: jaxmatch.max_cardinality_matching(g, method=method, init=init))
    )


@fuzz_settings(quick=12, deep=DEEP_CASES)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.sampled_from(SHAPES),
    density=st.sampled_from([0.05, 0.2, 0.6]),
    method=st.sampled_from(["auto", "apfb", "apsb", "hybrid", "pr"]),
    init=st.sampled_from(["cheap", "greedy", "karp-sipser", None]),
)
def test_matching_batches_against_scipy(device, seed, shape, density, method, init):
    rng = np.random.default_rng(seed)
    graphs = [BipartiteGraph.from_dense(rng.random(shape) < density) for _ in range(BATCH)]
    cap = max(16, max(g.capacity for g in graphs))
    cap = 1 << (cap - 1).bit_length()  # one compilation per power of two
    graphs = [g.pad_to(cap) for g in graphs]
    batch = jax.tree.map(lambda *a: np.stack([np.asarray(x) for x in a]), *graphs)
    res = jax.tree.map(np.asarray, _match(method, init)(batch))
    for b, G in enumerate(graphs):
        info = (method, init, seed, b, shape, density)
        assert int(res.status[b]) == MatchingStatus.MAXIMUM, info
        assert int(res.cardinality[b]) == maximum_cardinality(G), info
        cert = jaxmatch.verify_matching(G, (res.col_for_row[b], res.row_for_col[b]))
        assert cert.valid and cert.maximum, (cert.reason, *info)
    COUNTS[f"max_cardinality_matching, batched graphs ({device.platform})"] += BATCH


def random_sparse(rng, shape, capacity: int, dtype: str, kind: str):
    """One sparse member as ``sparse_problems`` draws it: entries grouped by
    row, columns in any order, duplicates, garbage padding."""
    n, m = shape
    k = int(rng.integers(0, capacity + 1))
    rows = np.sort(rng.integers(0, n, k))
    indices = np.full(capacity, -7, np.int32)
    indices[:k] = rng.integers(0, m, k)
    data = random_costs(rng, (capacity,), dtype, kind)
    indptr = np.searchsorted(rows, np.arange(n + 1)).astype(np.int32)
    return indptr, indices, data, shape, None, kind


@functools.cache
def _sparse(method: str, maximize: bool):
    return jax.jit(lambda S: jaxmatch.solve_lap(S, maximize=maximize, method=method))


@fuzz_settings(quick=12, deep=DEEP_CASES)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.sampled_from(SHAPES),
    dtype=st.sampled_from(["float32", "float64", "int32"]),
    kind=st.sampled_from(["ties", "ints", "uniform", "huge", "tiny"]),
    method=st.sampled_from(["auto", "jv", "tree"]),
    maximize=st.booleans(),
)
def test_sparse_lap_batches_against_scipy(device, seed, shape, dtype, kind, method, maximize):
    if method == "jv" and device.platform != "cpu":
        method = "tree"  # the sparse JV runs on the CPU only
    rng = np.random.default_rng(seed)
    capacity = 4 * shape[0] * shape[1]
    members = [random_sparse(rng, shape, capacity, dtype, kind) for _ in range(BATCH)]
    S = SparseCosts(*(np.stack([mb[i] for mb in members]) for i in range(3)), shape)
    res = jax.tree.map(np.asarray, _sparse(method, maximize)(S))
    for b, member in enumerate(members):
        one = jax.tree.map(lambda a, b=b: a[b], res)
        what = f"sparse batch {method} {dtype} {kind} seed={seed} member={b}"
        check_sparse_member(SparseCosts(*member[:3], shape), member, one, maximize, True, what)
    COUNTS[f"solve_lap sparse, batched problems ({device.platform})"] += BATCH


@functools.cache
def _weighted(method: str):
    return jax.jit(jax.vmap(lambda g: jaxmatch.approximate_weighted_matching(g, method=method)))


@fuzz_settings(quick=12, deep=DEEP_CASES)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.sampled_from([1, 2, 5, 16, 40]),
    dtype=st.sampled_from(["float32", "float64", "int32"]),
    kind=st.sampled_from(["ties", "ints", "uniform", "tiny"]),
    method=st.sampled_from(["suitor", "ld"]),
)
def test_weighted_batches_equal_greedy(device, seed, n, dtype, kind, method):
    rng = np.random.default_rng(seed)
    k = 3 * n
    graphs = []
    for _ in range(BATCH):
        w = np.nan_to_num(random_costs(rng, (k,), "float64", kind), posinf=1.0, neginf=-1.0)
        w = w.astype(dtype) if dtype != "int32" else np.round(w * (1 if kind == "ints" else 5))
        u, v = rng.integers(0, n, k), rng.integers(0, n, k)  # self-loops and duplicates
        graphs.append(Graph.from_edges(u, v, w.astype(dtype), n).pad_to(2 * k))
    batch = jax.tree.map(lambda *a: np.stack([np.asarray(x) for x in a]), *graphs)
    res = jax.tree.map(np.asarray, _weighted(method)(batch))
    for b, G in enumerate(graphs):
        info = (method, dtype, kind, seed, b)
        assert int(res.status[b]) == WeightedMatchingStatus.DOMINANT, info
        np.testing.assert_array_equal(res.mate[b], greedy_mate(G), err_msg=str(info))
        cert = jaxmatch.verify_weighted_matching(G, res.mate[b])
        assert cert.valid and cert.locally_dominant, (cert.reason, *info)
    COUNTS[f"approximate_weighted_matching, batched graphs ({device.platform})"] += BATCH


def random_entries(rng, shape, dtype: str, kind: str):
    """COO entries of a sparse matrix: duplicates, any order."""
    n, m = shape
    k = int(rng.integers(0, 3 * n * m + 1))
    rows, cols = rng.integers(0, n, k), rng.integers(0, m, k)
    return rows, cols, random_costs(rng, (k,), dtype, kind)


@fuzz_settings(quick=4, deep=DEEP_CASES)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.sampled_from(SHAPES + ((0, 3), (4, 0))),
    dtype=st.sampled_from(["float32", "float64", "int32"]),
    kind=st.sampled_from(["ties", "ints", "uniform", "forbidden", "huge", "tiny"]),
)
def test_dropins_on_many_problems(seed, shape, dtype, kind):
    """The three scipy drop-ins, each on ``BATCH`` problems of one shape,
    against scipy (eager host calls: no device)."""
    rng = np.random.default_rng(seed)
    for C in random_costs(rng, (BATCH, *shape), dtype, kind):
        check_linear_sum_assignment(C, bool(rng.random() < 0.5), kind)
    COUNTS["linear_sum_assignment, batched problems"] += BATCH
    for _ in range(BATCH):
        rows, cols, vals = random_entries(rng, shape, dtype, kind)
        fmt = str(rng.choice(["csr", "csc", "coo"]))
        check_min_weight_full_bipartite_matching(rows, cols, vals, shape, rng.random() < 0.5, fmt)
    COUNTS["min_weight_full_bipartite_matching, batched problems"] += BATCH
    for _ in range(BATCH):
        rows, cols, _ = random_entries(rng, shape, dtype, kind)
        perm, fmt = str(rng.choice(["row", "column"])), str(rng.choice(["csr", "csc", "coo"]))
        check_maximum_bipartite_matching(rows, cols, shape, perm, fmt)
    COUNTS["maximum_bipartite_matching, batched problems"] += BATCH


@fuzz_settings(quick=2, deep=DEEP_CASES)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.sampled_from([0, 1, 3, 9]),
    m=st.sampled_from([0, 1, 4, 9]),
    d=st.sampled_from([1, 2, 3]),
    dtype=st.sampled_from(["float32", "float64", "int32"]),
    kind=st.sampled_from(["grid", "uniform", "huge", "tiny"]),
    metric=st.sampled_from(list(METRICS)),
    x64=st.booleans(),
    candidates=st.sampled_from([1, 4, 16]),
)
def test_points_on_many_problems(device, seed, n, m, d, dtype, kind, metric, x64, candidates):
    """``solve_lap_points`` on ``BATCH`` point sets of one shape (one
    compilation) against scipy on the dense costs."""
    rng = np.random.default_rng(seed)
    scale = {"grid": 1.0, "uniform": 1.0, "huge": 3e4, "tiny": 1e-20}[kind]
    for _ in range(BATCH):
        X, Y = (rng.random((k, d)) for k in (n, m))
        if kind == "grid" or dtype == "int32":
            X, Y = np.floor(4 * X), np.floor(4 * Y)  # duplicate points, ties
        X, Y = (np.asarray(Z * scale, dtype) for Z in (X, Y))
        check_points(X, Y, metric, bool(rng.random() < 0.5), x64, candidates, kind)
    COUNTS[f"solve_lap_points, batched problems ({device.platform})"] += BATCH
