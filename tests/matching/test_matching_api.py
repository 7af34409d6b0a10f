"""The matching front doors: odd shapes, transformations, warm starts,
argument errors, malformed graphs, and the scipy drop-in."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jaxpr_walk import ffi_attributes
from matching_cases import (
    AUGMENTING_METHODS,
    BFS,
    COLD_INITS,
    EXECUTIONS,
    METHODS,
    brute_force_cardinality,
    check_result,
    graph_arrays,
    make_bucket,
    make_graph,
    member,
    scipy_cardinality,
)
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

import jaxmatch
from jaxmatch import BipartiteGraph, GraphValidationError, MatchingStatus
from jaxmatch.matching import MatchingTuning

mcm = jaxmatch.max_cardinality_matching


def _host(x):
    return jax.device_get(x)


# ------------------------------------------------------------- odd shapes


def _odd_graphs():
    rng = np.random.default_rng(7)
    return [
        ("0x0", sp.csr_matrix((0, 0))),
        ("0x5", sp.csr_matrix((0, 5))),
        ("5x0", sp.csr_matrix((5, 0))),
        ("1x1 no edge", sp.csr_matrix((1, 1))),
        ("1x1 edge", sp.csr_matrix(np.ones((1, 1)))),
        ("one edge 3x4", sp.csr_matrix(([1.0], ([2], [1])), shape=(3, 4))),
        ("tall 9x2 complete", sp.csr_matrix(np.ones((9, 2)))),
        ("wide 2x9", make_graph(rng, "uniform", 2, 9)),
        ("row 1x7", sp.csr_matrix(np.ones((1, 7)))),
        ("column 7x1", sp.csr_matrix(np.ones((7, 1)))),
        ("tall 40x3 power law", make_graph(rng, "power_law", 40, 3)),
    ]


@pytest.mark.parametrize("name, A", _odd_graphs(), ids=[n for n, _ in _odd_graphs()])
def test_odd_shapes_eager(device, name, A):
    """Unbatched eager calls: both drivers and execution shapes, the level
    kernels and inits (cheap, Karp-Sipser, none, warm) in turn;
    ``cheap_matching`` too."""
    G = BipartiteGraph.from_scipy(A)
    expected = scipy_cardinality(A)
    cheap = _host(jaxmatch.cheap_matching(G))
    assert jaxmatch.verify_matching(G, cheap).valid
    inits = (*COLD_INITS, cheap)
    shift = [n for n, _ in _odd_graphs()].index(name)
    for k, (method, execution) in enumerate(itertools.product(METHODS, EXECUTIONS)):
        bfs, init = BFS[(k + shift) % 2], inits[(k + shift) % len(inits)]
        res = _host(mcm(G, method=method, bfs=bfs, execution=execution, init=init))
        assert res.col_for_row.shape == (A.shape[0],) and res.row_for_col.shape == (A.shape[1],)
        assert res.col_for_row.dtype == np.int32 and res.row_for_col.dtype == np.int32
        label = f"{name} {method}/{bfs}/{execution}/{(k + shift) % len(inits)}"
        check_result(G, res, expected, label)


# ---------------------------------------------------------- transformations


@functools.cache
def _small_bucket():
    return make_bucket("api", 11, 12, 15, 24)


def test_jit_with_graph_argument(device):
    """The graph is a pytree argument: one compilation serves every graph of
    the same sizes and capacity; results equal the eager ones on the CPU."""
    b = _small_bucket()
    cap = int(b.batch.col_indices.shape[-1])
    f = jax.jit(functools.partial(mcm, method="apsb", execution="stepped"))
    for i in range(0, len(b.mats), 5):
        G = graph_arrays(b.mats[i], cap)
        res = _host(f(G))
        check_result(G, res, int(b.oracle[i]), f"jit {i}")
        if device.platform == "cpu":
            eager = _host(mcm(G, method="apsb", execution="stepped"))
            for x, y in zip(res, eager):
                np.testing.assert_array_equal(x, y)
    assert f._cache_size() == 1
    # and as a closed-over constant
    G = b.graphs[1]
    check_result(G, _host(jax.jit(lambda: mcm(G))()), int(b.oracle[1]), "closure")


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_vmap_in_axes(device, execution):
    b = _small_bucket()
    B = len(b.graphs)
    solve = functools.partial(mcm, execution=execution)

    def run(g, rm, cm):
        return solve(g, init=(rm, cm))

    # batched graphs and warm starts
    res = _host(jax.vmap(run)(b.batch, b.warm_rm, b.warm_cm))
    for i in range(B):
        check_result(b.graphs[i], member(res, i), int(b.oracle[i]), f"(0, 0, 0) {i}")
    # one graph, a batch of warm starts (every bucket member's, bad pairs
    # included: mostly not edges of this graph)
    G = graph_arrays(b.mats[3], int(b.batch.col_indices.shape[-1]))
    res = _host(jax.vmap(run, in_axes=(None, 0, 0))(G, b.warm_rm, b.warm_cm))
    for i in range(B):
        check_result(G, member(res, i), int(b.oracle[3]), f"(None, 0, 0) {i}")
    # a batch of graphs, one warm start for all
    res = _host(jax.vmap(run, in_axes=(0, None, None))(b.batch, b.warm_rm[3], b.warm_cm[3]))
    for i in range(B):
        check_result(b.graphs[i], member(res, i), int(b.oracle[i]), f"(0, None, None) {i}")
    # two batch dimensions (nested vmap) and a batched call without vmap
    k = B // 2 * 2
    grid = jax.tree_util.tree_map(lambda x: x[:k].reshape(2, k // 2, *x.shape[1:]), b.batch)
    nested = _host(jax.vmap(jax.vmap(solve))(grid))
    direct = _host(solve(grid))
    for res in (nested, direct):
        assert res.status.shape == (2, k // 2)
        flat = jax.tree_util.tree_map(lambda x: x.reshape(k, *x.shape[2:]), res)
        for i in range(k):
            check_result(b.graphs[i], member(flat, i), int(b.oracle[i]), f"2-D {i}")
    cheap = _host(jaxmatch.cheap_matching(grid))
    assert cheap.col_for_row.shape == (2, k // 2, b.n_rows)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_degenerate_batches(device, execution):
    """A batch of no graphs, and batches of graphs with no rows or columns."""
    solve = functools.partial(mcm, execution=execution)
    G = graph_arrays(sp.csr_matrix(np.eye(3)), 4)
    none = jax.tree_util.tree_map(lambda x: np.zeros((0, *x.shape), x.dtype), G)
    for res in (
        _host(solve(none)),
        _host(jax.vmap(solve)(none)),
        _host(jaxmatch.cheap_matching(none)),
    ):
        assert res.status.shape == (0,) and res.col_for_row.shape == (0, 3)
    for shape in ((0, 0), (0, 4), (4, 0)):
        E = graph_arrays(sp.csr_matrix(shape), 0)
        batch = jax.tree_util.tree_map(lambda x: np.stack([x] * 3), E)
        res = _host(jax.vmap(solve)(batch))
        assert res.col_for_row.shape == (3, shape[0]) and res.row_for_col.shape == (3, shape[1])
        for i in range(3):
            check_result(E, member(res, i), 0, f"{shape} member {i}")


def test_vmapped_cheap_matching_equals_unbatched(device):
    b = _small_bucket()
    batched = _host(jax.vmap(jaxmatch.cheap_matching)(b.batch))
    for i in range(0, len(b.graphs), 6):
        one = _host(jaxmatch.cheap_matching(b.graphs[i]))
        if device.platform == "cpu":
            np.testing.assert_array_equal(member(batched, i).col_for_row, one.col_for_row)
        assert jaxmatch.verify_matching(b.graphs[i], one).valid


# ------------------------------------------------------------ warm starts

# A path r0 - c0 - r1 - c1 - r2 - c2 plus r3 - c3: maximum 4.
_PATH = BipartiteGraph.from_edges([0, 1, 1, 2, 2, 3], [0, 0, 1, 1, 2, 3], 4, 4)


@pytest.mark.parametrize(
    "name, rm, cm",
    [
        ("non-edge pair", [2, -1, -1, -1], [-1, -1, 0, -1]),  # (0, 2) is no edge
        ("row names a column that names another row", [0, 0, -1, -1], [1, -1, -1, -1]),
        ("column names a row that does not name it", [-1, -1, -1, -1], [-1, 2, -1, 3]),
        ("duplicate column", [1, 1, -1, -1], [-1, 1, -1, -1]),
        ("out of range", [4, -7, 2**31 - 1, -(2**31)], [9, -2, 2**31 - 1, 4]),
        ("everything at once", [2, 0, 7, 3], [1, -1, 0, 3]),
    ],
)
@pytest.mark.parametrize("execution", EXECUTIONS)
def test_warm_start_bad_pairs_are_dropped(device, execution, name, rm, cm):
    for method, bfs in itertools.product(METHODS, BFS):
        res = _host(
            mcm(
                _PATH,
                init=(np.array(rm), np.array(cm)),
                method=method,
                bfs=bfs,
                execution=execution,
            )
        )
        check_result(_PATH, res, 4, f"{name} {method}/{bfs}")


def test_warm_start_forms(device):
    """MatchingResult, tuple, list, int64 arrays; a warm start broadcast over
    a batch of graphs; a maximum warm start needs no phase."""
    b = _small_bucket()
    G, expected = b.graphs[2], int(b.oracle[2])
    cheap = jaxmatch.cheap_matching(G)
    full = _host(mcm(G))
    for init in (
        cheap,
        (cheap.col_for_row, cheap.row_for_col),
        [np.asarray(cheap.col_for_row, np.int64), np.asarray(cheap.row_for_col, np.int64)],
        full,
    ):
        check_result(G, _host(mcm(G, init=init)), expected, type(init).__name__)
    again = _host(mcm(G, init=full))
    np.testing.assert_array_equal(again.col_for_row, full.col_for_row)
    assert int(again.iterations) == 0
    # unbatched warm start, batched graphs (no vmap): broadcast
    res = _host(mcm(b.batch, init=(b.warm_rm[0], b.warm_cm[0])))
    for i in range(len(b.graphs)):
        check_result(b.graphs[i], member(res, i), int(b.oracle[i]), f"broadcast {i}")


# ------------------------------------------------------------- drivers


def _two_paths(k, pad=0):
    """A free column c0 next to a free row (an augmenting path found at BFS
    depth 1), and a free column c1 whose only augmenting path runs through a
    chain of k matched pairs (found at depth k + 1); with the warm start,
    which also matches ``pad`` extra pairs (a row and a column that see only
    each other)."""
    # columns: c0 = 0, c1 = 1, x_1..x_k = 2..k+1; rows: r0 = 0, y_1..y_k =
    # 1..k, the free row k + 1.  x_i is matched to y_i and also sees y_{i+1}.
    rows, cols = [0, 1], [0, 1]
    for i in range(1, k + 1):
        rows += [i, i + 1]
        cols += [i + 1, i + 1]
    n = k + 2 + pad
    extra = np.arange(k + 2, n)
    rows, cols = np.r_[rows, extra], np.r_[cols, extra]
    G = BipartiteGraph.from_edges(rows, cols, n, n)
    rm, cm = np.full(n, -1), np.full(n, -1)
    rm[1 : k + 1] = np.arange(2, k + 2)
    cm[2 : k + 2] = np.arange(1, k + 1)
    rm[extra], cm[extra] = extra, extra
    return G, (rm, cm)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_where_each_driver_stops_the_bfs(device, execution):
    """APFB takes both paths in one phase of k + 1 levels; APsB stops at depth
    1 (c0's path), the hybrid at depth ``hybrid_depth_factor``, and a second
    phase takes c1's path. Each solve ends with a phase of one level that
    finds no free column. The level counts pin the rule (and the C++
    constant that Python mirrors)."""
    depth = MatchingTuning().hybrid_depth_factor
    divisor = MatchingTuning().auto_free_divisor
    k = 3 * depth
    G, warm = _two_paths(k)
    expected_levels = {
        "apfb": (k + 1) + 1,
        "apsb": 1 + (k + 1) + 1,
        "hybrid": depth + (k + 1) + 1,
    }
    expected_phases = {"apfb": 1, "apsb": 2, "hybrid": 2}
    for method in AUGMENTING_METHODS:
        res = _host(mcm(G, method=method, init=warm, execution=execution))
        check_result(G, res, k + 2, method)
        assert (int(res.levels), int(res.iterations)) == (
            expected_levels[method],
            expected_phases[method],
        ), method
    # auto: 2 of k + 2 columns start free, more than one in auto_free_divisor:
    # APFB; with enough matched pairs added, the hybrid
    auto = _host(mcm(G, init=warm, execution=execution))
    assert (int(auto.levels), int(auto.iterations)) == (
        expected_levels["apfb"],
        expected_phases["apfb"],
    )
    pad = 2 * divisor - (k + 2)
    G, warm = _two_paths(k, pad)
    auto = _host(mcm(G, init=warm, execution=execution))
    check_result(G, auto, k + 2 + pad, "auto, padded")
    assert (int(auto.levels), int(auto.iterations)) == (
        expected_levels["hybrid"],
        expected_phases["hybrid"],
    )
    # the boundary: 2 free of 2 * auto_free_divisor columns is the hybrid
    # (above), 2 free of one column fewer is APFB
    G, warm = _two_paths(k, pad - 1)
    auto = _host(mcm(G, init=warm, execution=execution))
    check_result(G, auto, k + 1 + pad, "auto, padded less one")
    assert (int(auto.levels), int(auto.iterations)) == (
        expected_levels["apfb"],
        expected_phases["apfb"],
    )


# ------------------------------------------------------- argument errors


def test_argument_errors():
    G = _PATH
    with pytest.raises(TypeError, match=r"expected a jaxmatch\.BipartiteGraph"):
        mcm(sp.csr_matrix(np.eye(2)))
    with pytest.raises(TypeError, match=r"expected a jaxmatch\.BipartiteGraph"):
        jaxmatch.cheap_matching(np.eye(2))
    wide = BipartiteGraph(
        indptr=G.indptr,
        indices=G.indices,
        data=None,
        shape=(4, 4),
        col_indptr=np.asarray(G.col_indptr, np.int64),
        col_indices=G.col_indices,
    )
    with pytest.raises(TypeError, match="col_indptr must be int32"):
        mcm(wide)
    short = BipartiteGraph(
        indptr=G.indptr,
        indices=G.indices,
        data=None,
        shape=(4, 4),
        col_indptr=G.col_indptr[:-1],
        col_indices=G.col_indices,
    )
    with pytest.raises(ValueError, match="n_cols \\+ 1 = 5"):
        mcm(short)
    for kw, message in (
        (dict(method="hk"), "method must be one of"),
        (dict(bfs="dfs"), "bfs must be one of"),
        (dict(mapping="warp"), "mapping must be one of"),
        (dict(execution="eager"), "execution must be one of"),
        (
            dict(init="sequential"),
            "init must be 'cheap', 'greedy', 'karp-sipser', None or (col_for_row, row_for_col)",
        ),
        (dict(levels_per_call=0), "levels_per_call must be >= 1"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)):
            mcm(G, **kw)
    with pytest.raises(TypeError, match="init must be"):
        mcm(G, init=3)
    with pytest.raises(TypeError, match="must be integer"):
        mcm(G, init=(np.zeros(4), np.zeros(4)))
    with pytest.raises(ValueError, match="col_for_row must have shape"):
        mcm(G, init=(np.zeros(3, np.int32), np.zeros(4, np.int32)))
    with pytest.raises(ValueError, match="row_for_col must have shape"):
        mcm(G, init=(np.zeros(4, np.int32), np.zeros(5, np.int32)))


def test_tuning_takes_effect():
    """``tuning=`` sets the kernels' attributes (read when a call is
    traced); the defaults are MatchingTuning()'s; it is static under jit."""

    def attributes(G, **kw):
        return ffi_attributes(jax.make_jaxpr(lambda G: mcm(G, **kw))(G))

    (attrs,) = attributes(_PATH, execution="fused")
    assert (int(attrs["hybrid_depth"]), int(attrs["auto_free_divisor"])) == (4, 50)
    tuned = MatchingTuning(hybrid_depth_factor=2, auto_free_divisor=7)
    (attrs,) = attributes(_PATH, execution="fused", tuning=tuned)
    assert (int(attrs["hybrid_depth"]), int(attrs["auto_free_divisor"])) == (2, 7)
    res = _host(mcm(_PATH, method="hybrid", tuning=tuned))
    assert jaxmatch.verify_matching(_PATH, res).maximum
    # the stepped call's restart threshold: from the cheap start only
    steps = attributes(_PATH, execution="stepped")
    assert [int(a["restart_levels"]) for a in steps if "restart_levels" in a] == [4096]
    restart = MatchingTuning(greedy_restart_levels=9)
    for init, expected in (("cheap", 9), ("greedy", 0), (None, 0)):
        steps = attributes(_PATH, execution="stepped", init=init, tuning=restart)
        assert [int(a["restart_levels"]) for a in steps if "restart_levels" in a] == [expected]
    steps = attributes(_PATH, execution="stepped", method="pr", tuning=restart)
    assert [int(a["restart_levels"]) for a in steps if "restart_levels" in a] == [0]
    # levels per call: the driver's default, clamped to max_levels_per_call
    for method, tuning, expected in (
        ("apfb", None, 16),
        ("apsb", None, 8),
        ("apfb", MatchingTuning(levels_per_call=5), 5),
        ("apsb", MatchingTuning(apsb_levels_per_call=3), 3),
        ("apfb", MatchingTuning(levels_per_call=50, max_levels_per_call=20), 20),
    ):
        steps = attributes(_PATH, execution="stepped", method=method, tuning=tuning)
        assert [int(a["levels"]) for a in steps if "levels" in a] == [expected], method
    # static under jit, and hashable
    f = jax.jit(mcm, static_argnames=("tuning",))
    assert int(f(_PATH, tuning=tuned).cardinality) == 4
    assert hash(tuned) == hash(MatchingTuning(hybrid_depth_factor=2, auto_free_divisor=7))


