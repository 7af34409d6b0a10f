"""Push-relabel (``method="pr"``, G-PR) on the graphs that stress it.

The sweeps of the other matching tests run ``"pr"`` too (it is in
``matching_cases.METHODS``); here: long augmenting paths (paths, chains,
grids, a chain behind a warm start), deficient graphs, every init, the
stepped schedule spread over many calls (``levels_per_call`` 1 and 2), a
vmap batch whose members finish at different calls, the push-iteration
bound, and the counters.  Every result is certified by ``verify_matching``.
"""

from __future__ import annotations

import functools
from pathlib import Path

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from host_emulation import run_host_emulation
from matching_cases import (
    EXECUTIONS,
    check_result,
    graph_arrays,
    make_graph,
    member,
    random_warm_start,
    scipy_cardinality,
)

import jaxmatch
from jaxmatch import BipartiteGraph, MatchingStatus

mcm = functools.partial(jaxmatch.max_cardinality_matching, method="pr")

# (execution, levels_per_call): fused, and stepped with the budget of one or
# two push iterations / relabel levels per call (the schedule then spans
# many calls), and the default budget.
SCHEDULES = (("fused", None), ("stepped", 1), ("stepped", 2), ("stepped", None))


def _host(x):
    return jax.device_get(x)


def _path(n: int) -> sp.csr_matrix:
    """A path r0 - c0 - r1 - c1 - ... - r_{n-1} - c_{n-1}: row i sees columns
    i - 1 and i."""
    r = np.r_[np.arange(n), np.arange(1, n)]
    c = np.r_[np.arange(n), np.arange(n - 1)]
    return sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, n))


def _long_path_warm_start(n: int):
    """The path of ``_path(n)`` with the warm start that matches row i + 1 to
    column i: column n - 1 is free and its only augmenting path runs through
    all n - 1 matched pairs to the free row 0."""
    rm, cm = np.full(n, -1), np.full(n, -1)
    rm[1:] = np.arange(n - 1)
    cm[: n - 1] = np.arange(1, n)
    return rm, cm


def _grid(a: int, b: int) -> sp.csr_matrix:
    """The a x b grid graph's adjacency matrix as a bipartite graph."""
    idx = np.arange(a * b).reshape(a, b)
    src = np.r_[idx[:, :-1].ravel(), idx[:-1, :].ravel()]
    dst = np.r_[idx[:, 1:].ravel(), idx[1:, :].ravel()]
    r, c = np.r_[src, dst], np.r_[dst, src]
    return sp.csr_matrix((np.ones(r.size), (r, c)), shape=(a * b, a * b))


def _long_path_graphs():
    rng = np.random.default_rng(7)
    return [
        ("path 1", _path(1)),
        ("path 40", _path(40)),
        ("path 97 permuted", _path(97)[rng.permutation(97)][:, rng.permutation(97)]),
        ("grid 7x9", _grid(7, 9)),
        ("grid 1x30", _grid(1, 30)),
        ("chain 60x45", make_graph(rng, "chain", 60, 45)),
        ("triangular 50x50", make_graph(rng, "triangular", 50, 50)),
        ("checkerboard 41x41", make_graph(rng, "checkerboard", 41, 41)),
    ]


_INITS = ("cheap", "karp-sipser", None, "warm")


def _init_for(init, A, rng):
    if init != "warm":
        return init
    return random_warm_start(rng, A)


@pytest.mark.parametrize("execution, levels", SCHEDULES, ids=str)
@pytest.mark.parametrize("init", _INITS, ids=str)
@pytest.mark.parametrize("name, A", _long_path_graphs(), ids=[n for n, _ in _long_path_graphs()])
def test_long_augmenting_paths(device, name, A, init, execution, levels):
    rng = np.random.default_rng(len(name))
    G = BipartiteGraph.from_scipy(A)
    res = _host(mcm(G, init=_init_for(init, A, rng), execution=execution, levels_per_call=levels))
    check_result(G, res, scipy_cardinality(A), f"{name} {init} {execution}/{levels}")


