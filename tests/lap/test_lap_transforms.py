"""jit, vmap, leading batch dimensions and grad of the LAP solvers."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jaxpr_walk import ffi_attributes
from lap_cases import EXECUTIONS, METHODS, check_against_scipy, make_costs, member

import jaxmatch


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
            check_against_scipy(C[a, b], member(res, a, b), maximize=False)


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
            check_against_scipy(C[a, b], member(res, a, b), maximize=False)


@pytest.mark.parametrize("execution", EXECUTIONS)
@pytest.mark.parametrize("method", METHODS)
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
    infeasible[: n // 2, n // 2 + 1 :] = np.inf
    nan = rng.random((n, n))
    nan[3, 4] = np.nan
    C = np.stack([easy, hard, infeasible, ties, nan, hard.T])
    f = jax.jit(jax.vmap(lambda c: jaxmatch.solve_lap(c, method=method, execution=execution)))
    res = jax.device_get(f(C))
    np.testing.assert_array_equal(res.feasible, [True, True, False, True, False, True])
    assert res.status[2] == jaxmatch.LAPStatus.INFEASIBLE
    assert res.status[4] == jaxmatch.LAPStatus.INVALID_ENTRIES
    for b in (0, 1, 3, 5):
        check_against_scipy(C[b], member(res, b), False)


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
    np.testing.assert_array_equal(primal.col_for_row, jaxmatch.solve_lap(C).col_for_row)
    assert tangent.col_for_row.dtype == jax.dtypes.float0
    assert tangent.feasible.dtype == jax.dtypes.float0
    np.testing.assert_allclose(tangent.cost, 4.0)  # sum of dC over the assignment


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_maximize_traced_under_jit(device, execution):
    """``jax.jit(hungarian)(C, maximize=True)`` traces ``maximize``; the result
    equals the static one, the duals have the maximization's signs."""
    C = _rand(10, 9, 7)  # tall: the transposed path flips the duals too
    for maximize in (False, True):
        cols = jax.jit(jaxmatch.hungarian)(C, maximize=maximize)
        np.testing.assert_array_equal(cols, jaxmatch.hungarian(C, maximize=maximize))
        f = jax.jit(lambda c, mx: jaxmatch.solve_lap(c, maximize=mx, execution=execution))
        res = jax.device_get(f(C, maximize))
        static = jax.device_get(jaxmatch.solve_lap(C, maximize=maximize, execution=execution))
        for got, want in zip(res, static):
            np.testing.assert_array_equal(got, want)
        check_against_scipy(C, res, maximize=maximize)
    # A concrete array is accepted as well.
    res = jax.device_get(jaxmatch.solve_lap(C, maximize=jnp.asarray(True)))
    check_against_scipy(C, res, maximize=True)


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_vmap_over_maximize(device, execution):
    C = _rand(11, 6, 8, 5)
    flags = np.array([True, False, False, True, True, False])

    def solve(c, mx):
        return jaxmatch.solve_lap(c, maximize=mx, execution=execution)

    both = jax.device_get(jax.jit(jax.vmap(solve))(C, flags))
    shared = jax.device_get(jax.vmap(solve, in_axes=(None, 0))(C[0], flags))
    per_member = jax.device_get(solve(C, flags))  # a [batch] array, no vmap
    for b, mx in enumerate(flags):
        check_against_scipy(C[b], member(both, b), maximize=bool(mx))
        check_against_scipy(C[0], member(shared, b), maximize=bool(mx))
        np.testing.assert_array_equal(per_member.col_for_row[b], both.col_for_row[b])
        np.testing.assert_array_equal(per_member.u[b], both.u[b])


def test_grad_with_traced_maximize(device):
    C = jnp.asarray(_rand(12, 4, 6, 6, dtype=np.float64))
    flags = jnp.asarray([True, False, True, False])

    def total(c, mx):
        return jaxmatch.solve_lap(c, maximize=mx).cost.sum()

    g = jax.device_get(jax.jit(jax.grad(total))(C, flags))
    for b in range(4):
        cols = np.asarray(jaxmatch.hungarian(C[b], maximize=bool(flags[b])))
        X = np.zeros((6, 6))
        X[np.arange(6), cols] = 1.0
        np.testing.assert_array_equal(g[b], X)
    primal, tangent = jax.jvp(
        lambda c: jaxmatch.solve_lap(c, maximize=flags[0]), (C[0],), (jnp.ones_like(C[0]),)
    )
    assert tangent.col_for_row.dtype == jax.dtypes.float0
    np.testing.assert_allclose(tangent.cost, 6.0)
    assert bool(primal.feasible)


