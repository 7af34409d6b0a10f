"""The LAP between point sets with costs computed on the fly
(``solve_lap_points``): every answer certified over all pairs by
``verify_lap_points`` and by ``verify_lap`` on the materialised matrix,
its cost equal to scipy's; the sparse solver's warm start; several devices;
errors."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist

import jaxmatch
from jaxmatch import LAPStatus
from jaxmatch.lap.points import _ffi as points_ffi
from jaxmatch.lap.points import order as points_order
from jaxmatch.lap.points import solve as points_solve
from jaxmatch.lap.points import sweep
from jaxmatch.lap.sparse import _ffi as sparse_ffi

CDIST = {"sqeuclidean": "sqeuclidean", "euclidean": "euclidean", "cityblock": "cityblock"}


def _matrix(X, Y, metric, dtype):
    """The cost matrix in the solve's dtype (the costs it saw, up to an ulp)."""
    if callable(metric):
        return np.asarray(jax.vmap(jax.vmap(metric, (None, 0)), (0, None))(X, Y)).astype(dtype)
    return cdist(X.astype(np.float64), Y.astype(np.float64), CDIST[metric]).astype(dtype)


def _check(X, Y, sol, metric="sqeuclidean", maximize=False):
    """The solution is certified both ways and costs what scipy's does."""
    n, m = X.shape[0], Y.shape[0]
    assert sol.status == LAPStatus.OPTIMAL, sol.status_name
    assert sol.col_for_row.shape == (n,) and sol.row_for_col.shape == (m,)
    assert sol.u.shape == (n,) and sol.v.shape == (m,)
    cert = jaxmatch.verify_lap_points(X, Y, sol, metric=metric, maximize=maximize)
    assert cert.optimal, cert.reason
    C = _matrix(X, Y, metric, sol.dtype)
    dense = jaxmatch.verify_lap(C, sol, maximize=maximize)
    assert dense.optimal, dense.reason
    r, c = linear_sum_assignment(C.astype(np.float64), maximize=maximize)
    expected = C.astype(np.float64)[r, c].sum()
    rtol = 1e-12 if sol.dtype == np.float64 else 2e-6
    assert sol.cost == pytest.approx(expected, rel=rtol, abs=rtol)
    assert sol.cost == pytest.approx(cert.primal_cost, rel=rtol, abs=rtol)


CASES = [
    # n, m, d, metric, maximize, dtype
    (40, 40, 2, "sqeuclidean", False, np.float32),
    (60, 60, 3, "euclidean", False, np.float64),
    (45, 70, 2, "cityblock", False, np.float32),
    (70, 45, 2, "sqeuclidean", False, np.float64),
    (50, 50, 1, "euclidean", True, np.float32),
    (30, 80, 4, "sqeuclidean", True, np.float64),
    (200, 200, 2, "sqeuclidean", False, np.float32),
]


@pytest.mark.parametrize("n, m, d, metric, maximize, dtype", CASES)
def test_random_points_are_solved_optimally(n, m, d, metric, maximize, dtype):
    rng = np.random.default_rng(n * 1000 + m + d)
    X, Y = rng.random((n, d)).astype(dtype), rng.random((m, d)).astype(dtype)
    sol = jaxmatch.solve_lap_points(X, Y, metric=metric, maximize=maximize)
    assert sol.dtype == dtype
    _check(X, Y, sol, metric, maximize)


@pytest.mark.parametrize("candidates", [1, 2, 5])
def test_few_candidates_take_more_rounds_to_the_same_optimum(candidates):
    rng = np.random.default_rng(5)
    X, Y = rng.random((120, 2)), rng.random((120, 2)) + [0.3, 0.0]
    sol = jaxmatch.solve_lap_points(X, Y, candidates=candidates)
    _check(X, Y, sol)
    assert sol.iterations >= 2  # the first candidates alone were not optimal


def test_round_limit_reports_iteration_limit_and_the_checker_sees_it():
    rng = np.random.default_rng(6)
    X, Y = rng.random((150, 2)), rng.random((150, 2)) + [0.5, 0.0]
    sol = jaxmatch.solve_lap_points(X, Y, candidates=1, max_iterations=1)
    assert sol.status == LAPStatus.ITERATION_LIMIT and sol.iterations == 1
    assert sol.max_violation > sol.tol
    cert = jaxmatch.verify_lap_points(X, Y, sol)
    assert cert.valid_assignment and not cert.dual_feasible and not cert.optimal


