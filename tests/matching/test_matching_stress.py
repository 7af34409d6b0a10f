"""Stress runs of the matching kernels: many fresh random graphs per family,
every variant, every result certified.

The GPU kernels race by design (plain loads and stores in the BFS and in
Alternate, repaired by FixMatching), so a result can differ from run to run;
each one must still be a maximum matching.  The ``gpu`` parameter is the
stress run proper (200 seeds per family, and single 20k-vertex graphs run
stepped, where many blocks race); the ``cpu`` parameter is a small version
(10 seeds, 2k-vertex graphs) that always runs.

Environment knobs (for longer runs, or shorter ones under compute-sanitizer):
``JAXMATCH_STRESS_SEEDS`` (seeds per family), ``JAXMATCH_STRESS_LARGE_N``
(vertices per side of the single large graphs), ``JAXMATCH_STRESS_LARGE_SEEDS``
(large graphs per family).
"""

from __future__ import annotations

import functools
import itertools
import os

import jax
import numpy as np
import pytest
from matching_cases import (
    BFS,
    COLD_INITS,
    EXECUTIONS,
    INITS,
    MAPPINGS,
    METHODS,
    check_result,
    embed,
    graph_arrays,
    is_maximal,
    make_graph,
    member,
    random_warm_start,
    scipy_cardinality,
)

import jaxmatch

FAMILIES = (
    "uniform",
    "power_law",
    "grid",
    "delaunay",
    "triangular",
    "hall_violator",
    "checkerboard",
)
LARGE_FAMILIES = ("uniform", "power_law", "grid", "delaunay", "triangular", "chain")

# Batched graphs: up to BUCKET x BUCKET, one fixed edge capacity so that each
# variant compiles once for every family.
BUCKET = 192
CAPACITY = BUCKET * BUCKET  # dense triangles and Hall blocks fit


def _knob(name, gpu_default, cpu_default, device):
    value = os.environ.get(name)
    if value:
        return int(value)
    return gpu_default if device.platform == "gpu" else cpu_default


def _variants():
    """Every driver x level kernel x init x execution (stepped in both thread
    mappings)."""
    out = []
    for method, bfs, init, execution in itertools.product(METHODS, BFS, INITS, EXECUTIONS):
        for mapping in MAPPINGS if execution == "stepped" else ("auto",):
            out.append((method, bfs, init, execution, mapping))
    return out


@functools.cache
def _batched_solver(method, bfs, init, execution, mapping):
    def one(g, rm, cm):
        start = (rm, cm) if init == "warm" else init
        return jaxmatch.max_cardinality_matching(
            g, method=method, bfs=bfs, init=start, execution=execution, mapping=mapping
        )

    return jax.jit(jax.vmap(one))


