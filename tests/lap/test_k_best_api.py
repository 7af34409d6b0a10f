"""k_best_assignments' interface: batches, jit, vmap, dtypes, statuses,
errors; and verify_k_best rejecting corrupted results."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from host_emulation import run_host_emulation
from k_best_oracles import brute_force, objective

import jaxmatch
from jaxmatch import LAPStatus


def _costs(seed=0, shape=(3, 4, 5)):
    return np.random.default_rng(seed).integers(0, 6, shape).astype(np.float64)


def test_batch_dimensions_match_one_by_one():
    C = _costs(0, (2, 3, 4, 5))
    res = jaxmatch.k_best_assignments(C, 6, unassigned_cost=2.0)
    assert res.assignments.shape == (2, 3, 6, 4)
    assert res.costs.shape == (2, 3, 6)
    assert res.found.shape == res.status.shape == res.iterations.shape == (2, 3)
    for a in range(2):
        for b in range(3):
            one = jaxmatch.k_best_assignments(C[a, b], 6, unassigned_cost=2.0)
            np.testing.assert_array_equal(one.costs, res.costs[a, b])
    for cert in jaxmatch.verify_k_best(C, res, unassigned_cost=2.0):
        assert cert.valid, cert.reason


def test_jit_and_vmap_agree_with_eager():
    C = _costs(1)
    eager = jaxmatch.k_best_assignments(C, 5)
    jitted = jax.jit(lambda x: jaxmatch.k_best_assignments(x, 5))(C)
    mapped = jax.vmap(lambda x: jaxmatch.k_best_assignments(x, 5))(C)
    nested = jax.jit(jax.vmap(lambda x: jaxmatch.k_best_assignments(x, 5, maximize=True)))(C)
    for res in (jitted, mapped):
        np.testing.assert_array_equal(res.costs, eager.costs)
        np.testing.assert_array_equal(res.found, eager.found)
    for cert in jaxmatch.verify_k_best(C, nested, maximize=True):
        assert cert.valid, cert.reason


def test_traced_prices_per_problem_under_vmap():
    C = _costs(2)
    r = np.arange(12, dtype=np.float64).reshape(3, 4) / 4
    c = np.ones((3, 5))
    res = jax.vmap(lambda x, a, b: jaxmatch.k_best_assignments(x, 4, unassigned_cost=(a, b)))(
        C, r, c
    )
    for cert in jaxmatch.verify_k_best(C, res, unassigned_cost=(r, c)):
        assert cert.valid, cert.reason


def test_dtypes():
    C = _costs(3)
    for dtype in (np.float32, np.int32, np.int16, np.bool_):
        res = jaxmatch.k_best_assignments(C.astype(dtype), 3)
        want = np.float32 if dtype == np.float32 else np.int32
        assert res.costs.dtype == want
        assert jaxmatch.verify_k_best(C.astype(dtype), res)[0].valid
    assert jaxmatch.k_best_assignments(C, 3).costs.dtype == np.float64  # x64 on


def test_fewer_than_k_and_fill_values():
    C = np.array([[1.0, 2.0], [3.0, 4.0]])
    res = jaxmatch.k_best_assignments(C, 5)
    assert int(res.found) == 2
    np.testing.assert_array_equal(res.costs, [5, 5, np.inf, np.inf, np.inf])
    assert np.all(np.asarray(res.assignments)[2:] == -1)
    res = jaxmatch.k_best_assignments(C.astype(np.int32), 5, maximize=True)
    assert list(np.asarray(res.costs)[2:]) == [np.iinfo(np.int32).min] * 3
    res = jaxmatch.k_best_assignments(C, 5, maximize=True)
    assert list(np.asarray(res.costs)[2:]) == [-np.inf] * 3
    # 2 x 2 with exits: 7 partial assignments.
    res = jaxmatch.k_best_assignments(C, 10, unassigned_cost=1.0)
    assert int(res.found) == 7
    assert res.status_name == "OPTIMAL"


def test_statuses():
    C = np.array([[np.nan, 1.0], [1.0, 1.0]])
    assert jaxmatch.k_best_assignments(C, 2).status_name == "INVALID_ENTRIES"
    C = np.array([[-np.inf, 1.0], [1.0, 1.0]])
    assert jaxmatch.k_best_assignments(C, 2).status_name == "INVALID_ENTRIES"
    assert jaxmatch.k_best_assignments(-C, 2, maximize=True).status_name == "INVALID_ENTRIES"
    C = np.array([[np.inf, 1.0], [np.inf, 1.0]])
    res = jaxmatch.k_best_assignments(C, 2)
    assert res.status_name == "INFEASIBLE" and int(res.found) == 0
    assert jaxmatch.verify_k_best(C, res).valid
    big = np.full((2, 2), 2**30 + 5, np.int32)
    assert jaxmatch.k_best_assignments(big, 2).status_name == "OVERFLOW"
    low = np.full((2, 2), np.iinfo(np.int32).min, np.int32)
    assert jaxmatch.k_best_assignments(low, 2, maximize=True).status_name == "OVERFLOW"
    C = np.ones((2, 2))
    assert (
        jaxmatch.k_best_assignments(C, 2, unassigned_cost=np.inf).status_name == "INVALID_ENTRIES"
    )


def test_bad_arguments():
    C = _costs(4)
    for k in (0, -1):
        with pytest.raises(ValueError, match="k must be >= 1"):
            jaxmatch.k_best_assignments(C, k)
    for k in (2.0, True, None, np.array([2, 3])):
        with pytest.raises(TypeError, match="k must be a static Python int"):
            jaxmatch.k_best_assignments(C, k)
    with pytest.raises(TypeError, match="k must be a static Python int"):
        jax.jit(lambda x, k: jaxmatch.k_best_assignments(x, k))(C, 2)
    with pytest.raises(TypeError, match="maximize must be a Python bool"):
        jaxmatch.k_best_assignments(C, 2, maximize=jnp.array(True))
    with pytest.raises(ValueError, match="matrix"):
        jaxmatch.k_best_assignments(np.ones(3), 2)
    with pytest.raises(ValueError, match="do not broadcast"):
        jaxmatch.k_best_assignments(C, 2, unassigned_cost=(np.ones(3), np.ones(5)))
    with pytest.raises(TypeError, match="integer prices"):
        jaxmatch.k_best_assignments(C.astype(np.int32), 2, unassigned_cost=0.5)


def test_team_emulation(tmp_path):
    """The GPU kernel's team code (kbest_steps.h's KBestSolveTeam, a warp per
    problem) run by 2-8 host threads gives the serial team's results bit for
    bit on random problems (tests/lap/kbest_team_emulation.cc)."""
    run_host_emulation(Path(__file__).with_name("kbest_team_emulation.cc"), tmp_path, timeout=600)


def test_numbers_of_searches_drop_with_bound_skips():
    """Every child of every popped node is searched at most once; most are
    skipped by their bound (the iterations count the searches run)."""
    rng = np.random.default_rng(6)
    C = rng.random((30, 40))
    res = jaxmatch.k_best_assignments(C, 50)
    assert 30 <= int(res.iterations) < 30 + 49 * 30


# ---------------------------------------------------------------- checker


def _good():
    C = _costs(7, (4, 5))
    return C, jaxmatch.k_best_assignments(C, 8, unassigned_cost=2.0)


def _corrupt(res, **fields):
    return res._replace(**{k: jnp.asarray(v) for k, v in fields.items()})


def test_checker_rejects_corrupted_results():
    C, res = _good()
    assert jaxmatch.verify_k_best(C, res, unassigned_cost=2.0).valid
    A = np.asarray(res.assignments).copy()
    costs = np.asarray(res.costs).copy()
    bad = []
    # A column twice.
    x = A.copy()
    x[1, 0] = x[1, 1] = 0
    bad.append(_corrupt(res, assignments=x))
    # A column out of range.
    x = A.copy()
    x[2, 3] = 5
    bad.append(_corrupt(res, assignments=x))
    # An assignment twice (its cost made consistent).
    x, y = A.copy(), costs.copy()
    x[3], y[3] = x[2], y[2]
    bad.append(_corrupt(res, assignments=x, costs=y))
    # A wrong cost.
    y = costs.copy()
    y[4] += 0.5
    bad.append(_corrupt(res, costs=y))
    # Out of order (two assignments of different costs swapped).
    t = int(np.nonzero(costs != costs[0])[0][0])
    x, y = A.copy(), costs.copy()
    x[[0, t]], y[[0, t]] = x[[t, 0]], y[[t, 0]]
    bad.append(_corrupt(res, assignments=x, costs=y))
    # Not the optimum first: the best dropped.
    x, y = A.copy(), costs.copy()
    x[:-1], y[:-1] = A[1:], costs[1:]
    x[-1], y[-1] = -1, np.inf
    bad.append(_corrupt(res, assignments=x, costs=y, found=np.int32(7)))
    # Count past k, and filled entries not cleared.
    bad.append(_corrupt(res, found=np.int32(9)))
    bad.append(_corrupt(res, found=np.int32(6)))
    # Wrong shapes.
    bad.append(_corrupt(res, assignments=A[:, :3]))
    for r in bad:
        cert = jaxmatch.verify_k_best(C, r, unassigned_cost=2.0)
        assert not cert.valid
        assert cert.reason


def test_checker_rejects_forbidden_pairs_and_partial_plain_assignments():
    C = np.array([[1.0, np.inf], [2.0, 3.0]])
    res = jaxmatch.k_best_assignments(C, 2)
    assert jaxmatch.verify_k_best(C, res).valid
    x = np.asarray(res.assignments).copy()
    x[0] = [1, 0]  # uses the forbidden (0, 1)
    assert not jaxmatch.verify_k_best(C, _corrupt(res, assignments=x)).valid
    x[0] = [0, -1]  # a row left unassigned without unassigned_cost
    y = np.asarray(res.costs).copy()
    y[0] = 1.0
    assert not jaxmatch.verify_k_best(C, _corrupt(res, assignments=x, costs=y)).valid


def test_checker_holds_a_status_to_what_the_input_dictates():
    """Without assignments the status names why: an infeasible problem's
    honest INFEASIBLE certifies and every other status is refused; on
    invalid entries (no optimum) no result passes, as for every certificate
    of the family, whatever its status."""
    S = jaxmatch.LAPStatus
    inf = np.inf
    cases = [
        (np.array([[1.0, -inf], [2.0, 3.0]]), {}, S.INVALID_ENTRIES),
        (np.array([[1.0, inf], [2.0, 3.0]]), dict(maximize=True), S.INVALID_ENTRIES),
        (np.array([[np.nan, 1.0], [2.0, 3.0]]), {}, S.INVALID_ENTRIES),
        (np.ones((2, 3)), dict(unassigned_cost=inf), S.INVALID_ENTRIES),
        (
            np.ones((3, 0)),
            dict(unassigned_cost=(np.array([1.0, -inf, 2.0]), np.ones(0))),
            S.INVALID_ENTRIES,
        ),
        (np.array([[1.0, inf], [inf, inf]]), {}, S.INFEASIBLE),
        (np.array([[1.0, -inf], [-inf, -inf]]), dict(maximize=True), S.INFEASIBLE),
    ]
    for C, kw, honest in cases:
        res = jaxmatch.k_best_assignments(C, 3, **kw)
        assert int(res.status) == honest and int(res.found) == 0
        assert jaxmatch.verify_k_best(C, res, **kw).valid == (honest == S.INFEASIBLE)
        for forged in (S.OPTIMAL, S.INFEASIBLE, S.OVERFLOW, S.INVALID_ENTRIES):
            if forged != honest:
                cert = jaxmatch.verify_k_best(C, _corrupt(res, status=np.int32(forged)), **kw)
                assert not cert.valid and cert.reason
    C, res = _good()
    forged = _corrupt(res, status=np.int32(S.INFEASIBLE))
    assert not jaxmatch.verify_k_best(C, forged, unassigned_cost=2.0).valid


def test_checker_never_passes_what_the_oracle_rejects():
    """Random corruptions of correct results: whatever the checker passes
    has the oracle's costs."""
    rng = np.random.default_rng(8)
    for _ in range(30):
        C = rng.integers(0, 4, (3, 4)).astype(np.float64)
        res = jaxmatch.k_best_assignments(C, 10, unassigned_cost=1.0)
        want = [w for w, _ in brute_force(C, 10, np.ones(3), np.ones(4))]
        A = np.asarray(res.assignments).copy()
        t, i = rng.integers(0, 10), rng.integers(0, 3)
        A[t, i] = rng.integers(-1, 4)
        y = np.asarray(res.costs).copy()
        y[t] = objective(C, np.ones(3), np.ones(4), tuple(A[t]))
        r = _corrupt(res, assignments=A, costs=y)
        if jaxmatch.verify_k_best(C, r, unassigned_cost=1.0).valid:
            assert np.asarray(r.costs).tolist() == want
            assert len({tuple(a) for a in A}) == 10
            for a, cost in zip(A, want):
                assert objective(C, np.ones(3), np.ones(4), tuple(a)) == cost


