"""The Karp-Sipser initial matching (``init="karp-sipser"``,
:func:`jaxmatch.karp_sipser_matching`).

The solver sweeps of the other files run it as one of ``COLD_INITS`` with
every driver, level kernel and execution shape; here the initial matching
alone: valid and maximal on every graph of the suite, equal on the CPU to a
serial reference, maximum on forests, and better than the cheap matching on
randomly permuted geometric graphs (``test_matching_row_csr_inits.py`` has
the row CSR's faults).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from matching_cases import (
    EXECUTIONS,
    check_result,
    embed,
    graph_arrays,
    is_maximal,
    karp_sipser_reference,
    make_graph,
    member,
    random_forest,
    scipy_cardinality,
    stack_graphs,
)
from test_matching_oracle import all_buckets

import jaxmatch
from jaxmatch import BipartiteGraph, MatchingStatus

_ks = jax.jit(jax.vmap(jaxmatch.karp_sipser_matching))
_cheap = jax.jit(jax.vmap(jaxmatch.cheap_matching))


def _valid_and_maximal(G, A, one, label):
    cert = jaxmatch.verify_matching(G, one)
    assert cert.valid, (label, cert.reason)
    assert int(one.cardinality) == cert.cardinality, label
    assert is_maximal(A, one.col_for_row, one.row_for_col), label
    return cert.cardinality


def test_karp_sipser_matching_on_the_suite(device):
    """Every graph of the four buckets: a valid, maximal matching with no
    phases and status INITIAL, never above the oracle; on the CPU exactly
    the serial reference (karp_sipser_reference)."""
    for b in all_buckets():
        res = jax.device_get(_ks(b.batch))
        assert np.all(res.iterations == 0) and np.all(res.levels == 0)
        assert np.all(res.status == MatchingStatus.INITIAL)
        for i, G in enumerate(b.graphs):
            one = member(res, i)
            label = f"{b.name}[{i}] {b.labels[i]}"
            assert _valid_and_maximal(G, b.mats[i], one, label) <= b.oracle[i], label
            if device.platform == "cpu":
                rm, cm = karp_sipser_reference(b.mats[i])
                np.testing.assert_array_equal(one.col_for_row, rm, err_msg=label)
                np.testing.assert_array_equal(one.row_for_col, cm, err_msg=label)


def _forests():
    """Random forests (embedded, rows and columns permuted), paths of both
    parities and a long path that takes several chains of kMcmKsChainCap
    links; all of one shape."""
    rng = np.random.default_rng(7)
    n = 160
    mats = []
    for _ in range(40):
        nr, nc = (int(x) for x in rng.integers(n // 2, n + 1, size=2))
        mats.append(embed(random_forest(rng, nr, nc), n, n, rng))
    for k in (1, 2, 5, 60, n):
        mats.append(embed(make_graph(rng, "chain", k, k), n, n))  # path r0 c0 r1 ... r(k-1) c(k-1)
        mats.append(embed(make_graph(rng, "chain", k, k), n, n, rng))
        mats.append(embed(make_graph(rng, "chain", k, k).T, n, n, rng))  # from the other side
    return mats


@functools.cache
def _long_path(n=3000):
    rng = np.random.default_rng(3)
    return embed(make_graph(rng, "chain", n, n - 1), n, n, rng)


def test_karp_sipser_is_maximum_on_forests(device):
    """On a forest every match of the degree-one rounds is safe and no edge
    is left for a seed: the initial matching is maximum (Karp, Sipser)."""
    mats = _forests()
    graphs = [graph_arrays(A) for A in mats]
    res = jax.device_get(_ks(stack_graphs(graphs)))
    for i, (A, G) in enumerate(zip(mats, graphs)):
        one = member(res, i)
        card = _valid_and_maximal(G, A, one, f"forest {i}")
        assert card == scipy_cardinality(A), f"forest {i}"
    A = _long_path()
    G = BipartiteGraph.from_scipy(A)
    one = jax.device_get(jaxmatch.karp_sipser_matching(G))
    assert _valid_and_maximal(G, A, one, "long path") == scipy_cardinality(A) == 2999


def _geometric(rng, family: str, n: int):
    """A graph of the suite's geometric families, rows and columns randomly
    permuted (RCP)."""
    return embed(make_graph(rng, family, n, n), n, n, rng)


@pytest.mark.parametrize("family, n", [("delaunay", 1000), ("delaunay", 4000), ("grid", 4000)])
def test_karp_sipser_leaves_fewer_free_columns_than_cheap(device, family, n):
    """On randomly permuted geometric graphs the cheap matching leaves
    several per cent of the columns free; Karp-Sipser leaves fewer (the
    numbers are printed: pytest -s)."""
    rng = np.random.default_rng([11, n])
    mats = [_geometric(rng, family, n) for _ in range(3)]
    graphs = [graph_arrays(A) for A in mats]
    batch = stack_graphs(graphs)
    ks, cheap = jax.device_get((_ks(batch), _cheap(batch)))
    for i, (A, G) in enumerate(zip(mats, graphs)):
        best = scipy_cardinality(A)
        one = member(ks, i)
        _valid_and_maximal(G, A, one, f"{family} {i}")
        ks_free = best - int(one.cardinality)
        cheap_free = best - int(member(cheap, i).cardinality)
        print(
            f"{family} n={n} #{i}: columns short of the maximum: cheap {cheap_free}, KS {ks_free}"
        )
        assert ks_free < cheap_free, (family, n, i, ks_free, cheap_free)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_solver_from_karp_sipser_equals_warm_start_from_it(device, execution):
    """``init="karp-sipser"`` starts the solve from karp_sipser_matching's
    result: on the CPU the solve equals a warm start from it, bit for bit;
    everywhere the result is certified."""
    rng = np.random.default_rng(5)
    A = _geometric(rng, "delaunay", 500)
    G = BipartiteGraph.from_scipy(A)
    mcm = functools.partial(jaxmatch.max_cardinality_matching, execution=execution)
    res = jax.device_get(mcm(G, init="karp-sipser"))
    check_result(G, res, scipy_cardinality(A), execution)
    if device.platform == "cpu":
        warm = jax.device_get(mcm(G, init=jaxmatch.karp_sipser_matching(G)))
        for name, x, y in zip(res._fields, res, warm):
            np.testing.assert_array_equal(x, y, err_msg=name)


def test_karp_sipser_matching_argument_errors():
    with pytest.raises(TypeError, match=r"expected a jaxmatch\.BipartiteGraph"):
        jaxmatch.karp_sipser_matching(np.eye(2))
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
        jaxmatch.karp_sipser_matching(short)
    wide = BipartiteGraph(
        indptr=G.indptr,
        indices=jnp.asarray(G.indices, jnp.float32),
        data=None,
        shape=(2, 2),
        col_indptr=G.col_indptr,
        col_indices=G.col_indices,
    )
    with pytest.raises(TypeError, match="indices must be int32"):
        jaxmatch.karp_sipser_matching(wide)
