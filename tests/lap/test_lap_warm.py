"""Warm starts: ``solve_lap(C, init=earlier_result)``.

Any ``init`` must give an optimal, certified answer (the optimum of ``C``,
whatever the earlier problem was); a good one (the result of a nearby
problem) keeps most rows. Here JV on the CPU; the tree and classical
variants' warm starts (every back end) are in ``test_lap_warm_variants.py``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.optimize

import jaxmatch
from jaxmatch import LAPResult, LAPStatus


def scipy_cost(C: np.ndarray, maximize: bool) -> float:
    rows, cols = scipy.optimize.linear_sum_assignment(C, maximize=maximize)
    return float(C[rows, cols].astype(np.float64).sum())


def check_optimal(C, res, maximize=False):
    assert int(res.status) == LAPStatus.OPTIMAL
    assert bool(jaxmatch.verify_lap(C, res, maximize=maximize).optimal)
    np.testing.assert_allclose(float(res.cost), scipy_cost(np.asarray(C), maximize), rtol=1e-5)


@pytest.fixture(autouse=True)
def on_the_cpu():
    with jax.default_device(jax.devices("cpu")[0]):
        yield


def nearby_problems(rng, shape, dtype, trial):
    """Costs ``A`` and ``B`` a little apart (int32: few-valued on odd
    trials, so with ties)."""
    if dtype == np.int32:
        A = rng.integers(0, 6 if trial % 2 else 1000, shape).astype(dtype)
        return A, (A + rng.integers(-1, 2, shape)).astype(dtype)
    A = rng.random(shape).astype(dtype)
    return A, (A + 0.01 * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("shape", [(1, 1), (7, 7), (40, 40), (25, 40), (40, 25)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("maximize", [False, True])
@pytest.mark.parametrize("method", ["auto", "jv"])
def test_warm_start_from_a_nearby_problem_is_optimal(shape, dtype, maximize, method):
    rng = np.random.default_rng(sum(shape) + 7 * maximize)
    for trial in range(4):
        A, B = nearby_problems(rng, shape, dtype, trial)
        earlier = jaxmatch.solve_lap(A, maximize=maximize, method=method)
        res = jaxmatch.solve_lap(B, maximize=maximize, method=method, init=earlier)
        check_optimal(B, res, maximize)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_an_unchanged_problem_keeps_its_rows(dtype):
    """Integer duals are exact: every row keeps its column. Float prices
    carry rounding (JV's price updates; float32 stores float64 prices), so a
    row whose column ties its best within an ulp may be searched again."""
    C = (np.random.default_rng(0).random((60, 60)) * 1000).astype(dtype)
    earlier = jaxmatch.solve_lap(C)
    res = jaxmatch.solve_lap(C, init=earlier)
    check_optimal(C, res)
    if dtype == np.int32:
        assert int(res.iterations) == 0
        np.testing.assert_array_equal(res.col_for_row, earlier.col_for_row)
    else:
        assert int(res.iterations) <= 6


@pytest.mark.parametrize("shape", [(30, 30), (20, 30), (30, 20)])
def test_any_init_gives_the_optimum(shape):
    """Garbage in init (repeated and out-of-range columns, huge, infinite and
    NaN prices) never spoils the answer."""
    rng = np.random.default_rng(1)
    n, m = shape
    for trial in range(10):
        C = rng.random(shape).astype(np.float32)
        if trial % 3 == 0:
            C = np.round(C * 3).astype(np.float32)  # ties
        init = LAPResult(
            col_for_row=jnp.asarray(rng.integers(-3, m + 3, n), jnp.int32),
            row_for_col=jnp.asarray(rng.integers(-3, n + 3, m), jnp.int32),
            cost=jnp.float32(0),
            u=jnp.asarray(rng.normal(0, 10**trial, n), jnp.float32),
            v=jnp.asarray(
                np.where(rng.random(m) < 0.2, np.nan, rng.normal(0, 10**trial, m)), jnp.float32
            )
            .at[0]
            .set(jnp.inf),
            feasible=jnp.bool_(False),
            iterations=jnp.int32(0),
            status=jnp.int32(0),
        )
        check_optimal(C, jaxmatch.solve_lap(C, init=init))


def test_warm_start_from_an_infeasible_solve_and_to_one():
    rng = np.random.default_rng(2)
    C = rng.random((12, 12)).astype(np.float32)
    bad = C.copy()
    bad[3, :] = np.inf  # row 3 has no allowed column
    earlier = jaxmatch.solve_lap(bad)
    assert int(earlier.status) == LAPStatus.INFEASIBLE
    check_optimal(C, jaxmatch.solve_lap(C, init=earlier))
    good = jaxmatch.solve_lap(C)
    assert int(jaxmatch.solve_lap(bad, init=good).status) == LAPStatus.INFEASIBLE


def test_forbidden_entries_with_a_warm_start():
    rng = np.random.default_rng(3)
    for _ in range(5):
        A = rng.random((20, 20)).astype(np.float32)
        A[rng.random((20, 20)) < 0.3] = np.inf
        np.fill_diagonal(A, 1.0)  # keeps it feasible
        B = np.where(np.isfinite(A), A + 0.01 * rng.random((20, 20)), np.inf).astype(np.float32)
        res = jaxmatch.solve_lap(B, init=jaxmatch.solve_lap(A))
        check_optimal(B, res)


def test_warm_start_under_jit_and_vmap():
    rng = np.random.default_rng(4)
    A = rng.random((6, 15, 15)).astype(np.float32)
    B = (A + 0.01 * rng.standard_normal(A.shape)).astype(np.float32)
    earlier = jaxmatch.solve_lap(A)
    batched = jax.jit(lambda B, init: jaxmatch.solve_lap(B, init=init))(B, earlier)
    mapped = jax.jit(jax.vmap(lambda b, init: jaxmatch.solve_lap(b, init=init)))(B, earlier)
    for k in range(6):
        member = jax.tree.map(lambda x, k=k: x[k], batched)
        check_optimal(B[k], member)
        np.testing.assert_array_equal(member.col_for_row, mapped.col_for_row[k])


def test_gradient_through_a_warm_start():
    rng = np.random.default_rng(5)
    C = jnp.asarray(rng.random((8, 8)), jnp.float32)
    earlier = jaxmatch.solve_lap(C)
    grad = jax.grad(lambda C: jaxmatch.solve_lap(C, init=earlier).cost)(C)
    expected = jnp.zeros((8, 8)).at[jnp.arange(8), earlier.col_for_row].set(1.0)
    np.testing.assert_array_equal(grad, expected)


def test_a_tracking_sequence_keeps_most_rows():
    """Squared distances of points that move a little each frame: from the
    previous frame's result JV searches for fewer rows than from scratch."""
    rng = np.random.default_rng(6)
    P, Q = rng.random((300, 2)), rng.random((300, 2))

    def costs(P):
        return ((P[:, None] - Q[None]) ** 2).sum(-1).astype(np.float32)

    prev = jaxmatch.solve_lap(costs(P))
    warm_searches = cold_searches = 0
    for _ in range(5):
        P = P + 0.002 * rng.standard_normal(P.shape)
        C = costs(P)
        cold = jaxmatch.solve_lap(C)
        warm = jaxmatch.solve_lap(C, init=prev)
        check_optimal(C, warm)
        assert float(warm.cost) == pytest.approx(float(cold.cost), rel=1e-6)
        warm_searches += int(warm.iterations)
        cold_searches += int(cold.iterations)
        prev = warm
    assert warm_searches < cold_searches


def test_warm_start_errors():
    C = np.zeros((4, 5), np.float32)
    earlier = jaxmatch.solve_lap(C)
    with pytest.raises(TypeError, match="LAPResult"):
        jaxmatch.solve_lap(C, init=(earlier.col_for_row, earlier.v))
    with pytest.raises(ValueError, match="shape"):
        jaxmatch.solve_lap(np.zeros((5, 5), np.float32), init=earlier)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(7, 7), (40, 40), (25, 40), (40, 25), (3, 90, 90)])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("maximize", [False, True])