def _family_batch(family: str, n_seeds: int):
    """One fresh graph per seed (random size in [BUCKET/2, BUCKET] per side,
    random row and column permutation inside the bucket)."""
    fam_id = FAMILIES.index(family)
    mats, warm = [], []
    for seed in range(n_seeds):
        rng = np.random.default_rng([fam_id, seed])
        nr, nc = (int(x) for x in rng.integers(BUCKET // 2, BUCKET + 1, size=2))
        A = embed(make_graph(rng, family, nr, nc), BUCKET, BUCKET, rng)
        assert A.nnz <= CAPACITY, (family, seed, A.nnz)
        mats.append(A)
        warm.append(random_warm_start(rng, A, ("none", "non_edge", "one_sided")[seed % 3]))
    graphs = [graph_arrays(A, CAPACITY) for A in mats]
    batch = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *graphs)
    rms = np.stack([w[0] for w in warm])
    cms = np.stack([w[1] for w in warm])
    oracle = [scipy_cardinality(A) for A in mats]
    return mats, graphs, batch, rms, cms, oracle


@pytest.mark.parametrize("family", FAMILIES)
def test_stress_batched(device, family):
    n_seeds = _knob("JAXMATCH_STRESS_SEEDS", 200, 10, device)
    mats, graphs, batch, rms, cms, oracle = _family_batch(family, n_seeds)
    batch, rms, cms = jax.device_put((batch, rms, cms))  # once, not per variant
    checked = 0
    for variant in _variants():
        res = jax.device_get(_batched_solver(*variant)(batch, rms, cms))
        for i, G in enumerate(graphs):
            check_result(G, member(res, i), oracle[i], f"{family} seed {i} {variant}")
            checked += 1
    assert checked == n_seeds * len(_variants())
    # the initial matchings alone: valid and maximal (compare-and-swap on the GPU)
    for initial in (jaxmatch.cheap_matching, jaxmatch.karp_sipser_matching):
        res = jax.device_get(jax.jit(jax.vmap(initial))(batch))
        for i, G in enumerate(graphs):
            one = member(res, i)
            cert = jaxmatch.verify_matching(G, one)
            assert cert.valid, (family, i, initial.__name__, cert.reason)
            assert is_maximal(mats[i], one.col_for_row, one.row_for_col), (
                family,
                i,
                initial.__name__,
            )


@functools.cache
def _single_solver(method, bfs, init, execution, mapping):
    return jax.jit(
        functools.partial(
            jaxmatch.max_cardinality_matching,
            method=method,
            bfs=bfs,
            init=init,
            execution=execution,
            mapping=mapping,
        )
    )


@pytest.mark.parametrize("family", LARGE_FAMILIES)
def test_stress_large_stepped(device, family):
    """Single large graphs (default 10k + 10k vertices on the GPU), stepped
    in both thread mappings, plus auto and fused runs of APFB and
    push-relabel (a single block striding over all the vertices)."""
    n = _knob("JAXMATCH_STRESS_LARGE_N", 10_000, 1_000, device)
    n_graphs = _knob("JAXMATCH_STRESS_LARGE_SEEDS", 3, 1, device)
    variants = [
        (method, bfs, init, "stepped", mapping)
        for method, bfs, init, mapping in itertools.product(METHODS, BFS, COLD_INITS, MAPPINGS)
    ]
    variants += [
        ("auto", "wr", "cheap", "auto", "auto"),
        ("apfb", "wr", None, "fused", "auto"),
        ("pr", "wr", None, "fused", "auto"),
    ]
    fam_id = LARGE_FAMILIES.index(family)
    for seed in range(n_graphs):
        rng = np.random.default_rng([100 + fam_id, seed])
        nr = n - int(rng.integers(0, n // 20 + 1))
        nc = n - int(rng.integers(0, n // 20 + 1))
        A = embed(make_graph(rng, family, nr, nc), n, n, rng)
        G = graph_arrays(A, 10 * n)  # one capacity: one compilation per variant
        G_dev = jax.device_put(G)
        expected = scipy_cardinality(A)
        for variant in variants:
            res = jax.device_get(_single_solver(*variant)(G_dev))
            check_result(G, res, expected, f"{family} n={n} seed {seed} {variant}")


def test_stress_large_batched(device):
    """A batch of graphs wider than a block's frontier (6k columns on the GPU:
    the stepped levels of each member run on a cluster of its own where the
    GPU has clusters, several problems at once), every stepped driver from
    the cheap matching and from none."""
    n = _knob("JAXMATCH_STRESS_LARGE_N", 6_000, 600, device)
    mats = []
    for k, family in enumerate(("uniform", "power_law", "grid", "delaunay")):
        rng = np.random.default_rng([200, k])
        mats.append(embed(make_graph(rng, family, n - 7 * k, n), n, n, rng))
    graphs = [graph_arrays(A, 10 * n) for A in mats]
    batch = jax.device_put(jax.tree_util.tree_map(lambda *xs: np.stack(xs), *graphs))
    none = jax.device_put(np.full((len(mats), n), -1, np.int32))
    oracle = [scipy_cardinality(A) for A in mats]
    for method, bfs, init in itertools.product(METHODS, BFS, ("cheap", None)):
        variant = (method, bfs, init, "stepped", "ct")
        res = jax.device_get(_batched_solver(*variant)(batch, none, none))
        for i, G in enumerate(graphs):
            check_result(G, member(res, i), oracle[i], f"member {i} {variant}")


def test_repeated_runs_of_one_batch(device):
    """The same batch solved again and again: the races may pick other
    matchings, never a wrong one; on the CPU every run is identical."""
    n_runs = _knob("JAXMATCH_STRESS_REPEATS", 50, 8, device)
    _, graphs, batch, rms, cms, oracle = _family_batch("triangular", 64)
    batch, rms, cms = jax.device_put((batch, rms, cms))
    seen = {}
    for run in range(n_runs):
        key = (METHODS[run % len(METHODS)], EXECUTIONS[run // len(METHODS) % 2])
        res = jax.device_get(_batched_solver(key[0], "wr", None, key[1], "auto")(batch, rms, cms))
        for i, G in enumerate(graphs):
            check_result(G, member(res, i), oracle[i], f"run {run} {key} member {i}")
        if device.platform == "cpu":
            if key in seen:
                np.testing.assert_array_equal(seen[key], res.row_for_col)
            seen[key] = res.row_for_col