def test_multiscale_start_on_a_larger_problem(monkeypatch):
    """Square problems of at least twice MULTISCALE_MIN_POINTS start from
    the pairs and prices of a half-size problem (two levels here)."""
    monkeypatch.setattr(points_solve, "MULTISCALE_MIN_POINTS", 100)
    sizes = []
    inner = points_solve._column_generation

    def spy(Xc, Yc, setup, start):
        n = Xc.shape[0]
        sizes.append((n, start is not None))
        if start is not None:  # half the rows paired, to distinct columns
            x0, v0 = start
            paired = x0[x0 >= 0]
            assert x0.shape == (n,) and v0.shape == (n,) and np.isfinite(v0).all()
            assert paired.size == n // 2 and np.unique(paired).size == paired.size
        return inner(Xc, Yc, setup, start)

    monkeypatch.setattr(points_solve, "_column_generation", spy)
    rng = np.random.default_rng(7)
    X, Y = rng.random((450, 2)).astype(np.float32), rng.random((450, 2)).astype(np.float32)
    sol = jaxmatch.solve_lap_points(X, Y)
    assert sizes == [(112, False), (225, True), (450, True)]
    _check(X, Y, sol)


class _FakeDevice:
    def __init__(self, platform):
        self.platform = platform


def test_autotune_off_for_built_in_metrics_on_gpus():
    gpu, cpu = _FakeDevice("gpu"), _FakeDevice("cpu")
    for metric in sweep.METRICS:
        assert sweep.autotune_off(metric, [gpu])
        assert not sweep.autotune_off(metric, [cpu])
    assert not sweep.autotune_off(lambda x, y: jnp.dot(x, y), [gpu])


