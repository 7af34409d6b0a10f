"""``solve_lap(SparseCosts, unassigned_cost=...)``: every row and column may
stay unassigned at its price, solved by the sparse kernels
(``jaxmatch_lap_csr_solve_unassigned``: JV with each row's exit column on
the CPU, the tree variant's exits on a GPU and the CPU's ``method="tree"``).
Each result against scipy on the padded square problem (absent entries
forbidden), brute force on tiny ones, and its certificate
(``verify_lap(S, res, unassigned_cost=...)``); GPU results against the
CPU's."""

from __future__ import annotations

import itertools
import shutil
import subprocess
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.sparse
from lap_cases import unassigned_optimum

import jaxmatch
from jaxmatch import LAPStatus, SparseCosts

METHODS = ("jv", "tree")

#: The solve, jitted: one compilation per shape (eagerly, each of its
#: operations compiles on its own).
solve = jax.jit(jaxmatch.solve_lap, static_argnames=("maximize", "method"))


def dense_of(mask, D, maximize=False):
    """The dense matrix of stored entries ``D[mask]``, absent pairs
    forbidden (``+inf``; ``-inf`` when maximizing)."""
    return np.where(mask, D.astype(np.float64), -np.inf if maximize else np.inf)


def sparse_batch(masks, Ds, n, m, dtype):
    """A batch of CSR matrices of one shape, capacity ``n * m`` (padding
    after each member's entries), rows' entries in a random order."""
    cap = max(n * m, 1)
    indptr = np.zeros((len(masks), n + 1), np.int32)
    indices = np.zeros((len(masks), cap), np.int32)
    data = np.zeros((len(masks), cap), dtype)
    rng = np.random.default_rng(len(masks) * 7 + n * 13 + m)
    for b, (mask, D) in enumerate(zip(masks, Ds, strict=True)):
        k = 0
        for i in range(n):
            cols = rng.permutation(np.flatnonzero(mask[i]))
            indices[b, k : k + cols.size] = cols
            data[b, k : k + cols.size] = D[i, cols]
            k += cols.size
            indptr[b, i + 1] = k
    return SparseCosts(indptr, indices, data, (n, m))


def random_problems(rng, batch, n, m, dtype, *, density, span=6):
    """Masks, entries (small integers: many ties) and prices of a batch."""
    masks = [rng.random((n, m)) < density for _ in range(batch)]
    Ds = [rng.integers(-span, span, (n, m)).astype(dtype) for _ in range(batch)]
    r = rng.integers(-2, span, (batch, n)).astype(dtype)
    c = rng.integers(-2, span, (batch, m)).astype(dtype)
    return masks, Ds, r, c


def check_member(S, res, b, mask, D, r, c, maximize):
    """Member ``b`` of a batched result: OPTIMAL, the oracle's objective,
    pairs along stored entries only, and a valid certificate."""
    want = unassigned_optimum(dense_of(mask, D, maximize), r, c, maximize)
    assert int(res.status[b]) == LAPStatus.OPTIMAL
    assert bool(res.feasible[b])
    np.testing.assert_allclose(float(res.cost[b]), want, rtol=1e-6, atol=1e-4)
    cfr = np.asarray(res.col_for_row[b])
    rows = np.flatnonzero(cfr >= 0)
    assert np.all(mask[rows, cfr[rows]])
    member = jax.tree.map(lambda a: np.asarray(a)[b], res)
    one = SparseCosts(*(np.asarray(a)[b] for a in (S.indptr, S.indices, S.data)), S.shape)
    cert = jaxmatch.verify_lap(one, member, unassigned_cost=(r, c), maximize=maximize)
    assert cert.optimal, cert.reason
    np.testing.assert_allclose(cert.primal_cost, want, rtol=1e-6, atol=1e-4)


