"""Eager solves of costs too large for XLA's autotuner compile with it off
(``LAPTuning.autotune_max_fraction``); the answers do not change."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxmatch
from jaxmatch.lap import _plan

CPU = jax.devices("cpu")[:1]


class _FakeDevice:
    def __init__(self, platform, stats):
        self.platform, self._stats = platform, stats

    def memory_stats(self):
        return self._stats


def test_autotune_off_only_for_large_blocks_on_gpus():
    gpu = _FakeDevice("gpu", {"bytes_limit": 1000})
    default = jaxmatch.LAPTuning()
    assert default.autotune_max_fraction == 0.4
    assert _plan.autotune_off(401, [gpu], default)
    assert not _plan.autotune_off(400, [gpu], default)
    assert not _plan.autotune_off(10**9, [_FakeDevice("cpu", {"bytes_limit": 1000})], default)
    assert not _plan.autotune_off(10**9, [_FakeDevice("gpu", None)], default)
    assert not _plan.autotune_off(10**9, [_FakeDevice("gpu", {})], default)
    half = jaxmatch.LAPTuning(autotune_max_fraction=0.5)
    assert not _plan.autotune_off(401, [gpu], half) and _plan.autotune_off(501, [gpu], half)


def _recording(monkeypatch, tunings: list | None = None) -> list:
    """Records each (block bytes, devices) the solvers ask about, and the
    tuning they ask with in ``tunings``; answers True (autotuning off)."""
    asked: list = []

    def fake(block_bytes, devices, tuning):
        asked.append((block_bytes, list(devices)))
        if tunings is not None:
            tunings.append(tuning)
        return True

    monkeypatch.setattr(_plan, "autotune_off", fake)
    return asked


def test_solve_lap_untuned_gives_the_same_solve(monkeypatch):
    """The eager ``solve_lap`` (static and traced ``maximize``) compiled with
    autotuning off solves bit for bit as the other; the block asked about
    is a shard's bytes; traced calls never ask."""
    rng = np.random.default_rng(5)
    C = rng.random((3, 20, 24), dtype=np.float32)
    want = [jaxmatch.solve_lap(C), jaxmatch.solve_lap(C, maximize=np.array([True, False, True]))]
    tunings: list = []
    asked = _recording(monkeypatch, tunings)
    got = [jaxmatch.solve_lap(C), jaxmatch.solve_lap(C, maximize=np.array([True, False, True]))]
    assert [a[0] for a in asked] == [C.nbytes, C.nbytes]
    assert tunings == [jaxmatch.LAPTuning()] * 2
    for g, w in zip(got, want, strict=True):
        for a, b in zip(g, w, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    on_device = jax.device_put(C, CPU[0])
    half = jaxmatch.LAPTuning(autotune_max_fraction=0.5)
    jaxmatch.solve_lap(on_device, tuning=half)  # the caller's tuning is the one asked with
    assert asked[-1] == (C.nbytes, [CPU[0]]) and tunings[-1] is half
    jax.jit(jaxmatch.solve_lap)(C)
    jax.grad(lambda c: jaxmatch.solve_lap(c).cost.sum())(jnp.asarray(C))
    batched = jax.vmap(jaxmatch.solve_lap)(C)
    assert len(asked) == 3
    np.testing.assert_array_equal(np.asarray(batched.col_for_row), np.asarray(want[0].col_for_row))


def test_split_untuned_gives_the_same_solve(monkeypatch):
    """The same for ``solve_lap_split``, whose block is a device's rows."""
    rng = np.random.default_rng(12)
    C = rng.integers(0, 30, (37, 41)).astype(np.int32)
    want = jaxmatch.solve_lap_split(C, devices=CPU, maximize=True)
    tunings: list = []
    asked = _recording(monkeypatch, tunings)
    got = jaxmatch.solve_lap_split(C, devices=CPU, maximize=True)
    assert asked == [(37 * 41 * 4, CPU)] and tunings == [jaxmatch.LAPTuning()]
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    grad = jax.grad(lambda c: jaxmatch.solve_lap_split(c, devices=CPU).cost)(jnp.asarray(C, float))
    assert float(grad.sum()) == 37.0
    half = jaxmatch.LAPTuning(autotune_max_fraction=0.5)
    jaxmatch.solve_lap_split(C, devices=CPU, tuning=half)
    assert len(asked) == 2 and tunings[-1] is half
    jitted = jax.jit(lambda c: jaxmatch.solve_lap_split(c, devices=CPU, maximize=True))(C)
    assert len(asked) == 2
    np.testing.assert_array_equal(np.asarray(jitted.col_for_row), np.asarray(want.col_for_row))


@pytest.mark.parametrize("rows", [5, 8])
def test_split_block_is_a_devices_share_of_the_rows(monkeypatch, rows):
    """Over four (forced CPU) devices, or one: the block is
    ``ceil(min(n, m) / devices) * max(n, m)`` entries."""
    devices = jax.devices("cpu")
    asked = _recording(monkeypatch)
    C = np.arange(rows * 11, dtype=np.float32).reshape(rows, 11) % 7
    jaxmatch.solve_lap_split(C, devices=devices)
    jaxmatch.solve_lap_split(C.T, devices=devices)
    share = -(-rows // len(devices)) * 11 * 4
    assert [a[0] for a in asked] == [share, share]
