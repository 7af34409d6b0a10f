"""Warm starts of the tree and classical variants (``"auto"`` on a GPU
above ``LAPTuning.jv_max_rows`` rows), in
both execution shapes, on every back end: a square problem starts from the
earlier column prices and the pairs tight there; a rectangular one starts
cold. Any ``init`` gives the certified optimum."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from test_lap_warm import check_optimal, nearby_problems

import jaxmatch
from jaxmatch import LAPResult

VARIANTS = [
    ("tree", "fused"),
    ("tree", "stepped"),
    ("classical", "fused"),
    ("classical", "stepped"),
]


@pytest.mark.parametrize("method, execution", VARIANTS)
@pytest.mark.parametrize("shape", [(1, 1), (40, 40), (25, 40), (40, 25)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("maximize", [False, True])
def test_warm_start_from_a_nearby_problem_is_optimal(
    device, method, execution, shape, dtype, maximize
):
    rng = np.random.default_rng(sum(shape) + 7 * maximize)
    for trial in range(3):
        A, B = nearby_problems(rng, shape, dtype, trial)
        kw = dict(maximize=maximize, method=method, execution=execution)
        earlier = jaxmatch.solve_lap(A, **kw)
        check_optimal(B, jax.device_get(jaxmatch.solve_lap(B, init=earlier, **kw)), maximize)


@pytest.mark.parametrize("method, execution", VARIANTS)
def test_an_unchanged_problem_needs_no_iteration(device, method, execution):
    """Integer duals are exact: from its own result every row keeps its
    column and the main loop does not run."""
    C = np.random.default_rng(0).integers(0, 1000, (60, 60)).astype(np.int32)
    earlier = jaxmatch.solve_lap(C, method=method, execution=execution)
    res = jax.device_get(jaxmatch.solve_lap(C, method=method, execution=execution, init=earlier))
    check_optimal(C, res)
    assert int(res.iterations) == 0
    np.testing.assert_array_equal(res.col_for_row, earlier.col_for_row)


def _garbage_init(rng, n, m, dtype, scale):
    finite = rng.normal(0, scale, m)
    v = np.where(rng.random(m) < 0.2, np.nan, finite) if dtype == np.float32 else finite
    v = np.clip(v, -(2.0**31), 2.0**31 - 1) if dtype == np.int32 else v
    v = jnp.asarray(v.astype(dtype))
    if dtype == np.float32:
        v = v.at[0].set(jnp.inf)
    return LAPResult(
        col_for_row=jnp.asarray(rng.integers(-3, m + 3, n), jnp.int32),
        row_for_col=jnp.asarray(rng.integers(-3, n + 3, m), jnp.int32),
        cost=jnp.zeros((), dtype),
        u=jnp.asarray(rng.normal(0, scale, n).clip(-1e9, 1e9).astype(dtype)),
        v=v,
        feasible=jnp.bool_(False),
        iterations=jnp.int32(0),
        status=jnp.int32(0),
    )


@pytest.mark.parametrize("method, execution", VARIANTS)
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_any_init_gives_the_optimum(device, method, execution, dtype):
    """Repeated and out-of-range columns, huge (int32: past the clamp of
    2^29), infinite and NaN prices never spoil the answer."""
    rng = np.random.default_rng(1)
    for trial in range(6):
        shape = ((30, 30), (20, 30), (30, 20))[trial % 3]
        C = rng.random(shape)
        C = (np.round(C * 3) if trial % 2 else C * 1000).astype(dtype)  # ties
        init = _garbage_init(rng, *shape, dtype, scale=10.0 ** (2 * trial))
        res = jaxmatch.solve_lap(C, method=method, execution=execution, init=init)
        check_optimal(C, jax.device_get(res))


@pytest.mark.parametrize("method, execution", VARIANTS)
def test_a_rectangular_problem_starts_cold(device, method, execution):
    rng = np.random.default_rng(2)
    A, B = rng.random((2, 20, 35)).astype(np.float32)
    kw = dict(method=method, execution=execution)
    warm = jax.device_get(jaxmatch.solve_lap(B, init=jaxmatch.solve_lap(A, **kw), **kw))
    cold = jax.device_get(jaxmatch.solve_lap(B, **kw))
    check_optimal(B, warm)
    for name, x, y in zip(warm._fields, warm, cold):
        np.testing.assert_array_equal(x, y, err_msg=name)


@pytest.mark.parametrize("method, execution", VARIANTS)
def test_warm_start_under_jit_and_vmap(device, method, execution):
    rng = np.random.default_rng(4)
    A = rng.random((6, 15, 15)).astype(np.float32)
    B = (A + 0.01 * rng.standard_normal(A.shape)).astype(np.float32)
    kw = dict(method=method, execution=execution)
    earlier = jaxmatch.solve_lap(A, **kw)
    batched = jax.jit(lambda B, init: jaxmatch.solve_lap(B, init=init, **kw))(B, earlier)
    mapped = jax.jit(jax.vmap(lambda b, init: jaxmatch.solve_lap(b, init=init, **kw)))(B, earlier)
    for k in range(6):
        member = jax.device_get(jax.tree.map(lambda x, k=k: x[k], batched))
        check_optimal(B[k], member)
        np.testing.assert_array_equal(member.col_for_row, mapped.col_for_row[k])


@pytest.mark.parametrize("method, execution", [("tree", "fused"), ("tree", "stepped")])
def test_a_tracking_sequence_needs_fewer_iterations(device, method, execution):
    """Squared distances of points that move a little each frame: from the
    previous frame's result the main loop runs fewer iterations."""
    rng = np.random.default_rng(6)
    P, Q = rng.random((300, 2)), rng.random((300, 2))

    def costs(P):
        return ((P[:, None] - Q[None]) ** 2).sum(-1).astype(np.float32)

    kw = dict(method=method, execution=execution)
    prev = jaxmatch.solve_lap(costs(P), **kw)
    warm_iters = cold_iters = 0
    for _ in range(4):
        P = P + 0.002 * rng.standard_normal(P.shape)
        C = costs(P)
        cold = jax.device_get(jaxmatch.solve_lap(C, **kw))
        warm = jax.device_get(jaxmatch.solve_lap(C, init=prev, **kw))
        check_optimal(C, warm)
        assert float(warm.cost) == pytest.approx(float(cold.cost), rel=1e-6)
        warm_iters += int(warm.iterations)
        cold_iters += int(cold.iterations)
        prev = warm
    assert 2 * warm_iters < cold_iters, (warm_iters, cold_iters)
