"""jit, vmap, leading batch dimensions and grad of the LAP solvers."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxmatch
from lap_cases import check_against_scipy, make_costs

EXECUTIONS = ["fused", "stepped"]


def _rand(seed, *shape, dtype=np.float32):
    return np.random.default_rng(seed).random(shape).astype(dtype)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_jit_matches_eager(device, execution):
    C = _rand(0, 20, 20)
    eager = jaxmatch.solve_lap(C, execution=execution)
    jitted = jax.jit(lambda c: jaxmatch.solve_lap(c, execution=execution))(C)
    np.testing.assert_array_equal(eager.col_for_row, jitted.col_for_row)
    check_against_scipy(C, jax.device_get(jitted), maximize=False)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_leading_batch_dims(device, execution):
    C = _rand(1, 3, 4, 9, 7)
    res = jax.device_get(jaxmatch.solve_lap(C, execution=execution))
    assert res.col_for_row.shape == (3, 4, 9)
    assert res.row_for_col.shape == (3, 4, 7)
    assert res.cost.shape == res.feasible.shape == (3, 4)
    for a in range(3):
        for b in range(4):
            one = jax.tree_util.tree_map(lambda x: x[a, b], res)
            check_against_scipy(C[a, b], one, maximize=False)


@pytest.mark.parametrize("execution", EXECUTIONS)
@pytest.mark.parametrize("in_axis", [0, 1, 2])
def test_vmap_in_axes(device, execution, in_axis):
    C = _rand(2, 6, 11, 11)  # batch on axis 0
    Cm = np.moveaxis(C, 0, in_axis)
    f = jax.vmap(lambda c: jaxmatch.solve_lap(c, execution=execution), in_axes=in_axis)
    res = jax.device_get(jax.jit(f)(Cm))
    assert res.col_for_row.shape == (6, 11)
    direct = jax.device_get(jaxmatch.solve_lap(C, execution=execution))
    np.testing.assert_array_equal(res.col_for_row, direct.col_for_row)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_nested_vmap_and_hungarian(device, execution):
    C = _rand(3, 2, 5, 8, 6)
    f = jax.vmap(jax.vmap(lambda c: jaxmatch.solve_lap(c, execution=execution)))
    res = jax.device_get(f(C))
    cols = jax.device_get(jax.vmap(jax.vmap(jaxmatch.hungarian))(C))
    np.testing.assert_array_equal(res.col_for_row, cols)
    for a in range(2):
        for b in range(5):
            one = jax.tree_util.tree_map(lambda x: x[a, b], res)
            check_against_scipy(C[a, b], one, maximize=False)


@pytest.mark.parametrize("execution", EXECUTIONS)
@pytest.mark.parametrize("method", ["tree", "classical"])
def test_mixed_easy_and_hard_batch(device, execution, method):
    """A batch mixing solved-at-init, hard, infeasible and invalid members:
    finished members must stay untouched while the others iterate."""
    rng = np.random.default_rng(4)
    n = 24
    easy = np.eye(n, dtype=np.float64)[::-1] * -1.0  # greedy solves it
    hard = make_costs(rng, "int_10n", n, n, np.float64)
    ties = make_costs(rng, "ties01", n, n, np.float64)
    infeasible = rng.random((n, n))
    infeasible[:, : n // 2 + 1] = np.inf
    infeasible[: n // 2, n // 2 + 1:] = np.inf
    nan = rng.random((n, n))
    nan[3, 4] = np.nan
    C = np.stack([easy, hard, infeasible, ties, nan, hard.T])
    f = jax.jit(jax.vmap(lambda c: jaxmatch.solve_lap(c, method=method, execution=execution)))
    res = jax.device_get(f(C))
    np.testing.assert_array_equal(res.feasible, [True, True, False, True, False, True])
    assert res.status[2] == jaxmatch.LAPStatus.INFEASIBLE
    assert res.status[4] == jaxmatch.LAPStatus.INVALID_ENTRIES
    for b in (0, 1, 3, 5):
        check_against_scipy(C[b], jax.tree_util.tree_map(lambda x: x[b], res), False)


def test_vmap_with_unbatched_argument(device):
    """vmap over a bias added to a shared matrix (in_axes=(None, 0))."""
    base = _rand(5, 10, 10)
    bias = _rand(6, 4, 10)
    f = jax.vmap(lambda c, b: jaxmatch.hungarian(c + b[None, :]), in_axes=(None, 0))
    cols = jax.device_get(f(base, bias))
    for k in range(4):
        res = jax.device_get(jaxmatch.solve_lap(base + bias[k][None, :]))
        np.testing.assert_array_equal(cols[k], res.col_for_row)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_grad_is_assignment_matrix(device, execution):
    rng = np.random.default_rng(7)
    n, m = 6, 8
    C = rng.random((n, m))  # float64, distinct values: a unique optimum

    def cost(c, maximize=False):
        return jaxmatch.solve_lap(c, maximize=maximize, execution=execution).cost

    for maximize in (False, True):
        g = jax.device_get(jax.grad(cost)(C, maximize))
        cols = np.asarray(jaxmatch.hungarian(C, maximize=maximize))
        X = np.zeros((n, m))
        X[np.arange(n), cols] = 1.0
        np.testing.assert_array_equal(g, X)
        # Finite differences: the optimal cost is linear near a unique optimum.
        eps = 1e-6
        for i, j in [(0, 0), (1, cols[1]), (5, 7), (3, cols[3])]:
            E = np.zeros_like(C)
            E[i, j] = eps
            fd = (float(cost(C + E, maximize)) - float(cost(C - E, maximize))) / (2 * eps)
            assert abs(fd - g[i, j]) < 1e-6, (i, j, fd, g[i, j])


def test_grad_under_jit_and_vmap(device):
    C = jnp.asarray(_rand(8, 5, 7, 7, dtype=np.float64))
    g = jax.jit(jax.vmap(jax.grad(lambda c: jaxmatch.solve_lap(c).cost)))(C)
    cols = jaxmatch.hungarian(C)
    np.testing.assert_array_equal(np.asarray(g).sum(-1), np.ones((5, 7)))
    np.testing.assert_array_equal(np.asarray(g).argmax(-1), np.asarray(cols))


def test_integer_outputs_have_no_tangent(device):
    C = _rand(9, 4, 4, dtype=np.float64)
    primal, tangent = jax.jvp(lambda c: jaxmatch.solve_lap(c), (C,), (np.ones_like(C),))
    assert tangent.col_for_row.dtype == jax.dtypes.float0
    assert tangent.feasible.dtype == jax.dtypes.float0
    np.testing.assert_allclose(tangent.cost, 4.0)  # sum of dC over the assignment