SHAPES = [(1, 1), (1, 4), (4, 1), (3, 3), (5, 7), (7, 5), (6, 6), (9, 4), (4, 10)]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_random_sweep_against_padded_scipy(method, dtype):
    """Random sparse problems with many ties, both orientations, densities
    from empty rows and columns to full, minimizing and maximizing: the
    objective of scipy on the padded matrix, and certified."""
    rng = np.random.default_rng(5 + (method == "tree") + 2 * (dtype == np.int32))
    for k, (n, m) in enumerate(SHAPES):
        maximize = k % 2 == 1  # both ways among the wide and the tall shapes
        for density in (0.25, 0.7):
            masks, Ds, r, c = random_problems(rng, 6, n, m, dtype, density=density)
            S = sparse_batch(masks, Ds, n, m, dtype)
            res = solve(S, unassigned_cost=(r, c), maximize=maximize, method=method)
            for b in range(len(masks)):
                check_member(S, res, b, masks[b], Ds[b], r[b], c[b], maximize)


def brute_force(mask, D, r, c, maximize):
    """The optimum over every partial assignment along ``mask``."""
    n, m = D.shape
    best = None
    pairs = [(i, j) for i in range(n) for j in range(m) if mask[i, j]]
    for k in range(min(n, m) + 1):
        for chosen in itertools.combinations(pairs, k):
            rows = {i for i, _ in chosen}
            cols = {j for _, j in chosen}
            if len(rows) < k or len(cols) < k:
                continue
            total = sum(float(D[i, j]) for i, j in chosen)
            total += sum(float(r[i]) for i in range(n) if i not in rows)
            total += sum(float(c[j]) for j in range(m) if j not in cols)
            if best is None or (total > best if maximize else total < best):
                best = total
    return best


@pytest.mark.parametrize("method", METHODS)
def test_tiny_against_brute_force(method):
    rng = np.random.default_rng(17)
    for n, m in [(1, 2), (2, 1), (2, 3), (3, 2), (3, 3)]:
        masks, Ds, r, c = random_problems(rng, 8, n, m, np.int32, density=0.6, span=4)
        S = sparse_batch(masks, Ds, n, m, np.int32)
        for maximize in (False, True):
            res = solve(S, unassigned_cost=(r, c), maximize=maximize, method=method)
            for b in range(len(masks)):
                want = brute_force(masks[b], Ds[b], r[b], c[b], maximize)
                assert float(res.cost[b]) == want
                got = unassigned_optimum(dense_of(masks[b], Ds[b], maximize), r[b], c[b], maximize)
                assert got == want  # the oracle agrees with brute force


@pytest.mark.parametrize("method", METHODS)
def test_float64_continuous_costs(method):
    """Continuous costs under x64 (float64 kernels), both orientations."""
    rng = np.random.default_rng(3)
    with jax.enable_x64(True):
        for n, m in [(8, 12), (12, 8), (10, 10)]:
            masks = [rng.random((n, m)) < 0.4 for _ in range(4)]
            Ds = [rng.normal(size=(n, m)) for _ in range(4)]
            r, c = rng.uniform(0, 1, (4, n)), rng.uniform(0, 1, (4, m))
            S = sparse_batch(masks, Ds, n, m, np.float64)
            res = solve(S, unassigned_cost=(r, c), method=method)
            assert res.u.dtype == jnp.float64
            for b in range(4):
                check_member(S, res, b, masks[b], Ds[b], r[b], c[b], False)


@pytest.mark.parametrize("method", METHODS)
def test_scalar_price_and_broadcast(method):
    """A scalar prices every row and column alike (MATLAB's matchpairs); a
    pair broadcasts each side."""
    A = scipy.sparse.csr_array(np.array([[1.0, 0, 9.0], [0, 4.0, 0], [7.0, 0, 0]]))
    S = SparseCosts.from_scipy(A)  # the zeros above are not stored
    res = jaxmatch.solve_lap(S, unassigned_cost=3.0, method=method)
    # (0, 0) at 1 and (1, 1) at 4 (cheaper than 3 + 3), row 2 and column 2 out
    assert res.col_for_row.tolist() == [0, 1, -1]
    assert res.row_for_col.tolist() == [0, 1, -1]
    assert float(res.cost) == 1 + 4 + 3 + 3
    assert jaxmatch.verify_lap(S, res, unassigned_cost=3.0).optimal
    assert jaxmatch.hungarian(S, unassigned_cost=3.0, method=method).tolist() == [0, 1, -1]
    pair = (np.float32(2.0), np.array([10.0, 10.0, 10.0], np.float32))
    res = jaxmatch.solve_lap(S, unassigned_cost=pair, method=method)
    want = unassigned_optimum(dense_of(A.toarray() != 0, A.toarray()), [2.0] * 3, [10.0] * 3)
    assert float(res.cost) == want
    assert jaxmatch.verify_lap(S, res, unassigned_cost=pair).optimal


