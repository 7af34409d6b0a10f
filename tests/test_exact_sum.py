"""``exact_integer_sum``: the exact totals of int32 LAP costs and integer
weighted matchings, and whether they fit, against NumPy's wider sums."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from jaxmatch._exact_sum import exact_integer_sum


def _rows(k: int, dtype, rng) -> np.ndarray:
    info = np.iinfo(dtype)
    per = max(k, 1)
    rows = [
        rng.integers(info.min, info.max, k, endpoint=True, dtype=dtype),  # mostly overflows
        rng.integers(info.min // per, info.max // per, k, dtype=dtype),
        np.resize(np.array([info.max, -info.max], dtype), k),  # fits, carrying every step
        np.full(k, info.max, dtype),
        np.full(k, info.min, dtype),
        np.concatenate([np.full(k // 2, info.max, dtype), np.full(k - k // 2, info.min, dtype)]),
        rng.integers(-100, 100, k, dtype=dtype),
    ]
    return np.stack(rows)


def _check(vals: np.ndarray) -> None:
    total, fits = jax.jit(exact_integer_sum)(vals)
    exact = [sum(int(x) for x in row) for row in vals] if vals.dtype == np.int64 else None
    if exact is None:
        exact = vals.astype(np.int64).sum(axis=1).tolist()
    info = np.iinfo(vals.dtype)
    want_fits = np.array([info.min <= e <= info.max for e in exact])
    np.testing.assert_array_equal(np.asarray(fits), want_fits)
    got = np.asarray(total).tolist()
    assert [g for g, w in zip(got, want_fits) if w] == [e for e, w in zip(exact, want_fits) if w]
    k = vals.shape[1]
    assert want_fits.any() and (k < 2 or not want_fits.all())


@pytest.mark.parametrize("k", [0, 1, 7, 65535, 65536, 300_000])
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32])
def test_exact_sum_in_the_values_own_width(k, dtype):
    _check(_rows(k, dtype, np.random.default_rng(k)))


@pytest.mark.parametrize("k", [0, 1, 7, 1000])
def test_exact_int64_sum(k):
    _check(_rows(k, np.int64, np.random.default_rng(k)))


def test_more_values_than_byte_columns_hold():
    """2**23 + 1 values: beyond what summing each byte in int32 can hold."""
    k = 2**23 + 1
    vals = np.stack([np.full(k, 255, np.int32), np.full(k, 256, np.int32)])
    total, fits = jax.jit(exact_integer_sum)(vals)
    assert np.asarray(fits).tolist() == [True, False]
    assert int(total[0]) == 255 * k


def test_batched_under_vmap():
    vals = np.array([[2**31 - 1, 2**31 - 1], [2**31 - 1, -(2**31)], [-(2**31), -1]], np.int32)
    total, fits = jax.vmap(exact_integer_sum)(vals)
    assert np.asarray(fits).tolist() == [False, True, False]
    assert int(total[1]) == -1


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_both_ways_agree(dtype):
    """The byte columns (the usual way) and the two-word reduction (long or
    symbolic counts) give the same totals and verdicts."""
    from jaxmatch._exact_sum import _byte_column_sum, _two_word_sum

    vals = _rows(1000, dtype, np.random.default_rng(9))
    a, b = jax.jit(_byte_column_sum)(vals), jax.jit(_two_word_sum)(vals)
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(np.asarray(a[0])[a[1]], np.asarray(b[0])[b[1]])
