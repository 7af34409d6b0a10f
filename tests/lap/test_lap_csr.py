"""The sparse LAP under jit and vmap (``solve_lap`` on ``SparseCosts``),
with every solver: JV and the tree variant on the CPU, the tree variant on
the GPU. scipy's optimum on random sweeps (square and rectangular both ways,
ties, minimize and maximize, every cost dtype), the LP-duality certificate,
batches, malformed input, gradients; the GPU's tree variant equal to the
CPU's, run after run; JV's refusal on the GPU."""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwf

import jaxmatch
from jaxmatch import LAPStatus, SparseCosts
from jaxmatch.lap.sparse import solve_sparse_costs

CPU = jax.devices("cpu")[0]

SOLVERS = [
    pytest.param(("cpu", "jv"), id="cpu-jv"),
    pytest.param(("cpu", "tree"), id="cpu-tree"),
    pytest.param(("gpu", "auto"), id="gpu-auto", marks=pytest.mark.gpu),
]


@pytest.fixture(params=SOLVERS)
def method(request):
    """The solver's method, with computations placed on its platform."""
    platform, name = request.param
    with jax.default_device(jax.devices(platform)[0]):
        yield name


def random_costs(rng, n, m, density, kind):
    """A random sparse matrix with no explicit zeros (costs >= 1)."""
    mask = rng.random((n, m)) < density
    if kind == "ties":
        values = rng.integers(1, 4, (n, m)).astype(np.float64)
    elif kind == "int":
        values = rng.integers(1, 1000, (n, m)).astype(np.float64)
    else:
        values = 1.0 + rng.random((n, m))
    return sp.csr_matrix(np.where(mask, values, 0.0))


def scipy_optimum(A, maximize):
    try:
        r, c = scipy_mwf(A, maximize=maximize)
    except ValueError:
        return None
    return float(A[r, c].sum())


def certify(A, res, maximize):
    """verify_lap on the scipy matrix A (canonical, no explicit zeros: read
    as the solvers read its SparseCosts) and the result."""
    return jaxmatch.verify_lap(A, jax.device_get(res), maximize=maximize)


@pytest.mark.parametrize("kind", ["float", "ties", "int"])
def test_equals_scipy_and_certifies(kind, method):
    rng = np.random.default_rng({"float": 1, "ties": 2, "int": 3}[kind])
    solve = jax.jit(
        functools.partial(jaxmatch.solve_lap, method=method), static_argnames="maximize"
    )
    shapes = [(1, 1), (2, 2), (5, 5), (6, 9), (9, 6), (20, 20), (17, 30), (30, 17)]
    for (n, m), density, maximize in itertools.product(shapes, (0.3, 0.7), (False, True)):
        A = random_costs(rng, n, m, density, kind)
        S = SparseCosts.from_scipy(A)
        if kind == "int":
            S = SparseCosts(S.indptr, S.indices, S.data.astype(np.int32), S.shape)
        res = solve(S, maximize=maximize)
        want = scipy_optimum(A, maximize)
        case = f"{kind} {n}x{m} density {density} maximize={maximize}"
        if want is None:
            assert int(res.status) == LAPStatus.INFEASIBLE, case
            assert np.all(np.asarray(res.col_for_row) == -1), case
            continue
        assert int(res.status) == LAPStatus.OPTIMAL, case
        np.testing.assert_allclose(float(res.cost), want, rtol=1e-12, err_msg=case)
        cert = certify(A, res, maximize)
        assert cert.optimal, f"{case}: {cert.reason}"


def test_float32_costs(method):
    rng = np.random.default_rng(4)
    A = random_costs(rng, 40, 40, 0.4, "float")
    S = SparseCosts.from_scipy(A)
    S32 = SparseCosts(S.indptr, S.indices, S.data.astype(np.float32), (40, 40))
    res = jaxmatch.solve_lap(S32, method=method)
    assert res.cost.dtype == jnp.float32 and res.u.dtype == jnp.float32
    A32 = sp.csr_matrix((S32.data.astype(np.float64), S.indices, S.indptr), shape=A.shape)
    np.testing.assert_allclose(float(res.cost), scipy_optimum(A32, False), rtol=1e-6)


