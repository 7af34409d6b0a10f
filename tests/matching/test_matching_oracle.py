"""Maximum-cardinality matching against scipy, networkx and brute force.

Graphs are grouped into four size buckets (tiny, wide, tall, square); each
graph is embedded into its bucket with isolated vertices (the maximum
cardinality does not change), padded to the bucket's edge capacity and
stacked, so every solver variant runs once per bucket as one
``jax.jit(jax.vmap(...))`` call.  Every member is then compared with the
oracle and certified by :func:`jaxmatch.verify_matching` (a Koenig cover).
"""

from __future__ import annotations

import functools
import itertools

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from matching_cases import (
    BFS,
    COLD_INITS,
    EXECUTIONS,
    FAMILIES,
    INITS,
    MAPPINGS,
    METHODS,
    brute_force_cardinality,
    check_result,
    graph_arrays,
    graph_key,
    greedy_matching,
    is_maximal,
    make_bucket,
    make_graph,
    member,
    networkx_cardinality,
    scipy_cardinality,
)

import jaxmatch
from jaxmatch import MatchingStatus

# name: seed, n_rows, n_cols, base graphs (each embedded twice, duplicates
# dropped), oracle
BUCKET_SPECS = {
    "tiny": (101, 6, 6, 260, "brute"),
    "wide": (102, 20, 32, 200, "scipy"),
    "tall": (103, 48, 30, 200, "scipy"),
    "square": (104, 100, 100, 150, "scipy"),
}
MIN_DISTINCT_GRAPHS = 1000


@functools.cache
def bucket(name):
    seed, n_rows, n_cols, n_base, oracle = BUCKET_SPECS[name]
    return make_bucket(name, seed, n_rows, n_cols, n_base, oracle=oracle)


def all_buckets():
    return [bucket(name) for name in BUCKET_SPECS]


def _solver(init, **options):
    """``jit(vmap(...))`` over (graph, warm col_for_row, warm row_for_col)."""

    def one(g, rm, cm):
        start = (rm, cm) if init == "warm" else init
        return jaxmatch.max_cardinality_matching(g, init=start, **options)

    return jax.jit(jax.vmap(one))


def _run(b, init, **options):
    return jax.device_get(_solver(init, **options)(b.batch, b.warm_rm, b.warm_cm))


def _valid_warm_pairs(b, i):
    """Columns of member ``i``'s warm start whose pair is an edge named by
    both sides (the pairs the solvers keep)."""
    rm, cm = b.warm_rm[i], b.warm_cm[i]
    A = b.mats[i]
    cols = [
        j for j in range(b.n_cols) if 0 <= cm[j] < b.n_rows and rm[cm[j]] == j and A[cm[j], j] != 0
    ]
    return np.asarray(cols, np.int64)


def _check_bucket(b, res, what, *, init="cheap", method="auto"):
    statuses = np.asarray(res.status)
    assert np.all(statuses == MatchingStatus.MAXIMUM), (what, np.unique(statuses))
    for i, G in enumerate(b.graphs):
        one = member(res, i)
        label = f"{what} {b.name}[{i}] {b.labels[i]}"
        check_result(G, one, int(b.oracle[i]), label)
        if method == "pr":
            _check_pr_counters(b, i, one, init, label)
            continue
        # every phase adds at least one pair, and runs at least one level
        assert one.levels >= one.iterations, label
        if init is None:
            assert one.iterations <= b.oracle[i], label
        if init == "warm":
            # a column matched by the (valid part of the) warm start is never
            # freed (rows may be, within a phase), and each phase adds a pair
            kept = _valid_warm_pairs(b, i)
            assert np.all(one.row_for_col[kept] >= 0), label
            assert one.iterations <= b.oracle[i] - len(kept), label
    return len(b.graphs)


def _check_pr_counters(b, i, one, init, label):
    """Push-relabel's own invariants: its counters are push iterations and
    relabel levels (no per-phase pair), a push iteration always follows a
    relabel, and a matched row is never freed (a push re-matches the row it
    takes), so the rows of the warm start's valid pairs end matched."""
    if one.iterations > 0:
        assert one.levels >= 1, label
    if init == "warm":
        kept = _valid_warm_pairs(b, i)
        assert np.all(one.col_for_row[b.warm_cm[i][kept]] >= 0), label


