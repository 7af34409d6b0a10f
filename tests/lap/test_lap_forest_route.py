"""``solve_lap``'s single problems on the GPU through the alternating forest
of ``jaxmatch.solve_lap_split`` on one device (``LAPTuning.forest_min_tied_rows``):
the routing, run here with the CPU's kernels, and the GPU's results."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

import jaxmatch
from jaxmatch import LAPStatus
from jaxmatch.lap import _dense
from jaxmatch.lap import _ffi as lap_ffi
from jaxmatch.lap._plan import library_limits
from jaxmatch.lap.jv import tied_rows

CPU = jax.devices("cpu")[:1]
TUNING = jaxmatch.LAPTuning()


def _jv(Ck):
    return lap_ffi.solve_fused(Ck, variant=lap_ffi.variant_code("jv"), max_iterations=0)


def _routed(other):
    """``other`` or the forest, for problems in JV's integer range (the tie
    floors apply), with the default tuning."""
    return _dense._forest_for_single_problems(other, True, TUNING)


def _suits(Ck):
    return _dense._forest_suits(Ck, True, TUNING)


def _iters(sol) -> np.ndarray:
    return np.asarray(lap_ffi.info_field(sol.info, "ITERS"))


def _cost(C: np.ndarray, cols) -> float:
    cols = np.asarray(cols)
    return float(np.take_along_axis(C, cols[..., None], -1)[..., 0].sum())


def _oracle(C: np.ndarray, maximize: bool = False) -> float:
    r, c = linear_sum_assignment(C, maximize=maximize)
    return float(C[r, c].sum())


def _targets(f, *args) -> str:
    """The text of ``f``'s jaxpr (its custom calls' targets among it)."""
    return str(jax.make_jaxpr(f)(*args))


def test_single_problems_that_suit_the_forest_run_it():
    """A single problem whose rows tie often, and any float problem, runs
    the forest (its iterations and assignment are solve_lap_split's on one
    device); rows that rarely tie, and int32 costs of 2**28 or more, run
    the other solver, bit for bit."""
    rng = np.random.default_rng(3)
    n = 300
    routed = jax.jit(_routed(_jv))
    tied = rng.integers(0, n, (n, n)).astype(np.int32)  # 43 % of rows tie
    floats = rng.random((n, n + 40)).astype(np.float32)
    for C in (tied, floats):
        sol = routed(jnp.asarray(C))
        ref = jaxmatch.solve_lap_split(C, devices=CPU)
        np.testing.assert_array_equal(sol.col_for_row, ref.col_for_row)
        np.testing.assert_array_equal(sol.u, ref.u)
        np.testing.assert_array_equal(sol.v, ref.v)
        assert int(_iters(sol)) == int(ref.iterations) != int(_iters(_jv(C)))
        assert int(lap_ffi.info_field(sol.info, "STATUS")) == LAPStatus.OPTIMAL
        assert _cost(C, sol.col_for_row) == pytest.approx(_oracle(C), rel=1e-6)
    distinct = rng.integers(0, n * n, (n, n)).astype(np.int32)
    big = (tied + (1 << 28)).astype(np.int32)
    for C in (distinct, big):
        sol, ref = routed(jnp.asarray(C)), _jv(C)
        for a, b in zip(sol, ref, strict=True):
            np.testing.assert_array_equal(a, b)
    assert float(tied_rows(distinct)) <= TUNING.forest_min_tied_rows
    assert float(tied_rows(tied)) > TUNING.jv_int_max_tied_rows


def test_forest_tie_floor_by_width():
    """From forest_wide_columns columns the forest takes integer problems
    with more than forest_min_tied_rows of their rows tied; narrower ones
    only above jv_int_max_tied_rows."""
    some = np.zeros((8, 2 * TUNING.forest_wide_columns), np.int32)
    some[0] = 1  # row 0's least cost repeats: 1 of 8 rows tied
    some[1:, 1:] = 5  # rows 1-7: one least cost each
    assert TUNING.forest_min_tied_rows == 0.03
    assert 0.03 < float(tied_rows(some)) <= TUNING.jv_int_max_tied_rows
    assert bool(_suits(jnp.asarray(some)))
    narrow = some[:, : TUNING.forest_wide_columns - 1]
    assert not bool(_suits(jnp.asarray(narrow)))
    assert _suits(jnp.asarray(some, jnp.float32)) is None  # floats: always


def test_batches_under_vmap_run_the_other_solver():
    """Under ``jax.vmap`` (nested too) a batch goes to the other solver's
    batched kernels, never to the forest; every member is optimal."""
    rng = np.random.default_rng(4)
    n = 260
    routed = _routed(_jv)
    batch = rng.integers(0, n, (3, n, n)).astype(np.int32)
    for f, B in ((jax.vmap(routed), batch), (jax.vmap(jax.vmap(routed)), batch[None])):
        assert "jaxmatch_lap_split" not in _targets(f, B)
        sol = jax.jit(f)(B)
        np.testing.assert_array_equal(_iters(sol), _iters(_jv(B)))
        for k in range(3):
            cols = np.asarray(sol.col_for_row).reshape(3, n)[k]
            assert _cost(batch[k], cols) == _oracle(batch[k])
    single = _targets(routed, batch[0])
    assert "jaxmatch_lap_split_scan" in single and "jaxmatch_lap_solve" in single


@pytest.mark.parametrize(
    ("shape", "dtype", "kw", "forest"),
    [
        ((300, 300), np.int32, {}, True),  # integers from 256 columns
        ((300, 300), np.int32, {"maximize": True}, True),
        ((300, 300), np.int32, {"max_iterations": 10**6}, False),
        ((2, 300, 300), np.int32, {}, False),  # a batch
        ((300, 300), np.float32, {}, False),  # JV's float range
        ((4, 20000), np.float32, {}, False),
        ((4, 20000), np.int32, {}, True),  # JV's integer range
        ((4, 65537), np.float32, {}, True),  # past JV's range
        ((65537, 4), np.float32, {}, True),  # transposed
        ((4, 65537), np.int32, {"method": "tree"}, False),
        ((200, 200), np.int32, {}, False),  # below the integer JV range
    ],
)
def test_which_solves_may_take_the_forest(shape, dtype, kw, forest):
    """The forest joins the GPU's plan of single problems with ``method``
    and ``execution`` ``"auto"``, no ``max_iterations`` or ``init``, where
    the tree variant ran (past JV's range, or the integer JV range's tree
    variant then JV); the jaxpr holds both platforms' branches."""
    C = jax.ShapeDtypeStruct(shape, dtype)
    text = _targets(functools.partial(jaxmatch.solve_lap, **kw), C)
    assert ("jaxmatch_lap_split_scan" in text) == forest


