"""The sizes jaxmatch's kernels take, and the checks that refuse a larger
problem before any kernel runs.

Two kinds of limit, one table (:data:`LIMITS`):

* **int32 indices.** The kernels index a problem's buffers with int32 and
  step through them in grid-stride loops (``i += stride`` must not wrap), so
  every per-problem buffer they index stays below :data:`INDEX_BOUND`
  (``2**30``), the bound the C++ handlers check when a kernel is called
  (``cuda_ffi/lap/common/dense_ffi.h``, ``cuda_ffi/matching/matching_ffi.h``,
  ``cuda_ffi/weighted/weighted_ffi.h``). Shapes are static, so the front
  doors check them at trace time, under ``jax.jit`` too, and raise
  ``ValueError``: the problem is too large for any device.
* **Device memory.** An eager call (no tracer among its inputs) checks that
  what one device must hold at once -- the inputs it holds or receives, the
  kernels' outputs and their workspaces, for the batch members it solves --
  fits that device's memory (:func:`device_memory`): a GPU's allocator
  limit (``memory_stats()["bytes_limit"]``), the host's physical memory for
  CPU devices, which share it. The count is a lower bound of the peak (the
  copies XLA makes on the way, a transpose or a sign flip, are not in it),
  so a refusal is certain and an acceptance is not a promise: a problem
  between the count and the true peak still gets XLA's own
  ``RESOURCE_EXHAUSTED`` error. The error is a ``MemoryError``, as NumPy
  raises for an array it cannot allocate: the input is valid, this device
  is too small for it (a larger device, more devices, or a smaller batch
  solve it).

Under ``jax.jit`` the device that will run the computation is not known at
trace time (the inputs' placement is decided when the compiled program is
called), so the memory check is skipped there rather than guessed from the
default device, which would refuse programs meant for larger devices; XLA
allocates a jitted program's buffers before it runs any kernel and reports
``RESOURCE_EXHAUSTED`` when they do not fit.

The checks read static shapes and dtypes and the devices' reported
memory: no device synchronisation, no host copies.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import jax
import numpy as np

__all__ = [
    "INDEX_BOUND",
    "LIMITS",
    "Held",
    "Limit",
    "check_csr",
    "check_dense_side",
    "check_index",
    "check_memory",
    "check_memory_on",
    "default_device",
    "device_itemsize",
    "device_memory",
]

#: Every per-problem buffer a kernel indexes is shorter than this (int32
#: indices with room for a grid-stride step past the end): the library's
#: COMMON_INDEX_BOUND (``kIndexBound`` in cuda_ffi/common/ffi_helpers.h;
#: tests/test_abi.py checks they agree), known here without the library.
INDEX_BOUND = 2**30


class Limit(NamedTuple):
    """One limit: what is measured, its bound and the error's message.

    Attributes:
      name: the key in :data:`LIMITS`.
      quantity: what is measured.
      bound: the exclusive bound, or None where it is the device's memory.
      error: the exception raised.
      message: the message, formatted with ``what`` (the caller's name of
        the measured thing), ``size`` and ``bound``.
    """

    name: str
    quantity: str
    bound: int | None
    error: type[Exception]
    message: str


_INT32 = "jaxmatch's kernels index with int32 and take at most 2**30 - 1 = {bound:,}"

#: The limits, by name.
LIMITS: dict[str, Limit] = {
    limit.name: limit
    for limit in (
        Limit(
            "side",
            "the larger side of a dense cost matrix, max(n, m)",
            INDEX_BOUND,
            ValueError,
            "{what}: its larger side is {size:,}; " + _INT32,
        ),
        Limit(
            "vertices",
            "a CSR's larger side plus one (the length of an index pointer)",
            INDEX_BOUND,
            ValueError,
            "{what}: an index pointer of {size:,} entries (its larger side plus one); " + _INT32,
        ),
        Limit(
            "entries",
            "a CSR's capacity (entry slots: the last axis of its indices)",
            INDEX_BOUND,
            ValueError,
            "{what}: a capacity of {size:,} entries; " + _INT32,
        ),
        Limit(
            "workspace",
            "a graph kernel's int32 workspace per problem",
            INDEX_BOUND,
            ValueError,
            "{what}: the kernels' workspace would have {size:,} entries; " + _INT32,
        ),
        Limit(
            "memory",
            "the bytes one device holds at once: inputs, outputs and workspaces",
            None,
            MemoryError,
            "{what} needs at least {size} at once on {device} (inputs, outputs and "
            "workspaces of the {members} it solves), more than its memory, {bound}",
        ),
    )
}


def check_index(name: str, size: int, what: str) -> None:
    """Raises the limit ``name``'s error when ``size`` reaches its bound.

    Args:
      name: an index limit of :data:`LIMITS` (``"side"``, ``"vertices"``,
        ``"entries"`` or ``"workspace"``).
      size: the measured size.
      what: the caller's name of the measured thing, for the message.

    A symbolic size (``jax.export`` with symbolic shapes) is not checked:
    the exported program is called with concrete sizes, which the library's
    own bound check (``COMMON_INDEX_BOUND``) refuses at run time.

    Raises:
      ValueError: ``size >= INDEX_BOUND``.
    """
    if not is_concrete(size):
        return
    limit = LIMITS[name]
    assert limit.bound is not None
    if size >= limit.bound:
        raise limit.error(limit.message.format(what=what, size=size, bound=limit.bound - 1))


def is_concrete(size: Any) -> bool:
    """Whether ``size`` is a number, not a symbolic dimension."""
    return isinstance(size, (int, np.integer))


def size_text(size: Any) -> str:
    """``size`` for a message: with thousands separators, or the symbolic
    dimension's name."""
    return f"{size:,}" if is_concrete(size) else str(size)