def test_tuning_errors():
    with pytest.raises(TypeError, match="tuning must be a MatchingTuning or None"):
        mcm(_PATH, tuning={"hybrid_depth_factor": 2})
    with pytest.raises(ValueError, match=r"hybrid_depth_factor must be in \[1, 2\*\*31\)"):
        MatchingTuning(hybrid_depth_factor=0)
    with pytest.raises(TypeError, match="levels_per_call must be an int"):
        MatchingTuning(levels_per_call=2.5)
    with pytest.raises(TypeError, match="positional"):
        mcm(_PATH, "apfb")


def test_static_options_name_the_recipe():
    """The options choose kernels and loop bounds at trace time: a traced
    value raises a TypeError naming the option and static_argnames; the
    recipe works."""
    G = _PATH
    for name in ("method", "bfs", "mapping", "execution", "levels_per_call", "max_iterations"):
        f = jax.jit(lambda G, opt, name=name: mcm(G, **{name: opt}))
        with pytest.raises(TypeError, match=f"{name} must be .*static_argnames"):
            f(G, 1)
    with pytest.raises(TypeError, match="init must be"):
        jax.jit(lambda G, init: mcm(G, init=init))(G, 1)
    with pytest.raises(TypeError, match="levels_per_call must be an int"):
        mcm(G, levels_per_call=2.5)
    names = ("method", "bfs", "init", "mapping", "execution", "levels_per_call", "max_iterations")
    f = jax.jit(mcm, static_argnames=names)
    opts = dict(method="apsb", bfs="plain", init=None, mapping="mt", levels_per_call=3)
    res = _host(f(G, execution="stepped", max_iterations=10, **opts))
    assert jaxmatch.verify_matching(G, res).maximum
    # A traced warm start is fine.
    warm = jax.jit(lambda G, rm, cm: mcm(G, init=(rm, cm)))(G, res.col_for_row, res.row_for_col)
    np.testing.assert_array_equal(_host(warm).col_for_row, res.col_for_row)