def test_warm_start_keeps_the_other_solver():
    C = np.random.default_rng(5).integers(0, 300, (300, 300)).astype(np.int32)
    warm = jaxmatch.solve_lap(C)
    assert "jaxmatch_lap_split_scan" not in _targets(lambda c: jaxmatch.solve_lap(c, init=warm), C)


def _on_gpu(C, **kw):
    gpu = jax.devices("gpu")[0]
    return jax.device_get(jaxmatch.solve_lap(jax.device_put(C, gpu), **kw))


def _certified(C: np.ndarray, res, maximize: bool = False) -> None:
    assert int(res.status) == LAPStatus.OPTIMAL, LAPStatus(int(res.status)).name
    on_cpu = jax.device_put(C, jax.devices("cpu")[0])
    want = jax.device_get(jaxmatch.solve_lap(on_cpu, maximize=maximize, method="jv"))
    np.testing.assert_allclose(float(res.cost), float(want.cost), rtol=1e-6)
    cert = jaxmatch.verify_lap(C, res, maximize=maximize)
    assert cert.optimal, cert.reason


@pytest.mark.gpu
def test_gpu_single_problems_through_the_forest():
    """On the GPU: single integer problems whose rows tie often (square,
    rectangular both ways, maximized: the forest's result bit for bit, as
    solve_lap_split gives it on that GPU) and float problems past JV's
    range of columns (float32 and float64, forbidden pairs, infeasible,
    NaN);
    certified with the CPU's optimum. A batch and int32 costs of 2**28 or
    more keep the other solvers."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(7)
    n = 600
    tied = rng.integers(0, n, (n, n)).astype(np.int32)
    cases = [
        (tied, False),
        (tied, True),
        (rng.integers(0, 5, (300, 700)).astype(np.int32), False),
        (rng.integers(0, 5, (700, 300)).astype(np.int32), True),
        (rng.integers(0, 3 * 2100, (2100, 2100)).astype(np.int32), False),
    ]
    for C, maximize in cases:
        res = _on_gpu(C, maximize=maximize)
        ref = jaxmatch.solve_lap_split(C, maximize=maximize, devices=[gpu])
        for a, b in zip(res, jax.device_get(ref), strict=True):
            np.testing.assert_array_equal(a, b)
        _certified(C, res, maximize)
    wide = library_limits().jv_max_columns + 100
    for dtype in (np.float32, np.float64):
        C = rng.random((24, wide)).astype(dtype)
        C[:, ::7] = np.inf  # forbidden pairs
        res = _on_gpu(C)
        assert int(res.iterations) == int(jaxmatch.solve_lap_split(C, devices=[gpu]).iterations)
        _certified(C, res)
        _certified(C.T.copy(), _on_gpu(C.T.copy()))
    C = rng.random((24, wide)).astype(np.float32)
    C[3] = np.inf
    assert int(_on_gpu(C).status) == LAPStatus.INFEASIBLE
    C[3, 5] = np.nan
    res = _on_gpu(C)
    assert int(res.status) == LAPStatus.INVALID_ENTRIES and np.all(res.col_for_row == -1)
    # Costs from 2**28 whose total fits int32 (row shifts of +-2**28):
    # the forest would report OVERFLOW.
    shift = np.where(np.arange(n) % 2 == 0, 1 << 28, -(1 << 28))[:, None]
    big = (tied + shift).astype(np.int32)
    _certified(big, _on_gpu(big))
    both = np.stack([tied, tied[::-1]])
    res = _on_gpu(both)
    for k in range(2):
        _certified(both[k], jax.tree.map(lambda x, k=k: x[k], res))
