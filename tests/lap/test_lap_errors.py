"""Bad input: clear errors eagerly, `feasible == False` under jit, no crash."""

from __future__ import annotations

import re

import jax
import numpy as np
import pytest
from lap_cases import EXECUTIONS
from scipy.optimize import linear_sum_assignment as scipy_lsa

import jaxmatch
from jaxmatch import LAPStatus

INVALID = "matrix contains invalid numeric entries"
INFEASIBLE = "cost matrix is infeasible"


def _both_raise(C, match, exc=ValueError, maximize=False):
    with pytest.raises(exc, match=match):
        scipy_lsa(C, maximize=maximize)
    with pytest.raises(exc, match=match):
        jaxmatch.linear_sum_assignment(C, maximize=maximize)


def test_nan_and_neg_inf(device):
    C = np.array([[np.nan, 1.0], [1.0, 1.0]])
    _both_raise(C, INVALID)
    _both_raise(np.array([[-np.inf, 1.0], [1.0, 1.0]]), INVALID)
    _both_raise(np.array([[np.inf, 1.0], [1.0, 1.0]]), INVALID, maximize=True)


def test_infeasible(device):
    _both_raise(np.array([[np.inf, 1.0], [np.inf, 1.0]]), INFEASIBLE)
    _both_raise(np.full((3, 3), np.inf), INFEASIBLE)
    _both_raise(np.array([[-np.inf, 1.0], [-np.inf, 1.0]]), INFEASIBLE, maximize=True)
    tall = np.array([[np.inf, np.inf], [np.inf, 1.0], [np.inf, 2.0]])
    _both_raise(tall, INFEASIBLE)


def test_wrong_rank_and_dtype(device):
    _both_raise(np.zeros(3), "expected a matrix", ValueError)
    _both_raise(np.zeros((2, 2, 2)), "expected a matrix", ValueError)
    with pytest.raises(TypeError, match="Cannot cast"):
        jaxmatch.linear_sum_assignment(np.array([["a"]]))
    with pytest.raises(ValueError, match="expected a matrix"):
        jaxmatch.solve_lap(np.zeros(3))
    with pytest.raises(TypeError, match="must be real"):
        jaxmatch.solve_lap(np.ones((2, 2), dtype=np.complex64))
    with pytest.raises(ValueError, match="method"):
        jaxmatch.solve_lap(np.ones((2, 2)), method="munkres")
    with pytest.raises(ValueError, match="execution"):
        jaxmatch.solve_lap(np.ones((2, 2)), execution="eventually")


def test_empty(device):
    for shape in [(0, 0), (0, 4), (4, 0)]:
        r, c = jaxmatch.linear_sum_assignment(np.zeros(shape))
        rs, cs = scipy_lsa(np.zeros(shape))
        assert r.shape == c.shape == rs.shape == cs.shape == (0,)
        res = jaxmatch.solve_lap(np.zeros(shape, np.float32))
        assert bool(res.feasible) and float(res.cost) == 0.0
        assert res.col_for_row.shape == (shape[0],)
    batch = jaxmatch.solve_lap(np.zeros((0, 3, 3), np.float32))
    assert batch.col_for_row.shape == (0, 3)


def test_scipy_dropin_outputs(device):
    rng = np.random.default_rng(0)
    for shape in [(5, 5), (3, 7), (7, 3)]:
        C = rng.random(shape)
        r, c = jaxmatch.linear_sum_assignment(C)
        rs, cs = scipy_lsa(C)
        assert r.dtype == rs.dtype and c.dtype == cs.dtype
        np.testing.assert_array_equal(r, np.sort(r))
        assert len(r) == min(shape)
        np.testing.assert_allclose(C[r, c].sum(), C[rs, cs].sum(), rtol=1e-6)
    # bool and small-int matrices, as scipy accepts them
    B = np.array([[True, False], [False, True]])
    np.testing.assert_array_equal(jaxmatch.linear_sum_assignment(B)[1], scipy_lsa(B)[1])
    r, c = jaxmatch.linear_sum_assignment(np.array([[1, 2], [3, 4]], dtype=np.int64))
    assert c.dtype == np.intp


