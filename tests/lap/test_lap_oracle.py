"""The LAP solvers against scipy on thousands of random instances.

Instances of one shape and dtype are solved as one batch (leading batch
dimension), so a sweep costs one compilation per shape; every member is
compared with scipy's objective and certified by LP duality.
"""

from __future__ import annotations

import functools
import itertools

import jax
import numpy as np
import pytest
from lap_cases import DISTRIBUTIONS, METHODS, check_against_scipy, make_costs, member

import jaxmatch

# Square, wide and tall shapes from 0 to 300.
SHAPES = [
    (0, 0),
    (0, 3),
    (3, 0),
    (1, 1),
    (1, 5),
    (5, 1),
    (2, 2),
    (3, 3),
    (4, 7),
    (7, 4),
    (8, 8),
    (13, 13),
    (16, 31),
    (31, 16),
    (32, 32),
    (50, 50),
    (64, 100),
    (100, 64),
    (128, 128),
]
LARGE_SHAPES = [(200, 200), (300, 300), (150, 300), (300, 150)]
DTYPES = [np.float32, np.float64, np.int32]
PER_SHAPE = 10  # two of each distribution


def _batch(rng, n, m, dtype):
    mats = [
        make_costs(rng, DISTRIBUTIONS[k % len(DISTRIBUTIONS)], n, m, dtype)
        for k in range(PER_SHAPE)
    ]
    return np.stack(mats)


def _sweep(device, method, execution, shapes, seed):
    rng = np.random.default_rng(seed)
    count = 0
    for (n, m), dtype, maximize in itertools.product(shapes, DTYPES, (False, True)):
        C = _batch(rng, n, m, dtype)
        if maximize and not np.issubdtype(dtype, np.integer):
            C = np.where(np.isinf(C), -np.inf, C)  # forbidden when maximizing
        solve = jax.jit(
            functools.partial(
                jaxmatch.solve_lap, maximize=maximize, method=method, execution=execution
            )
        )
        res = jax.device_get(solve(C))
        for b in range(C.shape[0]):
            check_against_scipy(C[b], member(res, b), maximize)
            count += 1
    return count


@pytest.mark.parametrize("method", METHODS)
def test_fused_sweep(device, method):
    count = _sweep(device, method, "fused", SHAPES, seed=1)
    assert count == len(SHAPES) * len(DTYPES) * 2 * PER_SHAPE


@pytest.mark.parametrize("method", METHODS)
def test_stepped_sweep(device, method):
    count = _sweep(device, method, "stepped", SHAPES[::2], seed=2)
    assert count == len(SHAPES[::2]) * len(DTYPES) * 2 * PER_SHAPE


@pytest.mark.parametrize("method", METHODS)
def test_large_shapes(device, method):
    rng = np.random.default_rng(3)
    for (n, m), dist in itertools.product(LARGE_SHAPES, ("uniform", "int_n", "ties01")):
        for dtype in (np.float32, np.int32):
            C = make_costs(rng, dist, n, m, dtype)
            res = jax.device_get(jaxmatch.solve_lap(C, method=method))
            check_against_scipy(C, res, maximize=False)


def test_brute_force_tiny(device):
    """Every permutation of tiny problems, against exhaustive search."""
    rng = np.random.default_rng(4)
    for n in range(1, 6):
        perms = np.array(list(itertools.permutations(range(n))))
        C = rng.integers(0, 3, (40, n, n)).astype(np.float32)
        for method in METHODS:
            res = jax.device_get(jaxmatch.solve_lap(C, method=method))
            brute = C[:, np.arange(n), perms].sum(-1).min(-1)
            np.testing.assert_array_equal(res.cost, brute)


def test_methods_agree_exactly(device):
    """Both variants and both execution shapes reach an optimum; the tree
    variant is deterministic, so fused and stepped agree bit for bit."""
    rng = np.random.default_rng(5)
    C = rng.random((16, 40, 60)).astype(np.float32)
    fused = jax.device_get(jaxmatch.solve_lap(C, method="tree", execution="fused"))
    stepped = jax.device_get(jaxmatch.solve_lap(C, method="tree", execution="stepped"))
    np.testing.assert_array_equal(fused.col_for_row, stepped.col_for_row)
    np.testing.assert_array_equal(fused.u, stepped.u)
    classical = jax.device_get(jaxmatch.solve_lap(C, method="classical"))
    np.testing.assert_allclose(classical.cost, fused.cost, rtol=1e-5)