@pytest.mark.parametrize(
    "attrs, message",
    [
        (dict(driver=5), "unknown matching driver 5"),  # 4 is push-relabel
        (dict(driver=-1), "unknown matching driver -1"),
        (dict(init=5), "unknown matching init 5"),  # 4 is the ordered greedy
        (dict(bfs=2), "unknown BFS kernel 2"),
        (dict(max_phases=0), "max_phases must be >= 1"),
        (dict(hybrid_depth=0), "hybrid_depth must be >= 1"),
        (dict(auto_free_divisor=0), "auto_free_divisor must be >= 1"),
        (dict(keep_trees_divisor=-1), "keep_trees_divisor must be >= 0"),
    ],
)
def test_kernel_option_errors(device, attrs, message):
    """The handlers reject option codes that the Python wrapper never sends
    (it validates names first) with their own message."""
    from jaxmatch.matching import _ffi as matching_ffi
    from jaxmatch.matching.api import _operands

    G = _PATH
    rm0 = jnp.full(G.n_rows, -1, jnp.int32)
    cm0 = jnp.full(G.n_cols, -1, jnp.int32)
    opts = dict(init=1, driver=3, bfs=1, max_phases=10, hybrid_depth=4, auto_free_divisor=50)
    opts |= dict(keep_trees_divisor=0) | attrs
    with pytest.raises(Exception, match=re.escape(message)):
        jax.block_until_ready(matching_ffi.matching_solve(_operands(G), rm0, cm0, **opts))


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_max_iterations_is_clamped(device, execution):
    """``max_iterations=0`` runs as 1: from an empty start every column of _PATH
    is free and every row too, so the first BFS level finds a free row for
    each root, inserts nothing and ends the phase; its restart counts phase
    1 >= max_iterations and stops with ITERATION_LIMIT (MAXIMUM needs a phase that
    finds no path) after one phase of one level.  With root tracking the
    serial CPU worker flips all four paths (row i takes column i); on the GPU
    the racing BFS may keep fewer, but the r3 - c3 component and one path of
    the other component are always taken.  A huge bound is clamped to int32
    and solves to MAXIMUM."""
    res = _host(mcm(_PATH, init=None, max_iterations=0, execution=execution))
    assert int(res.status) == MatchingStatus.ITERATION_LIMIT
    assert (int(res.iterations), int(res.levels)) == (1, 1)
    cert = jaxmatch.verify_matching(_PATH, res)
    assert cert.valid, cert.reason
    assert int(res.cardinality) == cert.cardinality
    if device.platform == "cpu":
        assert cert.cardinality == 4 and cert.maximum
        np.testing.assert_array_equal(res.col_for_row, [0, 1, 2, 3])
    else:
        assert 2 <= cert.cardinality <= 4
    check_result(
        _PATH,
        _host(mcm(_PATH, max_iterations=10**12, execution=execution)),
        4,
        "huge max_iterations",
    )


