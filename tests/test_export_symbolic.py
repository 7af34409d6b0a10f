"""``jax.export`` with symbolic shapes: ``solve_lap``, ``hungarian`` (every
dimension symbolic, ``"b, n, m"``), ``max_cardinality_matching``,
``approximate_weighted_matching`` and sparse ``solve_lap`` (batch and
capacity symbolic: a graph's vertex counts are static in its type) give
the unexported call's answers on several concrete shapes."""

from __future__ import annotations

import jax
import numpy as np
import pytest
import scipy.sparse as sp

import jaxmatch
from jaxmatch import BipartiteGraph, Graph, SparseCosts

S = jax.ShapeDtypeStruct
PLATFORMS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]
SHAPES = [(1, 1, 1), (2, 3, 5), (3, 5, 3), (1, 7, 7), (2, 40, 17), (1, 60, 300)]


def _export(fn, platform: str, *args):
    """``fn`` exported for ``platform``, serialized and read back."""
    exp = jax.export.export(
        jax.jit(fn),
        disabled_checks=jaxmatch.export_disabled_checks(),
        platforms=["cuda" if platform == "gpu" else platform],
    )(*args)
    return jax.export.deserialize(exp.serialize())


def _on(platform: str, tree):
    return jax.device_put(tree, jax.devices(platform)[0])


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("maximize", [False, True])
def test_solve_lap_with_every_dimension_symbolic(platform, dtype, maximize):
    def fn(C):
        return jaxmatch.solve_lap(C, maximize=maximize)

    exp = _export(fn, platform, S(jax.export.symbolic_shape("b, n, m"), dtype))
    rng = np.random.default_rng(3)
    for shape in SHAPES:
        C = rng.integers(0, 10, shape) if dtype == np.int32 else rng.random(shape)
        C = _on(platform, C.astype(dtype))
        got = jax.tree.map(np.asarray, exp.call(C))
        want = jax.tree.map(np.asarray, jax.jit(fn)(C))
        np.testing.assert_array_equal(got.status, want.status, err_msg=str(shape))
        np.testing.assert_array_equal(got.feasible, want.feasible)
        np.testing.assert_allclose(got.cost, want.cost, rtol=1e-6)
        if dtype == np.float32:  # a unique optimum (ties are likely among ints)
            np.testing.assert_array_equal(got.col_for_row, want.col_for_row)
            np.testing.assert_array_equal(got.row_for_col, want.row_for_col)
        for b in range(shape[0]):
            one = jax.tree.map(lambda a, b=b: a[b], got)
            cert = jaxmatch.verify_lap(np.asarray(C)[b], one, maximize=maximize)
            assert cert.optimal, (shape, b, cert.reason)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_hungarian_with_every_dimension_symbolic(platform):
    exp = _export(jaxmatch.hungarian, platform, S(jax.export.symbolic_shape("n, m"), np.float32))
    rng = np.random.default_rng(4)
    for shape in [(1, 1), (4, 9), (9, 4), (33, 33)]:
        C = _on(platform, rng.random(shape).astype(np.float32))
        np.testing.assert_array_equal(exp.call(C), jax.jit(jaxmatch.hungarian)(C))


@pytest.mark.parametrize("method", ["jv", "tree", "classical"])
def test_every_method_with_symbolic_sizes(method):
    def fn(C):
        return jaxmatch.solve_lap(C, method=method)

    exp = _export(fn, "cpu", S(jax.export.symbolic_shape("b, n, m"), np.float32))
    rng = np.random.default_rng(6)
    for shape in SHAPES[:4]:
        C = rng.random(shape).astype(np.float32)
        got, want = exp.call(C), jax.jit(fn)(C)
        np.testing.assert_array_equal(got.col_for_row, want.col_for_row)
        np.testing.assert_allclose(got.cost, want.cost, rtol=1e-6)


def _stack(graphs):
    return jax.tree.map(lambda *a: np.stack([np.asarray(x) for x in a]), *graphs)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_graph_solvers_with_symbolic_batch_and_capacity(platform):
    b, cap = jax.export.symbolic_shape("b, cap")
    n_rows, n_cols, n = 6, 5, 8
    bip = BipartiteGraph(
        S((b, n_rows + 1), np.int32), S((b, cap), np.int32), None, (n_rows, n_cols),
        S((b, n_cols + 1), np.int32), S((b, cap), np.int32),
    )  # fmt: skip
    weighted = Graph(
        S((b, n + 1), np.int32), S((b, cap), np.int32), S((b, cap), np.float32), (n, n)
    )
    sparse = SparseCosts(
        S((b, n_rows + 1), np.int32), S((b, cap), np.int32), S((b, cap), np.float32),
        (n_rows, n_cols),
    )  # fmt: skip
    matching = _export(jaxmatch.max_cardinality_matching, platform, bip)
    approx = _export(jaxmatch.approximate_weighted_matching, platform, weighted)
    lap = _export(jaxmatch.solve_lap, platform, sparse)
    rng = np.random.default_rng(5)
    for batch, capacity in [(1, 30), (3, 64), (2, 100)]:
        A = [
            sp.random_array((n_rows, n_cols), density=0.4, rng=rng, format="csr").astype(np.float32)
            for _ in range(batch)
        ]
        graphs = _on(platform, _stack([BipartiteGraph.from_scipy(a).pad_to(capacity) for a in A]))
        got, want = matching.call(graphs), jax.jit(jaxmatch.max_cardinality_matching)(graphs)
        for x, y in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_array_equal(x, y)
        costs = _on(platform, _stack([SparseCosts.from_scipy(a).pad_to(capacity) for a in A]))
        got, want = lap.call(costs), jax.jit(jaxmatch.solve_lap)(costs)
        np.testing.assert_array_equal(got.status, want.status)
        np.testing.assert_allclose(got.cost, want.cost, rtol=1e-6)
        u, v = np.triu_indices(n, 1)
        members = []
        for _ in range(batch):
            keep = rng.random(u.size) < 0.5
            w = rng.random(int(keep.sum())).astype(np.float32)
            members.append(Graph.from_edges(u[keep], v[keep], w, n).pad_to(2 * capacity))
        graphs = _on(platform, _stack(members))
        got, want = approx.call(graphs), jax.jit(jaxmatch.approximate_weighted_matching)(graphs)
        np.testing.assert_array_equal(got.mate, want.mate)
        np.testing.assert_array_equal(got.status, want.status)
