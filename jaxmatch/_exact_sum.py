"""Exact sums of integers in their own width, with whether the sum fits:
the totals of the int32 LAP costs and of the integer weighted matchings,
without 64-bit integers when x64 is off."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax


def exact_integer_sum(vals: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Exact sum over the last axis of signed integers (int8-int64).

    The values are added as two-word integers -- a high word counting the
    carries and signs, the low word the bits -- in one reduction, so any
    count of values below ``2**31`` is summed exactly.

    Args:
      vals: ``[..., k]`` signed integers.

    Returns:
      ``(total, fits)``: the sum ``[...]`` in ``vals``' dtype, meaningful
      where it fits, and bool ``[...]``: whether it fits in that dtype.
    """
    vals = jnp.asarray(vals)
    signed = vals.dtype
    unsigned = jnp.dtype(f"uint{8 * signed.itemsize}")
    low = lax.bitcast_convert_type(vals, unsigned)
    # The high word counts up to k carries and signs: at least 32 bits.
    wide = jnp.int64 if signed.itemsize == 8 else jnp.int32
    high = jnp.where(vals < 0, -1, 0).astype(wide)  # the sign, extended

    def add(a, b):
        (a_high, a_low), (b_high, b_low) = a, b
        s_low = a_low + b_low
        carry = (s_low < a_low).astype(wide)
        return a_high + b_high + carry, s_low

    zero_high = jnp.zeros((), wide)
    zero_low = jnp.zeros((), unsigned)
    s_high, s_low = lax.reduce((high, low), (zero_high, zero_low), add, (vals.ndim - 1,))
    total = lax.bitcast_convert_type(s_low, signed)
    fits = s_high == jnp.where(total < 0, -1, 0).astype(wide)
    return total, fits
