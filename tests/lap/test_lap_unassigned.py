"""solve_lap / hungarian / verify_lap with ``unassigned_cost``: a price for
leaving a row or a column unassigned, against scipy on the padded
(n + m) x (n + m) matrix, on the CPU and the GPU."""

from __future__ import annotations

import functools
import itertools
import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from lap_cases import unassigned_optimum

import jaxmatch
from jaxmatch import LAPStatus

INT32_MIN = np.iinfo(np.int32).min


def prices(rng, n, m, dtype, kind):
    """(unassigned_cost as passed, row prices [n], column prices [m])."""
    if dtype == np.int32:
        draw = functools.partial(rng.integers, -2, 8)
    else:
        draw = functools.partial(rng.uniform, -0.5, 1.5)
    if kind == "scalar":
        s = dtype(draw())
        return s, np.full(n, s, dtype), np.full(m, s, dtype)
    r, c = np.asarray(draw(size=n), dtype), np.asarray(draw(size=m), dtype)
    return (r, c), r, c


def costs(rng, n, m, dtype, kind):
    if dtype == np.int32:
        hi = 4 if kind == "ties" else 20
        C = rng.integers(0, hi, (n, m)).astype(np.int32)
    else:
        C = rng.random((n, m)).astype(dtype)
        if kind == "ties":
            C = np.floor(C * 4).astype(dtype) / 4
        if kind == "forbidden":
            C[rng.random((n, m)) < 0.4] = np.inf
    return C


def check_one(C, unassigned, r, c, res, maximize, exact):
    assert int(res.status) == LAPStatus.OPTIMAL, res
    want = unassigned_optimum(C, r, c, maximize)
    if exact:
        assert int(res.cost) == want
    else:
        assert float(res.cost) == pytest.approx(want, rel=1e-5, abs=1e-5)
    cert = jaxmatch.verify_lap(C, res, maximize=maximize, unassigned_cost=unassigned)
    assert cert.optimal, cert
    assert cert.primal_cost == pytest.approx(want, rel=1e-5, abs=1e-5)
    cfr, rfc = np.asarray(res.col_for_row), np.asarray(res.row_for_col)
    for i, j in enumerate(cfr):
        if j >= 0:
            assert rfc[j] == i


SHAPES = [(0, 0), (0, 3), (2, 0), (1, 1), (1, 4), (4, 1), (3, 3), (5, 7), (7, 5), (6, 6)]


# int32 costs have no forbidden entries.
SWEEP = [
    (dtype, kind)
    for dtype in (np.float32, np.float64, np.int32)
    for kind in ("uniform", "ties", "forbidden")
    if not (dtype == np.int32 and kind == "forbidden")
]


@pytest.mark.parametrize(("dtype", "kind"), SWEEP)
def test_sweep_against_unassigned_optimum(device, dtype, kind):
    rng = np.random.default_rng(zlib.crc32(f"{np.dtype(dtype)} {kind}".encode()))
    for (n, m), form, maximize in itertools.product(SHAPES, ["scalar", "pair"], [False, True]):
        for _ in range(3):
            C = costs(rng, n, m, dtype, kind)
            if maximize and kind == "forbidden":
                C = np.where(np.isinf(C), -np.inf, C)
            unassigned, r, c = prices(rng, n, m, dtype, form)
            res = jaxmatch.solve_lap(C, maximize=maximize, unassigned_cost=unassigned)
            check_one(C, unassigned, r, c, res, maximize, exact=dtype == np.int32)


def test_matchpairs_example(device):
    """Hand-checked: a pair is matched when its cost is below the prices of
    its row and column left unassigned."""
    C = np.array([[1.0, 100.0], [100.0, 2.0]])
    both = jaxmatch.solve_lap(C, unassigned_cost=1.2)
    np.testing.assert_array_equal(both.col_for_row, [0, 1])
    assert float(both.cost) == pytest.approx(3.0)
    one = jaxmatch.solve_lap(C, unassigned_cost=0.9)
    np.testing.assert_array_equal(one.col_for_row, [0, -1])
    np.testing.assert_array_equal(one.row_for_col, [0, -1])
    assert float(one.cost) == pytest.approx(1.0 + 2 * 0.9)
    np.testing.assert_array_equal(jaxmatch.hungarian(C, unassigned_cost=0.9), [0, -1])
    none = jaxmatch.solve_lap(C, unassigned_cost=0.4)
    np.testing.assert_array_equal(none.col_for_row, [-1, -1])
    assert float(none.cost) == pytest.approx(4 * 0.4)
    np.testing.assert_allclose(none.u, [0.4, 0.4])
    np.testing.assert_allclose(none.v, [0.4, 0.4])
    # maximizing: prices are what staying unassigned earns
    R = np.array([[1.0, 100.0], [30.0, 2.0]])
    best = jaxmatch.solve_lap(R, maximize=True, unassigned_cost=20.0)
    np.testing.assert_array_equal(best.col_for_row, [1, -1])  # 30 < 2 * 20
    assert float(best.cost) == pytest.approx(100.0 + 2 * 20.0)