def test_checker_finds_a_missing_assignment():
    """The last assignment swapped for a worse one that keeps the order:
    feasible, costed right, in order, but not the k best (the regions of
    the complete check find the one left out); and a count below k while
    more exist."""
    C = np.array([[1.0, 2.0, 4.0], [2.0, 1.0, 8.0], [5.0, 6.0, 1.0]])
    res = jaxmatch.k_best_assignments(C, 3)
    assert jaxmatch.verify_k_best(C, res).valid
    every = brute_force(C, 6)
    worse_cost, worse = every[4]
    A = np.asarray(res.assignments).copy()
    y = np.asarray(res.costs).copy()
    assert worse_cost > y[2]
    A[2], y[2] = worse, worse_cost
    r = _corrupt(res, assignments=A, costs=y)
    assert jaxmatch.verify_k_best(C, r, complete=False).valid  # what it takes an oracle for
    cert = jaxmatch.verify_k_best(C, r)
    assert not cert.valid and "missing" in cert.reason
    short = _corrupt(
        res,
        found=np.int32(2),
        assignments=np.where(np.arange(3)[:, None] < 2, res.assignments, -1),
        costs=np.where(np.arange(3) < 2, res.costs, np.inf),
    )
    cert = jaxmatch.verify_k_best(C, short)
    assert not cert.valid and "another exists" in cert.reason