@pytest.mark.parametrize("method", METHODS)
def test_infeasible_without_exits_becomes_feasible(method):
    """Rows without entries and more rows than matchable columns: INFEASIBLE
    as a plain LAP, OPTIMAL with prices."""
    dense = np.array([[1.0, 0.0], [0.0, 0.0], [2.0, 0.0], [3.0, 0.0]], np.float32)
    S = SparseCosts.from_scipy(scipy.sparse.csr_array(dense))  # column 1 empty
    assert int(jaxmatch.solve_lap(S, method=method).status) == LAPStatus.INFEASIBLE
    res = jaxmatch.solve_lap(S, unassigned_cost=(np.full(4, 2.5, np.float32), 0.0), method=method)
    assert int(res.status) == LAPStatus.OPTIMAL
    assert res.col_for_row.tolist() == [0, -1, -1, -1]
    assert float(res.cost) == 1.0 + 3 * 2.5
    assert jaxmatch.verify_lap(S, res, unassigned_cost=(np.full(4, 2.5), 0.0)).optimal


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0)])
def test_empty_sides(method, shape):
    """An empty side: every row and column unassigned at its price."""
    n, m = shape
    S = SparseCosts(np.zeros(n + 1, np.int32), np.zeros(0, np.int32), np.zeros(0), shape)
    r, c = np.arange(n, dtype=np.float32), np.arange(m, dtype=np.float32) + 1
    res = jaxmatch.solve_lap(S, unassigned_cost=(r, c), method=method)
    assert int(res.status) == LAPStatus.OPTIMAL
    assert float(res.cost) == r.sum() + c.sum()
    assert res.col_for_row.shape == (n,) and res.row_for_col.shape == (m,)
    assert jaxmatch.verify_lap(S, res, unassigned_cost=(r, c)).optimal


@pytest.mark.parametrize("method", METHODS)
def test_one_by_one(method):
    """One entry of cost 5: taken when its row's and column's prices sum to
    at least 5 (a tie keeps the pair), else both stay out."""
    indptr, indices = np.array([0, 1], np.int32), np.array([0], np.int32)
    for dtype in (np.int32, np.float32):
        S = SparseCosts(indptr, indices, np.array([5], dtype), (1, 1))
        for price, want, pair in [((3, 3), 5, 0), ((2, 2), 4, -1), ((1, 4), 5, 0), ((0, 9), 5, 0)]:
            price = tuple(dtype(x) for x in price)
            res = jaxmatch.solve_lap(S, unassigned_cost=price, method=method)
            assert float(res.cost) == want
            assert res.col_for_row.tolist() == [pair] or sum(price) == 5
            assert jaxmatch.verify_lap(S, res, unassigned_cost=price).optimal