def test_vmap_over_padded_matrices(method):
    rng = np.random.default_rng(5)
    mats = [random_costs(rng, 12, 15, 0.5, "ties") for _ in range(6)]
    cap = max(A.nnz for A in mats)
    batch = [SparseCosts.from_scipy(A).pad_to(cap + 3) for A in mats]
    stacked = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *batch)
    solve = functools.partial(jaxmatch.solve_lap, method=method)
    res = jax.jit(jax.vmap(solve))(stacked)
    lead = solve(stacked)  # leading dimensions, no vmap
    for k, A in enumerate(mats):
        one = solve(batch[k])
        for r in (res, lead):
            np.testing.assert_array_equal(np.asarray(r.col_for_row[k]), one.col_for_row)
            assert float(r.cost[k]) == float(one.cost) == scipy_optimum(A, False)


def test_duplicates_zeros_and_infinities(method):
    """Stored entries are edges (zeros included); a pair stored twice costs
    its cheaper entry (dearer when maximizing); +inf is no edge."""
    indptr = np.array([0, 3, 5], np.int32)
    indices = np.array([0, 0, 1, 1, 0], np.int32)
    data = np.array([5.0, 2.0, 0.0, np.inf, 7.0])
    S = SparseCosts(indptr, indices, data, (2, 2))
    res = jaxmatch.solve_lap(S, method=method)
    # row 0: (0, 0) at 2 or (0, 1) at 0; row 1: (1, 1) absent, (1, 0) at 7
    np.testing.assert_array_equal(res.col_for_row, [1, 0])
    assert float(res.cost) == 7.0
    flipped = SparseCosts(indptr, indices, np.where(np.isinf(data), -np.inf, data), (2, 2))
    best = jaxmatch.solve_lap(flipped, maximize=True, method=method)
    np.testing.assert_array_equal(best.col_for_row, [1, 0])
    assert float(best.cost) == 7.0


def test_bad_input_gets_a_status(method):
    solve = functools.partial(jaxmatch.solve_lap, method=method)
    ok = SparseCosts(np.array([0, 1, 2], np.int32), np.array([0, 1], np.int32), np.ones(2), (2, 2))
    cases = {
        "decreasing pointer": SparseCosts(
            np.array([0, 2, 1], np.int32), ok.indices, ok.data, (2, 2)
        ),
        "column past n_cols": SparseCosts(ok.indptr, np.array([0, 2], np.int32), ok.data, (2, 2)),
        "negative column": SparseCosts(ok.indptr, np.array([-1, 1], np.int32), ok.data, (2, 2)),
        "end past capacity": SparseCosts(
            np.array([0, 1, 3], np.int32), ok.indices, ok.data, (2, 2)
        ),
        "nonzero start": SparseCosts(np.array([1, 1, 2], np.int32), ok.indices, ok.data, (2, 2)),
    }
    for name, S in cases.items():
        res = solve(S)
        assert int(res.status) == LAPStatus.INVALID_STRUCTURE, name
        assert np.all(np.asarray(res.col_for_row) == -1), name
    # more rows than columns: the malformed CSR is transposed before the call
    tall = {
        "tall, column past n_cols": SparseCosts(
            np.array([0, 1, 2, 3], np.int32), np.array([0, 5, 1], np.int32), np.ones(3), (3, 2)
        ),
        "tall, negative column": SparseCosts(
            np.array([0, 1, 2, 3], np.int32), np.array([0, -3, 1], np.int32), np.ones(3), (3, 2)
        ),
        "tall, decreasing pointer": SparseCosts(
            np.array([0, 2, 1, 3], np.int32), np.array([0, 1, 1], np.int32), np.ones(3), (3, 2)
        ),
    }
    for name, S in tall.items():
        res = solve(S)
        assert int(res.status) == LAPStatus.INVALID_STRUCTURE, name
        assert np.all(np.asarray(res.row_for_col) == -1), name
    nan = SparseCosts(ok.indptr, ok.indices, np.array([1.0, np.nan]), ok.shape)
    assert int(solve(nan).status) == LAPStatus.INVALID_ENTRIES
    neg_inf = SparseCosts(ok.indptr, ok.indices, np.array([1.0, -np.inf]), ok.shape)
    assert int(solve(neg_inf).status) == LAPStatus.INVALID_ENTRIES
    pos_inf = SparseCosts(ok.indptr, ok.indices, np.array([1.0, np.inf]), ok.shape)
    assert int(solve(pos_inf, maximize=True).status) == (LAPStatus.INVALID_ENTRIES)
    low = SparseCosts(ok.indptr, ok.indices, np.array([1, -(2**31)], np.int32), ok.shape)
    assert int(solve(low, maximize=True).status) == LAPStatus.OVERFLOW
    big = SparseCosts(ok.indptr, ok.indices, np.full(2, 2**31 - 1, np.int32), ok.shape)
    res = solve(big)  # each pair fits, their total does not
    assert int(res.status) == LAPStatus.OVERFLOW and int(res.cost) == 0
    # padding past indptr[-1] is never read
    junk_indices = np.array([0, 1, 99, -5, 7], np.int32)
    junk = SparseCosts(ok.indptr, junk_indices, np.array([1.0, 1.0] + [np.nan] * 3), ok.shape)
    assert int(solve(junk).status) == LAPStatus.OPTIMAL