def test_high_prices_give_the_plain_assignment(device):
    rng = np.random.default_rng(3)
    C = rng.random((4, 30, 30)).astype(np.float32)
    plain = jaxmatch.solve_lap(C)
    priced = jaxmatch.solve_lap(C, unassigned_cost=1e3)
    np.testing.assert_allclose(priced.cost, plain.cost, rtol=1e-5)
    assert np.all(np.asarray(priced.col_for_row) >= 0)
    wide = rng.random((20, 35)).astype(np.float32)
    res = jaxmatch.solve_lap(wide, unassigned_cost=(np.float32(1e3), np.float32(0)))
    assert float(res.cost) == pytest.approx(float(jaxmatch.solve_lap(wide).cost), rel=1e-5)


def test_batches_jit_vmap_and_traced_maximize(device):
    rng = np.random.default_rng(7)
    C = rng.random((2, 3, 6, 8)).astype(np.float32)
    r = rng.uniform(0, 1, (2, 3, 6)).astype(np.float32)
    c = rng.uniform(0, 1, (8,)).astype(np.float32)  # broadcast over the batch
    flags = np.array([[False, True, False], [True, True, False]])

    @jax.jit
    def solve(C, r, c, flags):
        return jaxmatch.solve_lap(C, maximize=flags, unassigned_cost=(r, c))

    res = solve(C, r, c, flags)
    batched = jax.jit(
        jax.vmap(
            jax.vmap(lambda C, r: jaxmatch.solve_lap(C, unassigned_cost=(r, c)), (0, 0)), (0, 0)
        )
    )(C, r)
    eager = jaxmatch.solve_lap(C, unassigned_cost=(r, c))
    np.testing.assert_array_equal(batched.col_for_row, eager.col_for_row)
    for b in itertools.product(range(2), range(3)):
        one = jax.tree.map(lambda x, b=b: x[b], res)
        check_one(C[b], (r[b], c), r[b], c, one, bool(flags[b]), exact=False)
        assert float(batched.cost[b]) == pytest.approx(unassigned_optimum(C[b], r[b], c), abs=1e-5)


def test_integer_overflow_and_invalid_entries(device):
    big = np.int32(2**30)
    res = jaxmatch.solve_lap(np.zeros((0, 3), np.int32), unassigned_cost=big)
    assert int(res.status) == LAPStatus.OVERFLOW  # 3 * 2**30 does not fit int32
    C = np.full((3, 3), 2**30 + 5, np.int32)
    res = jaxmatch.solve_lap(C, unassigned_cost=big)  # three pairs of 2**30 + 5
    assert int(res.status) == LAPStatus.OVERFLOW and not bool(res.feasible)
    assert np.all(np.asarray(res.col_for_row) == -1)
    res = jaxmatch.solve_lap(np.array([[INT32_MIN, 0]], np.int32), maximize=True, unassigned_cost=1)
    assert int(res.status) == LAPStatus.OVERFLOW
    F = np.array([[1.0, np.nan], [0.0, 1.0]])
    assert int(jaxmatch.solve_lap(F, unassigned_cost=1.0).status) == LAPStatus.INVALID_ENTRIES
    G = np.array([[1.0, 2.0], [0.0, 1.0]])
    for bad in (np.nan, np.inf, -np.inf):
        res = jaxmatch.solve_lap(G, unassigned_cost=(np.array([1.0, bad]), 1.0))
        assert int(res.status) == LAPStatus.INVALID_ENTRIES, bad
        empty = jaxmatch.solve_lap(np.zeros((0, 2)), unassigned_cost=bad)
        assert int(empty.status) == LAPStatus.INVALID_ENTRIES, bad


def test_iteration_limit(device):
    rng = np.random.default_rng(1)
    C = rng.random((40, 40))
    res = jaxmatch.solve_lap(C, unassigned_cost=10.0, max_iterations=1)
    assert int(res.status) == LAPStatus.ITERATION_LIMIT and not bool(res.feasible)
    assert np.all(np.asarray(res.col_for_row) == -1)


def test_gradient():
    C = jnp.array([[1.0, 100.0], [100.0, 2.0]])
    r, c = jnp.array([0.9, 0.9]), jnp.array([0.9, 0.9])

    def cost(C, r, c):
        return jaxmatch.solve_lap(C, unassigned_cost=(r, c)).cost

    dC, dr, dc = jax.grad(cost, argnums=(0, 1, 2))(C, r, c)
    np.testing.assert_array_equal(dC, [[1.0, 0.0], [0.0, 0.0]])  # pair (0, 0) assigned
    np.testing.assert_array_equal(dr, [0.0, 1.0])  # row 1 unassigned
    np.testing.assert_array_equal(dc, [0.0, 1.0])  # column 1 unassigned