@pytest.mark.parametrize("method", METHODS)
def test_infinite_and_invalid_entries(method):
    """+inf entries are absent (-inf when maximizing); NaN, -inf entries
    (+inf maximizing) and non-finite prices give INVALID_ENTRIES; an
    int32 price of INT32_MIN maximizing gives OVERFLOW."""
    indptr, indices = np.array([0, 2, 3], np.int32), np.array([0, 1, 1], np.int32)
    S = SparseCosts(indptr, indices, np.array([np.inf, 1.0, 2.0], np.float32), (2, 2))
    res = jaxmatch.solve_lap(S, unassigned_cost=5.0, method=method)
    assert res.col_for_row.tolist() == [1, -1] and float(res.cost) == 1 + 5 + 5
    assert jaxmatch.verify_lap(S, res, unassigned_cost=5.0).optimal
    Smax = SparseCosts(indptr, indices, np.array([-np.inf, 1.0, 2.0], np.float32), (2, 2))
    res = jaxmatch.solve_lap(Smax, unassigned_cost=0.0, maximize=True, method=method)
    assert res.col_for_row.tolist() == [-1, 1] and float(res.cost) == 2.0
    assert jaxmatch.verify_lap(Smax, res, unassigned_cost=0.0, maximize=True).optimal
    for data, price, maximize in [
        ([np.nan, 1.0, 2.0], 1.0, False),
        ([-np.inf, 1.0, 2.0], 1.0, False),
        ([np.inf, 1.0, 2.0], 1.0, True),
        ([0.0, 1.0, 2.0], np.inf, False),
        ([0.0, 1.0, 2.0], (np.array([0.0, np.nan]), 1.0), False),
    ]:
        bad = SparseCosts(indptr, indices, np.array(data, np.float32), (2, 2))
        res = jaxmatch.solve_lap(bad, unassigned_cost=price, maximize=maximize, method=method)
        assert int(res.status) == LAPStatus.INVALID_ENTRIES
        assert not bool(res.feasible) and res.col_for_row.tolist() == [-1, -1]
        assert not jaxmatch.verify_lap(bad, res, unassigned_cost=price, maximize=maximize).optimal
    ints = SparseCosts(indptr, indices, np.array([0, 1, 2], np.int32), (2, 2))
    low = np.int32(np.iinfo(np.int32).min)
    res = jaxmatch.solve_lap(ints, unassigned_cost=low, maximize=True, method=method)
    assert int(res.status) == LAPStatus.OVERFLOW
    malformed = SparseCosts(np.array([0, 3, 2], np.int32), indices, S.data, (2, 2))
    res = jaxmatch.solve_lap(malformed, unassigned_cost=1.0, method=method)
    assert int(res.status) == LAPStatus.INVALID_STRUCTURE


@pytest.mark.parametrize("method", METHODS)
def test_duplicates_and_padding(method):
    """A pair stored twice costs its cheaper entry (the dearer maximizing);
    entries past ``indptr[-1]`` are never read."""
    indptr = np.array([0, 3, 4], np.int32)
    indices = np.array([1, 0, 1, 1, 0, 7], np.int32)  # (0, 1) twice; 2 of padding
    data = np.array([9, 6, 2, 5, -100, -100], np.int32)
    S = SparseCosts(indptr, indices, data, (2, 2))
    res = jaxmatch.solve_lap(S, unassigned_cost=4, method=method)
    # (0, 1) at 2 (not 9); row 1's only pair (1, 1) is taken: 2 + 4 + 4
    assert res.col_for_row.tolist() == [1, -1] and int(res.cost) == 10
    assert jaxmatch.verify_lap(S, res, unassigned_cost=4).optimal
    res = jaxmatch.solve_lap(S, unassigned_cost=4, maximize=True, method=method)
    # maximizing: (0, 1) at 9, row 1 and column 0 rewarded 4 each
    assert res.col_for_row.tolist() == [1, -1] and int(res.cost) == 17
    assert jaxmatch.verify_lap(S, res, unassigned_cost=4, maximize=True).optimal


@pytest.mark.parametrize("method", METHODS)
def test_int32_extremes(method):
    """Costs and prices across the int32 range: OPTIMAL with the oracle's
    objective and a certificate, or OVERFLOW, never a wrong answer."""
    rng = np.random.default_rng(12)
    statuses = set()
    for n, m in [(3, 4), (4, 3)]:
        bigs = [2**20, 2**30, 2**31 - 1] * 4
        masks, _, _, _ = random_problems(rng, len(bigs), n, m, np.int32, density=0.6)
        Ds = [rng.integers(-big, big, (n, m)).astype(np.int32) for big in bigs]
        r = np.stack([rng.integers(-big, big, n) for big in bigs]).astype(np.int32)
        c = np.stack([rng.integers(-big, big, m) for big in bigs]).astype(np.int32)
        S = sparse_batch(masks, Ds, n, m, np.int32)
        for maximize in (False, True):
            res = solve(S, unassigned_cost=(r, c), maximize=maximize, method=method)
            for b in range(len(bigs)):
                status = int(res.status[b])
                statuses.add(status)
                if status == LAPStatus.OPTIMAL:
                    check_member(S, res, b, masks[b], Ds[b], r[b], c[b], maximize)
                else:
                    assert status == LAPStatus.OVERFLOW
    assert statuses == {LAPStatus.OPTIMAL, LAPStatus.OVERFLOW}