@pytest.mark.parametrize("execution", EXECUTIONS)
def test_invalid_under_jit_reports_status(device, execution):
    f = jax.jit(lambda c: jaxmatch.solve_lap(c, execution=execution))
    nan = np.array([[np.nan, 1.0], [1.0, 1.0]], np.float32)
    res = f(nan)
    assert not bool(res.feasible) and int(res.status) == LAPStatus.INVALID_ENTRIES
    assert np.all(np.asarray(res.col_for_row) == -1) and np.isnan(float(res.cost))
    inf = np.array([[np.inf, 1.0], [np.inf, 1.0]], np.float32)
    res = f(inf)
    assert not bool(res.feasible) and int(res.status) == LAPStatus.INFEASIBLE
    neg = np.array([[-np.inf, 1.0], [1.0, 1.0]], np.float32)
    assert int(f(neg).status) == LAPStatus.INVALID_ENTRIES


def _check_invalid_members(C, res, invalid, maximize=False):
    """Members ``invalid`` report INVALID_ENTRIES with nothing assigned and
    zero duals; the others equal scipy's optimum, certified."""
    status = np.asarray(res.status)
    for b in range(C.shape[0]):
        if b in invalid:
            assert status[b] == LAPStatus.INVALID_ENTRIES, b
            assert not bool(res.feasible[b]) and np.isnan(float(res.cost[b]))
            assert np.all(np.asarray(res.col_for_row[b]) == -1)
            assert np.all(np.asarray(res.row_for_col[b]) == -1)
            assert not np.any(np.asarray(res.u[b])) and not np.any(np.asarray(res.v[b]))
            continue
        assert status[b] == LAPStatus.OPTIMAL, b
        r, c = scipy_lsa(C[b], maximize=maximize)
        np.testing.assert_allclose(float(res.cost[b]), C[b][r, c].sum(), rtol=1e-5)
        member = jax.tree.map(lambda x, b=b: np.asarray(x)[b], res)
        assert jaxmatch.verify_lap(C[b], member, maximize=maximize).optimal


@pytest.mark.parametrize("shape", [(6, 5, 7), (6, 7, 5), (6, 32, 32), (4, 300, 300)])
@pytest.mark.parametrize("method", ["auto", "jv", "tree"])
def test_invalid_members_beside_valid_ones(device, shape, method):
    # JV's kernels find the NaN and -inf entries themselves (no mask of the
    # matrix in XLA); the tree variant's are masked before its kernels.
    rng = np.random.default_rng(sum(shape))
    C = rng.random(shape).astype(np.float32)
    C[0, 1, 1] = np.inf  # a forbidden pair: valid
    C[1, 0, 2] = np.nan
    C[2, -1, 0] = -np.inf
    C[3, :, :] = np.nan
    f = jax.jit(lambda c: jaxmatch.solve_lap(c, method=method))
    _check_invalid_members(C, f(C), {1, 2, 3})
    # Maximized: +inf is the invalid entry, -inf a forbidden pair.
    M = np.where(np.isinf(C), -C, C)
    g = jax.jit(lambda c: jaxmatch.solve_lap(c, maximize=True, method=method))
    _check_invalid_members(M, g(M), {1, 2, 3}, maximize=True)
    # From a warm start: the same.
    warm = jaxmatch.solve_lap(C[:1].repeat(C.shape[0], 0), method=method)
    if method != "tree":
        h = jax.jit(lambda c, w: jaxmatch.solve_lap(c, method=method, init=w))
        _check_invalid_members(C, h(C, warm), {1, 2, 3})