# ------------------------------------------------- malformed column CSR


def _raw(col_indptr, col_indices, n_rows=3, n_cols=3):
    """An unvalidated graph; its row CSR (which the kernels do not read) is
    an empty one of the same capacity."""
    col_indices = np.array(col_indices, np.int32)
    return BipartiteGraph(
        indptr=jnp.zeros(n_rows + 1, jnp.int32),
        indices=jnp.zeros(col_indices.size, jnp.int32),
        data=None,
        shape=(n_rows, n_cols),
        col_indptr=jnp.asarray(np.array(col_indptr, np.int32)),
        col_indices=jnp.asarray(col_indices),
    )


BAD_GRAPHS = [
    ("row past n_rows", [0, 2, 3, 4], [0, 1, 3, 2], "index 3 out of range [0, 3)"),
    ("negative row", [0, 2, 3, 4], [0, -1, 1, 2], "index -1 out of range [0, 3)"),
    ("int32 min row", [0, 1, 2, 3], [0, -(2**31), 1], "index -2147483648 out of range [0, 3)"),
    (
        "decreasing pointers",
        [0, 2, 1, 4],
        [0, 1, 1, 2],
        "index pointer must be non-decreasing (decreases at 1: 2 -> 1)",
    ),
    (
        "pointer past capacity",
        [0, 2, 3, 9],
        [0, 1, 1, 2],
        "index pointer ends at 9 but there are only 4 indices",
    ),
    (
        "last pointer int32 max",
        [0, 2, 3, 2**31 - 1],
        [0, 1, 1, 2],
        "index pointer ends at 2147483647 but there are only 4 indices",
    ),
    ("zero capacity", [0, 0, 1, 1], [], "index pointer ends at 1 but there are only 0 indices"),
    (
        "negative first pointer",
        [-1, 2, 3, 4],
        [0, 1, 1, 2],
        "index pointer must start at 0, got -1",
    ),
    (
        "first pointer past capacity",
        [7, 7, 7, 7],
        [0, 1, 1, 2],
        "index pointer must start at 0, got 7",
    ),
]


