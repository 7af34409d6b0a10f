"""The GPU kernel of unassigned costs (``jaxmatch_lap_solve_unassigned`` on
CUDA: lap/jv/jv_team.cuh's TeamJv with exits, a warp or a block per
problem) called through its binding ``jaxmatch.lap._ffi.lap_solve_unassigned``
on GPU arrays: each result against the CPU kernel's on the same problems
and against scipy on the padded square problem, its assignment and LP duals
checked (``check``), in batches of warp-sized and block-sized problems."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from test_lap_unassigned_kernel import check, member, status_of

from jaxmatch import LAPStatus
from jaxmatch.lap import _ffi as lap_ffi

pytestmark = pytest.mark.gpu

INT32_MAX = np.iinfo(np.int32).max

# (n, m): warps holding 1, 2, 4 and 8 columns a lane (costs staged in shared
# memory and not), and blocks of 256 and 512 threads holding 2 columns a
# thread and of 1024 threads searching in memory.
WARP_SHAPES = [(1, 1), (7, 30), (40, 50), (64, 64), (100, 128), (150, 200), (255, 255)]
BLOCK_SHAPES = [(100, 300), (300, 300), (600, 900), (1030, 1100), (1500, 2000)]


def gpu():
    return jax.devices("gpu")[0]


def on_gpu(*arrays):
    return [jax.device_put(np.asarray(x), gpu()) for x in arrays]


def on_cpu(*arrays):
    return [jax.device_put(np.asarray(x), jax.devices("cpu")[0]) for x in arrays]


def solve_gpu(C, r, c, **kw):
    out = lap_ffi.lap_solve_unassigned(*on_gpu(C, r, c), **kw)
    assert all(x.devices() == {gpu()} for x in out)
    return jax.device_get(out)


def solve_cpu(C, r, c, **kw):
    return jax.device_get(lap_ffi.lap_solve_unassigned(*on_cpu(C, r, c), **kw))


def problems(rng, batch, n, m, dtype, *, price=(0.2, 0.6)):
    """A batch of uniform costs with prices that leave some rows and columns
    unassigned: U[0, 1) costs and U[price) prices (int32: costs in [0, 100),
    prices in [20, 60))."""
    if dtype == np.int32:
        C = rng.integers(0, 100, (batch, n, m))
        r = rng.integers(int(100 * price[0]), int(100 * price[1]), (batch, n))
        c = rng.integers(int(100 * price[0]), int(100 * price[1]), (batch, m))
    else:
        C = rng.random((batch, n, m))
        r = rng.uniform(*price, (batch, n))
        c = rng.uniform(*price, (batch, m))
    return C.astype(dtype), r.astype(dtype), c.astype(dtype)


def assert_agrees_with_cpu(C, r, c, on_gpu_res, on_cpu_res, *, same_assignment):
    """Every member certified against scipy; the GPU's statuses and search
    counts those of the CPU (the same greedy start leaves the same rows to
    search); with `same_assignment` (costs without ties) the same assignment
    and info."""
    batch = C.shape[0]
    np.testing.assert_array_equal(status_of(on_gpu_res), status_of(on_cpu_res))
    np.testing.assert_array_equal(
        lap_ffi.info_field(on_gpu_res.info, "ITERS"), lap_ffi.info_field(on_cpu_res.info, "ITERS")
    )
    for b in range(batch):
        objective = check(C[b], r[b], c[b], member(on_gpu_res, b))
        cpu_objective = check(C[b], r[b], c[b], member(on_cpu_res, b))
        if C.dtype == np.int32:
            assert objective == cpu_objective
        else:
            np.testing.assert_allclose(objective, cpu_objective, rtol=1e-6)
    if same_assignment:
        for gpu_field, cpu_field in zip(on_gpu_res[:2], on_cpu_res[:2]):
            np.testing.assert_array_equal(gpu_field, cpu_field)
        np.testing.assert_array_equal(on_gpu_res.info, on_cpu_res.info)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("n, m", WARP_SHAPES)
def test_warp_batches_against_cpu_and_scipy(n, m, dtype):
    rng = np.random.default_rng(n * 1000 + m)
    C, r, c = problems(rng, 24, n, m, dtype)
    assert_agrees_with_cpu(
        C, r, c, solve_gpu(C, r, c), solve_cpu(C, r, c), same_assignment=dtype != np.int32
    )


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("n, m", BLOCK_SHAPES)
def test_block_batches_against_cpu_and_scipy(n, m, dtype):
    rng = np.random.default_rng(n * 1000 + m)
    batch = 4 if m <= 900 else 2
    C, r, c = problems(rng, batch, n, m, dtype)
    assert_agrees_with_cpu(
        C, r, c, solve_gpu(C, r, c), solve_cpu(C, r, c), same_assignment=dtype != np.int32
    )


@pytest.mark.parametrize("n, m", [(40, 50), (300, 300), (1030, 1100)])
def test_float64(n, m):
    rng = np.random.default_rng(11)
    C, r, c = problems(rng, 2, n, m, np.float64)
    assert_agrees_with_cpu(C, r, c, solve_gpu(C, r, c), solve_cpu(C, r, c), same_assignment=True)


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("n, m", [(40, 50), (300, 300), (1030, 1100)])
def test_ties(n, m, dtype):
    """Costs and prices in [0, 4) (quarters for float32): ties everywhere;
    any optimum will do."""
    rng = np.random.default_rng(12)
    C = rng.integers(0, 4, (3, n, m))
    r, c = rng.integers(0, 4, (3, n)), rng.integers(0, 4, (3, m))
    if dtype == np.float32:
        C, r, c = C / 4, r / 4, c / 4
    C, r, c = (x.astype(dtype) for x in (C, r, c))
    assert_agrees_with_cpu(C, r, c, solve_gpu(C, r, c), solve_cpu(C, r, c), same_assignment=False)


@pytest.mark.parametrize("n, m", [(40, 50), (300, 300), (1030, 1100)])
def test_price_levels(n, m):
    """One price everywhere: negative, nothing is assigned (every pair
    costs more than leaving both); above every cost, every row is; 0 and
    between."""
    rng = np.random.default_rng(13)
    C = rng.integers(0, 100, (2, n, m)).astype(np.int32)
    for price in [-5, 0, 30, 1000]:
        r, c = np.full((2, n), price, np.int32), np.full((2, m), price, np.int32)
        res = solve_gpu(C, r, c)
        assert_agrees_with_cpu(C, r, c, res, solve_cpu(C, r, c), same_assignment=False)
        assigned = np.count_nonzero(np.asarray(res.col_for_row) >= 0, axis=1)
        if price < 0:
            np.testing.assert_array_equal(assigned, 0)
        if price == 1000:
            np.testing.assert_array_equal(assigned, n)


@pytest.mark.parametrize("n, m", [(40, 50), (300, 300), (1030, 1100)])
def test_forbidden_pairs(n, m):
    """+inf pairs (40 %), a row and a column all forbidden, and a member
    whose every pair is forbidden (everything unassigned)."""
    rng = np.random.default_rng(14)
    C, r, c = problems(rng, 3, n, m, np.float32)
    C[rng.random(C.shape) < 0.4] = np.inf
    C[:, 1, :] = np.inf
    C[:, :, 2] = np.inf
    C[2] = np.inf
    res = solve_gpu(C, r, c)
    assert_agrees_with_cpu(C, r, c, res, solve_cpu(C, r, c), same_assignment=True)
    assert np.all(res.col_for_row[:, 1] == -1) and np.all(res.row_for_col[:, 2] == -1)
    assert np.all(res.col_for_row[2] == -1)


@pytest.mark.parametrize("n, m", [(40, 50), (300, 300), (1030, 1100)])
def test_invalid_entries(n, m):
    """NaN or -inf in C, a NaN or infinite price: INVALID_ENTRIES and
    nothing assigned, as on the CPU; the batch's other members solved."""
    rng = np.random.default_rng(15)
    C, r, c = problems(rng, 6, n, m, np.float32)
    C[0, n - 1, m - 1] = np.nan
    C[1, 0, 0] = -np.inf
    r[2, n // 2] = np.nan
    r[3, 0] = np.inf
    c[4, m - 1] = -np.inf
    res, cpu = solve_gpu(C, r, c), solve_cpu(C, r, c)
    np.testing.assert_array_equal(status_of(res)[:5], [LAPStatus.INVALID_ENTRIES] * 5)
    np.testing.assert_array_equal(status_of(res), status_of(cpu))
    assert np.all(res.col_for_row[:5] == -1) and np.all(res.row_for_col[:5] == -1)
    check(C[5], r[5], c[5], member(res, 5))


@pytest.mark.parametrize("n, m", [(40, 50), (300, 300), (1030, 1100)])
def test_iteration_limit(n, m):
    """Members whose solve takes two searches or more (on the CPU; the GPU
    runs the same start, so the same searches): one search is
    ITERATION_LIMIT with nothing assigned, as on the CPU; the CPU's count
    of searches is enough for both."""
    rng = np.random.default_rng(18)
    C, r, c = problems(rng, 8, n, m, np.int32, price=(2.0, 3.0))
    searches = np.asarray(lap_ffi.info_field(solve_cpu(C, r, c).info, "ITERS"))
    assert searches.max() >= 2
    res, cpu = solve_gpu(C, r, c, max_iterations=1), solve_cpu(C, r, c, max_iterations=1)
    np.testing.assert_array_equal(status_of(res), status_of(cpu))
    limited = searches >= 2
    np.testing.assert_array_equal(status_of(res)[limited], LAPStatus.ITERATION_LIMIT)
    assert np.all(res.col_for_row[limited] == -1) and np.all(res.row_for_col[limited] == -1)
    most = int(searches.max())
    res = solve_gpu(C, r, c, max_iterations=most)
    assert_agrees_with_cpu(
        C, r, c, res, solve_cpu(C, r, c, max_iterations=most), same_assignment=False
    )
    np.testing.assert_array_equal(lap_ffi.info_field(res.info, "ITERS"), searches)


@pytest.mark.parametrize("n, m", [(2, 2), (40, 50), (300, 300)])
def test_int32_total_beyond_int32_is_overflow(n, m):
    """Matching every row is optimal (1.5e9 a pair against 4e9 for leaving
    both) but the total does not fit int32: OVERFLOW, nothing assigned, as
    on the CPU; near the edge but fitting, optimal."""
    C = np.full((1, n, m), 1_500_000_000, np.int32)
    r, c = np.full((1, n), 2_000_000_000, np.int32), np.full((1, m), 2_000_000_000, np.int32)
    res, cpu = solve_gpu(C, r, c), solve_cpu(C, r, c)
    assert status_of(res)[0] == LAPStatus.OVERFLOW
    np.testing.assert_array_equal(status_of(res), status_of(cpu))
    assert np.all(res.col_for_row == -1) and np.all(res.row_for_col == -1)
    C = np.full((1, 2, 2), 1_000_000_000, np.int32)
    r = c = np.full((1, 2), INT32_MAX, np.int32)
    res = solve_gpu(C, r, c)
    assert check(C[0], r[0], c[0], member(res, 0)) == 2_000_000_000


def test_empty_sides_and_batches():
    """No rows (every column unassigned at its price), no problems."""
    C = np.zeros((3, 0, 5), np.float32)
    r, c = np.zeros((3, 0), np.float32), np.arange(15, dtype=np.float32).reshape(3, 5)
    res = solve_gpu(C, r, c)
    np.testing.assert_array_equal(status_of(res), LAPStatus.OPTIMAL)
    np.testing.assert_array_equal(res.row_for_col, -1)
    np.testing.assert_array_equal(res.v, c)
    z = np.float32
    res = solve_gpu(np.zeros((0, 4, 6), z), np.zeros((0, 4), z), np.zeros((0, 6), z))
    assert res.col_for_row.shape == (0, 4) and res.v.shape == (0, 6)


def test_jit_and_vmap_on_the_gpu():
    rng = np.random.default_rng(16)
    C, r, c = problems(rng, 5, 30, 40, np.float32)
    jitted = jax.jit(lap_ffi.lap_solve_unassigned)(*on_gpu(C, r, c))
    mapped = jax.vmap(lap_ffi.lap_solve_unassigned)(*on_gpu(C, r, c))
    plain = solve_gpu(C, r, c)
    for a, b, p in zip(jitted, mapped, plain):
        np.testing.assert_array_equal(np.asarray(a), p)
        np.testing.assert_array_equal(np.asarray(b), p)


def test_shapes_the_gpu_refuses():
    """Rows > columns (the wrapper transposes them first) and more columns
    than a block's JV holds: errors that say so."""
    with pytest.raises(Exception, match="rows <= columns"):
        z = np.float32
        solve_gpu(np.zeros((1, 5, 3), z), np.zeros((1, 5), z), np.zeros((1, 3), z))
    wide = jnp.zeros((1, 65537), jnp.float32)
    with pytest.raises(Exception, match="65536"):
        jax.block_until_ready(
            lap_ffi.lap_solve_unassigned(
                *on_gpu(wide, np.zeros((1,), np.float32), np.zeros((65537,), np.float32))
            )
        )


def test_small_batches_for_sanitizers():
    """One batch of every kernel shape, small enough for compute-sanitizer
    (memcheck, racecheck, initcheck): warps with and without staged costs,
    blocks holding columns and searching in memory, each dtype."""
    rng = np.random.default_rng(17)
    for (n, m), dtype in [
        ((5, 30), np.float32),
        ((60, 120), np.int32),
        ((150, 200), np.float64),
        ((200, 300), np.float32),
        ((700, 1030), np.int32),
    ]:
        C, r, c = problems(rng, 2, n, m, dtype)
        assert_agrees_with_cpu(
            C, r, c, solve_gpu(C, r, c), solve_cpu(C, r, c), same_assignment=dtype != np.int32
        )