def test_buckets_hold_enough_distinct_graphs():
    sizes = {b.name: len(b.graphs) for b in all_buckets()}
    assert sum(sizes.values()) >= MIN_DISTINCT_GRAPHS, sizes
    fams = {lab[0] for b in all_buckets() for lab in b.labels}
    assert fams == set(FAMILIES)
    # square, tall and wide graphs, with and without a perfect matching
    shapes = {lab[1] for b in all_buckets() for lab in b.labels}
    assert any(r < c for r, c in shapes) and any(r > c for r, c in shapes)
    assert any(r == c > 0 for r, c in shapes)
    assert all(any(A.nnz == 0 for A in b.mats) for b in all_buckets())
    perfect = [b.oracle[i] == min(lab[1]) for b in all_buckets() for i, lab in enumerate(b.labels)]
    assert 0 < sum(perfect) < len(perfect)


def test_oracles_agree():
    """scipy against brute force (tiny bucket) and networkx (a subset)."""
    tiny = bucket("tiny")
    np.testing.assert_array_equal([scipy_cardinality(A) for A in tiny.mats], tiny.oracle)
    for b in all_buckets()[1:]:
        sub = slice(None, None, 7)
        np.testing.assert_array_equal([networkx_cardinality(A) for A in b.mats[sub]], b.oracle[sub])