@pytest.mark.parametrize("execution, levels", SCHEDULES, ids=str)
def test_one_path_through_every_pair(device, execution, levels):
    """A warm start that leaves one free column whose only augmenting path
    runs through all n - 1 matched pairs: pushes must walk the whole path
    (with relabels that make every label exact)."""
    for n in (2, 3, 17, 64):
        A = _path(n)
        G = BipartiteGraph.from_scipy(A)
        res = _host(
            mcm(G, init=_long_path_warm_start(n), execution=execution, levels_per_call=levels)
        )
        check_result(G, res, n, f"path {n} {execution}/{levels}")
        assert int(res.iterations) >= 1 and int(res.levels) >= 1


def _deficient_graphs():
    rng = np.random.default_rng(11)
    star = sp.csr_matrix(np.ones((1, 9)))  # one row, nine columns
    return [
        ("star 1x9", star),
        ("star 9x1", star.T.tocsr()),
        ("hall violator 30x30", make_graph(rng, "hall_violator", 30, 30)),
        ("isolated 40x35", make_graph(rng, "isolated", 40, 35)),
        ("wide uniform 12x50", make_graph(rng, "uniform", 12, 50)),
        ("tall power law 60x20", make_graph(rng, "power_law", 60, 20)),
        ("odd grid 5x5", _grid(5, 5)),  # bipartite, parts 13 and 12: rank 24
        ("no edges 5x6", sp.csr_matrix((5, 6))),
    ]


@pytest.mark.parametrize("execution, levels", SCHEDULES, ids=str)
@pytest.mark.parametrize("init", _INITS, ids=str)
@pytest.mark.parametrize("name, A", _deficient_graphs(), ids=[n for n, _ in _deficient_graphs()])
def test_deficient_graphs(device, name, A, init, execution, levels):
    """Graphs with no perfect matching: columns that cannot be matched are
    retired (and rows stay free); the result is still certified maximum and
    every unmatched vertex is -1 on both sides."""
    rng = np.random.default_rng(len(name) + 1)
    G = BipartiteGraph.from_scipy(A)
    expected = scipy_cardinality(A)
    assert expected < max(A.shape)  # deficient on some side
    res = _host(mcm(G, init=_init_for(init, A, rng), execution=execution, levels_per_call=levels))
    check_result(G, res, expected, f"{name} {init} {execution}/{levels}")
    assert np.all(res.col_for_row >= -1) and np.all(res.row_for_col >= -1)
    assert int(np.sum(res.row_for_col == -1)) == A.shape[1] - expected


def _staggered_batch():
    """Paths of 3 to 48 vertices per side in one 48 x 48 frame, each with the
    warm start that makes its one augmenting path as long as the path: the
    members need very different numbers of push iterations."""
    n_max, lens = 48, (3, 48, 10, 1, 30, 20)
    graphs, rms, cms, expected = [], [], [], []
    for n in lens:
        A = sp.lil_matrix((n_max, n_max))
        A[:n, :n] = _path(n)
        graphs.append(graph_arrays(A.tocsr(), 2 * n_max))
        rm, cm = np.full(n_max, -1), np.full(n_max, -1)
        rm[:n], cm[:n] = _long_path_warm_start(n)
        rms.append(rm)
        cms.append(cm)
        expected.append(n)
    batch = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *graphs)
    return graphs, batch, np.stack(rms), np.stack(cms), expected