@pytest.mark.parametrize("method", METHODS)
def test_permutation_invariance(method):
    """Permuting rows and columns (with their prices) keeps the objective."""
    rng = np.random.default_rng(8)
    n, m = 7, 9
    masks, Ds, r, c = random_problems(rng, 4, n, m, np.int32, density=0.4)
    p, q = rng.permutation(n), rng.permutation(m)
    S = sparse_batch(masks, Ds, n, m, np.int32)
    Sp = sparse_batch([x[p][:, q] for x in masks], [x[p][:, q] for x in Ds], n, m, np.int32)
    a = jaxmatch.solve_lap(S, unassigned_cost=(r, c), method=method)
    b = jaxmatch.solve_lap(Sp, unassigned_cost=(r[:, p], c[:, q]), method=method)
    np.testing.assert_array_equal(a.cost, b.cost)


def test_methods_agree_and_jit_vmap_batches():
    """JV and the tree variant give one objective; jit with traced prices,
    vmap over members and the batched call agree."""
    rng = np.random.default_rng(21)
    n, m = 6, 8
    masks, Ds, r, c = random_problems(rng, 5, n, m, np.float32, density=0.5)
    S = sparse_batch(masks, Ds, n, m, np.float32)
    jv = jaxmatch.solve_lap(S, unassigned_cost=(r, c), method="jv")
    tree = jaxmatch.solve_lap(S, unassigned_cost=(r, c), method="tree")
    np.testing.assert_allclose(jv.cost, tree.cost, rtol=1e-6)

    @jax.jit
    def solve(S, r, c):
        return jaxmatch.solve_lap(S, unassigned_cost=(r, c), maximize=True)

    batched = solve(S, r, c)
    mapped = jax.vmap(solve)(S, r, c)
    for name in ("cost", "col_for_row", "row_for_col", "u", "v", "status"):
        np.testing.assert_array_equal(getattr(batched, name), getattr(mapped, name))
    for b in range(5):
        one = jax.tree.map(lambda a, b=b: a[b], S)
        single = jaxmatch.solve_lap(one, unassigned_cost=(r[b], c[b]), maximize=True)
        np.testing.assert_allclose(single.cost, batched.cost[b], rtol=1e-6)
        check_member(S, batched, b, masks[b], Ds[b], r[b], c[b], True)
    certs = jaxmatch.verify_lap(S, batched, unassigned_cost=(r, c), maximize=True)
    assert len(certs) == 5 and all(cert.optimal for cert in certs)
    wrong = jaxmatch.verify_lap(S, batched, unassigned_cost=(r, c + 1), maximize=True)
    assert not all(cert.optimal for cert in wrong)
    # vmap over the prices of one matrix
    one = jax.tree.map(lambda a: a[0], S)
    over_prices = jax.vmap(lambda r: jaxmatch.solve_lap(one, unassigned_cost=(r, c[0])))(r)
    for b in range(5):
        check_member(
            jax.tree.map(lambda a: np.stack([a] * 5), one), over_prices, b, masks[0], Ds[0],
            r[b], c[0], False,
        )  # fmt: skip
    scalar = jax.jit(lambda S, p: jaxmatch.solve_lap(S, unassigned_cost=p))(S, jnp.float32(1.5))
    for b in range(5):
        check_member(S, scalar, b, masks[b], Ds[b], np.full(n, 1.5), np.full(m, 1.5), False)