def test_bucket_graphs_equal_constructor_graphs():
    """The buckets' NumPy-built graphs are what ``from_scipy`` + ``pad_to``
    build, and stacking those (``stack_graphs``) gives the bucket's batch."""
    from matching_cases import graph_arrays, stack_graphs

    leaves = jax.tree_util.tree_leaves
    for b in all_buckets():
        idx = list(range(0, len(b.mats), len(b.mats) // 4))
        cap = int(b.batch.col_indices.shape[-1])
        built = [jaxmatch.BipartiteGraph.from_scipy(b.mats[i]) for i in idx]
        for i, h in zip(idx, built):
            g = graph_arrays(b.mats[i], cap)
            assert (g.n_rows, g.n_cols) == (h.n_rows, h.n_cols) == (b.n_rows, b.n_cols)
            for x, y in zip(leaves(g), leaves(h.pad_to(cap))):
                np.testing.assert_array_equal(x, y)
        stacked = stack_graphs(built + [graph_arrays(b.mats[0], cap)])
        for x, y in zip(leaves(stacked), leaves(b.batch)):
            np.testing.assert_array_equal(np.asarray(x)[:-1], y[idx])


@pytest.mark.parametrize("execution", EXECUTIONS)
@pytest.mark.parametrize("init", INITS, ids=str)
@pytest.mark.parametrize("bfs", BFS)
@pytest.mark.parametrize("method", METHODS)
def test_sweep(device, method, bfs, init, execution):
    """Every driver x level kernel x init x execution shape, on every graph
    of every bucket; the count is asserted per combination."""
    count = 0
    for b in all_buckets():
        res = _run(b, init, method=method, bfs=bfs, execution=execution)
        count += _check_bucket(
            b, res, f"{method}/{bfs}/{init}/{execution}", init=init, method=method
        )
    assert count == len({graph_key(A) for b in all_buckets() for A in b.mats})
    assert count >= MIN_DISTINCT_GRAPHS


@pytest.mark.parametrize("mapping", MAPPINGS)
@pytest.mark.parametrize("bfs", BFS)
@pytest.mark.parametrize("method", METHODS)
def test_thread_mappings(device, method, bfs, mapping):
    b = bucket("tall")
    res = _run(b, "cheap", method=method, bfs=bfs, execution="stepped", mapping=mapping)
    _check_bucket(b, res, f"{method}/{bfs}/{mapping}", method=method)


@pytest.mark.parametrize("levels", [1, 3, 1000])
@pytest.mark.parametrize("method", METHODS)
def test_levels_per_call(device, method, levels):
    b = bucket("wide")
    res = _run(b, None, method=method, execution="stepped", levels_per_call=levels)
    _check_bucket(b, res, f"{method}/levels={levels}", init=None, method=method)


def test_auto_execution(device):
    """``execution="auto"`` and ``method="auto"`` solve every graph; on the
    CPU auto is the fused kernel, bit for bit, running as APFB for each graph
    whose cheap matching leaves more than n_cols / auto_free_divisor columns
    with edges free and as the hybrid for the others."""
    b = bucket("square")
    auto = _run(b, "cheap")
    _check_bucket(b, auto, "auto")
    if device.platform == "cpu":
        cheap = jax.device_get(jax.vmap(jaxmatch.cheap_matching)(b.batch))
        has_edges = np.diff(np.asarray(b.batch.col_indptr), axis=-1) > 0
        free = np.sum((np.asarray(cheap.row_for_col) == -1) & has_edges, axis=-1)
        as_apfb = free * jaxmatch.matching.MatchingTuning().auto_free_divisor > b.n_cols
        assert as_apfb.any() and not as_apfb.all()  # both rules are compared
        apfb = _run(b, "cheap", method="apfb", execution="fused")
        hybrid = _run(b, "cheap", method="hybrid", execution="fused")
        for x, y, z in zip(auto, apfb, hybrid):
            x, y, z = np.asarray(x), np.asarray(y), np.asarray(z)
            pick = as_apfb.reshape((-1,) + (1,) * (x.ndim - 1))
            np.testing.assert_array_equal(x, np.where(pick, y, z))


def test_auto_counts_only_columns_with_edges():
    """Columns without edges start no path: they are no BFS roots, and the
    auto driver's rule counts only the free columns with edges.  Here 32 of
    400 columns with edges and 400 without are free after the cheap
    matching; with auto_free_divisor 10 the rule picks the hybrid (32 x 10
    <= 800), which would have been APFB had the 400 counted.  CPU: the serial
    solves are deterministic, so auto must equal the hybrid bit for bit."""
    A = make_graph(np.random.default_rng(0), "delaunay", 400, 400)
    G = graph_arrays(sp.hstack([A, sp.csr_matrix((400, 400))]).tocsr())
    tuning = jaxmatch.matching.MatchingTuning(auto_free_divisor=10, hybrid_depth_factor=1)
    with jax.default_device(jax.devices("cpu")[0]):
        cheap = jax.device_get(jaxmatch.cheap_matching(G))
        roots = int(np.sum(cheap.row_for_col[:400] == -1))
        assert roots * tuning.auto_free_divisor <= 800 < (roots + 400) * tuning.auto_free_divisor
        for execution in EXECUTIONS:
            run = functools.partial(
                jaxmatch.max_cardinality_matching, G, execution=execution, tuning=tuning
            )
            auto, apfb, hybrid = (jax.device_get(run(method=m)) for m in ("auto", "apfb", "hybrid"))
            assert (int(apfb.levels), int(apfb.iterations)) != (
                int(hybrid.levels),
                int(hybrid.iterations),
            )  # the two drivers tell apart
            for name, x, y in zip(auto._fields, auto, hybrid):
                np.testing.assert_array_equal(x, y, err_msg=f"{execution}: {name}")
            check_result(G, auto, scipy_cardinality(A), execution)


@pytest.mark.parametrize("init", [None, "cheap"], ids=str)
def test_hub_columns(device, init):
    """Columns of far more edges than the average (hubs, as in power-law
    graphs): 20 columns of 5,000 rows each among 5,980 of 3, more than a
    warp's lanes read in 128 passes.  Without a start every hub is a root;
    with the cheap one the hubs are reached through their rows.  Every BFS
    driver and level kernel, fused and stepped."""
    rng = np.random.default_rng(7)
    n = 6000
    rows = [rng.choice(n, 5000, replace=False) for _ in range(20)]
    rows += [rng.choice(n, 3, replace=False) for _ in range(n - 20)]
    cols = np.repeat(np.arange(n), [len(r) for r in rows])
    A = sp.csr_matrix((np.ones(len(cols)), (np.concatenate(rows), cols)), shape=(n, n))
    G = graph_arrays(A)
    assert np.diff(np.asarray(G.col_indptr)).max() > 128 * 32
    expected = scipy_cardinality(A)
    for method, bfs, execution in itertools.product(
        [m for m in METHODS if m != "pr"], BFS, EXECUTIONS
    ):
        res = jax.device_get(
            jaxmatch.max_cardinality_matching(
                G, method=method, bfs=bfs, init=init, execution=execution
            )
        )
        check_result(G, res, expected, f"{method}/{bfs}/{execution}/{init}")


def test_cpu_fused_and_stepped_agree():
    """On the CPU one serial worker runs the same steps in the same order,
    fused or stepped: identical matchings and counters.  (CPU only: the GPU
    kernels race, so GPU results may differ run to run.)"""
    b = bucket("square")
    with jax.default_device(jax.devices("cpu")[0]):
        for method, bfs in itertools.product(METHODS, BFS):
            fused = _run(b, None, method=method, bfs=bfs, execution="fused")
            stepped = _run(b, None, method=method, bfs=bfs, execution="stepped")
            for name, x, y in zip(fused._fields, fused, stepped):
                np.testing.assert_array_equal(x, y, err_msg=f"{method}/{bfs}: {name}")


def test_padding_vertices_stay_unmatched(device):
    """Graphs embedded at the end of their bucket: the isolated padding
    vertices are unmatched and the leading block certifies on the original,
    unpadded graph."""
    from matching_cases import graph_arrays

    checked = 0
    for b in all_buckets():
        res = _run(b, "cheap")
        for i, (_family, (nr, nc), permuted) in enumerate(b.labels):
            if permuted:
                continue
            one = member(res, i)
            assert np.all(one.col_for_row[nr:] == -1) and np.all(one.row_for_col[nc:] == -1)
            G = graph_arrays(b.mats[i][:nr, :nc])
            cert = jaxmatch.verify_matching(G, (one.col_for_row[:nr], one.row_for_col[:nc]))
            assert cert.maximum and cert.cardinality == b.oracle[i], cert.reason
            checked += 1
    assert checked > 400


def test_brute_force_tiny(device):
    """Every graph on at most 3 + 3 vertices (all 512 masks of 3 x 3),
    against exhaustive search, in one batch."""
    from matching_cases import graph_arrays

    masks = ((np.arange(512)[:, None] >> np.arange(9)) & 1).reshape(512, 3, 3)
    graphs = [graph_arrays(m, 9) for m in masks]
    batch = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *graphs)
    brute = [brute_force_cardinality(m) for m in masks]
    for method, bfs, init in itertools.product(METHODS, BFS, COLD_INITS):
        solve = functools.partial(
            jaxmatch.max_cardinality_matching, method=method, bfs=bfs, init=init
        )
        res = jax.device_get(jax.jit(jax.vmap(solve))(batch))
        for i, G in enumerate(graphs):
            check_result(G, member(res, i), brute[i], f"{method}/{bfs}/{init} mask {i}")


def test_cheap_matching(device):
    """A valid, maximal matching with no phases; on the CPU exactly the
    sequential greedy of the papers."""
    for b in all_buckets():
        res = jax.device_get(jax.jit(jax.vmap(jaxmatch.cheap_matching))(b.batch))
        assert np.all(res.iterations == 0) and np.all(res.levels == 0)
        assert np.all(res.status != MatchingStatus.INVALID_GRAPH)
        for i, G in enumerate(b.graphs):
            one = member(res, i)
            cert = jaxmatch.verify_matching(G, one)
            assert cert.valid, cert.reason
            assert int(one.cardinality) == cert.cardinality <= b.oracle[i]
            assert is_maximal(b.mats[i], one.col_for_row, one.row_for_col), (b.name, i)
            if device.platform == "cpu":
                rm, cm = greedy_matching(b.mats[i])
                np.testing.assert_array_equal(one.col_for_row, rm)
                np.testing.assert_array_equal(one.row_for_col, cm)


def _numbered_meshes():
    """Graphs numbered along their geometry, large enough that their columns
    are local (within 1/64 of the larger side of their own index), so a
    racing cheap matching starts each list at a drawn position and wraps: a
    path, a 4-neighbour and an 8-neighbour grid (degrees 1 to 8, more than
    the 4 rows read at once), row-major; one with an odd number of
    vertices, and a rectangular part of the 8-neighbour grid."""

    def symmetric(src, dst, n):
        return sp.csr_matrix((np.ones(2 * src.size), (np.r_[src, dst], np.r_[dst, src])), (n, n))

    path = np.arange(4999)
    out = [("path 5000", symmetric(path, path + 1, 5000))]
    for a, b in ((120, 120), (97, 131)):
        idx = np.arange(a * b).reshape(a, b)
        four = [(idx[:, :-1], idx[:, 1:]), (idx[:-1, :], idx[1:, :])]
        diagonals = [(idx[:-1, :-1], idx[1:, 1:]), (idx[:-1, 1:], idx[1:, :-1])]
        for name, pairs in (("4-neighbour", four), ("8-neighbour", four + diagonals)):
            src = np.concatenate([u.ravel() for u, _ in pairs])
            dst = np.concatenate([v.ravel() for _, v in pairs])
            out.append((f"{name} {a}x{b}", symmetric(src, dst, a * b)))
    out.append(("8-neighbour 120x120 rows 9000", out[2][1][:9000]))
    return out


def test_cheap_matching_on_numbered_meshes(device):
    """Valid and maximal where the racing cheap matching starts lists at a
    drawn position (on the CPU exactly the sequential greedy); a solve from
    it is maximum."""
    for name, A in _numbered_meshes():
        G = jaxmatch.BipartiteGraph.from_scipy(A)
        cheap = jax.device_get(jax.jit(jaxmatch.cheap_matching)(G))
        cert = jaxmatch.verify_matching(G, cheap)
        assert cert.valid, (name, cert.reason)
        assert is_maximal(A, cheap.col_for_row, cheap.row_for_col), name
        if device.platform == "cpu":
            rm, cm = greedy_matching(A)
            np.testing.assert_array_equal(cheap.col_for_row, rm)
            np.testing.assert_array_equal(cheap.row_for_col, cm)
        res = jax.device_get(jax.jit(jaxmatch.max_cardinality_matching)(G))
        check_result(G, res, scipy_cardinality(A), name)


def test_cheap_matching_status(device):
    """``cheap_matching`` reports ``MatchingStatus.INITIAL`` (never RUNNING,
    which is documented as never returned)."""
    G = jaxmatch.BipartiteGraph.from_edges([0, 1], [0, 1], 2, 2)
    res = jax.device_get(jaxmatch.cheap_matching(G))
    assert int(res.status) == MatchingStatus.INITIAL


@pytest.mark.parametrize("init", COLD_INITS)
def test_phase_limit(device, init):
    """``max_iterations=1``: each result is MAXIMUM (certified) or ITERATION_LIMIT
    after exactly one phase with a valid matching (not always maximal: with
    the plain BFS a phase can free a matched row, e.g. K_{2,2} from an empty
    start gives col_for_row [0, -1])."""
    b = bucket("square")
    limited = 0
    for method, bfs, execution in itertools.product(METHODS, BFS, EXECUTIONS):
        res = _run(b, init, method=method, bfs=bfs, execution=execution, max_iterations=1)
        for i, G in enumerate(b.graphs):
            one = member(res, i)
            label = f"{method}/{bfs}/{execution}/{init} square[{i}] {b.labels[i]}"
            if int(one.status) == MatchingStatus.ITERATION_LIMIT:
                limited += 1
                assert int(one.iterations) == 1, label
                cert = jaxmatch.verify_matching(G, one)
                assert cert.valid, (label, cert.reason)
                assert cert.cardinality <= b.oracle[i]
            else:
                check_result(G, one, int(b.oracle[i]), label)
    assert limited > 0


def test_maximum_warm_start_is_returned_unchanged(device):
    """A warm start that is already maximum has no augmenting path: every
    variant returns it as it is."""
    from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

    b = bucket("tall")
    rms, cms = [], []
    for A in b.mats:
        cm = scipy_mbm(A.tocsr(), perm_type="row").astype(np.int32)
        rm = np.full(b.n_rows, -1, np.int32)
        rm[cm[cm >= 0]] = np.flatnonzero(cm >= 0)
        rms.append(rm)
        cms.append(cm)
    rms, cms = np.stack(rms), np.stack(cms)
    for method, bfs, execution in itertools.product(METHODS, BFS, EXECUTIONS):
        solve = _solver("warm", method=method, bfs=bfs, execution=execution)
        res = jax.device_get(solve(b.batch, rms, cms))
        assert np.all(res.status == MatchingStatus.MAXIMUM) and np.all(res.iterations == 0)
        np.testing.assert_array_equal(res.col_for_row, rms)
        np.testing.assert_array_equal(res.row_for_col, cms)