def test_tuning_values_passed_as_tuning_take_effect():
    """LAPTuning's fused_max_columns / jv_max_rows /
    jv_float_warp_max_columns / jv_int_warp_max_columns /
    jv_float_min_columns / jv_float_max_columns / forest_min_tied_rows /
    forest_wide_columns / stepped_iterations_per_call, passed as
    ``tuning=``, are read when a call is traced; the defaults are today's
    values; a LAPTuning is a frozen, hashable value (static under jit)."""
    default = jaxmatch.LAPTuning()
    assert default.fused_max_columns == 1024
    assert default.stepped_iterations_per_call == 4
    C = _rand(13, 6, 6)
    tuning = default

    def tuned(**changes):
        return dataclasses.replace(tuning, **changes)

    def iterations(C=C, **kw):
        solve = lambda c: jaxmatch.solve_lap(c, tuning=tuning, **kw)  # noqa: E731
        jaxpr = jax.make_jaxpr(solve)(C)
        return sorted({int(a["iterations"]) for a in ffi_attributes(jaxpr) if "iterations" in a})

    assert default.jv_max_rows == 64
    assert iterations(execution="stepped") == [4]
    assert iterations() == []  # auto: 6 rows run JV on the GPU
    tuning = tuned(stepped_iterations_per_call=7, fused_max_columns=5)
    assert iterations(execution="stepped") == [7]
    assert iterations() == []  # still JV: 6 rows
    tuning = tuned(jv_max_rows=5)
    assert default.jv_float_warp_max_columns == 255
    assert iterations() == []  # still JV: 6 float columns, a warp
    assert default.jv_int_warp_max_columns == 128
    assert iterations(C=C.astype(jnp.int32)) == []  # still JV: 6 integer columns, a warp
    tuning = tuned(jv_int_warp_max_columns=5)
    assert iterations(C=C.astype(jnp.int32)) == [7]  # integers: the stepped tree
    tuning = tuned(jv_float_warp_max_columns=5)
    assert iterations() == [7]  # auto: the GPU branch is now the stepped tree
    assert default.jv_float_min_columns == 256
    tuning = tuned(jv_float_min_columns=6)
    assert iterations() == []  # auto: JV again, on 6 float columns
    assert iterations(C=C.astype(jnp.int32)) == [7]  # integers keep the tree
    tuning = tuned(jv_float_max_columns=5)
    # 6 columns, above JV's float range again: a batch runs the stepped tree,
    # a single problem the forest (no iteration attribute).
    assert iterations(C=jnp.stack([C, C])) == [7]
    assert iterations() == []
    tuning = tuned(forest_wide_columns=7, forest_min_tied_rows=0.5, jv_float_min_columns=256)
    res = jaxmatch.solve_lap(C, execution="stepped", tuning=tuning)
    check_against_scipy(C, jax.device_get(res), False)
    assert jaxmatch.LAPTuning() == default  # values passed above change no default
    with pytest.raises(dataclasses.FrozenInstanceError):
        tuning.fused_max_columns = 6  # type: ignore[misc]
    assert hash(tuning) == hash(dataclasses.replace(tuning)) and tuning != default
    jitted = jax.jit(jaxmatch.solve_lap, static_argnames=("execution", "tuning"))
    got = jitted(C, execution="stepped", tuning=tuning)
    np.testing.assert_array_equal(np.asarray(got.col_for_row), np.asarray(res.col_for_row))
    with pytest.raises(TypeError, match="LAPTuning"):
        jaxmatch.solve_lap(C, tuning={"fused_max_columns": 6})
    for name in ("FUSED_MAX_COLUMNS", "STEPPED_ITERATIONS_PER_CALL", "JV_GPU_MAX_ROWS"):
        assert not hasattr(jaxmatch.lap, name)  # no writable module globals