def check_dense_side(shape: Sequence[int], what: str = "the cost matrix") -> None:
    """The int32 limit of a dense ``[..., n, m]`` problem (shapes of rank
    below 2 are left to the caller's own checks)."""
    if len(shape) >= 2:
        for side in shape[-2:]:
            check_index("side", side, f"{what} of shape {tuple(shape)}")


def check_csr(shape: tuple[int, int], capacity: int, what: str) -> None:
    """The int32 limits of a CSR ``[n_rows, n_cols]`` with ``capacity``
    entry slots (``what`` names it in the message)."""
    for side in shape:
        check_index("vertices", side + 1, what)
    check_index("entries", capacity, what)


def default_device() -> Any:
    """The device an uncommitted array goes to: ``jax.default_device``'s
    when one is set, else the first of the default backend."""
    chosen = getattr(jax.config, "jax_default_device", None)
    if chosen is None:
        return jax.devices()[0]
    return jax.devices(chosen)[0] if isinstance(chosen, str) else chosen


@functools.cache
def _host_memory() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):  # pragma: no cover - platform
        return None


def device_memory(device: Any) -> int | None:
    """The memory of ``device`` in bytes: the host's physical memory for a
    CPU device, else the allocator's limit the device reports
    (``memory_stats()["bytes_limit"]``); None where it reports none."""
    if device.platform == "cpu":
        return _host_memory()
    stats = device.memory_stats()
    return None if not stats else stats.get("bytes_limit")


def device_itemsize(dtype: Any, at_least: int = 1) -> int:
    """The bytes per element of a ``dtype`` array once on a device: JAX's
    canonical dtype's (64-bit types are 32-bit without x64), at least
    ``at_least`` (a kernel dtype's lower bound). A dtype JAX does not take
    counts its NumPy size (the caller's own checks refuse it)."""
    try:
        dtype = jax.dtypes.canonicalize_dtype(dtype)
    except (TypeError, ValueError):
        pass
    return max(at_least, np.dtype(dtype).itemsize)


class Held(NamedTuple):
    """An operand as a device holds it.

    Attributes:
      x: the array (a ``jax.Array`` where it lies; anything else goes to
        the default device), or None with ``shape``.
      itemsize: its bytes per element on the device.
    """

    x: Any
    itemsize: int


def _placement(x: Any) -> list[tuple[Any, tuple[int, ...]]]:
    """(device, the shape of the part of ``x`` it holds) for each device."""
    shape = tuple(np.shape(x))
    sharding = getattr(x, "sharding", None)
    if isinstance(x, jax.Array) and isinstance(sharding, jax.sharding.Sharding):
        local = tuple(sharding.shard_shape(shape))
        return [(d, local) for d in sharding.addressable_devices]
    return [(default_device(), shape)]


def _is_traced(xs: Iterable[Any]) -> bool:
    return any(isinstance(x, jax.core.Tracer) for x in xs)


def _bytes(n: int) -> str:
    """``n`` bytes in the largest binary unit that leaves a number >= 1, and
    exactly."""
    unit = max((k for k in range(5) if n >= 1024**k), default=0)
    if unit == 0:
        return f"{n:,} bytes"
    return f"{n / 1024**unit:,.1f} {'KMGT'[unit - 1]}iB ({n:,} bytes)"


def check_memory(what: str, held: Sequence[Held], n_batch: int, per_member: int) -> None:
    """Refuses an eager call whose inputs, outputs and workspaces do not fit
    the devices where its inputs lie; returns at once when any operand is
    traced (module docstring).

    Args:
      what: the problem, for the message.
      held: the operands, each as its devices hold it (a sharded array's
        shards where they lie); the first one's leading ``n_batch`` axes are
        the batch, and its placement says which device solves which members.
      n_batch: the number of batch axes of ``held[0]``.
      per_member: the bytes of outputs and workspaces of one batch member.

    Raises:
      MemoryError: on some device (the CPU devices together: they share the
        host's memory) the count exceeds :func:`device_memory`.
    """
    if _is_traced(h.x for h in held):
        return
    need: dict[Any, int] = {}
    members: dict[Any, int] = {}
    for k, h in enumerate(held):
        for d, local in _placement(h.x):
            need[d] = need.get(d, 0) + math.prod(local) * h.itemsize
            if k == 0:
                count = math.prod(local[:n_batch])
                need[d] += count * per_member
                members[d] = members.get(d, 0) + count
    _refuse_over(what, need, members)


def check_memory_on(what: str, devices: Iterable[Any], per_device: int, members: int = 1) -> None:
    """Refuses a call that needs ``per_device`` bytes on each of ``devices``
    (solving ``members`` problems there) where a device's memory is smaller
    (:func:`check_memory` for calls that run where their inputs lie)."""
    devices = list(devices)
    _refuse_over(what, dict.fromkeys(devices, per_device), dict.fromkeys(devices, members))


def _refuse_over(what: str, need: dict[Any, int], members: dict[Any, int]) -> None:
    """Raises where a device's (or the host's) need exceeds its memory."""
    pools: dict[Any, tuple[str, int, int, Any]] = {}
    for d, n in need.items():
        key = "host" if d.platform == "cpu" else d
        name = "the host's CPU devices" if key == "host" else str(d)
        _, total, count, _ = pools.get(key, (name, 0, 0, d))
        pools[key] = (name, total + n, count + members.get(d, 0), d)
    for name, total, count, d in pools.values():
        limit = device_memory(d)
        if limit is not None and total > limit:
            raise LIMITS["memory"].error(
                LIMITS["memory"].message.format(
                    what=what,
                    size=_bytes(total),
                    device=name,
                    members=f"{count:,} problem" + ("" if count == 1 else "s"),
                    bound=_bytes(limit),
                )
            )
