"""The warning for float64 data that JAX rounds to float32 because
``jax_enable_x64`` is off: the solvers then answer the rounded problem."""

from __future__ import annotations

import warnings

import jax
import numpy as np


class Float64RoundingWarning(UserWarning):
    """float64 data was solved in float32 (``jax_enable_x64`` is off), and
    rounding changed its values: the answer is that of the rounded data."""


def warn_if_rounded(values: np.ndarray, what: str, stacklevel: int = 3) -> None:
    """Warns (:class:`Float64RoundingWarning`) when the float64 ``values``
    will be solved in float32 and are not all float32 numbers.

    Args:
      values: concrete data bound for a solver (other dtypes pass silently).
      what: the data's name in the message, plural (``"costs"``).
      stacklevel: as for :func:`warnings.warn`, counted from the caller.
    """
    if values.dtype != np.float64 or jax.config.read("jax_enable_x64"):
        return
    with np.errstate(over="ignore"):
        rounded = values.astype(np.float32)
    if np.array_equal(rounded, values, equal_nan=True):
        return
    warnings.warn(
        f"{what} are float64 but jax_enable_x64 is off, so they are solved in float32, "
        "and rounding changes their values (the answer is the rounded problem's). "
        "Call jax.config.update('jax_enable_x64', True) to solve them in float64, "
        "or pass float32 data.",
        Float64RoundingWarning,
        stacklevel=stacklevel + 1,
    )