def _entry_opcodes(f, C) -> set[str]:
    """The opcodes of the compiled program's entry computation."""
    text = jax.jit(f).lower(C).compile().as_text()
    entry = text[text.index("\nENTRY ") :]
    entry = entry[entry.index("{") + 1 : entry.index("\n}")]
    return {re.findall(r" ([a-z][a-z0-9-]*)\(", line)[0] for line in entry.strip().splitlines()}


def test_jv_kernels_check_the_entries_without_a_pass_in_xla(device):
    # Where JV solves (every platform), hungarian() compiles to the custom
    # call alone: no check or mask of the matrix, no fix-up of the result.
    C = jax.device_put(np.zeros((8, 32, 32), np.float32), device)
    bare = {"parameter", "custom-call", "get-tuple-element", "tuple", "bitcast", "copy"}
    assert _entry_opcodes(jaxmatch.hungarian, C) <= bare
    assert not _entry_opcodes(lambda c: jaxmatch.hungarian(c, method="tree"), C) <= bare
    Ci = jax.device_put(np.zeros((8, 32, 32), np.int32), device)
    assert _entry_opcodes(jaxmatch.hungarian, Ci) <= bare


@pytest.mark.gpu
@pytest.mark.parametrize("n", [512, 1024])
def test_gpu_jv_large_problem_with_invalid_entries(n):
    # A single large square problem: the cluster's auction start (from 256
    # rows) and the cluster's JV (from 1024), cold and warm.
    rng = np.random.default_rng(n)
    C = rng.random((n, n)).astype(np.float32)
    with jax.default_device(jax.devices("gpu")[0]):
        warm = jaxmatch.solve_lap(C)
        assert bool(warm.feasible)
        for entry in (np.nan, -np.inf):
            bad = C.copy()
            bad[n // 2, n // 3] = entry
            for res in (jaxmatch.solve_lap(bad), jaxmatch.solve_lap(bad, init=warm)):
                assert int(res.status) == LAPStatus.INVALID_ENTRIES
                assert np.all(np.asarray(res.col_for_row) == -1)
                assert not np.any(np.asarray(res.v))


def test_int32_overflow_detected(device):
    # Fits: the optimum -2*big and every reduced cost are within int32.
    big = np.iinfo(np.int32).max // 2
    C = np.array([[big, -big], [-big, big]], dtype=np.int32)
    res = jaxmatch.solve_lap(C)
    assert bool(res.feasible) and int(res.cost) == -2 * big
    # Reduced costs c - u reach 2**32: detected, not wrapped.
    big = np.iinfo(np.int32).max - 1
    C = np.array([[big, -big], [-big, big]], dtype=np.int32)
    res = jaxmatch.solve_lap(C)
    assert int(res.status) == LAPStatus.OVERFLOW and not bool(res.feasible)
    # The eager drop-in solves it exactly, as scipy does (float64 retry).
    r, c = jaxmatch.linear_sum_assignment(C)
    rs, cs = scipy_lsa(C)
    assert C[r, c].astype(np.int64).sum() == C[rs, cs].astype(np.int64).sum() == -2 * big
    # A total that overflows although every entry and dual fits.
    n = 4
    C = np.full((n, n), 2**30, dtype=np.int32)
    res = jaxmatch.solve_lap(C)
    assert int(res.status) == LAPStatus.OVERFLOW
    # Large but safe values are exact.
    C = np.array([[2**29, 0], [0, 2**29]], dtype=np.int32)
    res = jaxmatch.solve_lap(C, maximize=True)
    assert bool(res.feasible) and int(res.cost) == 2**30


def test_int32_costs_beyond_65535_rows(device):
    """A tall int32 problem: the total over 70,000 rows is exact, and a total
    that leaves int32 is OVERFLOW."""
    rng = np.random.default_rng(5)
    C = rng.integers(-(2**20), 2**20, (70_000, 3)).astype(np.int32)
    res = jaxmatch.solve_lap(C)
    r, c = scipy_lsa(C)
    assert res.status_name == "OPTIMAL" and int(res.cost) == C[r, c].astype(np.int64).sum()
    C = np.full((70_000, 3), 2**30, dtype=np.int32)
    assert jaxmatch.solve_lap(C).status_name == "OVERFLOW"
    res = jaxmatch.solve_lap_split(np.full((70_000, 2), 2**30, dtype=np.int32))
    assert res.status_name == "OVERFLOW"


def test_int64_outside_int32_range_with_x64(device):
    C = np.array([[2**40, 1], [1, 2**40]], dtype=np.int64)
    r, c = jaxmatch.linear_sum_assignment(C)
    np.testing.assert_array_equal(r, [0, 1])
    np.testing.assert_array_equal(c, [1, 0])


def test_wide_integers_without_x64_never_wrap():
    with jax.enable_x64(False):
        big = np.array([[2**40, 1], [1, 2**40]], dtype=np.int64)
        with pytest.raises(OverflowError, match="jax_enable_x64"):
            jaxmatch.solve_lap(big)
        _, c = jaxmatch.linear_sum_assignment(big)  # the drop-in, as scipy: float64
        np.testing.assert_array_equal(c, scipy_lsa(big)[1])
        small = np.array([[3, 1], [1, 3]], dtype=np.int64)
        res = jaxmatch.solve_lap(small)
        assert res.cost.dtype == np.int32 and int(res.cost) == 2
        with pytest.raises(TypeError, match="jax_enable_x64"):
            jax.jit(jaxmatch.solve_lap)(jax.numpy.ones((2, 2), jax.numpy.uint32))


def test_float64_input_without_x64_solve_lap_uses_float32_the_drop_in_float64():
    """solve_lap follows JAX's dtype rules (float32 without x64); the eager
    drop-in solves float64 input in float64 whatever x64 says."""
    C = 1e6 + 1e-3 * np.random.default_rng(1).random((50, 50))
    rs, cs = scipy_lsa(C)
    with jax.enable_x64(False):
        res = jaxmatch.solve_lap(C)
        r, c = jaxmatch.linear_sum_assignment(C)
    assert res.cost.dtype == np.float32
    np.testing.assert_array_equal(c, cs)
    assert C[r, c].sum() == C[rs, cs].sum()


@pytest.mark.parametrize(
    "device, method, execution",
    [
        pytest.param(device, method, execution, marks=[pytest.mark.gpu] * (device == "gpu"))
        for device in ("cpu", "gpu")
        for method, execution in (
            ("tree", "fused"),
            ("tree", "stepped"),
            ("classical", "fused"),
            ("jv", "fused"),
        )
    ],
    indirect=["device"],
)
def test_max_iterations_bounds_a_solve(device, method, execution):
    # Rectangular: JV's greedy start leaves rows for its searches (on square
    # random costs its row reductions often finish without one).
    C = np.random.default_rng(0).random((3, 60, 80))
    res = jaxmatch.solve_lap(C, method=method, execution=execution, max_iterations=2)
    assert np.all(np.asarray(res.status) == jaxmatch.LAPStatus.ITERATION_LIMIT)
    assert not np.any(np.asarray(res.feasible))
    assert np.all(np.asarray(res.iterations) <= 2 + 4)  # a stepped call runs 4 at a time
    full = jaxmatch.solve_lap(C, method=method, execution=execution)
    bound = int(np.asarray(full.iterations).max())
    res = jaxmatch.solve_lap(C, method=method, execution=execution, max_iterations=bound + 1)
    assert np.all(np.asarray(res.status) == jaxmatch.LAPStatus.OPTIMAL)
    np.testing.assert_array_equal(np.asarray(res.col_for_row), np.asarray(full.col_for_row))


def test_max_iterations_is_static_and_positive():
    C = np.zeros((3, 3))
    with pytest.raises(ValueError, match="max_iterations"):
        jaxmatch.solve_lap(C, max_iterations=0)
    with pytest.raises(TypeError, match="static_argnames"):
        jax.jit(lambda k: jaxmatch.solve_lap(C, max_iterations=k))(5)
