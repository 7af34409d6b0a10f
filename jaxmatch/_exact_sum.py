"""Exact sums of integers in their own width, with whether the sum fits:
the totals of the int32 LAP costs and of the integer weighted matchings,
without 64-bit integers when x64 is off."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from . import _limits


def exact_integer_sum(vals: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Exact sum over the last axis of signed integers (int8-int64).

    Where the count is known and small enough, each value's bytes are
    summed column by column (plain sums, which XLA partitions over sharded
    operands without gathering them) and the carries propagated; otherwise
    (more than ``2**23 - 1`` values of at most 32 bits, or a symbolic
    count) the values are added as two-word integers in one reduction.

    Args:
      vals: ``[..., k]`` signed integers, ``k < 2**31``.

    Returns:
      ``(total, fits)``: the sum ``[...]`` in ``vals``' dtype, meaningful
      where it fits, and bool ``[...]``: whether it fits in that dtype.
    """
    vals = jnp.asarray(vals)
    info = jnp.iinfo(vals.dtype)
    wide = jnp.dtype(jnp.int64 if vals.dtype.itemsize == 8 else jnp.int32)
    k = vals.shape[-1]
    columns_fit = _limits.is_concrete(k) and 255 * k <= jnp.iinfo(wide).max
    sum_of = _byte_column_sum if columns_fit else _two_word_sum
    total, fits = sum_of(vals.astype(wide))
    if vals.dtype != wide:  # int8, int16: the sum must fit their range too
        fits &= (total >= info.min) & (total <= info.max)
    return total.astype(vals.dtype), fits


def _byte_column_sum(vals: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The sum of int32 or int64 ``vals`` by byte columns (each column's sum,
    at most ``255 k``, fits the dtype), the carries propagated upwards."""
    nbytes = vals.dtype.itemsize
    columns = [jnp.sum((vals >> (8 * i)) & 0xFF, axis=-1) for i in range(nbytes - 1)]
    columns.append(jnp.sum(vals >> (8 * (nbytes - 1)), axis=-1))  # signed: [-128, 127]
    total = jnp.zeros_like(columns[0])
    carry = jnp.zeros_like(columns[0])
    for i, column in enumerate(columns[:-1]):
        t = column + carry
        total |= (t & 0xFF) << (8 * i)
        carry = t >> 8
    top = columns[-1] + carry
    fits = (top >= -128) & (top <= 127)
    return total | (top << (8 * (nbytes - 1))), fits


def _two_word_sum(vals: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The sum of int32 or int64 ``vals`` as two-word integers -- a high word
    counting the carries and signs, the low word the bits -- in one
    variadic reduction (exact for any count below ``2**31``)."""
    signed = vals.dtype
    unsigned = jnp.dtype(f"uint{8 * signed.itemsize}")
    low = lax.bitcast_convert_type(vals, unsigned)
    high = jnp.where(vals < 0, -1, 0).astype(signed)  # the sign, extended

    def add(a, b):
        (a_high, a_low), (b_high, b_low) = a, b
        s_low = a_low + b_low
        carry = (s_low < a_low).astype(signed)
        return a_high + b_high + carry, s_low

    zeros = (jnp.zeros((), signed), jnp.zeros((), unsigned))
    s_high, s_low = lax.reduce((high, low), zeros, add, (vals.ndim - 1,))
    total = lax.bitcast_convert_type(s_low, signed)
    return total, s_high == jnp.where(total < 0, -1, 0).astype(signed)