def test_int32_costs_near_the_limit(method):
    """int32 costs spanning most of the range: never a wrong certificate.
    The tree variant's distances are int32 too: a column that lies 2^31 - 1
    or more beyond every row is OVERFLOW there (JV, in double precision,
    solves it); a key past the range that the forest does not need is no
    overflow."""
    edge = SparseCosts(
        np.array([0, 1, 3], np.int32), np.array([0, 0, 1], np.int32),
        np.array([-1000, -1, 2**31 - 2], np.int32), (2, 2),
    )  # fmt: skip
    res = jaxmatch.solve_lap(edge, method=method)
    A = sp.csr_matrix((np.asarray(edge.data, np.float64), edge.indices, edge.indptr), (2, 2))
    if method == "jv":  # double precision inside
        assert int(res.status) == LAPStatus.OPTIMAL
        assert certify(A, res, False).optimal
    else:  # column 1 lies 2^31 - 1 beyond row 1's price: no int32 distance
        assert int(res.status) == LAPStatus.OVERFLOW
    # Near-limit entries beside a small optimum (every row's cheapest entry
    # in column 0, its diagonal next): solved, certified, no overflow.
    rng = np.random.default_rng(9)
    for n in (40, 120):
        A = sp.random(n, n, density=0.1, random_state=n, format="lil")
        A[A.nonzero()] = rng.integers(2_140_000_000, 2_147_483_000, A.nnz)
        A[:, 0] = 1
        A.setdiag(1000 + np.arange(n))
        A = A.tocsr()
        S = SparseCosts.from_scipy(A)
        S = SparseCosts(S.indptr, S.indices, S.data.astype(np.int32), S.shape)
        res = jaxmatch.solve_lap(S, method=method)
        assert int(res.status) == LAPStatus.OPTIMAL, n
        assert float(res.cost) == scipy_optimum(A.astype(np.float64), False), n
        assert certify(A.astype(np.float64), res, False).optimal, n


def test_empty_and_argument_errors():
    empty = SparseCosts(np.zeros(1, np.int32), np.zeros(0, np.int32), np.zeros(0), (0, 4))
    res = jaxmatch.solve_lap(empty)
    assert int(res.status) == LAPStatus.OPTIMAL and res.row_for_col.shape == (4,)
    no_cols = SparseCosts(np.zeros(4, np.int32), np.zeros(0, np.int32), np.zeros(0), (3, 0))
    res = jaxmatch.solve_lap(no_cols)
    assert int(res.status) == LAPStatus.OPTIMAL and res.col_for_row.shape == (3,)
    with pytest.raises(TypeError, match="SparseCosts"):
        solve_sparse_costs(np.ones((2, 2)))
    for option in ({"execution": "fused"}, {"max_iterations": 3}, {"init": res}):
        with pytest.raises(ValueError, match="SparseCosts solve takes no"):
            jaxmatch.solve_lap(no_cols, **option)
    with pytest.raises(TypeError, match="static_argnames"):
        jax.jit(lambda S, flag: jaxmatch.solve_lap(S, maximize=flag))(empty, True)
    with pytest.raises(TypeError, match="dtype complex"):
        jaxmatch.solve_lap(SparseCosts(empty.indptr, empty.indices, np.zeros(0, complex), (0, 4)))
    with pytest.raises(ValueError, match="inconsistent shapes"):
        jaxmatch.solve_lap(SparseCosts(empty.indptr, np.zeros(2, np.int32), np.zeros(3), (0, 4)))
    with pytest.raises(ValueError, match="inconsistent shapes"):  # indptr of 1 row, not 2
        jaxmatch.solve_lap(SparseCosts(empty.indptr, empty.indices, empty.data, (2, 4)))
    with pytest.raises(TypeError, match="expected a scipy sparse matrix"):
        SparseCosts.from_scipy(np.ones((2, 2)))