def test_untuned_programs_solve_bit_for_bit_as_the_others(monkeypatch):
    """Compiled without the autotuner (as for built-in metrics on GPUs), a
    solve with the multiscale start gives the same arrays; every program of
    the solve was the untuned one."""
    monkeypatch.setattr(points_solve, "MULTISCALE_MIN_POINTS", 100)
    rng = np.random.default_rng(17)
    X, Y = rng.random((300, 2)).astype(np.float32), rng.random((300, 2)).astype(np.float32)
    want = jaxmatch.solve_lap_points(X, Y, metric="euclidean")
    asked: list = []
    sweep_program = sweep._sweep_program

    def spy(*args):
        asked.append(args[-1])
        return sweep_program(*args)

    monkeypatch.setattr(sweep, "_sweep_program", spy)
    monkeypatch.setattr(sweep, "autotune_off", lambda metric, devices: True)
    monkeypatch.setattr(sweep, "aligned_costs", None)  # the tuned program is not used
    got = jaxmatch.solve_lap_points(X, Y, metric="euclidean")
    assert asked and all(asked)
    for name in ("col_for_row", "row_for_col", "u", "v"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    assert (got.cost, got.iterations, got.edges) == (want.cost, want.iterations, want.edges)
    _check(X, Y, got, "euclidean")


def _fused(X, u, Y, v, metric, k, maximize, device):
    args = jax.device_put((X, u, Y.T, v), device)
    out = points_ffi.points_sweep(*args, metric=metric, k=k, negate=maximize)
    return tuple(np.asarray(a) for a in out)


def _reference(X, u, Y, v, metric, k, maximize, device):
    args = jax.device_put((X, u, Y, v), device)
    sign = -1.0 if maximize else 1.0
    out = jax.jit(sweep._sweep_block, static_argnames=("metric", "k", "sign"))(
        *args, metric=metric, k=k, sign=sign
    )
    return tuple(np.asarray(a) for a in out)


SWEEP_CASES = [
    # n, m, d, metric, k, maximize
    (37, 300, 2, "sqeuclidean", 16, False),
    (20, 129, 3, "euclidean", 5, True),
    (9, 7, 1, "cityblock", 7, False),
    (33, 64, 5, "sqeuclidean", 1, True),
]


def _assert_same_sweep(got, want, metric):
    """Two sweeps of integer points: the same columns (ties included) and
    costs; Euclidean costs (square roots) up to an ulp, as a GPU's
    ``sqrt`` in XLA may round apart from IEEE's."""
    np.testing.assert_array_equal(got[0], want[0])
    for g, w in zip(got[1:], want[1:], strict=True):
        if metric == "euclidean":
            np.testing.assert_allclose(g, w, rtol=2 * np.finfo(g.dtype).eps, atol=0)
        else:
            np.testing.assert_array_equal(g, w)


def _check_sweep(X, u, Y, v, metric, k, maximize, device):
    """The kernel's sweep on ``device``: on integer points (exact squared and
    city-block costs, many ties) equal to XLA's ``top_k`` sweep entry for
    entry; on random points a valid least-k list (float64 reference, up to
    rounding)."""
    got = _fused(X, u, Y, v, metric, k, maximize, device)
    if np.array_equal(X, np.round(X)) and np.array_equal(Y, np.round(Y)):
        want = _reference(X, u, Y, v, metric, k, maximize, device)
        _assert_same_sweep(got, want, metric)
        return
    cols, cost, cost_max = got
    sign = -1.0 if maximize else 1.0
    C = sign * cdist(X.astype(np.float64), Y.astype(np.float64), CDIST[metric])
    R = C - u[:, None].astype(np.float64) - v[None, :].astype(np.float64)
    tol = 1e-4 * max(1.0, np.abs(R).max())
    kth = np.sort(R, axis=1)[:, k - 1]
    picked = np.take_along_axis(R, cols, 1)
    assert all(np.unique(row).size == k for row in cols)
    assert np.all(picked <= kth[:, None] + tol)
    assert np.all(np.diff(picked, axis=1) >= -tol)
    np.testing.assert_allclose(cost, np.take_along_axis(C, cols, 1), rtol=1e-5, atol=tol)
    np.testing.assert_allclose(cost_max, np.abs(C).max(axis=1), rtol=1e-5)


def _sweep_inputs(n, m, d, grid):
    """Points and prices ``X, u, Y, v`` (float32) of a sweep: small integers
    where ``grid`` (exact costs, many ties, duplicate points), else
    uniform."""
    rng = np.random.default_rng(n * m + d)
    if grid:
        X = rng.integers(0, 4, (n, d)).astype(np.float32)
        Y = rng.integers(0, 4, (m, d)).astype(np.float32)
        return (
            X,
            rng.integers(-2, 3, n).astype(np.float32),
            Y,
            rng.integers(-2, 3, m).astype(np.float32),
        )
    X, Y = rng.random((n, d), dtype=np.float32), rng.random((m, d), dtype=np.float32)
    return X, rng.random(n, dtype=np.float32), Y, rng.random(m, dtype=np.float32)


@pytest.mark.parametrize("n, m, d, metric, k, maximize", SWEEP_CASES)
@pytest.mark.parametrize("grid", [False, True])
def test_sweep_kernel_on_the_cpu(n, m, d, metric, k, maximize, grid):
    X, u, Y, v = _sweep_inputs(n, m, d, grid)
    _check_sweep(X, u, Y, v, metric, k, maximize, jax.devices("cpu")[0])


@pytest.mark.parametrize("grid", [False, True])
def test_sweep_kernel_on_the_cpu_in_many_row_ranges(grid):
    # 8,000 pairs of dimensions per row: ranges of 32 rows
    # (points/points_cpu.cc), 47 of them over XLA's CPU threads, the last one
    # short.
    X, u, Y, v = _sweep_inputs(1500, 4000, 2, grid)
    _check_sweep(X, u, Y, v, "sqeuclidean", 16, False, jax.devices("cpu")[0])


def test_sweeps_visit_scrambled_columns_and_return_their_numbers():
    X, u, Y, v = _sweep_inputs(300, 700, 2, False)
    order = sweep.scrambled_columns(700)
    assert np.array_equal(np.sort(order), np.arange(700)) and not np.array_equal(
        order, np.sort(order)
    )
    cpu = jax.devices("cpu")[0]
    got = sweep.sweep_pairs(X, Y, u, v, metric="sqeuclidean", k=8, sign=1.0, devices=(cpu,))
    # Distinct reduced costs: the kernel on the columns in their own order
    # picks the same pairs.
    cols, cost, cost_max = _fused(X, u, Y, v, "sqeuclidean", 8, False, cpu)
    np.testing.assert_array_equal(got.cols, cols)
    np.testing.assert_array_equal(got.cost, cost)
    np.testing.assert_array_equal(got.cost_max, cost_max)


def _float64_nan_and_inf(device):
    """float64 points; a NaN reduced cost (an infinite cost less an infinite
    price) ranks first, an infinite cost makes the row's largest |cost|
    infinite, as in XLA's sweep."""
    rng = np.random.default_rng(3)
    with jax.enable_x64(True):
        X = rng.integers(0, 5, (12, 2)).astype(np.float64)
        Y = rng.integers(0, 5, (40, 2)).astype(np.float64)
        u, v = np.zeros(12), rng.integers(-3, 3, 40).astype(np.float64)
        _check_sweep(X, u, Y, v, "sqeuclidean", 16, False, device)
        X[0, 0] = 1e200  # costs of row 0 overflow to inf
        v[5] = np.inf  # inf - inf in row 0, column 5
        got = _fused(X, u, Y, v, "sqeuclidean", 4, False, device)
        want = _reference(X, u, Y, v, "sqeuclidean", 4, False, device)
        _assert_same_sweep(got, want, "sqeuclidean")
        assert got[0][0, 0] == 5 and got[2][0] == np.inf


def _signed_zeros_one_lane_and_wide_points(device):
    """-0 (a maximized zero cost) ranks as +0, by column, in the kernel and
    in XLA's sweep; the least pairs of a row all in one lane's columns
    (every 32nd); points of 40 dimensions."""
    X = np.zeros((1, 2), np.float32)
    Y = np.array([[1, 0], [0, 0], [1, 0], [0, 0]], np.float32)
    u, v = np.zeros(1, np.float32), np.array([-1, 0, -1, 0], np.float32)
    got = _fused(X, u, Y, v, "sqeuclidean", 4, True, device)
    np.testing.assert_array_equal(got[0], [[0, 1, 2, 3]])
    _assert_same_sweep(got, _reference(X, u, Y, v, "sqeuclidean", 4, True, device), "sqeuclidean")
    X, u, Y, v = _sweep_inputs(5, 700, 2, True)
    v[::32] += 100.0  # columns 0, 32, 64, ... (one lane's) rank first
    got = _fused(X, u, Y, v, "cityblock", 16, False, device)
    assert np.all(got[0] % 32 == 0)
    _assert_same_sweep(got, _reference(X, u, Y, v, "cityblock", 16, False, device), "cityblock")
    X, u, Y, v = _sweep_inputs(20, 90, 40, False)
    _check_sweep(X, u, Y, v, "euclidean", 16, True, device)


def test_sweep_kernel_in_float64_and_with_nan_and_infinite_costs():
    _float64_nan_and_inf(jax.devices("cpu")[0])


def test_sweep_kernel_signed_zeros_one_lane_and_wide_points():
    _signed_zeros_one_lane_and_wide_points(jax.devices("cpu")[0])


@pytest.mark.gpu
def test_sweep_kernel_edge_cases_on_a_gpu():
    _float64_nan_and_inf(jax.devices("gpu")[0])
    _signed_zeros_one_lane_and_wide_points(jax.devices("gpu")[0])


@pytest.mark.parametrize(
    "n, m, d, k, y_dtype, message",
    [
        (3, 20, 2, 17, np.float32, "k must be in [1, min(16, m)]"),
        (3, 5, 2, 6, np.float32, "k must be in [1, min(16, m)]"),
        (3, 20, 513, 4, np.float32, "points of more than 512 dimensions"),
        (3, 20, 2, 4, np.float64, "X and YT differ in dtype"),
    ],
)
def test_sweep_kernel_rejects_bad_operands(n, m, d, k, y_dtype, message):
    """The handler's own checks (the solver never sends such operands)."""
    rng = np.random.default_rng(0)
    with jax.enable_x64(True):
        X, u = rng.random((n, d)).astype(np.float32), np.zeros(n, np.float32)
        YT, v = rng.random((d, m)).astype(y_dtype), np.zeros(m, np.float32)
        with pytest.raises(Exception, match=re.escape(message)):
            jax.block_until_ready(
                points_ffi.points_sweep(X, u, YT, v, metric="sqeuclidean", k=k, negate=False)
            )


def test_sweep_kernel_rejects_integer_points():
    Xi = np.ones((3, 2), np.int32)
    with pytest.raises(Exception, match="points must be float32 or float64"):
        jax.block_until_ready(
            points_ffi.points_sweep(
                Xi, Xi[:, 0], Xi.T, Xi[:, 0], metric="cityblock", k=2, negate=False
            )
        )


def test_solves_take_the_kernel_or_xla_by_metric_k_dimension_and_device(monkeypatch):
    cpu = jax.devices("cpu")[0]
    assert sweep.fused_sweep("sqeuclidean", 16, 2, cpu)
    assert sweep.fused_sweep("cityblock", 1, 512, cpu)
    assert not sweep.fused_sweep("euclidean", 17, 2, cpu)
    assert not sweep.fused_sweep("euclidean", 16, 513, cpu)
    assert not sweep.fused_sweep("euclidean", 16, 0, cpu)
    assert not sweep.fused_sweep(lambda x, y: jnp.sum(x * y), 16, 2, cpu)

    class _Gpu:
        platform = "gpu"

    monkeypatch.setattr(sweep._ffi, "has_cuda", lambda: False)
    assert not sweep.fused_sweep("sqeuclidean", 16, 2, _Gpu())  # no CUDA library: XLA
    monkeypatch.setattr(sweep._ffi, "has_cuda", lambda: True)
    assert sweep.fused_sweep("sqeuclidean", 16, 2, _Gpu())
    assert not sweep.fused_sweep("sqeuclidean", 16, 2, type("Tpu", (), {"platform": "tpu"})())
    blocks: list = []
    sweep_program = sweep._sweep_program

    def spy(*args):
        blocks.append(args[3])
        return sweep_program(*args)

    monkeypatch.setattr(sweep, "_sweep_program", spy)
    rng = np.random.default_rng(23)
    X, Y = rng.random((150, 2)).astype(np.float32), rng.random((150, 2)).astype(np.float32)
    want = jaxmatch.solve_lap_points(X, Y, candidates=20)  # k > 16: XLA's sweeps
    assert blocks and all(b is not None for b in blocks)
    blocks.clear()
    got = jaxmatch.solve_lap_points(X, Y, candidates=16)
    assert blocks and all(b is None for b in blocks)  # the kernel
    _check(X, Y, got)
    assert got.cost == pytest.approx(want.cost, rel=1e-6)


@pytest.mark.gpu
@pytest.mark.parametrize(
    "n, m, d, metric, k, maximize",
    SWEEP_CASES
    + [
        # Several of the kernel's 1024-column tiles, the last one short.
        (3000, 2500, 2, "sqeuclidean", 16, False),
        (70, 2100, 3, "euclidean", 9, True),
        (41, 1030, 1, "cityblock", 16, False),
    ],
)
@pytest.mark.parametrize("grid", [False, True])
def test_sweep_kernel_on_a_gpu(n, m, d, metric, k, maximize, grid):
    """The CUDA kernel passes the CPU's checks, and on integer points
    equals the CPU kernel entry for entry (Euclidean costs up to an ulp)."""
    X, u, Y, v = _sweep_inputs(n, m, d, grid)
    gpu = jax.devices("gpu")[0]
    _check_sweep(X, u, Y, v, metric, k, maximize, gpu)
    if grid:
        cpu_out = _fused(X, u, Y, v, metric, k, maximize, jax.devices("cpu")[0])
        gpu_out = _fused(X, u, Y, v, metric, k, maximize, gpu)
        _assert_same_sweep(gpu_out, cpu_out, metric)


def test_z_order_of_a_grid_and_of_degenerate_sets():
    """A 4 x 4 grid in Z order (y the less significant bit of each level);
    one dimension: sorted order; repeated points and zero dimensions keep
    their order; beyond 62 dimensions the first 62 decide."""
    xs, ys = np.meshgrid(np.arange(4), np.arange(4), indexing="ij")
    grid = np.stack([xs.ravel(), ys.ravel()], 1).astype(np.float32)  # index 4 x + y
    got = [tuple(grid[i].astype(int)) for i in points_order.z_order(grid)]
    quads = [[(0, 0), (0, 1), (1, 0), (1, 1)]]
    quads += [[(a + 2 * i, b + 2 * j) for a, b in quads[0]] for i, j in ((0, 1), (1, 0), (1, 1))]
    assert got == [p for q in quads for p in q]
    line = np.random.default_rng(1).random((50, 1))
    np.testing.assert_array_equal(points_order.z_order(line), np.argsort(line[:, 0], kind="stable"))
    np.testing.assert_array_equal(points_order.z_order(np.ones((5, 3))), np.arange(5))
    np.testing.assert_array_equal(points_order.z_order(np.zeros((4, 0))), np.arange(4))
    wide = np.random.default_rng(2).random((30, 70))
    np.testing.assert_array_equal(points_order.z_order(wide), points_order.z_order(wide[:, :62]))


def test_z_order_of_coordinates_spanning_most_of_float64():
    # Every solve numbers its points along the curve: a span beyond
    # float64's range (but finite coordinates) must neither warn nor fail.
    P = np.array([[1.7e308, 0.0], [-1.7e308, 1.0], [0.0, 0.5]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(points_order.z_order(P), [2, 1, 0])


@pytest.mark.parametrize("n", [2, 7, 1000])
def test_stratified_half_takes_one_point_of_each_pair_along_the_curve(n):
    P = np.random.default_rng(n).random((n, 3))
    order = points_order.z_order(P)
    half = points_order.stratified_half(P, np.random.default_rng(0))
    assert half.shape == (n // 2,) and np.all(np.diff(half) > 0)
    position = np.empty(n, int)
    position[order] = np.arange(n)
    np.testing.assert_array_equal(np.sort(position[half] // 2), np.arange(n // 2))


def test_ties_duplicates_and_integer_grids():
    g = np.arange(6, dtype=np.float64)
    grid = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    X = np.concatenate([grid, grid[:10]])  # duplicated points
    Y = np.concatenate([grid[::-1], grid[5:15]])
    for metric in ("cityblock", "sqeuclidean"):
        _check(X, Y, jaxmatch.solve_lap_points(X, Y, metric=metric), metric)
    same = np.zeros((9, 3))  # every cost 0
    sol = jaxmatch.solve_lap_points(same, same)
    _check(same, same, sol)
    assert sol.cost == 0.0


def test_permuting_the_points_permutes_the_assignment_cost_unchanged():
    rng = np.random.default_rng(8)
    X, Y = rng.random((80, 2)), rng.random((90, 2))
    base = jaxmatch.solve_lap_points(X, Y)
    p, q = rng.permutation(80), rng.permutation(90)
    perm = jaxmatch.solve_lap_points(X[p], Y[q])
    _check(X[p], Y[q], perm)
    assert perm.cost == pytest.approx(base.cost, rel=1e-12)


def test_function_metric():
    def cubed(x, y):
        return jnp.sum(jnp.abs(x - y) ** 3)

    rng = np.random.default_rng(9)
    X, Y = rng.random((50, 3)), rng.random((64, 3))
    sol = jaxmatch.solve_lap_points(X, Y, metric=cubed)
    _check(X, Y, sol, cubed)
    back = jaxmatch.solve_lap_points(Y, X, metric=cubed)  # n > m: solved transposed
    assert back.cost == pytest.approx(sol.cost, rel=1e-12)


def _one_way(x, y):
    """An asymmetric cost: c(x, y) != c(y, x)."""
    return jnp.sum(jnp.maximum(x - y, 0.0)) + 0.5 * jnp.sum(jnp.maximum(y - x, 0.0)) ** 2


@pytest.mark.parametrize("n, m, maximize", [(60, 60, False), (40, 70, True), (70, 40, False)])
def test_asymmetric_function_metric(n, m, maximize):
    """The cost is metric(x_i, y_j) in every sweep: the candidates from the
    columns' side and a tall problem (solved as Y against X) swap the
    arguments back."""
    rng = np.random.default_rng(n + m)
    X, Y = rng.random((n, 2)), rng.random((m, 2))
    sol = jaxmatch.solve_lap_points(X, Y, metric=_one_way, maximize=maximize)
    _check(X, Y, sol, _one_way, maximize=maximize)


def test_asymmetric_function_metric_with_the_multiscale_start(monkeypatch):
    monkeypatch.setattr(points_solve, "MULTISCALE_MIN_POINTS", 60)
    rng = np.random.default_rng(5)
    X, Y = rng.random((250, 2)), rng.random((250, 2))
    _check(X, Y, jaxmatch.solve_lap_points(X, Y, metric=_one_way), _one_way)


@pytest.mark.parametrize("n, m", [(0, 0), (0, 4), (4, 0), (1, 1), (1, 5), (5, 1)])
def test_empty_and_single_point_sets(n, m):
    rng = np.random.default_rng(n + 10 * m)
    X, Y = rng.random((n, 2)), rng.random((m, 2))
    sol = jaxmatch.solve_lap_points(X, Y)
    assert sol.status == LAPStatus.OPTIMAL
    assert np.count_nonzero(sol.col_for_row >= 0) == min(n, m)
    assert jaxmatch.verify_lap_points(X, Y, sol).optimal
    if n and m:
        _check(X, Y, sol)


def test_jax_inputs_and_the_default_device_context():
    rng = np.random.default_rng(11)
    X, Y = jnp.asarray(rng.random((30, 2))), jnp.asarray(rng.random((30, 2)))
    with jax.default_device(jax.devices("cpu")[0]):
        sol = jaxmatch.solve_lap_points(X, Y)
    _check(np.asarray(X), np.asarray(Y), sol)


@pytest.mark.gpu
def test_gpu_sweeps_give_the_cpu_optimum():
    rng = np.random.default_rng(12)
    X, Y = rng.random((3000, 2)).astype(np.float32), rng.random((3000, 2)).astype(np.float32)
    gpu = jaxmatch.solve_lap_points(X, Y, devices=jax.devices("gpu")[:1])
    cpu = jaxmatch.solve_lap_points(X, Y, devices=jax.devices("cpu")[:1])
    assert gpu.status == cpu.status == LAPStatus.OPTIMAL
    assert gpu.cost == pytest.approx(cpu.cost, rel=1e-9)
    assert jaxmatch.verify_lap_points(X, Y, gpu).optimal


def test_rows_split_over_forced_cpu_devices():
    """Three forced CPU devices (an odd count: padded rows) sweep the rows
    of one problem: the answer equals one device's."""
    script = textwrap.dedent(
        """
        import os
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=3"
        import jax, numpy as np, jaxmatch
        assert jax.device_count() == 3
        rng = np.random.default_rng(0)
        X, Y = rng.random((301, 2)), rng.random((350, 2))
        one = jaxmatch.solve_lap_points(X, Y, devices=jax.devices()[:1])
        three = jaxmatch.solve_lap_points(X, Y)
        assert one.status == three.status == 1, (one.status, three.status)
        assert abs(one.cost - three.cost) <= 1e-12 * one.cost, (one.cost, three.cost)
        assert jaxmatch.verify_lap_points(X, Y, three).optimal
        print("split rows: OK")
        """
    )
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert "split rows: OK" in proc.stdout


# ---- the sparse solver's warm start (sparse/sparse_jv.h, SparseLapJv::SolveFrom)


def _csr(C: np.ndarray):
    rows, cols = np.nonzero(np.isfinite(C))
    indptr = np.zeros(C.shape[0] + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=C.shape[0]), out=indptr[1:])
    return indptr, cols.astype(np.int32), C[rows, cols]


@pytest.mark.parametrize("bound", [0, 1, 16])
def test_sparse_warm_start_from_a_subgraph_solution(bound):
    rng = np.random.default_rng(13)
    n = 60
    C = rng.random((n, n))
    sub = np.where(rng.random((n, n)) < 0.2, C, np.inf)
    sub[np.arange(n), rng.permutation(n)] = C[np.arange(n), rng.permutation(n)]
    sub[np.arange(n), np.arange(n)] = C[np.arange(n), np.arange(n)]
    first = sparse_ffi.solve_sparse_host(*_csr(sub), n, n, row_reduction_bound=bound)
    assert first.status == LAPStatus.OPTIMAL
    warm = sparse_ffi.solve_sparse_host(
        *_csr(C), n, n, warm=(first.col_for_row, first.v), row_reduction_bound=bound
    )
    cold = sparse_ffi.solve_sparse_host(*_csr(C), n, n, row_reduction_bound=bound)
    r, c = linear_sum_assignment(C)
    for sol in (warm, cold):
        assert sol.status == LAPStatus.OPTIMAL
        assert C[np.arange(n), sol.col_for_row].sum() == pytest.approx(C[r, c].sum(), rel=1e-12)
        res = jaxmatch.LAPResult(sol.col_for_row, sol.row_for_col, 0.0, sol.u, sol.v, True, 0, 1)
        assert jaxmatch.verify_lap(C, res).optimal


def test_sparse_warm_start_from_the_optimum_needs_no_search():
    rng = np.random.default_rng(14)
    C = rng.random((40, 40))
    cold = sparse_ffi.solve_sparse_host(*_csr(C), 40, 40)
    again = sparse_ffi.solve_sparse_host(*_csr(C), 40, 40, warm=(cold.col_for_row, cold.v))
    np.testing.assert_array_equal(again.col_for_row, cold.col_for_row)
    np.testing.assert_array_equal(again.v, cold.v)


def test_sparse_warm_start_needs_a_square_problem():
    with pytest.raises(ValueError, match="square"):
        sparse_ffi.solve_sparse_host(*_csr(np.ones((2, 3))), 2, 3, warm=(np.zeros(2), np.zeros(3)))
    with pytest.raises(ValueError, match="a warm start of shapes"):
        sparse_ffi.solve_sparse_host(*_csr(np.ones((2, 2))), 2, 2, warm=(np.zeros(3), np.zeros(2)))


# ---- errors and the checker


@pytest.mark.parametrize(
    "X, Y, kwargs, error, match",
    [
        (np.zeros(3), np.zeros((3, 1)), {}, ValueError, "2-D"),
        (np.zeros((3, 2)), np.zeros((3, 3)), {}, ValueError, "dimensions"),
        (np.full((2, 2), np.nan), np.zeros((2, 2)), {}, ValueError, "NaN"),
        (np.zeros((2, 2)), np.full((2, 2), np.inf), {}, ValueError, "infinite"),
        (np.zeros((2, 2), complex), np.zeros((2, 2)), {}, TypeError, "real"),
        (np.zeros((2, 2)), np.zeros((2, 2)), {"metric": "cosine"}, ValueError, "metric"),
        (np.zeros((2, 2)), np.zeros((2, 2)), {"candidates": 0}, ValueError, "at least 1"),
        (np.zeros((2, 2)), np.zeros((2, 2)), {"max_iterations": 0}, ValueError, "at least 1"),
        (np.zeros((2, 2)), np.zeros((2, 2)), {"devices": []}, ValueError, "devices"),
        (
            np.zeros((3, 2)),
            np.ones((3, 2)),
            {"metric": lambda x, y: jnp.log(jnp.sum(x - y) + 2.0)},
            ValueError,
            "NaN or infinite costs",
        ),
    ],
)
def test_bad_input_is_a_clear_error(X, Y, kwargs, error, match):
    with pytest.raises(error, match=match):
        jaxmatch.solve_lap_points(X, Y, **kwargs)


def test_the_checker_rejects_wrong_solutions():
    rng = np.random.default_rng(15)
    X, Y = rng.random((20, 2)), rng.random((20, 2))
    sol = jaxmatch.solve_lap_points(X, Y)
    assert jaxmatch.verify_lap_points(X, Y, sol).optimal
    cfr = sol.col_for_row.copy()
    cfr[[0, 1]] = cfr[[1, 0]]
    rfc = np.argsort(cfr).astype(np.int32)
    swapped = jaxmatch.verify_lap_points(X, Y, sol._replace(col_for_row=cfr, row_for_col=rfc))
    assert swapped.valid_assignment and not swapped.optimal
    u = sol.u.copy()
    u[3] += 0.1
    assert not jaxmatch.verify_lap_points(X, Y, sol._replace(u=u)).dual_feasible
    twice = sol.col_for_row.copy()
    twice[0] = twice[1]
    twice_cert = jaxmatch.verify_lap_points(X, Y, sol._replace(col_for_row=twice))
    assert "full matching" in twice_cert.reason
    assert "fit" in jaxmatch.verify_lap_points(X, Y[:5], sol).reason
    far = sol.col_for_row.copy()
    far[0] = 20
    assert "out of range" in jaxmatch.verify_lap_points(X, Y, sol._replace(col_for_row=far)).reason
    rfc_off = sol.row_for_col.copy()
    rfc_off[[0, 1]] = rfc_off[[1, 0]]
    off = jaxmatch.verify_lap_points(X, Y, sol._replace(row_for_col=rfc_off))
    assert "disagree" in off.reason
    nan_v = sol.v.copy()
    nan_v[0] = np.nan
    assert "NaN" in jaxmatch.verify_lap_points(X, Y, sol._replace(v=nan_v)).reason