@pytest.mark.parametrize("execution, levels", SCHEDULES, ids=str)
def test_vmap_members_finish_at_different_times(device, execution, levels):
    """Under vmap a finished member's steps are no-ops while the others go
    on: each member's result and counters equal its solve alone."""
    graphs, batch, rms, cms, expected = _staggered_batch()

    def solve(G, rm, cm):
        return mcm(G, init=(rm, cm), execution=execution, levels_per_call=levels)

    res = _host(jax.jit(jax.vmap(solve))(batch, rms, cms))
    assert len(set(np.asarray(res.iterations).tolist())) > 2  # they finish apart
    for i, G in enumerate(graphs):
        one = member(res, i)
        check_result(G, one, expected[i], f"member {i}")
        if device.platform == "cpu":  # serial steps: the same solve alone
            alone = _host(solve(G, rms[i], cms[i]))
            assert int(alone.iterations) == int(one.iterations), i
            assert int(alone.levels) == int(one.levels), i
            np.testing.assert_array_equal(alone.col_for_row, one.col_for_row)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_push_iteration_limit(device, execution):
    """``max_iterations`` bounds the push iterations: a solve stopped there is
    ITERATION_LIMIT after exactly that many iterations, with a valid (fixed)
    matching; with room enough it is MAXIMUM."""
    n = 40
    A = _path(n)
    G = BipartiteGraph.from_scipy(A)
    warm = _long_path_warm_start(n)
    for limit in (1, 2, 5):
        res = _host(mcm(G, init=warm, execution=execution, max_iterations=limit))
        assert int(res.status) == MatchingStatus.ITERATION_LIMIT, limit
        assert int(res.iterations) == limit
        cert = jaxmatch.verify_matching(G, res)
        assert cert.valid, cert.reason
        assert cert.cardinality == int(res.cardinality) <= n
    full = _host(mcm(G, init=warm, execution=execution))
    check_result(G, full, n, "unbounded")
    assert 5 < int(full.iterations) <= jaxmatch.matching.api.pr_max_iterations(n, n)


def test_default_iteration_bound():
    assert jaxmatch.matching.api.pr_max_iterations(0, 0) == 16
    assert jaxmatch.matching.api.pr_max_iterations(3, 5) == 4 * 10**2
    assert jaxmatch.matching.api.pr_max_iterations(10**6, 10**6) == 2**31 - 1


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_maximum_start_ends_after_one_relabel(device, execution):
    """From a maximum matching the first global relabel reaches no free
    column: no push runs, the matching comes back unchanged, and the
    relabel's levels are the only work counted."""
    rng = np.random.default_rng(3)
    A = make_graph(rng, "uniform", 30, 40)
    G = BipartiteGraph.from_scipy(A)
    best = _host(mcm(G, init="cheap", execution=execution))
    again = _host(mcm(G, init=best, execution=execution))
    check_result(G, again, scipy_cardinality(A), "again")
    assert int(again.iterations) == 0 and int(again.levels) >= 1
    np.testing.assert_array_equal(again.col_for_row, best.col_for_row)
    np.testing.assert_array_equal(again.row_for_col, best.row_for_col)


def test_cpu_schedules_agree():
    """On the CPU the stepped calls run the fused loop's steps in the same
    order, whatever the budget per call: identical results and counters."""
    rng = np.random.default_rng(5)
    with jax.default_device(jax.devices("cpu")[0]):
        for family in ("uniform", "chain", "grid", "hall_violator"):
            A = make_graph(rng, family, 45, 40)
            G = BipartiteGraph.from_scipy(A)
            ref = _host(mcm(G, init=None, execution="fused"))
            for levels in (1, 2, 7):
                got = _host(mcm(G, init=None, execution="stepped", levels_per_call=levels))
                for name, x, y in zip(ref._fields, ref, got):
                    np.testing.assert_array_equal(x, y, err_msg=f"{family}/{levels}: {name}")


def test_race_emulation(tmp_path):
    """``pr_race_emulation.cc``: the push step with emulated GPU races (stale
    reads, writes landing in a random order) on the CPU; every solve must end
    MAXIMUM with the cardinality of a serial APFB solve."""
    run_host_emulation(Path(__file__).with_name("pr_race_emulation.cc"), tmp_path)


@pytest.mark.parametrize("execution, levels", SCHEDULES, ids=str)
def test_long_lists_are_shrunk(device, execution, levels):
    """From an empty start every column is a slot of the active lists: with
    more than 512 (kMcmPrShrinkMinSlots) the lists are compacted after each
    relabel (G-PR-SHRKRNL); the solves stay maximum."""
    rng = np.random.default_rng(13)
    for family, n in (("uniform", 700), ("triangular", 600), ("hall_violator", 650)):
        A = make_graph(rng, family, n, n + 10)
        G = BipartiteGraph.from_scipy(A)
        res = _host(mcm(G, init=None, execution=execution, levels_per_call=levels))
        check_result(G, res, scipy_cardinality(A), f"{family} {execution}/{levels}")
