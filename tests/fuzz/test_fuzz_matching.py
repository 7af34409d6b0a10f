"""Differential fuzzing of cardinality matching on :class:`BipartiteGraph`:
``max_cardinality_matching`` with every method, BFS kernel, initial
matching (and warm starts, valid or not) and execution, eager / ``jit`` /
``vmap``, and the initial matchings alone, against scipy's maximum
cardinality (networkx's Hopcroft-Karp as a second oracle) and the
sequential greedy; every maximum certified."""

from __future__ import annotations

import functools

import jax
import networkx as nx
import numpy as np
from fuzz_cases import COUNTS, fuzz_settings
from graph_cases import CAPACITY, SIDES, graphs, matching_problem, maximum_cardinality
from hypothesis import given
from hypothesis import strategies as st

import jaxmatch
from jaxmatch import BipartiteGraph, MatchingStatus

_OPTIONS = ("method", "bfs", "execution")
MATCH_JIT = jax.jit(jaxmatch.max_cardinality_matching, static_argnames=(*_OPTIONS, "init"))
WARM_JIT = jax.jit(jaxmatch.max_cardinality_matching, static_argnames=_OPTIONS)
METHODS = ("auto", "apfb", "apsb", "hybrid", "pr")
INITS = ("cheap", "greedy", "karp-sipser", None, "warm")


def _warm_start(draw, G):
    """Random pairs, some not edges, some not mutual: dropped by the solver."""
    rm = np.asarray(
        draw(st.lists(st.integers(-1, G.n_cols - 1), min_size=G.n_rows, max_size=G.n_rows)),
        np.int32,
    )
    cm = np.asarray(
        draw(st.lists(st.integers(-1, G.n_rows - 1), min_size=G.n_cols, max_size=G.n_cols)),
        np.int32,
    )
    return rm, cm


def _check_maximum(G, res, what):
    r = jax.tree.map(np.asarray, res)
    want = maximum_cardinality(G)
    info = (what, G.shape, [e.tolist() for e in G.edges()], r.col_for_row, r.row_for_col)
    assert int(r.status) == MatchingStatus.MAXIMUM, (MatchingStatus(int(r.status)).name, *info)
    problem = matching_problem(G, r.col_for_row, r.row_for_col, maximal=True)
    assert not problem, (problem, *info)
    assert int(r.cardinality) == np.count_nonzero(r.col_for_row >= 0) == want, (want, *info)
    cert = jaxmatch.verify_matching(G, r)
    assert cert.valid and cert.maximum and cert.cardinality == want, (cert.reason, *info)


@fuzz_settings(quick=70)
@given(
    data=st.data(),
    method=st.sampled_from(METHODS),
    bfs=st.sampled_from(["wr", "plain"]),
    init=st.sampled_from(INITS),
    execution=st.sampled_from(["auto", "fused", "stepped"]),
    mode=st.sampled_from(["eager", "jit"]),
)
def test_max_cardinality_matching_against_scipy(device, data, method, bfs, init, execution, mode):
    G = data.draw(graphs())
    COUNTS[f"max_cardinality_matching ({device.platform})"] += 1
    opts = dict(method=method, bfs=bfs, execution=execution)
    eager = jaxmatch.max_cardinality_matching
    if init == "warm":
        res = (eager if mode == "eager" else WARM_JIT)(G, init=_warm_start(data.draw, G), **opts)
    else:
        res = (eager if mode == "eager" else MATCH_JIT)(G, init=init, **opts)
    _check_maximum(G, res, f"{method}/{bfs}/{init}/{execution}/{mode}")


@fuzz_settings(quick=25)
@given(data=st.data(), method=st.sampled_from(METHODS), init=st.sampled_from(INITS[:4]))
def test_vmap_over_graphs(device, data, method, init):
    shape = (data.draw(st.sampled_from(SIDES)), data.draw(st.sampled_from(SIDES)))
    members = [data.draw(graphs(shape)) for _ in range(3)]
    COUNTS[f"max_cardinality_matching vmap ({device.platform})"] += 1
    batch = jax.tree.map(lambda *a: np.stack([np.asarray(x) for x in a]), *members)
    res = _vmapped(method, init)(batch)
    for b, G in enumerate(members):
        _check_maximum(
            G, jax.tree.map(lambda a, b=b: np.asarray(a)[b], res), f"vmap {method}/{init}"
        )


@functools.cache
def _vmapped(method: str, init: str | None):
    return jax.jit(
        jax.vmap(lambda g: jaxmatch.max_cardinality_matching(g, method=method, init=init))
    )


def sequential_greedy(G: BipartiteGraph) -> np.ndarray:
    """Each column in index order takes its first free row (column CSR)."""
    p, idx = np.asarray(G.col_indptr), np.asarray(G.col_indices)
    rm = np.full(G.n_rows, -1)
    for c in range(G.n_cols):
        for r in idx[p[c] : p[c + 1]]:
            if rm[r] < 0:
                rm[r] = c
                break
    return rm


@fuzz_settings(quick=60)
@given(data=st.data(), which=st.sampled_from(["cheap", "greedy", "karp-sipser"]))
def test_initial_matchings_are_valid_and_maximal(device, data, which):
    G = data.draw(graphs())
    COUNTS[f"{which} matching ({device.platform})"] += 1
    fn = {
        "cheap": jaxmatch.cheap_matching,
        "greedy": jaxmatch.greedy_matching,
        "karp-sipser": jaxmatch.karp_sipser_matching,
    }[which]
    r = jax.tree.map(np.asarray, fn(G))
    info = (which, G.shape, [e.tolist() for e in G.edges()], r.col_for_row)
    assert int(r.status) == MatchingStatus.INITIAL, info
    problem = matching_problem(G, r.col_for_row, r.row_for_col, maximal=True)
    assert not problem, (problem, *info)
    if which == "greedy":
        np.testing.assert_array_equal(r.col_for_row, sequential_greedy(G), err_msg=str(info))
    rows, cols = G.edges()
    g = nx.Graph()
    g.add_edges_from((("r", int(a)), ("c", int(b))) for a, b in zip(rows, cols, strict=True))
    if which == "karp-sipser" and (g.number_of_nodes() == 0 or nx.is_forest(g)):  # a forest
        assert int(r.cardinality) == maximum_cardinality(G), info
    cert = jaxmatch.verify_matching(G, r)
    assert cert.valid and cert.cardinality == int(r.cardinality), cert.reason


@fuzz_settings(quick=30)
@given(data=st.data(), method=st.sampled_from(METHODS), which=st.sampled_from(["ptr", "index"]))
def test_malformed_graph_is_reported(device, data, method, which):
    G = data.draw(graphs())
    if G.n_cols == 0 or G.n_rows == 0:
        return
    COUNTS[f"max_cardinality_matching malformed ({device.platform})"] += 1
    p, idx = np.array(G.col_indptr), np.array(G.col_indices)
    if which == "ptr":
        p[-1] = CAPACITY + 3
    else:
        if p[-1] == 0:
            return
        idx[data.draw(st.integers(0, int(p[-1]) - 1))] = data.draw(st.sampled_from([-1, G.n_rows]))
    import dataclasses

    H = dataclasses.replace(G, col_indptr=p, col_indices=idx)
    r = jax.tree.map(np.asarray, jaxmatch.max_cardinality_matching(H, method=method, init=None))
    assert int(r.status) == MatchingStatus.INVALID_GRAPH, (
        which,
        MatchingStatus(int(r.status)).name,
    )
    assert (r.col_for_row == -1).all() and (r.row_for_col == -1).all()
    assert not jaxmatch.verify_matching(H, r).maximum
