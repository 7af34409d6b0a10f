"""Differential fuzzing of ``approximate_weighted_matching`` on
:class:`jaxmatch.Graph` (methods auto / suitor / ld; eager, ``jit``,
``vmap``): self-loops, duplicate edges, isolated vertices, ties, zero and
negative weights, huge and tiny magnitudes, every weight dtype with x64 on
and off. Oracles: the sequential greedy matching (equal, ties included),
networkx's maximum weight matching (at least half of it, and below the
certificate's upper bound), and the certificate."""

from __future__ import annotations

import dataclasses
import functools

import jax
import numpy as np
import pytest
from fuzz_cases import COUNTS, fuzz_settings
from graph_cases import CAPACITY, SIZES, build, greedy_mate, networkx_optimum, weighted_graphs
from hypothesis import given
from hypothesis import strategies as st

import jaxmatch
from jaxmatch import Graph, WeightedMatchingStatus

SOLVE_JIT = jax.jit(jaxmatch.approximate_weighted_matching, static_argnames=("method",))


def test_int32_weight_total_overflow_is_reported():
    """Two edges of 2**31 - 1: the int32 total does not fit (it wrapped to -2,
    found by fuzzing); a total that just fits is exact."""
    w = np.array([2**31 - 1] * 2, np.int32)
    r = jaxmatch.approximate_weighted_matching(Graph.from_edges([0, 2], [1, 3], w, 4))
    assert int(r.status) == WeightedMatchingStatus.OVERFLOW
    assert (np.asarray(r.mate) == -1).all() and int(r.weight) == 0
    w = np.array([2**30, 2**30 - 1], np.int32)
    G = Graph.from_edges([0, 2], [1, 3], w, 4)
    r = jax.jit(jaxmatch.approximate_weighted_matching)(G)
    assert int(r.status) == WeightedMatchingStatus.DOMINANT and int(r.weight) == 2**31 - 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_subnormal_positive_weight_is_matched(dtype):
    """A subnormal weight is positive (XLA on the CPU flushed it to 0 and left
    the edge unmatched, found by fuzzing)."""
    tiny = np.array([np.finfo(dtype).smallest_subnormal, 0.0], dtype)
    with jax.enable_x64(dtype == np.float64):
        G = Graph.from_edges([0, 2], [1, 3], tiny, 4)
        r = jaxmatch.approximate_weighted_matching(G)
    assert np.asarray(r.mate).tolist() == [1, 0, -1, -1]
    cert = jaxmatch.verify_weighted_matching(G, r)
    assert cert.valid and cert.locally_dominant, cert.reason


def _int32_total_overflows(G: Graph) -> bool:
    """The greedy matching's int32 total does not fit int32."""
    u, v, w = G.edges()
    if w.dtype != np.int32:
        return False
    heaviest: dict[tuple[int, int], int] = {}  # the greedy takes a pair's heaviest edge
    for a, b, x in zip(u.tolist(), v.tolist(), w.tolist()):
        pair = (min(a, b), max(a, b))
        heaviest[pair] = max(x, heaviest.get(pair, x))
    mate = greedy_mate(G)
    total = sum(heaviest[(a, int(mate[a]))] for a in np.flatnonzero(mate > np.arange(G.n)).tolist())
    return not -(2**31) <= total < 2**31


def check(G: Graph, res, what):
    r = jax.tree.map(np.asarray, res)
    info = (what, G.n, [e.tolist() for e in G.edges()], r.mate)
    if _int32_total_overflows(G):
        assert int(r.status) == WeightedMatchingStatus.OVERFLOW, info
        assert (r.mate == -1).all() and int(r.weight) == 0, info
        return
    assert int(r.status) == WeightedMatchingStatus.DOMINANT, info
    want = greedy_mate(G)
    np.testing.assert_array_equal(r.mate, want, err_msg=str(info))
    cert = jaxmatch.verify_weighted_matching(G, r)
    assert cert.valid and cert.locally_dominant, (cert.reason, *info)
    assert int(r.cardinality) == cert.cardinality, info
    if np.isfinite(float(cert.weight)):
        assert np.isclose(float(r.weight), float(cert.weight), rtol=1e-6), (r.weight, cert, *info)
    u, _, w = G.edges()
    if u.size and np.abs(w.astype(np.float64)).max() < 1e15:
        opt = networkx_optimum(G)
        scale = 1e-9 * max(1.0, opt)
        assert float(cert.weight) >= opt / 2 - scale, (cert.weight, opt, *info)
        assert cert.upper_bound >= opt - scale, (cert.upper_bound, opt, *info)
    matched = np.flatnonzero(r.mate >= 0)
    edge = r.mate_edge[matched]
    assert np.all(np.asarray(G.indices)[edge] == r.mate[matched]), info