@functools.cache
def _jit_solver(execution, batched):
    f = functools.partial(mcm, execution=execution)
    return jax.jit(jax.vmap(f) if batched else f)


def _check_invalid(res, n_rows=3, n_cols=3):
    res = _host(res)
    assert np.all(res.status == MatchingStatus.INVALID_GRAPH), res.status
    assert np.all(res.col_for_row == -1) and np.all(res.row_for_col == -1)
    assert np.all(res.cardinality == 0)
    assert res.col_for_row.shape[-1] == n_rows and res.row_for_col.shape[-1] == n_cols


@pytest.mark.parametrize(
    "name, col_indptr, col_indices, message", BAD_GRAPHS, ids=[c[0] for c in BAD_GRAPHS]
)
def test_malformed_column_csr(device, name, col_indptr, col_indices, message):
    """``validate`` names the problem; the kernels report INVALID_GRAPH with
    every match -1, eagerly, under jit and per member of a vmap batch, for
    every execution shape and init; nothing crashes."""
    G = _raw(col_indptr, col_indices)
    with pytest.raises(GraphValidationError, match=re.escape("column CSR: " + message)):
        G.validate()
    warm = (np.array([0, 1, 2]), np.array([0, 1, 2]))
    for k, (execution, init) in enumerate(itertools.product(EXECUTIONS, (*COLD_INITS, warm))):
        _check_invalid(
            mcm(
                G,
                execution=execution,
                init=init,
                method=METHODS[k % len(METHODS)],
                bfs=BFS[k // len(METHODS) % 2],
            )
        )
    _check_invalid(jaxmatch.cheap_matching(G))
    for execution in EXECUTIONS:
        _check_invalid(_jit_solver(execution, False)(G))
    # a batch: valid graphs around the bad one, all of the bad one's capacity
    cap = len(col_indices)
    good = BipartiteGraph.from_edges(np.arange(min(cap, 3)), np.arange(min(cap, 3)), 3, 3)
    good = good.pad_to(cap)
    batch = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), good, G, good)
    for execution in EXECUTIONS:
        res = _host(_jit_solver(execution, True)(batch))
        _check_invalid(member(res, 1))
        for i in (0, 2):
            check_result(good, member(res, i), min(cap, 3), f"{name} {execution} member {i}")


