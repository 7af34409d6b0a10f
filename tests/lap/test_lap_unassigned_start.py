"""The start of the CPU's unassigned-cost JV (``cuda_ffi/lap/jv/jv_cpu.h``):
the greedy that knows each row's exit, then one search per row it left
free, and the square problems where no pair costs more than leaving its
row and its column (C_ij <= r_i + c_j), solved as a plain LAP whose duals
are shifted under the prices. Problems chosen against the start (ties,
equal prices, forbidden rows and columns, prices at 0 and negative, the
bound met with equality, tall and wide), each checked against scipy on the
padded square problem with its LP duals (a square whose bound holds only up
to rounding often has the plain LAP's duals fail their prices by an ulp: the
solve then starts again with the exits); and the searches the start leaves."""

from __future__ import annotations

import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from test_lap_unassigned_kernel import check, member, status_of

import jaxmatch
from jaxmatch import LAPStatus
from jaxmatch.lap import _ffi as lap_ffi

DTYPES = [np.float32, np.float64, np.int32]

solve_jit = jax.jit(lap_ffi.lap_solve_unassigned, static_argnames="max_iterations")


def searches(res) -> int:
    return int(lap_ffi.info_field(res.info, "ITERS"))


def greedy_free_rows(C, r, c) -> int:
    """The rows the greedy start (each row, in turn, to its least C_ij -
    c_j, ties to the first column from i mod m on, when that column is free
    and no dearer than r_i; to its exit when r_i is no dearer) leaves free:
    one search each."""
    D = np.asarray(C, np.float64) - np.asarray(c, np.float64)[None, :]
    n, m = D.shape
    taken = np.zeros(m, bool)
    free = 0
    for i in range(n):
        order = (np.arange(m) + i % max(m, 1)) % max(m, 1)
        k = order[np.argmin(D[i, order])] if m else -1
        least = D[i, k] if m else np.inf
        if m and not taken[k] and least <= r[i]:
            taken[k] = True
        elif not r[i] <= least:
            free += 1
    return free


def adversarial(rng, n, m, dtype, kind):
    """Costs and prices of one kind, chosen against the start."""
    ints = dtype == np.int32
    if kind == "ties":  # few distinct values: ties among costs and prices
        C = rng.integers(0, 3, (n, m))
        r, c = rng.integers(0, 3, n), rng.integers(0, 3, m)
    elif kind == "equal_prices":  # one price everywhere, costs around it
        C = rng.integers(0, 10, (n, m)) if ints else rng.uniform(0, 10, (n, m))
        p = rng.integers(1, 7) if ints else rng.uniform(1, 7)
        r, c = np.full(n, p), np.full(m, p)
    elif kind == "zero_prices":  # leaving is free: only negative pairs match
        C = rng.integers(-5, 5, (n, m)) if ints else rng.uniform(-5, 5, (n, m))
        r, c = np.zeros(n), np.zeros(m)
    elif kind == "negative_prices":
        C = rng.integers(-12, 3, (n, m)) if ints else rng.uniform(-12, 3, (n, m))
        r = rng.integers(-6, 0, n) if ints else rng.uniform(-6, 0, n)
        c = rng.integers(-6, 0, m) if ints else rng.uniform(-6, 0, m)
    elif kind == "bound_met":  # C_ij <= r_i + c_j, with equality on many pairs
        r = rng.integers(0, 4, n) if ints else rng.integers(0, 4, n) / 4
        c = rng.integers(0, 4, m) if ints else rng.integers(0, 4, m) / 4
        C = r[:, None] + c[None, :] - (rng.random((n, m)) < 0.5) * rng.integers(0, 3, (n, m))
    elif kind == "bound_rounded":  # C_ij = r_i + c_j rounded, or an ulp below
        scale = 10.0 ** rng.integers(-3, 4)
        r, c = rng.uniform(-1, 1, n) * scale, rng.uniform(-1, 1, m) * scale
        if ints:
            r, c = np.round(r * 1000), np.round(c * 1000)
        r, c = r.astype(dtype), c.astype(dtype)
        C = (r.astype(np.float64)[:, None] + c[None, :]).astype(dtype)
        if not ints:
            C = np.where(rng.random((n, m)) < 0.5, C, np.nextafter(C, -np.inf))
    elif kind == "bound_broken_once":  # the bound fails on one pair only
        r = rng.integers(0, 4, n) if ints else rng.uniform(0, 1, n)
        c = rng.integers(0, 4, m) if ints else rng.uniform(0, 1, m)
        C = r[:, None] + c[None, :] - rng.integers(0, 4, (n, m))
        if n and m:
            C[rng.integers(n), rng.integers(m)] += 100
    else:  # "uniform", prices so high that every row would rather match
        C = rng.integers(0, 1000, (n, m)) if ints else rng.random((n, m))
        r, c = np.full(n, 10**6), np.full(m, 10**6)
    return C.astype(dtype), np.asarray(r).astype(dtype), np.asarray(c).astype(dtype)


def batch(rng, n, m, dtype, kind, size):
    """`size` problems of one kind stacked: C [size, n, m], r, c."""
    problems = [adversarial(rng, n, m, dtype, kind) for _ in range(size)]
    return tuple(np.stack(x) for x in zip(*problems))


