"""k_best_assignments on a GPU (the fused kernel: a crew of warps per
problem, cuda_ffi/lap/kbest/kbest_kernels.cu) against the CPU's: each warp
runs the same steps and combines its lanes' minima as the serial scan finds
them, and the crew takes its searches' results in the serial order, so
every field must be equal (assignments, costs bit for bit, found,
iterations, status); and verify_k_best on the GPU's results."""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import jax
import numpy as np
import pytest

import jaxmatch
from jaxmatch import LAPStatus

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

pytestmark = pytest.mark.gpu


def _gpu():
    return jax.devices("gpu")[0]


def _cpu():
    return jax.devices("cpu")[0]


def _rank(device, C, k, *, unassigned_cost=None, maximize=False, jit=False):
    def put(x):
        return None if x is None else jax.device_put(np.asarray(x), device)

    prices = unassigned_cost
    if isinstance(prices, tuple):
        prices = tuple(put(p) for p in prices)
    elif prices is not None and np.ndim(prices) > 0:
        prices = put(prices)

    def fn(C, prices):
        return jaxmatch.k_best_assignments(C, k, unassigned_cost=prices, maximize=maximize)

    if jit:
        fn = jax.jit(fn)
    res = fn(put(C), prices)
    if device.platform != "cpu":
        assert res.assignments.devices() == {device}
    return jax.tree.map(np.asarray, res)


def _same(C, k, *, certify=True, **kw):
    """The GPU's result, checked equal to the CPU's and certified."""
    on_gpu = _rank(_gpu(), C, k, **kw)
    on_cpu = _rank(_cpu(), C, k, **kw)
    for field in on_gpu._fields:
        got, want = getattr(on_gpu, field), getattr(on_cpu, field)
        assert got.dtype == want.dtype, field
        np.testing.assert_array_equal(got, want, err_msg=field)
    if certify:
        kw.pop("jit", None)
        _certify(C, on_gpu, **kw)
    return on_gpu


def _certify(C, res, **kw):
    certs = jaxmatch.verify_k_best(C, res, **kw)
    for cert in certs if isinstance(certs, list) else [certs]:
        assert cert.valid, cert.reason


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("exits", [False, True])
@pytest.mark.parametrize("shape", [(6, 4, 5), (5, 5, 5), (4, 6, 3), (3, 1, 1)])
def test_agrees_with_cpu(dtype, exits, shape):
    rng = np.random.default_rng(zlib.crc32(repr((np.dtype(dtype).name, exits, shape)).encode()))
    levels = 4 if dtype == np.int32 else 50  # ties
    C = rng.integers(0, levels, shape).astype(dtype)
    prices = (rng.integers(0, levels, shape[:-1]), rng.integers(0, levels, shape[:-2] + shape[-1:]))
    kw = dict(unassigned_cost=tuple(p.astype(dtype) for p in prices)) if exits else {}
    for k in (1, 7, 40):
        _same(C, k, **kw)
    _same(C, 9, maximize=True, **kw)


@pytest.mark.parametrize("exits", [False, True])
def test_forbidden_pairs_and_infeasible(exits):
    rng = np.random.default_rng(3)
    C = rng.uniform(0, 10, (8, 5, 7))
    C[rng.random(C.shape) < 0.4] = np.inf
    C[0, 2, :] = np.inf  # no pair for a row: infeasible without exits
    kw = dict(unassigned_cost=4.0) if exits else {}
    res = _same(C, 25, **kw)
    if not exits:
        assert res.status[0] == LAPStatus.INFEASIBLE and res.found[0] == 0


def test_invalid_entries_and_overflow():
    C = np.ones((3, 3, 4))
    C[1, 0, 0] = np.nan
    C[2, 1, 1] = -np.inf
    res = _same(C, 4, certify=False)
    np.testing.assert_array_equal(
        res.status, [LAPStatus.OPTIMAL, LAPStatus.INVALID_ENTRIES, LAPStatus.INVALID_ENTRIES]
    )
    big = np.full((2, 3, 3), 2**30, np.int32)
    big[1] = 1
    res = _same(big, 3, certify=False)
    np.testing.assert_array_equal(res.status, [LAPStatus.OVERFLOW, LAPStatus.OPTIMAL])


def test_fewer_than_k():
    C = np.arange(6.0).reshape(2, 3)
    res = _same(C, 10)
    assert res.found == 6
    res = _same(C, 50, unassigned_cost=1.0)
    assert res.found == 13  # every partial matching of K_{2,3}: 1 + 6 + 6


def test_jit_vmap_and_traced_prices():
    rng = np.random.default_rng(5)
    C = rng.uniform(0, 5, (4, 6, 8))
    r, c = rng.uniform(1, 2, (4, 6)), rng.uniform(1, 2, (4, 8))
    jitted = _same(C, 30, unassigned_cost=(r, c), jit=True)
    gpu = _gpu()
    mapped = jax.jit(
        jax.vmap(lambda x, a, b: jaxmatch.k_best_assignments(x, 30, unassigned_cost=(a, b)))
    )(*(jax.device_put(v, gpu) for v in (C, r, c)))
    for field in jitted._fields:
        np.testing.assert_array_equal(np.asarray(getattr(mapped, field)), getattr(jitted, field))


def test_tracking_batch():
    """The benchmark's problems (256 x 40x50, k = 100, price 1.3)."""
    from benchmarks.lap_k_best import problems

    C = problems(np.random.default_rng(0), 256, 40, 50)
    res = _same(C[:32], 100, unassigned_cost=1.3, certify=False)
    _certify(C[:4], jax.tree.map(lambda x: x[:4], res), unassigned_cost=1.3)
    _same(C.astype(np.float32), 100, unassigned_cost=1.3, certify=False)


@pytest.mark.parametrize("per_sm", [1, 3, 8])
def test_crews_of_every_size(per_sm):
    """Batches of 1, 3 and 8 problems an SM: crews of 4, 2 and 1 warps
    (kKBestCrewRules), each equal to the CPU."""
    sms = getattr(_gpu(), "core_count", None) or 132
    rng = np.random.default_rng(per_sm)
    C = rng.integers(0, 6, (per_sm * sms, 6, 7)).astype(np.float32)
    res = _same(C, 12, unassigned_cost=3.0, certify=False)
    assert np.all(res.found == 12)


def test_more_problems_than_crews():
    """Past kKBestMaxCrews (8192) problems each crew solves several, reusing
    its workspace."""
    rng = np.random.default_rng(7)
    C = rng.integers(0, 5, (9000, 3, 4)).astype(np.float32)
    res = _same(C, 5, unassigned_cost=2.0, certify=False)
    assert np.all(res.found == 5)