def test_cost_gradient_is_the_assignment(method):
    rng = np.random.default_rng(6)
    for n, m in ((8, 8), (6, 9), (9, 6)):
        A = random_costs(rng, n, m, 0.6, "float")
        S = SparseCosts.from_scipy(A)
        res = jaxmatch.solve_lap(S, method=method)
        if int(res.status) != LAPStatus.OPTIMAL:
            continue

        def cost(d, S=S, m=m):
            costs = SparseCosts(S.indptr, S.indices, d, S.shape)
            return jaxmatch.solve_lap(costs, method=method).cost

        grad = jax.grad(cost)(jnp.asarray(S.data))
        rows = np.repeat(np.arange(n), np.diff(S.indptr))
        picked = np.asarray(res.col_for_row)[rows] == S.indices
        np.testing.assert_array_equal(np.asarray(grad), picked.astype(float))


def test_method_argument():
    S = SparseCosts(np.array([0, 1], np.int32), np.array([0], np.int32), np.ones(1), (1, 1))
    with pytest.raises(ValueError, match="method must be one of"):
        jaxmatch.solve_lap(S, method="classical")


@pytest.mark.gpu
def test_gpu_refuses_jv():
    S = SparseCosts(np.array([0, 1], np.int32), np.array([0], np.int32), np.ones(1), (1, 1))
    S = jax.device_put(S, jax.devices("gpu")[0])
    solve = jax.jit(functools.partial(jaxmatch.solve_lap, method="jv"))
    with pytest.raises(Exception, match=r"method 'jv' runs on the CPU only"):
        jax.block_until_ready(solve(S))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_gpu_equals_the_cpu_steps_run_after_run(dtype):
    """The GPU runs sparse/csr_steps.h's order-independent steps: its
    assignment and duals equal the CPU team's bit for bit, on ties too, and
    ten runs of a batch give one answer (the atomics' races never show); the
    totals agree to rounding."""
    rng = np.random.default_rng(7)
    gpu = jax.devices("gpu")[0]
    kinds = ("ties", "int", "float")
    for trial in range(12):
        n = int(rng.integers(20, 200))
        m = n if trial % 2 else n + int(rng.integers(1, 40))
        mats = [random_costs(rng, n, m, max(0.05, 6 / n), kinds[trial % 3]) for _ in range(8)]
        cap = max(A.nnz for A in mats)
        batch = [SparseCosts.from_scipy(A).pad_to(cap) for A in mats]
        S = jax.tree_util.tree_map(lambda *xs: np.stack(xs).astype(xs[0].dtype), *batch)
        S = SparseCosts(S.indptr, S.indices, S.data.astype(dtype), S.shape)
        want = jax.jit(functools.partial(jaxmatch.solve_lap, method="tree"))(jax.device_put(S, CPU))
        solve = jax.jit(jaxmatch.solve_lap)
        Sg = jax.device_put(S, gpu)
        for _ in range(10):
            got = solve(Sg)
            for field in ("col_for_row", "row_for_col", "u", "v", "status"):
                np.testing.assert_array_equal(
                    np.asarray(getattr(got, field)), np.asarray(getattr(want, field)),
                    err_msg=f"trial {trial} {field}",
                )  # fmt: skip
            # the total is XLA's sum, whose order differs between platforms
            rtol = 1e-6 if dtype == np.float32 else 1e-14
            np.testing.assert_allclose(got.cost, want.cost, rtol=rtol, err_msg=f"trial {trial}")
