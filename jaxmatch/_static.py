"""Checks for the static (trace-time) options of the solvers.

Options that choose kernels or loop bounds (``method``, ``execution``,
``levels_per_call``, ...) are read in Python when a call is traced; a value
traced by ``jax.jit`` cannot be read there. These checks turn the error JAX
would raise deep inside into one that names the option and the fix.
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

_RECIPE = (
    "it is read when the call is traced, so it must be a concrete Python value, "
    "not a traced one: mark it static, e.g. jax.jit(f, static_argnames=({name!r},)), "
    "or bind it with functools.partial(f, {name}=...) before jax.jit"
)


def recipe(name: str) -> str:
    """The sentence that tells how to keep option ``name`` static."""
    return _RECIPE.format(name=name)


def static_str(value: Any, name: str) -> str:
    """``value`` when it is a Python string; a TypeError naming ``name`` and
    the ``static_argnames`` recipe otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__}; {recipe(name)}")
    return value


def static_int(value: Any, name: str) -> int:
    """``value`` as a Python int when it is a concrete integer; a TypeError
    naming ``name`` and the ``static_argnames`` recipe for a tracer."""
    if isinstance(value, jax.core.Tracer):
        raise TypeError(f"{name} must be a concrete int, got a traced value; {recipe(name)}")
    a = np.asarray(value)
    if a.ndim != 0 or a.dtype.kind not in "iu":
        raise TypeError(f"{name} must be an int, got {value!r}")
    return int(a)


def static_bool(value: Any, name: str) -> bool:
    """``value`` as a Python bool when it is a concrete boolean; a TypeError
    naming ``name`` and the ``static_argnames`` recipe for a tracer."""
    if isinstance(value, jax.core.Tracer):
        raise TypeError(f"{name} must be a concrete bool, got a traced value; {recipe(name)}")
    a = np.asarray(value)
    if a.ndim != 0 or a.dtype != np.bool_:
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return bool(a)
