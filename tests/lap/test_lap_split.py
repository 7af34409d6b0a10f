"""One LAP split over devices by rows (``jaxmatch.solve_lap_split``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import Mesh
from scipy.optimize import linear_sum_assignment

import jaxmatch
from jaxmatch import LAPStatus

SCRIPT = Path(__file__).with_name("split_check.py")
CPU = jax.devices("cpu")[:1]


def _run_check(mode: str, env: dict[str, str]) -> None:
    env.pop("XLA_FLAGS", None)
    root = str(SCRIPT.parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), mode], capture_output=True, text=True, env=env, timeout=900
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    assert "split: OK" in proc.stdout


def test_split_over_forced_cpu_devices():
    """The oracle sweep of ``split_check.py`` on four forced CPU devices:
    shapes, dtypes, ties, maximize, forbidden entries, device counts 1-4,
    many tie-heavy seeds, a row-sharded input (``solve_lap`` gathers it
    onto one device; routed to the split solver when the planner says so),
    jit, a two-axis mesh."""
    _run_check("4", dict(os.environ, JAX_PLATFORMS="cpu"))


@pytest.mark.gpu
def test_split_sweep_on_gpus():
    """The same sweep on every GPU of the machine (the CUDA kernels; one
    GPU, or several device counts where there are). The child allocates
    as it goes: this process may already hold most of the GPUs' memory."""
    _run_check("gpu", dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false"))


def _oracle(C, maximize=False):
    r, c = linear_sum_assignment(C, maximize=maximize)
    return float(C[r, c].sum())


@pytest.mark.parametrize("shape", [(0, 0), (0, 4), (3, 0)])
def test_empty_sides(shape):
    res = jaxmatch.solve_lap_split(np.zeros(shape, np.float32), devices=CPU)
    assert int(res.status) == LAPStatus.OPTIMAL and float(res.cost) == 0.0
    assert res.col_for_row.shape == (shape[0],) and res.row_for_col.shape == (shape[1],)


def test_one_by_one_and_float64():
    res = jaxmatch.solve_lap_split(np.array([[2.5]]), devices=CPU)
    assert res.cost.dtype == jnp.float64 and float(res.cost) == 2.5
    assert np.asarray(res.col_for_row).tolist() == [0]


def test_nan_reports_invalid_entries():
    C = np.ones((4, 4), np.float32)
    C[2, 1] = np.nan
    res = jaxmatch.solve_lap_split(C, devices=CPU)
    assert int(res.status) == LAPStatus.INVALID_ENTRIES and not bool(res.feasible)
    assert np.isnan(float(res.cost)) and (np.asarray(res.col_for_row) == -1).all()


def test_minus_inf_is_invalid_when_minimizing():
    C = np.ones((3, 3))
    C[0, 0] = -np.inf
    res = jaxmatch.solve_lap_split(C, devices=CPU)
    assert int(res.status) == LAPStatus.INVALID_ENTRIES


def test_large_int32_costs_report_overflow():
    C = np.array([[1, 2], [3, 1 << 29]], np.int32)
    res = jaxmatch.solve_lap_split(C, devices=CPU)
    assert int(res.status) == LAPStatus.OVERFLOW and not bool(res.feasible)
    ok = jaxmatch.solve_lap_split(C // 4, devices=CPU)
    assert int(ok.status) == LAPStatus.OPTIMAL and int(ok.cost) == _oracle(C // 4)


def test_bool_and_int8_costs_are_cast():
    rng = np.random.default_rng(1)
    for C in (rng.random((9, 9)) < 0.5, rng.integers(-9, 9, (9, 12)).astype(np.int8)):
        res = jaxmatch.solve_lap_split(C, devices=CPU)
        assert res.u.dtype == jnp.int32 and int(res.cost) == _oracle(C.astype(np.int64))
        assert res.cost.dtype == jaxmatch.solve_lap(C).cost.dtype


def test_jit_with_a_mesh():
    mesh = Mesh(np.array(CPU), ("rows",))
    solve = jax.jit(lambda C: jaxmatch.solve_lap_split(C, mesh=mesh, axis_name="rows"))
    C = np.random.default_rng(3).random((25, 31), dtype=np.float32)
    res = solve(C)
    assert int(res.status) == LAPStatus.OPTIMAL
    assert float(res.cost) == pytest.approx(_oracle(C), rel=1e-5)
    assert jaxmatch.verify_lap(C, jax.tree.map(np.asarray, res)).optimal


def test_vmap_over_problems():
    """``jax.vmap`` solves a batch of split problems (one after another in
    each iteration; a finished member stays as it is), each equal to its
    own solve."""
    rng = np.random.default_rng(3)
    Cf = rng.random((3, 9, 11), dtype=np.float32)
    Ci = rng.integers(0, 4, (4, 12, 12)).astype(np.int32)
    for C, maximize in ((Cf, False), (Ci, False), (Ci, True)):

        def one_split(c, mx=maximize):
            return jaxmatch.solve_lap_split(c, maximize=mx, devices=CPU)

        res = jax.vmap(one_split)(jnp.asarray(C))
        for b in range(C.shape[0]):
            one = jaxmatch.solve_lap_split(C[b], maximize=maximize, devices=CPU)
            assert int(res.status[b]) == LAPStatus.OPTIMAL
            assert float(res.cost[b]) == pytest.approx(_oracle(C[b], maximize), rel=1e-6)
            np.testing.assert_array_equal(np.asarray(res.col_for_row[b]), one.col_for_row)
            assert int(res.iterations[b]) == int(one.iterations)


@pytest.mark.parametrize("per_trip", [1, 3])
def test_iterations_per_trip_change_nothing(per_trip):
    """The loop's trips of several iterations (the default
    ``LAPTuning.split_iterations_per_trip``) give the solve of one or three
    iterations per trip: the same assignment, duals and iteration count, and
    an iteration limit that is not a multiple of the trip still stops there."""
    rng = np.random.default_rng(8)
    cases = [rng.random((40, 52), dtype=np.float32), rng.integers(0, 6, (45, 45)).astype(np.int32)]
    want = [jaxmatch.solve_lap_split(C, devices=CPU) for C in cases]
    limited = jaxmatch.solve_lap_split(cases[0], devices=CPU, max_iterations=7)
    assert jaxmatch.LAPTuning().split_iterations_per_trip == 4
    tuning = jaxmatch.LAPTuning(split_iterations_per_trip=per_trip)

    def scans(t):  # the scan calls in the program: one per iteration of a trip
        solve = lambda c: jaxmatch.solve_lap_split(c, devices=CPU, tuning=t)  # noqa: E731
        return str(jax.make_jaxpr(solve)(cases[0])).count("jaxmatch_lap_split_scan")

    one_per_trip = jaxmatch.LAPTuning(split_iterations_per_trip=1)
    assert scans(tuning) == per_trip * scans(one_per_trip) > 0
    assert scans(jaxmatch.LAPTuning()) == 4 * scans(one_per_trip)
    for C, one in zip(cases, want, strict=True):
        res = jaxmatch.solve_lap_split(C, devices=CPU, tuning=tuning)
        assert int(res.status) == LAPStatus.OPTIMAL
        assert int(res.iterations) == int(one.iterations) > 1
        for got, ref in zip(res, one, strict=True):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(ref))
    res = jaxmatch.solve_lap_split(cases[0], devices=CPU, max_iterations=7, tuning=tuning)
    assert int(res.status) == int(limited.status) == LAPStatus.ITERATION_LIMIT
    assert int(res.iterations) == int(limited.iterations) == 7
    np.testing.assert_array_equal(np.asarray(res.col_for_row), np.asarray(limited.col_for_row))


def test_cost_gradient_is_the_assignment():
    C = np.random.default_rng(4).random((6, 8))
    grad = jax.grad(lambda C: jaxmatch.solve_lap_split(C, devices=CPU).cost)(jnp.asarray(C))
    r, c = linear_sum_assignment(C)
    want = np.zeros_like(C)
    want[r, c] = 1.0
    np.testing.assert_array_equal(np.asarray(grad), want)


def test_errors():
    C = np.ones((3, 3), np.float32)
    mesh = Mesh(np.array(CPU), ("rows",))
    with pytest.raises(ValueError, match="one problem"):
        jaxmatch.solve_lap_split(np.ones((2, 3, 3)), devices=CPU)
    with pytest.raises(ValueError, match="together"):
        jaxmatch.solve_lap_split(C, mesh=mesh)
    with pytest.raises(ValueError, match="no axis 'cols'"):
        jaxmatch.solve_lap_split(C, mesh=mesh, axis_name="cols")
    with pytest.raises(ValueError, match="max_iterations"):
        jaxmatch.solve_lap_split(C, devices=CPU, max_iterations=0)
    with pytest.raises(TypeError, match="maximize"):
        jaxmatch.solve_lap_split(C, devices=CPU, maximize=jnp.array(True))
    with pytest.raises(TypeError, match="complex"):
        jaxmatch.solve_lap_split(C.astype(np.complex64), devices=CPU)
    with pytest.raises(ValueError, match="at least one device"):
        jaxmatch.solve_lap_split(C, devices=[])


@pytest.mark.gpu
def test_gpus_give_the_one_gpu_optimum():
    """Every GPU of the machine splits the rows; the cost equals
    ``solve_lap``'s on one GPU, and the result is certified."""
    gpus = jax.devices("gpu")
    rng = np.random.default_rng(7)
    cases = {
        "f32": rng.random((1500, 1500), dtype=np.float32),
        "int": rng.integers(0, 1500, (1201, 1300)).astype(np.int32),
        "tall": rng.random((900, 700), dtype=np.float32),
    }
    for name, C in cases.items():
        res = jaxmatch.solve_lap_split(C, devices=gpus)
        ref = jaxmatch.solve_lap(jax.device_put(C, gpus[0]))
        assert int(res.status) == LAPStatus.OPTIMAL, (name, res.status_name)
        assert float(res.cost) == pytest.approx(float(ref.cost), rel=1e-6), name
        cert = jaxmatch.verify_lap(C, jax.tree.map(np.asarray, res))
        assert cert.optimal, (name, cert.reason)