KINDS = [
    "ties",
    "equal_prices",
    "zero_prices",
    "negative_prices",
    "bound_met",
    "bound_rounded",
    "bound_broken_once",
    "uniform",
]
SHAPES = [(1, 1), (2, 2), (5, 5), (9, 9), (3, 8), (8, 3), (16, 16), (12, 30), (30, 12)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind", KINDS)
def test_adversarial_starts_against_scipy(dtype, kind):
    """Every kind on square, wide and tall shapes, a batch of 6 per shape."""
    rng = np.random.default_rng(zlib.crc32(f"{kind} {np.dtype(dtype)}".encode()))
    for n, m in SHAPES:
        C, r, c = (
            np.stack(x) for x in zip(*[adversarial(rng, n, m, dtype, kind) for _ in range(6)])
        )
        res = lap_ffi.lap_solve_unassigned(C, r, c)
        for b in range(6):
            check(C[b], r[b], c[b], member(res, b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["ties", "equal_prices", "bound_met", "uniform"])
def test_forbidden_rows_and_columns(dtype, kind):
    """+inf pairs, whole rows and columns of them: such a row can only leave
    (its exit is its only finite choice), such a column stays unassigned;
    squares with +inf never take the plain LAP's route."""
    rng = np.random.default_rng(11)
    for n, m in [(6, 6), (10, 10), (5, 9), (9, 5)]:
        C, r, c = (
            np.stack(x) for x in zip(*[adversarial(rng, n, m, dtype, kind) for _ in range(6)])
        )
        C[rng.random(C.shape) < 0.3] = np.inf
        C[:, 0, :] = np.inf
        C[:, :, m - 1] = np.inf
        res = lap_ffi.lap_solve_unassigned(C, r, c)
        for b in range(6):
            sol = member(res, b)
            check(C[b], r[b], c[b], sol)
            assert sol.col_for_row[0] == -1 and sol.row_for_col[m - 1] == -1


@pytest.mark.parametrize("dtype", DTYPES)
def test_randomized_sweep_of_starts(dtype):
    """Random shapes up to 24, every kind, half of the floats' batches with
    forbidden pairs."""
    rng = np.random.default_rng(12)
    for draw in range(30):
        n, m = (int(x) for x in rng.integers(0, 25, 2))
        kind = KINDS[draw % len(KINDS)]
        C, r, c = (
            np.stack(x) for x in zip(*[adversarial(rng, n, m, dtype, kind) for _ in range(4)])
        )
        if dtype != np.int32 and draw % 2:
            C[rng.random(C.shape) < 0.2] = np.inf
        res = lap_ffi.lap_solve_unassigned(C, r, c)
        for b in range(4):
            check(C[b], r[b], c[b], member(res, b))


@pytest.mark.parametrize("dtype", DTYPES)
def test_square_below_the_prices_takes_the_plain_solve(dtype):
    """A square problem with every pair below its row's and column's prices
    is solved as the plain LAP (the same searches as solve_lap's JV), its
    duals shifted so that v <= c with equality somewhere and u <= r."""
    rng = np.random.default_rng(13)
    C = (
        rng.integers(0, 10**5, (300, 300)) if dtype == np.int32 else rng.random((300, 300))
    ).astype(dtype)
    r, c = np.full(300, 10**6, dtype), np.full(300, 10**6, dtype)
    res = solve_jit(C, r, c)
    check(C, r, c, res)
    plain = jaxmatch.solve_lap(jnp.asarray(C), method="jv")
    assert searches(res) == int(plain.iterations)
    assert searches(res) < greedy_free_rows(C, r, c) // 2
    assert np.max(np.asarray(res.v)) == c[0]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(200, 400), (300, 300), (40, 50)])
def test_one_search_per_row_the_greedy_leaves(dtype, shape):
    """Where the plain LAP's route is closed (wide; square with a tenth of
    the rows left out, tracking-like: Euclidean distances between random
    points, the price near the nearest neighbours' distances), the solve
    searches exactly once from each row the greedy start left free."""
    n, m = shape
    rng = np.random.default_rng(14)
    a, b = rng.random((n, 2)), rng.random((m, 2))
    C = np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1))
    price = 0.055 if n == m else 10.0
    if dtype == np.int32:
        C, price = np.floor(C * 10**5), price * 10**5
    C = C.astype(dtype)
    r, c = np.full(n, price, dtype), np.full(m, price, dtype)
    res = solve_jit(C, r, c)
    check(C, r, c, res)
    left = np.count_nonzero(np.asarray(res.col_for_row) < 0)
    assert n // 20 <= left <= n // 5 if n == m else left == 0
    free = greedy_free_rows(C, r, c)
    assert free > 0
    assert searches(res) == free


@pytest.mark.parametrize("square", [True, False])
def test_iteration_limit_counts_every_search(square):
    """The limit holds on both routes: fewer searches than the solve needs
    give ITERATION_LIMIT and nothing assigned; as many give the optimum."""
    rng = np.random.default_rng(15)
    n, m = (60, 60) if square else (60, 90)
    C = rng.random((n, m))
    r, c = np.full(n, 1e3), np.full(m, 1e3)
    full = solve_jit(C, r, c)
    check(C, r, c, full)
    needed = searches(full)
    assert needed >= 2
    res = solve_jit(C, r, c, max_iterations=needed - 1)
    assert status_of(res) == LAPStatus.ITERATION_LIMIT
    assert np.all(np.asarray(res.col_for_row) == -1)
    res = solve_jit(C, r, c, max_iterations=needed)
    check(C, r, c, res)
    assert searches(res) == needed