def test_checker_certifies_float32_results_without_x64():
    """Without x64 the checker's region LAPs are solved in float32 and must be
    certified as float32 problems (they were checked against float64 ones with
    a float64 tolerance, rejecting correct results)."""
    script = """
import jax, numpy as np, jaxmatch
assert not jax.config.jax_enable_x64
C = np.random.default_rng(1).random((3, 4, 5)).astype(np.float32)
for price in (None, np.float32(0.3)):
    res = jaxmatch.k_best_assignments(C, 6, unassigned_cost=price)
    certs = jaxmatch.verify_k_best(C, res, unassigned_cost=price)
    assert all(c.valid for c in certs), [c.reason for c in certs]
    assert res.costs.dtype == np.float32
print("ok")
"""
    env = {**os.environ, "JAX_ENABLE_X64": "0", "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stdout + proc.stderr


def _float32_with_large_prices():
    """Float32 rankings whose prices (1e5) no good assignment pays: forged
    results within the rounding of those prices are refused, honest ones
    certified. Run with and without x64 (float32 region solves then)."""
    big = np.float32(1e5)
    C = np.array([[0.0, 1.0], [1.0, 0.0]], np.float32)
    res = jaxmatch.k_best_assignments(C, 2, unassigned_cost=big)
    assert np.asarray(res.costs).tolist() == [0.0, 2.0]
    assert jaxmatch.verify_k_best(C, res, unassigned_cost=big).valid
    forged = [
        _corrupt(res, costs=np.array([2.0, 0.0], np.float32)),  # wrong values
        _corrupt(  # right values, wrong order
            res,
            assignments=np.asarray(res.assignments)[::-1],
            costs=np.array([2.0, 0.0], np.float32),
        ),
    ]
    for r in forged:
        cert = jaxmatch.verify_k_best(C, r, unassigned_cost=big)
        assert not cert.valid and cert.reason
    # 3 x 3: the 6 permutations cost at most 9, every partial assignment
    # 2e5 more. Results that leave out the best or the 4th best, with their
    # costs right and in order, are refused; the honest ones pass.
    C = np.array([[0.0, 1.0, 3.0], [2.0, 0.5, 1.5], [4.125, 2.5, 0.25]], np.float32)
    every = brute_force(C.astype(np.float64), 6, np.full(3, 1e5), np.full(3, 1e5))
    assert len({cost for cost, _ in every}) == 6
    res = jaxmatch.k_best_assignments(C, 4, unassigned_cost=big)
    np.testing.assert_array_equal(res.costs, [cost for cost, _ in every[:4]])
    assert jaxmatch.verify_k_best(C, res, unassigned_cost=big).valid
    for picks, why in (([1, 2, 3, 4], "first cost"), ([0, 1, 2, 4], "missing")):
        A = np.array([every[t][1] for t in picks], np.int32)
        y = np.array([every[t][0] for t in picks], np.float32)
        cert = jaxmatch.verify_k_best(C, _corrupt(res, assignments=A, costs=y), unassigned_cost=big)
        assert not cert.valid and why in cert.reason, cert.reason
    # Random float32 costs under the same prices: honest results certify.
    C = np.random.default_rng(9).random((4, 4, 5)).astype(np.float32)
    for maximize in (False, True):
        res = jaxmatch.k_best_assignments(C, 12, unassigned_cost=big, maximize=maximize)
        certs = jaxmatch.verify_k_best(C, res, unassigned_cost=big, maximize=maximize)
        assert all(c.valid for c in certs), [c.reason for c in certs]


def test_checker_float_tolerances_follow_the_compared_objectives():
    _float32_with_large_prices()


def test_checker_float_tolerances_follow_the_compared_objectives_without_x64():
    script = (
        "import jax; assert not jax.config.jax_enable_x64\n"
        "from test_k_best_api import _float32_with_large_prices\n"
        "_float32_with_large_prices(); print('ok')\n"
    )
    here = Path(__file__).parent
    path = os.pathsep.join([str(here), str(here.parent), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "JAX_ENABLE_X64": "0", "JAX_PLATFORMS": "cpu", "PYTHONPATH": path}
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stdout + proc.stderr


def test_checker_decides_exactly_when_the_duals_do_not(monkeypatch):
    """With the region solves' duals withheld, every bound is decided by the
    exact optimum (negative cycles cancelled from the solve's assignment):
    honest results certify (ties included), a result missing its 5th best
    is refused."""
    from jaxmatch.lap.kbest import verify

    solve = verify._solve_regions

    def no_duals(Qs):
        return [(f, cfr, np.full_like(u, np.nan), v) for f, cfr, u, v in solve(Qs)]

    monkeypatch.setattr(verify, "_solve_regions", no_duals)
    rng = np.random.default_rng(10)
    for C, price in (
        (rng.random((3, 4, 5)).astype(np.float32), 0.3),
        (rng.integers(0, 3, (3, 4, 4)).astype(np.float64), 1.0),
        (rng.integers(0, 3, (3, 4, 4)).astype(np.int32), None),
    ):
        for maximize in (False, True):
            kw = dict(unassigned_cost=price, maximize=maximize)
            res = jaxmatch.k_best_assignments(C, 10, **kw)
            for cert in jaxmatch.verify_k_best(C, res, **kw):
                assert cert.valid, cert.reason
    C = rng.random((4, 5))
    res = jaxmatch.k_best_assignments(C, 10, unassigned_cost=0.3)
    more = jaxmatch.k_best_assignments(C, 11, unassigned_cost=0.3)
    A, y = np.asarray(res.assignments).copy(), np.asarray(res.costs).copy()
    A[4:], y[4:] = np.asarray(more.assignments)[5:], np.asarray(more.costs)[5:]
    cert = jaxmatch.verify_k_best(C, _corrupt(res, assignments=A, costs=y), unassigned_cost=0.3)
    assert not cert.valid and "missing" in cert.reason


def _cleared(res, maximize=False):
    """``res`` as an OVERFLOW with nothing returned."""
    info = np.iinfo(np.int32)
    return _corrupt(
        res,
        found=np.int32(0),
        status=np.int32(jaxmatch.LAPStatus.OVERFLOW),
        assignments=np.full(res.assignments.shape, -1, np.int32),
        costs=np.full(res.costs.shape, info.min if maximize else info.max, np.int32),
    )


def test_overflow_returns_nothing_and_certifies():
    """An int32 ranking whose k best include a total outside int32 returns
    nothing, as solve_lap does, and the certificate proves the overflow
    (the best total 0 fits, the second, 2**31, does not; the least total
    below int32; 2**31 when maximizing, whose negation fits int32)."""
    info = np.iinfo(np.int32)
    cases = [
        (np.array([[0, 2**30], [2**30, 0]], np.int32), 3, False),
        (np.array([[0, 2**30], [2**30, 0]], np.int32), 2, False),
        (np.array([[-(2**30) - 1, 0], [0, -(2**30)]], np.int32), 1, False),
        (np.array([[2**30, 0], [0, 2**30]], np.int32), 2, True),
        (np.array([[2**30, 0], [0, 2**30]], np.int32), 1, True),
    ]
    for C, k, maximize in cases:
        res = jaxmatch.k_best_assignments(C, k, maximize=maximize)
        assert res.status_name == "OVERFLOW" and int(res.found) == 0
        assert np.all(np.asarray(res.assignments) == -1)
        assert np.all(np.asarray(res.costs) == (info.min if maximize else info.max))
        cert = jaxmatch.verify_k_best(C, res, maximize=maximize)
        assert cert.valid, cert.reason
    C = np.array([[0, 2**30], [2**30, 0]], np.int32)
    res = jaxmatch.k_best_assignments(C, 7, unassigned_cost=2**29)
    assert res.status_name == "OVERFLOW" and int(res.found) == 0
    assert jaxmatch.verify_k_best(C, res, unassigned_cost=2**29).valid


def test_checker_refuses_an_overflow_that_does_not_happen():
    """A cleared OVERFLOW where every total of the k best fits int32 is
    refused; so is one it cannot prove (the enumeration's steps spent)."""
    cases = [
        (np.array([[0, 2**30], [2**30, 0]], np.int32), 1, {}),
        (np.array([[0, 2**29], [2**29, 0]], np.int32), 3, {}),
        (np.array([[0, 2**29], [2**29, 0]], np.int32), 3, dict(maximize=True)),
        (np.array([[1, 2, 3], [4, 5, 6]], np.int32), 10, dict(unassigned_cost=2**20)),
        (np.full((3, 2), 2**29, np.int32), 4, {}),
    ]
    for C, k, kw in cases:
        res = jaxmatch.k_best_assignments(C, k, **kw)
        assert res.status_name == "OPTIMAL"
        assert jaxmatch.verify_k_best(C, res, **kw).valid
        cert = jaxmatch.verify_k_best(C, _cleared(res, kw.get("maximize", False)), **kw)
        assert not cert.valid and "int32" in cert.reason and "not proven" not in cert.reason
    C = np.array([[0, 2**30], [2**30, 0]], np.int32)
    forged = _corrupt(
        jaxmatch.k_best_assignments(C, 1), status=np.int32(jaxmatch.LAPStatus.OVERFLOW)
    )
    cert = jaxmatch.verify_k_best(C, forged)
    assert not cert.valid and "returns nothing" in cert.reason


def test_checker_refuses_an_overflow_it_cannot_prove(monkeypatch):
    from jaxmatch.lap.kbest import _bounds

    C = np.array([[0, 2**30], [2**30, 0]], np.int32)
    res = jaxmatch.k_best_assignments(C, 3)
    monkeypatch.setattr(_bounds, "_OVERFLOW_STEPS", 2)
    cert = jaxmatch.verify_k_best(C, res)
    assert not cert.valid and "not proven" in cert.reason


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
@pytest.mark.parametrize("maximize", [False, True])
def test_no_rows_sum_their_int32_prices_exactly(shape, maximize):
    """With no pair to assign, the one assignment's objective is the prices'
    sum: exact, and OVERFLOW (nothing returned) when it leaves int32."""
    C = np.zeros(shape, np.int32)
    for price, status in ((5, LAPStatus.OPTIMAL), (2**30, LAPStatus.OVERFLOW)):
        for p in (price, -price):
            res = jaxmatch.k_best_assignments(C, 2, unassigned_cost=p, maximize=maximize)
            assert int(res.status) == status
            assert int(res.found) == (1 if status == LAPStatus.OPTIMAL else 0)
            if status == LAPStatus.OPTIMAL:
                assert int(res.costs[0]) == 3 * p
            cert = jaxmatch.verify_k_best(C, res, unassigned_cost=p, maximize=maximize)
            assert cert.valid, cert.reason