def test_first_pointer_must_be_zero(device):
    """``col_indptr[0] != 0`` is malformed (``validate_csr``: "must start at 0"),
    and the kernels report it like the other malformed CSRs: a positive
    in-range start gives INVALID_GRAPH, not a solve that skips the first
    entries."""
    G = _raw([1, 2, 3, 4], [0, 1, 1, 2])
    with pytest.raises(GraphValidationError, match="must start at 0, got 1"):
        G.validate()
    for execution in EXECUTIONS:
        _check_invalid(mcm(G, execution=execution))
    _check_invalid(jaxmatch.cheap_matching(G))


def test_bad_entry_deep_in_a_long_list(device):
    """Every stored entry is checked, the last of a column of 2000 rows too
    (the kernels check entries, not whole lists, per worker)."""
    n = 2000
    G = BipartiteGraph.from_edges(np.arange(n), np.zeros(n, np.int64), n, 2)
    bad = BipartiteGraph(
        indptr=G.indptr,
        indices=G.indices,
        data=None,
        shape=(n, 2),
        col_indptr=G.col_indptr,
        col_indices=G.col_indices.at[n - 1].set(n),
    )
    for execution, init in itertools.product(EXECUTIONS, COLD_INITS):
        _check_invalid(mcm(bad, execution=execution, init=init), n, 2)
    bad_rows = BipartiteGraph(
        indptr=G.indptr,
        indices=G.indices.at[n - 1].set(2),
        data=None,
        shape=(n, 2),
        col_indptr=G.col_indptr,
        col_indices=G.col_indices,
    )
    _check_invalid(jaxmatch.karp_sipser_matching(bad_rows), n, 2)


