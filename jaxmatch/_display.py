"""Readable views of the result pytrees: status names and a compact repr.

Nothing here may raise or force a large device-to-host copy: a result can
hold tracers (inside ``jit``, ``vmap`` or ``grad``), ``ShapeDtypeStruct``
(from ``jax.eval_shape``), deleted arrays, or anything a ``tree_map`` put
there.
"""

from __future__ import annotations

import enum
from typing import Any

import jax
import numpy as np

#: Batches of at most this many problems print their per-problem values.
SMALL_BATCH = 8
#: Larger batches print status counts up to this many problems.
COUNT_LIMIT = 1 << 20


def _is_tracer(x: Any) -> bool:
    return isinstance(x, jax.core.Tracer)


def _concrete(x: Any, limit: int) -> np.ndarray | None:
    """``x`` as a NumPy array when it holds concrete values and at most
    ``limit`` of them; else None (never raises)."""
    if _is_tracer(x) or not isinstance(x, (np.ndarray, np.generic, jax.Array, bool, int, float)):
        return None
    try:
        if int(np.prod(np.shape(x))) > limit:
            return None
        return np.asarray(x)
    except Exception:  # deleted or non-addressable arrays
        return None


def describe(x: Any) -> str:
    """``dtype[shape]`` (like ``int32[2,3]``) for anything with a shape and a
    dtype, else a short type name."""
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    if shape is None or dtype is None:
        return "None" if x is None else type(x).__name__
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = str(dtype)
    return f"{name}[{','.join(str(d) for d in shape)}]"


def _code_name(code: int, status_enum: type[enum.IntEnum]) -> str:
    try:
        return status_enum(code).name
    except ValueError:
        return f"UNKNOWN({code})"


def status_names(status: Any, status_enum: type[enum.IntEnum]) -> str | np.ndarray:
    """The name of a scalar status code, or an array (of ``str``, the batch
    shape) of names; raises ``TypeError`` for a traced status."""
    if _is_tracer(status):
        raise TypeError(
            f"status_name needs a concrete result: inside jit/vmap/grad compare status "
            f"with {status_enum.__name__} members instead"
        )
    codes = np.asarray(status)
    if codes.dtype.kind not in "iu":
        raise TypeError(f"status must hold integer codes, got dtype {codes.dtype}")
    if codes.ndim == 0:
        return _code_name(int(codes), status_enum)
    names = [_code_name(int(c), status_enum) for c in codes.ravel()]
    return np.array(names, dtype=str).reshape(codes.shape)


def _value(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return f"{float(v):.6g}"


def _per_problem(name: str, x: Any, status_enum: type[enum.IntEnum] | None) -> str:
    """A per-problem (batch-shaped) field: its values when concrete and few,
    status counts for a larger batch, else its dtype and shape."""
    a = _concrete(x, SMALL_BATCH)
    try:
        if status_enum is not None and a is not None and a.dtype.kind not in "iu":
            return describe(x)  # not status codes
        if a is not None:
            if status_enum is not None:
                if a.ndim == 0:
                    return _code_name(int(a), status_enum)
                return "[" + ", ".join(_code_name(int(c), status_enum) for c in a.ravel()) + "]"
            if a.ndim == 0:
                return _value(a.item())
            return "[" + ", ".join(_value(v) for v in a.ravel().tolist()) + "]"
        if status_enum is not None:
            a = _concrete(x, COUNT_LIMIT)
            if a is not None and a.dtype.kind in "iu":
                codes, counts = np.unique(a, return_counts=True)
                parts = [f"{_code_name(int(c), status_enum)}: {k}" for c, k in zip(codes, counts)]
                return describe(x) + " {" + ", ".join(parts) + "}"
    except Exception:  # odd dtypes (strings, objects)
        pass
    return describe(x)


def result_repr(
    result: tuple,
    per_problem: tuple[str, ...],
    status_enum: type[enum.IntEnum],
) -> str:
    """``Name(field=..., ...)``: arrays as ``dtype[shape]``, the per-problem
    fields as values when concrete and few (the status by name)."""
    parts = []
    for name in result._fields:  # type: ignore[attr-defined]
        x = getattr(result, name)
        if name in per_problem:
            text = _per_problem(name, x, status_enum if name == "status" else None)
        else:
            text = describe(x)
        parts.append(f"{name}={text}")
    return f"{type(result).__name__}({', '.join(parts)})"