def test_gpu_jv_warm_start_from_a_nearby_problem(shape, dtype, maximize):
    """The GPU's JV (a warp per problem) starts from an earlier solve on
    every shape, rectangular ones included: certified, the optimum."""
    rng = np.random.default_rng(sum(shape) + 3 * maximize)
    with jax.default_device(jax.devices("gpu")[0]):
        for trial in range(3):
            A, B = nearby_problems(rng, shape, dtype, trial)
            kw = dict(maximize=maximize, method="jv")
            earlier = jaxmatch.solve_lap(A, **kw)
            res = jax.device_get(jaxmatch.solve_lap(B, init=earlier, **kw))
            for b in range(B.shape[0] if B.ndim == 3 else 1):
                one = jax.tree.map(lambda x, b=b: x[b], res) if B.ndim == 3 else res
                check_optimal(B[b] if B.ndim == 3 else B, one, maximize)


@pytest.mark.gpu
def test_gpu_jv_warm_start_keeps_rows():
    """An unchanged problem restarted from its own solve needs no search
    (integer duals are exact)."""
    with jax.default_device(jax.devices("gpu")[0]):
        C = jnp.asarray(np.random.default_rng(7).integers(0, 1000, (8, 60, 60)), jnp.int32)
        earlier = jaxmatch.solve_lap(C, method="jv")
        again = jaxmatch.solve_lap(C, method="jv", init=earlier)
        assert np.all(np.asarray(again.iterations) == 0)
        np.testing.assert_array_equal(
            np.asarray(again.col_for_row), np.asarray(earlier.col_for_row)
        )