def test_garbage_past_the_last_pointer_is_ignored(device):
    """Entries of ``col_indices`` past ``col_indptr[-1]`` are padding, whatever they hold."""
    G = _PATH.pad_to(12)
    junk = jnp.asarray(np.array([-1, 99, 2**31 - 1, -(2**31), 4, 5], np.int32))
    G = BipartiteGraph(
        indptr=G.indptr,
        indices=G.indices,
        data=None,
        shape=(4, 4),
        col_indptr=G.col_indptr,
        col_indices=G.col_indices.at[6:].set(junk),
    )
    for execution, init in itertools.product(EXECUTIONS, COLD_INITS):
        check_result(_PATH, _host(mcm(G, execution=execution, init=init)), 4, execution)


def test_unsorted_duplicate_adjacency(device):
    """An unvalidated but well-formed CSR with unsorted, repeated rows per
    column still gives a maximum matching."""
    # column 0: rows 2, 0, 2; column 1: rows 1, 1; column 2: row 0; column 3: none
    ref = BipartiteGraph.from_edges([2, 0, 1, 0], [0, 0, 1, 2], 3, 4)
    G = dataclasses.replace(
        ref,
        col_indptr=jnp.array([0, 3, 5, 6, 6], jnp.int32),
        col_indices=jnp.array([2, 0, 2, 1, 1, 0], jnp.int32),
    )
    for method, bfs, execution in itertools.product(METHODS, BFS, EXECUTIONS):
        check_result(
            ref,
            _host(mcm(G, method=method, bfs=bfs, execution=execution)),
            3,
            f"{method}/{bfs}/{execution}",
        )


# ------------------------------------------------------ scipy drop-in

_FORMATS = [sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array, sp.coo_array]


def _check_drop_in(A, ours, theirs, perm_type):
    assert ours.dtype == np.int32 and ours.shape == theirs.shape
    assert np.count_nonzero(ours >= 0) == np.count_nonzero(theirs >= 0)
    assert np.all(ours >= -1)
    n_rows, n_cols = A.shape
    if perm_type == "row":  # the row of each column
        cm = ours
        rm = np.full(n_rows, -1)
        rm[cm[cm >= 0]] = np.flatnonzero(cm >= 0)
    else:  # the column of each row
        rm = ours
        cm = np.full(n_cols, -1)
        cm[rm[rm >= 0]] = np.flatnonzero(rm >= 0)
    cert = jaxmatch.verify_matching(BipartiteGraph.from_scipy(A), (rm, cm))
    assert cert.maximum, cert.reason


def test_drop_in_matches_scipy(device):
    rng = np.random.default_rng(11)
    for trial in range(10):
        n_rows, n_cols = (int(x) for x in rng.integers(1, 40, size=2))
        A = make_graph(
            rng, ("uniform", "power_law", "hall_violator", "perfect")[trial % 4], n_rows, n_cols
        )
        for fmt, perm_type in itertools.product(_FORMATS, ("row", "column")):
            M = fmt(A)
            ours = jaxmatch.maximum_bipartite_matching(M, perm_type=perm_type)
            _check_drop_in(A, ours, scipy_mbm(M, perm_type=perm_type), perm_type)


