"""The CPU kernel of unassigned costs (``jaxmatch_lap_solve_unassigned``,
the JV of ``cuda_ffi/lap/jv/jv_cpu.h``) called through its binding
``jaxmatch.lap._ffi.lap_solve_unassigned``: the objective against scipy on
the padded square problem and against brute force, every result's
assignment and LP duals checked."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from lap_cases import unassigned_optimum

from jaxmatch import LAPStatus
from jaxmatch.lap import _ffi as lap_ffi

DTYPES = [np.float32, np.float64, np.int32]
INT32_MAX = np.iinfo(np.int32).max


# ------------------------------------------------------------------ oracles


def brute_optimum(C, r, c):
    """The optimum over every partial assignment (tiny problems)."""
    C = np.asarray(C, np.float64)
    n, m = C.shape
    best = np.inf
    for k in range(min(n, m) + 1):
        for rows in itertools.combinations(range(n), k):
            for cols in itertools.permutations(range(m), k):
                cost = C[list(rows), list(cols)].sum()
                cost += np.sum(np.delete(np.asarray(r, np.float64), rows))
                cost += np.sum(np.delete(np.asarray(c, np.float64), cols))
                best = min(best, cost)
    return best


def check(C, r, c, res, *, exact_objective=None):
    """One problem's result: optimal status, a consistent assignment of
    finite pairs, the LP duals' conditions, and the objective (scipy's on
    the padded problem unless given). Returns the objective."""
    C, r, c = np.asarray(C), np.asarray(r), np.asarray(c)
    n, m = C.shape
    cfr, rfc = np.asarray(res.col_for_row), np.asarray(res.row_for_col)
    u = np.asarray(res.u).astype(np.float64)
    v = np.asarray(res.v).astype(np.float64)
    info = np.asarray(res.info)
    assert int(info[lap_ffi._ffi.constant("LAP_INFO_STATUS")]) == LAPStatus.OPTIMAL
    assert cfr.shape == (n,) and rfc.shape == (m,)
    assert res.u.dtype == C.dtype and res.v.dtype == C.dtype
    # The assignment: inverse maps over the matched pairs, finite ones.
    matched = np.flatnonzero(cfr >= 0)
    assert np.all(cfr >= -1) and np.all(cfr < m) and np.all(rfc >= -1) and np.all(rfc < n)
    np.testing.assert_array_equal(rfc[cfr[matched]], matched)
    assert np.count_nonzero(rfc >= 0) == matched.size
    Cf = C.astype(np.float64)
    assert np.all(np.isfinite(Cf[matched, cfr[matched]]))
    free_rows, free_cols = cfr < 0, rfc < 0
    objective = Cf[matched, cfr[matched]].sum() + r[free_rows].sum(dtype=np.float64)
    objective += c[free_cols].sum(dtype=np.float64)
    # The duals: exact for int32, within the rounding of C's dtype else.
    scale = 1.0 + max(
        np.max(np.abs(Cf[np.isfinite(Cf)]), initial=0.0),
        np.max(np.abs(r), initial=0.0),
        np.max(np.abs(c), initial=0.0),
    )
    tol = 0.0 if C.dtype == np.int32 else 16 * np.finfo(C.dtype).eps * scale
    slack = Cf - u[:, None] - v[None, :]
    assert np.all(slack[np.isfinite(Cf)] >= -tol)
    assert np.all(u <= r + tol) and np.all(v <= c + tol)
    np.testing.assert_allclose(slack[matched, cfr[matched]], 0.0, atol=tol)
    np.testing.assert_allclose(u[free_rows], r[free_rows], atol=tol, rtol=0)
    np.testing.assert_allclose(v[free_cols], c[free_cols], atol=tol, rtol=0)
    total_tol = tol * (n + m + 1)
    np.testing.assert_allclose(u.sum() + v.sum(), objective, atol=total_tol, rtol=0)
    best = unassigned_optimum(C, r, c) if exact_objective is None else exact_objective
    if C.dtype == np.int32:
        assert objective == best
    else:
        np.testing.assert_allclose(objective, best, atol=total_tol, rtol=0)
    return objective


def member(res, index):
    return lap_ffi.Solution(*(np.asarray(f)[index] for f in res))


def status_of(res):
    return np.asarray(lap_ffi.info_field(res.info, "STATUS"))


def random_problem(rng, n, m, dtype, *, low=-5, high=10):
    """Costs and per-vertex prices, integers for int32 and reals else."""
    if dtype == np.int32:
        C = rng.integers(low, high, (n, m))
        r, c = rng.integers(low, high, n), rng.integers(low, high, m)
    else:
        C = rng.uniform(low, high, (n, m))
        r, c = rng.uniform(low, high, n), rng.uniform(low, high, m)
    return C.astype(dtype), r.astype(dtype), c.astype(dtype)


solve_jit = jax.jit(lap_ffi.lap_solve_unassigned, static_argnames="max_iterations")


# -------------------------------------------------------------------- cases

SHAPES = [(0, 0), (0, 3), (3, 0), (1, 1), (1, 4), (4, 1), (5, 5), (4, 7), (7, 4), (12, 12)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("jitted", [False, True])
def test_shapes_batched_against_scipy(dtype, jitted):
    """Square, wide, tall and empty sides, a batch [B, n, m] per shape."""
    rng = np.random.default_rng(1)
    solve = solve_jit if jitted else lap_ffi.lap_solve_unassigned
    for n, m in SHAPES:
        problems = [random_problem(rng, n, m, dtype) for _ in range(4)]
        C, r, c = (np.stack(x) for x in zip(*problems))
        res = solve(jnp.asarray(C), jnp.asarray(r), jnp.asarray(c))
        assert res.col_for_row.shape == (4, n) and res.info.shape[:1] == (4,)
        for b in range(4):
            check(C[b], r[b], c[b], member(res, b))


@pytest.mark.parametrize("dtype", DTYPES)
def test_two_batch_dimensions_and_broadcast_prices(dtype):
    """C [B1, B2, n, m] with per-member prices, then with one row_cost [n]
    and col_cost [m] broadcast to every member."""
    rng = np.random.default_rng(2)
    B1, B2, n, m = 2, 3, 5, 6
    problems = [random_problem(rng, n, m, dtype) for _ in range(B1 * B2)]
    C, r, c = (np.stack(x).reshape(B1, B2, *x[0].shape) for x in zip(*problems))
    res = solve_jit(C, r, c)
    assert res.col_for_row.shape == (B1, B2, n) and res.v.shape == (B1, B2, m)
    for b1, b2 in itertools.product(range(B1), range(B2)):
        check(C[b1, b2], r[b1, b2], c[b1, b2], member(res, (b1, b2)))
    res = lap_ffi.lap_solve_unassigned(C, r[0, 0], c[0, 0])
    for b1, b2 in itertools.product(range(B1), range(B2)):
        check(C[b1, b2], r[0, 0], c[0, 0], member(res, (b1, b2)))


def test_vmap_matches_the_batched_call():
    rng = np.random.default_rng(3)
    C, r, c = (np.stack(x) for x in zip(*[random_problem(rng, 4, 6, np.float64) for _ in range(3)]))
    mapped = jax.vmap(lap_ffi.lap_solve_unassigned)(C, r, c)
    batched = lap_ffi.lap_solve_unassigned(C, r, c)
    for a, b in zip(mapped, batched):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("dtype", DTYPES)
def test_tiny_problems_against_brute_force(dtype):
    rng = np.random.default_rng(4)
    for n, m in [(1, 2), (2, 1), (2, 3), (3, 2), (3, 3)]:
        problems = [random_problem(rng, n, m, dtype) for _ in range(10)]
        C, r, c = (np.stack(x) for x in zip(*problems))
        res = lap_ffi.lap_solve_unassigned(C, r, c)
        for b in range(10):
            check(C[b], r[b], c[b], member(res, b), exact_objective=brute_optimum(C[b], r[b], c[b]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_ties(dtype):
    """Integers in [0, 3]: costs and prices tie everywhere."""
    rng = np.random.default_rng(5)
    for n, m in [(6, 6), (5, 9), (9, 5), (20, 20)]:
        C = rng.integers(0, 4, (8, n, m)).astype(dtype)
        r = rng.integers(0, 4, (8, n)).astype(dtype)
        c = rng.integers(0, 4, (8, m)).astype(dtype)
        res = lap_ffi.lap_solve_unassigned(C, r, c)
        for b in range(8):
            check(C[b], r[b], c[b], member(res, b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forbidden_pairs(dtype):
    """+inf pairs; a row whose pairs are all forbidden leaves, a column all
    forbidden stays unassigned, an all-forbidden matrix assigns nothing."""
    rng = np.random.default_rng(6)
    for n, m in [(5, 5), (4, 8), (8, 4)]:
        C, r, c = (np.stack(x) for x in zip(*[random_problem(rng, n, m, dtype) for _ in range(6)]))
        C[rng.random(C.shape) < 0.4] = np.inf
        C[:, 1, :] = np.inf
        C[:, :, 2] = np.inf
        res = lap_ffi.lap_solve_unassigned(C, r, c)
        for b in range(6):
            sol = member(res, b)
            check(C[b], r[b], c[b], sol)
            assert sol.col_for_row[1] == -1 and sol.row_for_col[2] == -1
    C = np.full((3, 4), np.inf, dtype)
    r, c = np.arange(3, dtype=dtype), np.arange(4, dtype=dtype)
    sol = lap_ffi.lap_solve_unassigned(C, r, c)
    assert check(C, r, c, sol) == r.sum() + c.sum()
    assert np.all(np.asarray(sol.col_for_row) == -1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scalar_like_prices(dtype):
    """One price everywhere (MATLAB's matchpairs): low, matching nothing;
    high, matching as many pairs as a full assignment; and between."""
    rng = np.random.default_rng(7)
    C = rng.integers(0, 100, (3, 7, 9)).astype(dtype)
    for price in [-1, 0, 20, 50, 1000]:
        r, c = np.full(7, price, dtype), np.full(9, price, dtype)
        res = lap_ffi.lap_solve_unassigned(C, r, c)
        for b in range(3):
            sol = member(res, b)
            check(C[b], r, c, sol)
            matched = np.count_nonzero(sol.col_for_row >= 0)
            if price < 0:
                assert matched == 0  # every pair costs more than leaving both
            if price == 1000:
                assert matched == 7


@pytest.mark.parametrize("dtype", DTYPES)
def test_negative_prices(dtype):
    """Negative prices reward leaving rows and columns out."""
    rng = np.random.default_rng(8)
    for n, m in [(6, 6), (4, 9), (9, 4)]:
        C, r, c = (
            np.stack(x)
            for x in zip(*[random_problem(rng, n, m, dtype, low=-20, high=5) for _ in range(6)])
        )
        res = lap_ffi.lap_solve_unassigned(C, r, c)
        for b in range(6):
            check(C[b], r[b], c[b], member(res, b))


def test_int32_total_beyond_int32_is_overflow():
    """Matching both pairs is optimal (3e9 against 8e9) but its total does
    not fit int32: OVERFLOW, nothing assigned."""
    C = np.full((2, 2), 1_500_000_000, np.int32)
    r = c = np.full(2, 2_000_000_000, np.int32)
    res = lap_ffi.lap_solve_unassigned(C, r, c)
    assert status_of(res) == LAPStatus.OVERFLOW
    assert np.all(np.asarray(res.col_for_row) == -1) and np.all(np.asarray(res.row_for_col) == -1)
    # Near the edge but fitting: optimal.
    C = np.full((2, 2), 1_000_000_000, np.int32)
    r = c = np.full(2, INT32_MAX, np.int32)
    assert check(C, r, c, lap_ffi.lap_solve_unassigned(C, r, c)) == 2_000_000_000


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_invalid_entries(dtype):
    """NaN or -inf in C, a non-finite price: INVALID_ENTRIES, nothing
    assigned; the other members of the batch are solved."""
    rng = np.random.default_rng(9)
    C, r, c = (np.stack(x) for x in zip(*[random_problem(rng, 4, 5, dtype) for _ in range(6)]))
    C[0, 1, 2] = np.nan
    C[1, 3, 0] = -np.inf
    r[2, 1] = np.nan
    r[3, 0] = np.inf
    c[4, 4] = -np.inf
    res = solve_jit(C, r, c)
    np.testing.assert_array_equal(status_of(res)[:5], [LAPStatus.INVALID_ENTRIES] * 5)
    assert np.all(np.asarray(res.col_for_row)[:5] == -1)
    assert np.all(np.asarray(res.row_for_col)[:5] == -1)
    check(C[5], r[5], c[5], member(res, 5))


def test_iteration_limit():
    """A problem the start leaves two searches (its +inf entries keep it
    off the square route)."""
    inf = np.inf
    C = np.array([[5, inf, 2, 0], [2, inf, 5, inf], [0, 4, inf, 1], [4, 5, 4, 4]], np.float32)
    r = c = np.full(4, 100, np.float32)
    res = solve_jit(C, r, c, max_iterations=1)
    assert status_of(res) == LAPStatus.ITERATION_LIMIT
    assert np.all(np.asarray(res.col_for_row) == -1)
    res = solve_jit(C, r, c, max_iterations=2)
    check(C, r, c, res)
    assert int(lap_ffi.info_field(res.info, "ITERS")) == 2


def test_operand_errors_name_the_operand():
    C = jnp.zeros((3, 4), jnp.float32)
    with pytest.raises(Exception, match="row_cost must have the cost matrix's dtype"):
        jax.block_until_ready(
            lap_ffi.lap_solve_unassigned(C, jnp.zeros(3, jnp.float64), jnp.zeros(4, jnp.float32))
        )
    with pytest.raises(Exception, match=r"col_cost has the wrong shape"):
        jax.block_until_ready(
            lap_ffi.lap_solve_unassigned(C, jnp.zeros(3, jnp.float32), jnp.zeros(5, jnp.float32))
        )
    with pytest.raises(Exception, match="max_iterations must be >= 0"):
        jax.block_until_ready(
            lap_ffi.lap_solve_unassigned(
                C, jnp.zeros(3, jnp.float32), jnp.zeros(4, jnp.float32), max_iterations=-1
            )
        )


def test_randomized_sweep():
    """A few hundred small problems of random shapes, dtypes, price levels
    and densities of forbidden pairs, one batch per draw."""
    rng = np.random.default_rng(10)
    solved = 0
    for draw in range(24):
        n, m = int(rng.integers(0, 9)), int(rng.integers(0, 9))
        dtype = DTYPES[draw % 3]
        high = int(rng.choice([4, 20, 1000]))
        problems = [random_problem(rng, n, m, dtype, low=-high // 4, high=high) for _ in range(12)]
        C, r, c = (np.stack(x) for x in zip(*problems))
        if dtype != np.int32 and draw % 2:
            C[rng.random(C.shape) < 0.3] = np.inf
        res = lap_ffi.lap_solve_unassigned(C, r, c)
        for b in range(12):
            check(C[b], r[b], c[b], member(res, b))
            solved += 1
    assert solved == 288
