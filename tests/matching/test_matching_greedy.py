"""The ordered greedy initial matching (``init="greedy"``,
:func:`jaxmatch.greedy_matching`): the sequential greedy matching, which the
GPU computes in parallel rounds (``cuda_ffi/matching/ordered_greedy.h``).

The solver sweeps of the other files run it as one of ``COLD_INITS`` with
every driver, level kernel and execution shape; here the initial matching
alone: equal to the sequential reference on every graph of the suite and on
spatially numbered graphs (long chains of dependent choices), valid and
maximal past the round limit (``test_matching_row_csr_inits.py`` has the
row CSR's faults).
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest
from matching_cases import (
    EXECUTIONS,
    check_result,
    graph_arrays,
    greedy_matching,
    is_maximal,
    make_graph,
    member,
    scipy_cardinality,
)
from test_matching_oracle import all_buckets

import jaxmatch
from jaxmatch import BipartiteGraph, MatchingStatus
from jaxmatch.matching import MatchingTuning

_greedy = jax.jit(jax.vmap(jaxmatch.greedy_matching))
# The GPU's rounds stop after this many when they decide fewer than 4
# columns a round (ordered_greedy.h, kMcmOgMinRounds, kMcmOgMinRate).
MIN_ROUNDS = 4096
#: The stepped solver's restart from the ordered greedy, due after the first
#: BFS level.
RESTART_AFTER_ONE_LEVEL = MatchingTuning(greedy_restart_levels=1)


def _assert_greedy(G, A, one, label, *, exact=True):
    """Valid and maximal; with ``exact``, the sequential greedy itself."""
    assert int(one.status) == MatchingStatus.INITIAL, label
    assert int(one.iterations) == 0 and int(one.levels) == 0, label
    cert = jaxmatch.verify_matching(G, one)
    assert cert.valid, (label, cert.reason)
    assert is_maximal(A, one.col_for_row, one.row_for_col), label
    if exact:
        rm, cm = greedy_matching(A)
        np.testing.assert_array_equal(one.row_for_col, cm, err_msg=label)
        np.testing.assert_array_equal(one.col_for_row, rm, err_msg=label)


def test_greedy_matching_on_the_suite(device):
    """Every graph of the four buckets, as one vmapped call per bucket: the
    sequential greedy matching on every back end."""
    for b in all_buckets():
        res = jax.device_get(_greedy(b.batch))
        for i, G in enumerate(b.graphs):
            _assert_greedy(G, b.mats[i], member(res, i), f"{b.name}[{i}] {b.labels[i]}")


def _spatial_delaunay(rng, n):
    """A Delaunay mesh numbered strip by strip (as meshes and spatially
    ordered points are): each column's choice waits for its neighbours'."""
    from scipy.spatial import Delaunay

    P = rng.random((n, 2))
    strips = np.floor(P[:, 0] * np.sqrt(n / 4))
    P = P[np.lexsort((P[:, 1], strips))]
    s = Delaunay(P).simplices
    src = np.r_[s[:, 0], s[:, 1], s[:, 2]]
    dst = np.r_[s[:, 1], s[:, 2], s[:, 0]]
    return BipartiteGraph.from_edges(np.r_[src, dst], np.r_[dst, src], n, n)


@functools.cache
def _ordered_graphs():
    rng = np.random.default_rng(17)
    out = []
    for n in (500, 6000):
        G = _spatial_delaunay(rng, n)
        out.append((f"delaunay {n}", G, _scipy_of(G)))
    for n in (400, 9000):  # grid graphs in row-major order, some thinned
        A = make_graph(rng, "grid", n, n)
        out.append((f"grid {n}", BipartiteGraph.from_scipy(A), A))
    A = make_graph(rng, "chain", 3000, 3000)  # 3000 dependent choices in a row
    out.append(("chain 3000", BipartiteGraph.from_scipy(A), A))
    return out


def _scipy_of(G):
    import scipy.sparse as sp

    cx, ca = np.asarray(G.col_indptr), np.asarray(G.col_indices)
    nnz = int(cx[-1])
    return sp.csc_matrix((np.ones(nnz), ca[:nnz], cx), shape=(G.n_rows, G.n_cols)).tocsr()


@pytest.mark.parametrize("k", range(5))
def test_greedy_matching_on_spatially_numbered_graphs(device, k):
    """Meshes and grids in their geometric numbering, and a path: long
    chains of dependent choices (many rounds on the GPU), same result."""
    label, G, A = _ordered_graphs()[k]
    _assert_greedy(G, A, jax.device_get(jaxmatch.greedy_matching(G)), label)


@functools.cache
def _wide_graphs():
    """More columns than one GPU round looks at (8 per thread: 8,192 columns
    for a block, 131,072 for a cluster of 16 blocks), so the rounds move
    their window along the graph many times."""
    import scipy.sparse as sp

    k = 400  # the k x k grid in row-major order: 160,000 vertices
    path = sp.diags([np.ones(k - 1), np.ones(k - 1)], [-1, 1])
    A = sp.csr_matrix(sp.kron(path, sp.identity(k)) + sp.kron(sp.identity(k), path))
    G = _spatial_delaunay(np.random.default_rng(23), 200_000)
    return [
        ("grid 400 x 400", BipartiteGraph.from_scipy(A), A),
        ("delaunay 200000", G, _scipy_of(G)),
    ]


@pytest.mark.parametrize("k", range(2))
def test_greedy_matching_wider_than_a_round(device, k):
    """The sequential greedy on graphs wider than a round's window; the
    stepped solver's restart from it (due after the first level, in the
    middle of the first phase) ends maximum and certified."""
    label, G, A = _wide_graphs()[k]
    _assert_greedy(G, A, jax.device_get(jaxmatch.greedy_matching(G)), label)
    res = jaxmatch.max_cardinality_matching(G, execution="stepped", tuning=RESTART_AFTER_ONE_LEVEL)
    check_result(G, jax.device_get(res), scipy_cardinality(A), label)


def test_past_the_round_limit(device):
    """A path of 20,000 columns is a chain of 20,000 dependent choices, one
    a round: the GPU stops its rounds after 4,096 (too slow a progress) and
    the columns left take their first free row.
    Valid and maximal everywhere; the sequential greedy on the CPU, which
    runs no rounds."""
    n = 20000
    assert n > 4 * MIN_ROUNDS
    A = make_graph(np.random.default_rng(0), "chain", n, n)
    G = BipartiteGraph.from_scipy(A)
    one = jax.device_get(jaxmatch.greedy_matching(G))
    _assert_greedy(G, A, one, "chain", exact=device.platform == "cpu")
    res = jax.device_get(jaxmatch.max_cardinality_matching(G, init="greedy"))
    check_result(G, res, n, "solve from greedy")


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_solver_from_greedy_equals_warm_start_from_it(device, execution):
    """``init="greedy"`` starts the solve from greedy_matching's result: on
    the CPU the solve equals a warm start from it, bit for bit; everywhere
    the result is certified."""
    G = _spatial_delaunay(np.random.default_rng(5), 600)
    mcm = functools.partial(jaxmatch.max_cardinality_matching, execution=execution)
    res = jax.device_get(mcm(G, init="greedy"))
    check_result(G, res, scipy_cardinality(_scipy_of(G)), execution)
    if device.platform == "cpu":
        warm = jax.device_get(mcm(G, init=jaxmatch.greedy_matching(G)))
        for name, x, y in zip(res._fields, res, warm):
            np.testing.assert_array_equal(x, y, err_msg=name)


def test_greedy_matching_argument_errors():
    with pytest.raises(TypeError, match=r"expected a jaxmatch\.BipartiteGraph"):
        jaxmatch.greedy_matching(np.eye(2))
    G = BipartiteGraph.from_edges([0], [0], 2, 2)
    short = BipartiteGraph(
        indptr=G.indptr[:-1],
        indices=G.indices,
        data=None,
        shape=(2, 2),
        col_indptr=G.col_indptr,
        col_indices=G.col_indices,
    )
    with pytest.raises(ValueError, match=r"n_rows \+ 1 = 3"):
        jaxmatch.greedy_matching(short)
    with pytest.raises(ValueError, match="init must be 'cheap', 'greedy'"):
        jaxmatch.max_cardinality_matching(G, init="sequential")


@pytest.mark.parametrize("method", ["auto", "apfb", "apsb"])
def test_stepped_restart_from_the_ordered_greedy(device, method):
    """From the cheap start the stepped solver restarts once from the
    ordered greedy (on the GPU; the CPU's cheap start is the sequential
    greedy and never restarts): every member of every bucket, and the
    spatially numbered graphs, still end maximum and certified."""
    solve = jax.jit(
        jax.vmap(
            functools.partial(
                jaxmatch.max_cardinality_matching,
                method=method,
                execution="stepped",
                tuning=RESTART_AFTER_ONE_LEVEL,
            )
        )
    )
    for b in all_buckets():
        res = jax.device_get(solve(b.batch))
        for i, G in enumerate(b.graphs):
            check_result(G, member(res, i), b.oracle[i], f"{b.name}[{i}] {b.labels[i]}")
    for label, G, A in _ordered_graphs():
        res = jaxmatch.max_cardinality_matching(
            G, method=method, execution="stepped", tuning=RESTART_AFTER_ONE_LEVEL
        )
        check_result(G, jax.device_get(res), scipy_cardinality(A), label)


def test_restart_skipped_on_a_malformed_row_csr(device):
    """The cheap start does not read the row CSR, so a malformed one does not
    make its solve INVALID_GRAPH: the restart is skipped and the solve goes
    on from the cheap matching."""
    A = make_graph(np.random.default_rng(4), "delaunay", 300, 300)
    G = graph_arrays(A)
    bad = np.array(G.indices)
    bad[3] = 300
    H = BipartiteGraph(
        indptr=G.indptr,
        indices=bad,
        data=None,
        shape=(300, 300),
        col_indptr=G.col_indptr,
        col_indices=G.col_indices,
    )
    res = jax.device_get(
        jaxmatch.max_cardinality_matching(H, execution="stepped", tuning=RESTART_AFTER_ONE_LEVEL)
    )
    check_result(G, res, scipy_cardinality(A), "malformed row CSR")


def test_step_rejects_a_negative_restart_threshold(device):
    from jaxmatch.matching import _ffi as matching_ffi
    from jaxmatch.matching.api import _operands

    G = BipartiteGraph.from_edges([0, 1], [0, 1], 2, 2)
    empty = np.full(2, -1, np.int32)
    state = matching_ffi.matching_init(
        _operands(G),
        empty,
        empty,
        init=matching_ffi.code("INIT", "cheap"),
    )
    opts = dict(driver=3, bfs=1, max_phases=10, hybrid_depth=4, auto_free_divisor=50)
    opts |= dict(keep_trees_divisor=0)
    step = functools.partial(matching_ffi.matching_step, levels=4, mapping=0, **opts)
    with pytest.raises(Exception, match="restart_levels must be >= 0"):
        jax.block_until_ready(step(_operands(G), state, restart_levels=-1))