def test_drop_in_edge_cases(device):
    # explicit zeros are edges, as in scipy; duplicates in COO are one edge
    Z = sp.csr_matrix((np.zeros(3), ([0, 1, 2], [2, 0, 1])), shape=(3, 3))
    D = sp.coo_matrix((np.ones(5), ([0, 0, 1, 1, 1], [1, 1, 0, 0, 2])), shape=(2, 3))
    for M in (Z, D):
        for perm_type in ("row", "column"):
            _check_drop_in(
                M,
                jaxmatch.maximum_bipartite_matching(M, perm_type=perm_type),
                scipy_mbm(M, perm_type=perm_type),
                perm_type,
            )
    for shape in ((0, 0), (0, 3), (3, 0)):
        for perm_type in ("row", "column"):
            ours = jaxmatch.maximum_bipartite_matching(sp.csr_matrix(shape), perm_type=perm_type)
            theirs = scipy_mbm(sp.csr_matrix(shape), perm_type=perm_type)
            np.testing.assert_array_equal(ours, theirs)
            assert ours.dtype == theirs.dtype


@pytest.mark.parametrize(
    "graph",
    [
        np.eye(3),
        [[1, 0], [0, 1]],
        sp.lil_matrix(np.eye(3)),
        sp.dia_matrix(np.eye(3)),
        sp.dok_matrix(np.eye(3)),
        sp.bsr_matrix(np.eye(3)),
        sp.lil_array(np.eye(3)),
        sp.dia_array(np.eye(3)),
    ],
    ids=["ndarray", "list", "lil", "dia", "dok", "bsr", "lil_array", "dia_array"],
)
def test_drop_in_type_errors_match_scipy(graph):
    with pytest.raises(TypeError) as theirs:
        scipy_mbm(graph)
    with pytest.raises(TypeError) as ours:
        jaxmatch.maximum_bipartite_matching(graph)
    assert str(ours.value) == str(theirs.value)


def test_drop_in_malformed_csr():
    A = sp.csr_matrix(np.eye(3))
    A.indices[1] = 7  # corrupt after construction
    with pytest.raises(GraphValidationError, match="scipy CSR: index 7 out of range"):
        jaxmatch.maximum_bipartite_matching(A)
    A = sp.csr_matrix(np.eye(3))
    A.indptr[1] = 3  # decreasing
    with pytest.raises(GraphValidationError, match="non-decreasing"):
        jaxmatch.maximum_bipartite_matching(A)
    for fmt in ("csr", "csc"):
        A = sp.csr_matrix(np.eye(3)).asformat(fmt)
        A.indptr[3] = 9  # past the end of the indices
        with pytest.raises(GraphValidationError, match="only 3 indices"):
            jaxmatch.maximum_bipartite_matching(A)
        A = sp.csr_matrix(np.eye(3)).asformat(fmt)
        A.indices[0] = -1
        with pytest.raises(GraphValidationError, match="index -1 out of range"):
            jaxmatch.maximum_bipartite_matching(A)


def test_drop_in_wide_index_arrays_are_checked_before_narrowing():
    """int64 pointers and indices whose values would wrap into valid-looking
    int32 ones are refused, not solved."""
    A = sp.csr_matrix(np.eye(3))
    A.indptr = A.indptr.astype(np.int64)
    A.indices = A.indices.astype(np.int64)
    np.testing.assert_array_equal(
        jaxmatch.maximum_bipartite_matching(A), scipy_mbm(sp.csr_matrix(np.eye(3)))
    )
    A.indices[1] = 2**32 + 1  # int32(2**32 + 1) == 1
    with pytest.raises(GraphValidationError, match="out of range"):
        jaxmatch.maximum_bipartite_matching(A)


# ------------------------------------------------------- property test


@functools.cache
def _jitted(method, bfs, execution, init):
    return jax.jit(functools.partial(mcm, method=method, bfs=bfs, execution=execution, init=init))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    n_rows=st.integers(0, 6),
    n_cols=st.integers(0, 6),
    density=st.sampled_from([0.1, 0.3, 0.5, 0.9]),
    seed=st.integers(0, 2**31 - 1),
    method=st.sampled_from(METHODS),
    bfs=st.sampled_from(BFS),
    execution=st.sampled_from(EXECUTIONS),
    init=st.sampled_from(COLD_INITS),
)
def test_property_tiny_graphs(device, n_rows, n_cols, density, seed, method, bfs, execution, init):
    """Random graphs up to 6 x 6 (in a fixed 6 x 6 frame, 36-edge capacity,
    so one compilation per option set) against brute force."""
    rng = np.random.default_rng(seed)
    mask = np.zeros((6, 6))
    mask[:n_rows, :n_cols] = rng.random((n_rows, n_cols)) < density
    perm_r, perm_c = rng.permutation(6), rng.permutation(6)
    mask = mask[perm_r][:, perm_c]
    G = graph_arrays(sp.csr_matrix(mask), 36)
    res = _host(_jitted(method, bfs, execution, init)(G))
    check_result(G, res, brute_force_cardinality(mask), f"{method}/{bfs}/{execution}/{init}")