def test_gradient_is_assignment_and_unassigned_indicators():
    """d cost / d data is the assignment on the stored entries; d cost /
    d prices marks the unassigned rows and columns (the envelope theorem)."""
    A = scipy.sparse.csr_array(np.array([[1.0, 2.0, 0], [4.0, 0, 8.0]], np.float32))
    S = SparseCosts.from_scipy(A)
    r, c = np.array([3.0, 3.0], np.float32), np.array([5.0, 5.0, 5.0], np.float32)

    def cost(data, r, c):
        return jaxmatch.solve_lap(SparseCosts(S.indptr, S.indices, data, S.shape),
                                  unassigned_cost=(r, c)).cost  # fmt: skip

    res = jaxmatch.solve_lap(S, unassigned_cost=(r, c))
    assert res.col_for_row.tolist() == [1, 0] and float(res.cost) == 2 + 4 + 5
    gd, gr, gc = jax.grad(cost, argnums=(0, 1, 2))(jnp.asarray(S.data), r, c)
    np.testing.assert_array_equal(gd, [0.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(gr, [0.0, 0.0])
    np.testing.assert_array_equal(gc, [0.0, 0.0, 1.0])
    r = np.array([3.0, 1.0], np.float32)  # (0, 0) and the rest out: 1 + 1 + 1 + 1
    c = np.ones(3, np.float32)
    gd, gr, gc = jax.grad(cost, argnums=(0, 1, 2))(jnp.asarray(S.data), r, c)
    np.testing.assert_array_equal(gd, [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(gr, [0.0, 1.0])
    np.testing.assert_array_equal(gc, [0.0, 1.0, 1.0])


def test_argument_errors():
    S = SparseCosts.from_scipy(scipy.sparse.csr_array(np.ones((2, 3), np.int32)))
    with pytest.raises(TypeError, match="integer"):
        jaxmatch.solve_lap(S, unassigned_cost=0.5)
    with pytest.raises(ValueError, match="broadcast"):
        jaxmatch.solve_lap(S, unassigned_cost=(np.zeros(3, np.int32), np.zeros(3, np.int32)))
    with pytest.raises(ValueError, match="pair"):
        jaxmatch.solve_lap(S, unassigned_cost=np.zeros(2, np.int32))
    with pytest.raises(OverflowError, match="int32"):
        jaxmatch.solve_lap(S, unassigned_cost=np.int64(2**40))
    with pytest.raises(ValueError, match="init"):
        jaxmatch.solve_lap(S, unassigned_cost=1, init=jaxmatch.solve_lap(S))


def test_certificate_rejects_corruptions():
    """Every corruption of an optimal result fails the sparse certificate."""
    dense = np.array([[1.0, 0, 6.0], [2.0, 3.0, 0], [0, 0, 9.0]], np.float32)
    S = SparseCosts.from_scipy(scipy.sparse.csr_array(dense))
    r, c = np.array([4.0, 4.0, 4.0], np.float32), np.array([2.0, 2.0, 2.0], np.float32)
    res = jaxmatch.solve_lap(S, unassigned_cost=(r, c))
    assert res.col_for_row.tolist() == [0, 1, -1]
    assert jaxmatch.verify_lap(S, res, unassigned_cost=(r, c)).optimal
    # the plain certificate wants a full assignment of the stored entries
    assert not jaxmatch.verify_lap(S, res).optimal

    def bad(**fields):
        return jaxmatch.verify_lap(S, res._replace(**fields), unassigned_cost=(r, c))

    u, v = np.asarray(res.u), np.asarray(res.v)
    cases = [
        bad(col_for_row=jnp.array([0, -1, -1]), row_for_col=jnp.array([0, -1, -1])),
        bad(u=jnp.asarray(u).at[2].add(-1.0)),  # an unassigned row below its price
        bad(v=jnp.asarray(v).at[2].add(1.0)),  # a column dual above its price
        bad(u=jnp.asarray(u).at[0].add(1.0)),  # a stored entry's constraint broken
        bad(col_for_row=jnp.array([0, 1, 0]), row_for_col=jnp.array([2, 1, -1])),
        bad(col_for_row=jnp.array([0, 2, -1]), row_for_col=jnp.array([0, -1, 1])),  # absent
    ]
    for cert in cases:
        assert not cert.optimal
    assert not cases[-1].valid_assignment
    cheaper = jaxmatch.verify_lap(S, res, unassigned_cost=(r, c - 1))
    assert not cheaper.optimal
    inf = jaxmatch.verify_lap(S, res, unassigned_cost=(r, np.full(3, np.inf)))
    assert not inf.optimal and "unassigned_cost" in inf.reason
    # scipy sparse input: csgraph's reading (explicit zeros not edges)
    assert jaxmatch.verify_lap(scipy.sparse.csr_array(dense), res, unassigned_cost=(r, c)).optimal


def test_tree_exits_under_concurrency_emulation(tmp_path):
    """``csr_exits_emulation.cc``: the tree variant's steps with exits, their
    CUDA branches on host threads with host atomics (teams of two to eight
    workers, collectives through barriers), equal the serial team's solve
    (status, assignment, duals) on random problems of every cost dtype."""
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    root = Path(__file__).resolve().parents[2]
    exe = tmp_path / "csr_exits_emulation"
    source = Path(__file__).with_name("csr_exits_emulation.cc")
    subprocess.run(
        [cxx, "-std=c++17", "-O2", "-pthread", "-I", str(root / "cuda_ffi"), str(source)]
        + ["-o", str(exe)],
        check=True,
        capture_output=True,
    )
    # about a second on an idle 2-core host; a team whose workers diverge
    # deadlocks at a barrier
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "csr_exits_emulation: OK" in proc.stdout, proc.stdout


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_gpu_matches_cpu(dtype):
    """The GPU's tree variant against the CPU's JV on the same batches:
    status, objective, certificate; shapes up to a few hundred."""
    rng = np.random.default_rng(31)
    gpu, cpu = jax.devices("gpu")[0], jax.devices("cpu")[0]
    for (n, m), batch, density in [
        ((1, 1), 4, 1.0), ((7, 5), 16, 0.4), ((5, 7), 16, 0.4), ((40, 40), 8, 0.1),
        ((64, 200), 6, 0.05), ((300, 120), 4, 0.03), ((500, 500), 2, 0.01),
    ]:  # fmt: skip
        masks, Ds, r, c = random_problems(rng, batch, n, m, dtype, density=density, span=50)
        S = sparse_batch(masks, Ds, n, m, dtype)
        for maximize in (False, True):
            out = {}
            for dev in (gpu, cpu):
                args = jax.device_put((S, r, c), dev)
                out[dev.platform] = jaxmatch.solve_lap(
                    args[0], unassigned_cost=args[1:], maximize=maximize
                )
            g, h = out["gpu"], out["cpu"]
            np.testing.assert_array_equal(g.status, h.status)
            np.testing.assert_allclose(g.cost, h.cost, rtol=1e-5, atol=1e-3)
            certs = jaxmatch.verify_lap(S, g, unassigned_cost=(r, c), maximize=maximize)
            assert all(cert.optimal for cert in certs), [x.reason for x in certs]
            if n * m <= 200:
                for b in range(batch):
                    check_member(S, g, b, masks[b], Ds[b], r[b], c[b], maximize)


@pytest.mark.gpu
def test_gpu_jit_vmap_and_float64():
    rng = np.random.default_rng(32)
    gpu = jax.devices("gpu")[0]
    with jax.enable_x64(True):
        n, m = 30, 45
        masks = [rng.random((n, m)) < 0.2 for _ in range(6)]
        Ds = [rng.normal(size=(n, m)) for _ in range(6)]
        r, c = rng.uniform(0, 1, (6, n)), rng.uniform(0, 1, (6, m))
        S = sparse_batch(masks, Ds, n, m, np.float64)
        solve = jax.jit(jax.vmap(lambda S, r, c: jaxmatch.solve_lap(S, unassigned_cost=(r, c))))
        res = solve(*jax.device_put((S, r, c), gpu))
        assert res.u.dtype == jnp.float64
        for b in range(6):
            check_member(S, res, b, masks[b], Ds[b], r[b], c[b], False)
