"""Trees kept across phases (``MatchingTuning.keep_trees_divisor``, tree
grafting; ``cuda_ffi/matching/kept_trees.h``).

Divisor 1 keeps the trees whenever a phase released fewer columns than it
visited, so the graft runs on most phase ends of the oracle buckets. Every
result must be the oracle's maximum, certified; also with a row CSR that is
not the transpose of the column CSR and with unsorted column lists, where
the grafts are steered wrongly or not found: the forest step that ends a
phase from kept trees reads the column CSR, and keeps the result maximum.
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from matching_cases import (
    EXECUTIONS,
    check_result,
    graph_arrays,
    make_graph,
    member,
    scipy_cardinality,
)
from test_matching_oracle import _check_bucket, _solver, all_buckets, bucket

import jaxmatch
from jaxmatch import BipartiteGraph, MatchingStatus, MatchingTuning

KEEP = MatchingTuning(keep_trees_divisor=1)


def _run(b, init, **options):
    return jax.device_get(_solver(init, **options)(b.batch, b.warm_rm, b.warm_cm))


@pytest.mark.parametrize("execution", EXECUTIONS)
@pytest.mark.parametrize("init", ["cheap", None, "warm"], ids=str)
@pytest.mark.parametrize("method", ["apfb", "auto"])
def test_kept_trees_sweep(device, method, init, execution):
    """Every graph of every bucket, the trees kept whenever they may be."""
    for b in all_buckets():
        res = _run(b, init, method=method, execution=execution, tuning=KEEP)
        _check_bucket(b, res, f"keep/{method}/{init}/{execution}", init=init, method=method)


@pytest.mark.parametrize("levels", [1, 3])
def test_kept_trees_across_stepped_calls(device, levels):
    """Phase ends and forest steps that fall in the middle of a stepped call,
    or alone in one."""
    b = bucket("square")
    res = _run(b, None, method="apfb", execution="stepped", levels_per_call=levels, tuning=KEEP)
    _check_bucket(b, res, f"keep/levels={levels}", init=None, method="apfb")


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_iteration_limit_with_kept_trees(device, execution):
    """A limit of 1-3 phases: each result is MAXIMUM (certified) or
    ITERATION_LIMIT with a valid matching, never a path end (-2) that a
    graft marked (on the GPU, where racing trees leave path ends that
    FixMatching frees for the graft to find again)."""
    b = bucket("square")
    limited = 0
    for limit in (1, 2, 3):
        res = _run(b, None, method="apfb", execution=execution, tuning=KEEP, max_iterations=limit)
        for i, G in enumerate(b.graphs):
            one = member(res, i)
            label = f"limit {limit} {execution} square[{i}]"
            if int(one.status) == MatchingStatus.ITERATION_LIMIT:
                limited += 1
                assert int(one.iterations) == limit, label
                assert np.all(one.col_for_row >= -1) and np.all(one.row_for_col >= -1), label
                cert = jaxmatch.verify_matching(G, one)
                assert cert.valid, (label, cert.reason)
            else:
                check_result(G, one, int(b.oracle[i]), label)
    assert limited > 0


def _power_law(seed: int, n: int) -> sp.csr_matrix:
    """A square graph whose columns have Pareto degrees: many free columns
    stay free, as on kron, so later phases find few paths among many
    roots."""
    rng = np.random.default_rng(seed)
    degree = np.minimum((rng.pareto(1.1, n) + 1).astype(np.int64), n)
    cols = np.repeat(np.arange(n), degree)
    hubs = rng.permutation(n)[: max(1, n // 20)]
    rows = np.where(
        rng.random(cols.size) < 0.8, rng.choice(hubs, cols.size), rng.integers(0, n, cols.size)
    )
    A = sp.csr_matrix((np.ones(cols.size), (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    A.data[:] = 1
    return A


def test_trees_are_kept_on_a_skewed_graph(device):
    """The graft changes the search (fewer levels than from scratch, so the
    sweeps above exercise it) and the result stays the maximum."""
    A = _rmat(1, 10)
    G = BipartiteGraph.from_scipy(A)
    expected = scipy_cardinality(A)
    levels = {}
    for divisor in (0, 1, 4):
        tuning = MatchingTuning(keep_trees_divisor=divisor)
        for execution in EXECUTIONS:
            res = jax.device_get(
                jaxmatch.max_cardinality_matching(
                    G, method="apfb", execution=execution, tuning=tuning
                )
            )
            check_result(G, res, expected, f"divisor {divisor} {execution}")
            levels[divisor, execution] = int(res.levels)
    assert levels[1, "stepped"] < levels[0, "stepped"], levels


def _rmat(seed: int, scale: int) -> sp.csr_matrix:
    """A symmetric R-MAT graph (Graph500's kron parameters) of 2^scale
    vertices: many free columns stay free, as on kron_g500, so the later
    phases find a few paths among many roots."""
    rng = np.random.default_rng(seed)
    n, m = 1 << scale, 16 << scale
    r = np.zeros(m, np.int64)
    c = np.zeros(m, np.int64)
    for bit in range(scale):
        u = rng.random(m)
        r |= (u >= 0.76).astype(np.int64) << bit
        c |= (((u >= 0.57) & (u < 0.76)) | (u >= 0.95)).astype(np.int64) << bit
    A = sp.csr_matrix((np.ones(m), (r, c)), shape=(n, n))
    A = ((A + A.T) > 0).astype(np.float64).tocsr()
    A.setdiag(0)
    A.eliminate_zeros()
    return A


def _with_row_csr(G: BipartiteGraph, H: BipartiteGraph) -> BipartiteGraph:
    """G's column CSR with H's row CSR (same shape and capacity)."""
    return dataclasses.replace(G, indptr=H.indptr, indices=H.indices)


@pytest.mark.parametrize("other", ["subgraph", "supergraph", "another"])
def test_row_csr_that_is_not_the_transpose(device, other):
    """A row CSR in range but of another graph: rows miss kept columns they
    are next to, or name columns whose lists do not hold them. The solve is
    still the column CSR's maximum."""
    rng = np.random.default_rng(17)
    A = _power_law(5, 400)
    if other == "subgraph":
        B = A.multiply(sp.random(400, 400, density=0.6, random_state=rng) > 0).tocsr()
    elif other == "supergraph":
        B = ((A + make_graph(rng, "uniform", 400, 400)) > 0).astype(np.float64).tocsr()
    else:
        B = _power_law(6, 400)
    cap = max(A.nnz, B.nnz)
    G = _with_row_csr(graph_arrays(A, cap), graph_arrays(B, cap))
    for execution in EXECUTIONS:
        for method in ("apfb", "auto"):
            res = jax.device_get(
                jaxmatch.max_cardinality_matching(
                    G, method=method, execution=execution, tuning=KEEP
                )
            )
            check_result(graph_arrays(A, cap), res, scipy_cardinality(A), f"{method} {execution}")


def test_unsorted_column_lists(device):
    """Column lists in reverse order: the binary search that checks a graft
    misses, so rows stay ungrafted; still the maximum."""
    A = _power_law(7, 600)
    G = graph_arrays(A)
    ptr = np.asarray(G.col_indptr)
    idx = np.asarray(G.col_indices).copy()
    for c in range(A.shape[1]):
        idx[ptr[c] : ptr[c + 1]] = idx[ptr[c] : ptr[c + 1]][::-1]
    H = dataclasses.replace(G, col_indices=jax.numpy.asarray(idx))
    for execution in EXECUTIONS:
        res = jax.device_get(
            jaxmatch.max_cardinality_matching(H, method="apfb", execution=execution, tuning=KEEP)
        )
        check_result(G, res, scipy_cardinality(A), execution)


def test_divisor_must_not_be_negative():
    with pytest.raises(ValueError, match="keep_trees_divisor"):
        MatchingTuning(keep_trees_divisor=-1)