@fuzz_settings(quick=70)
@given(
    graph=weighted_graphs(),
    method=st.sampled_from(["auto", "suitor", "ld"]),
    mode=st.sampled_from(["eager", "jit"]),
    x64=st.booleans(),
)
def test_weighted_matching_equals_greedy(device, graph, method, mode, x64):
    u, v, w, n, kind = graph
    COUNTS[f"approximate_weighted_matching ({device.platform})"] += 1
    with jax.enable_x64(x64):
        G = build(u, v, w, n)
        if G is None:
            return
        solve = jaxmatch.approximate_weighted_matching if mode == "eager" else SOLVE_JIT
        check(G, solve(G, method=method), f"{method}/{mode}/x64={x64}/{kind}/{w.dtype}")


@functools.cache
def _vmapped(method: str):
    return jax.jit(jax.vmap(lambda g: jaxmatch.approximate_weighted_matching(g, method=method)))


@fuzz_settings(quick=25)
@given(data=st.data(), method=st.sampled_from(["suitor", "ld"]))
def test_vmap_over_graphs(device, data, method):
    n = data.draw(st.sampled_from(SIZES))
    members = []
    for _ in range(3):
        u, v, w, _, _ = data.draw(weighted_graphs(n))
        w = np.clip(np.nan_to_num(w.astype(np.float64)), -1e30, 1e30).astype(np.float32)
        members.append(Graph.from_edges(u, v, w, n).pad_to(CAPACITY))
    COUNTS[f"approximate_weighted_matching vmap ({device.platform})"] += 1
    batch = jax.tree.map(lambda *a: np.stack([np.asarray(x) for x in a]), *members)
    res = _vmapped(method)(batch)
    for b, G in enumerate(members):
        check(G, jax.tree.map(lambda a, b=b: np.asarray(a)[b], res), f"vmap {method}")


@fuzz_settings(quick=20)
@given(graph=weighted_graphs(), method=st.sampled_from(["suitor", "ld"]), data=st.data())
def test_nan_weights_are_reported(device, graph, method, data):
    u, v, w, n, _ = graph
    with np.errstate(over="ignore"):
        G = build(u, v, np.nan_to_num(w.astype(np.float32)), n)
    if G is None or int(G.indptr[-1]) == 0:
        return
    COUNTS[f"approximate_weighted_matching NaN ({device.platform})"] += 1
    bad = np.array(G.data)
    bad[data.draw(st.integers(0, int(G.indptr[-1]) - 1))] = np.nan
    r = jaxmatch.approximate_weighted_matching(dataclasses.replace(G, data=bad), method=method)
    assert int(r.status) == WeightedMatchingStatus.INVALID_WEIGHTS
    assert (np.asarray(r.mate) == -1).all() and (np.asarray(r.mate_edge) == -1).all()


LD_NAN_CASE = """
import dataclasses, numpy as np, jaxmatch as jm
G = jm.Graph.from_edges([0], [1], np.array([3.0], np.float32), 2)
bad = np.array(G.data); bad[0] = np.nan  # the entry 0 -> 1 only
print(int(jm.approximate_weighted_matching(dataclasses.replace(G, data=bad), method="ld").status))
"""


def test_ld_with_a_nan_entry_returns():
    """A NaN entry kept the LD rounds running forever (found by fuzzing):
    run in a child with a timeout, so a hang fails instead of stalling."""
    import os
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", LD_NAN_CASE], capture_output=True, text=True, env=env, timeout=20
        )
    except subprocess.TimeoutExpired:
        pytest.fail("approximate_weighted_matching(method='ld') hung on a NaN entry")
    assert proc.stdout.strip() == str(int(WeightedMatchingStatus.INVALID_WEIGHTS)), proc.stderr