def test_errors():
    C = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match="integer"):
        jaxmatch.solve_lap(np.zeros((2, 3), np.int32), unassigned_cost=0.5)
    with pytest.raises(ValueError, match="broadcast"):
        jaxmatch.solve_lap(C, unassigned_cost=(np.zeros(3), np.zeros(3)))
    with pytest.raises(ValueError, match="pair"):
        jaxmatch.solve_lap(C, unassigned_cost=np.zeros(2))
    with pytest.raises(ValueError, match="items"):
        jaxmatch.solve_lap(C, unassigned_cost=(1.0, 1.0, 1.0))
    with pytest.raises(TypeError, match="real"):
        jaxmatch.solve_lap(C, unassigned_cost="abc")
    with pytest.raises(ValueError, match="JV"):
        jaxmatch.solve_lap(C, unassigned_cost=1.0, method="tree")
    with pytest.raises(ValueError, match="JV"):
        jaxmatch.solve_lap(C, unassigned_cost=1.0, execution="stepped")
    with pytest.raises(ValueError, match="init"):
        jaxmatch.solve_lap(C, unassigned_cost=1.0, init=jaxmatch.solve_lap(C))
    with pytest.raises(OverflowError, match="int32"):
        jaxmatch.solve_lap(np.zeros((2, 2), np.int32), unassigned_cost=np.int64(2**40))


def test_certificate_rejects_what_the_oracle_rejects():
    """Every corruption of an optimal result fails the certificate, and a
    result certified optimal always has the oracle's objective."""
    rng = np.random.default_rng(11)
    for _ in range(60):
        n, m = rng.integers(1, 6, 2)
        C = rng.integers(0, 6, (n, m)).astype(np.int32)
        r, c = rng.integers(0, 5, n).astype(np.int32), rng.integers(0, 5, m).astype(np.int32)
        res = jaxmatch.solve_lap(C, unassigned_cost=(r, c))
        want = unassigned_optimum(C, r, c)
        assert jaxmatch.verify_lap(C, res, unassigned_cost=(r, c)).optimal
        cfr = np.asarray(res.col_for_row).copy()
        rfc = np.asarray(res.row_for_col).copy()
        u, v = np.asarray(res.u).copy(), np.asarray(res.v).copy()
        variants = []
        rows = np.flatnonzero(cfr >= 0)
        if rows.size:  # leave an assigned pair unassigned (duals kept)
            i = rows[0]
            a, b = cfr.copy(), rfc.copy()
            b[a[i]], a[i] = -1, -1
            variants.append((a, b, u, v))
        free = np.flatnonzero(cfr < 0)
        free_cols = np.flatnonzero(rfc < 0)
        if free.size and free_cols.size:  # assign a free row to a free column
            a, b = cfr.copy(), rfc.copy()
            a[free[0]], b[free_cols[0]] = free_cols[0], free[0]
            variants.append((a, b, u, v))
        variants.append((cfr, rfc, u + 1, v))  # shifted duals
        for a, b, du, dv in variants:
            fake = res._replace(col_for_row=a, row_for_col=b, u=du, v=dv)
            cert = jaxmatch.verify_lap(C, fake, unassigned_cost=(r, c))
            primal = (
                (C[a >= 0, a[a >= 0]].sum() if (a >= 0).any() else 0)
                + r[a < 0].sum()
                + c[b < 0].sum()
            )
            if cert.optimal:
                assert primal == want, (C, r, c, a, b)
    # prices that are not what the result was solved with
    C = np.array([[1.0, 100.0], [100.0, 2.0]])
    res = jaxmatch.solve_lap(C, unassigned_cost=0.9)
    assert jaxmatch.verify_lap(C, res, unassigned_cost=0.9).optimal
    assert not jaxmatch.verify_lap(C, res, unassigned_cost=5.0).optimal
    assert not jaxmatch.verify_lap(C, res, unassigned_cost=np.nan).optimal
    assert not jaxmatch.verify_lap(C, res).optimal  # a partial assignment: not a plain LAP


def test_jax_export_round_trip(device):
    """A serialized program with ``unassigned_cost`` runs as the original
    (the prices are operands: traced)."""
    rng = np.random.default_rng(5)
    C = rng.random((3, 5, 4)).astype(np.float32)
    r, c = rng.random((3, 5)).astype(np.float32), rng.random(4).astype(np.float32)

    def solve(C, r, c):
        return jaxmatch.solve_lap(C, unassigned_cost=(r, c))

    exported = jax.export.export(
        jax.jit(solve),
        platforms=["cuda" if device.platform == "gpu" else device.platform],
        disabled_checks=jaxmatch.export_disabled_checks(),
    )(C, r, c)
    again = jax.export.deserialize(exported.serialize())
    res, want = again.call(C, r, c), solve(C, r, c)
    for got, expected in zip(res, want, strict=True):
        np.testing.assert_array_equal(got, expected)
    for b in range(3):
        one = jax.tree.map(lambda x, b=b: x[b], res)
        assert jaxmatch.verify_lap(C[b], one, unassigned_cost=(r[b], c)).optimal
