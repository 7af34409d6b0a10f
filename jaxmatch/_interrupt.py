"""Waits that a Ctrl-C interrupts, for the eager entry points.

An eager call returns when its answer is ready, or raises
``KeyboardInterrupt`` as soon as the user interrupts it. The CPU LAP solves
in flight are then cancelled (the C library's ``jaxmatch_cancel_cpu_solves``:
each stops at its next iteration), so no core keeps working on an answer
nobody will read. Other work (GPU kernels, the matching solvers) runs to its
end in the background.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import jax

from . import _ffi

T = TypeVar("T")

#: Host solves with at least this much work (cost entries, graph nonzeros)
#: run on a worker thread while the caller waits interruptibly; smaller ones
#: (well under a millisecond) run on the caller's thread.
THREAD_MIN_WORK = 1 << 16
#: An eager wait for arrays on an accelerator polls without sleeping for this
#: many seconds, as a CUDA synchronisation spins: a sleep there returns tens
#: of microseconds late or more, as long again as a sub-millisecond solve
#: (docs/benchmarks.md, "LAP, small batches"). Waits on the host's arrays
#: never spin: their solves need the cores.
SPIN_SECONDS = 0.01
#: After the spin, a wait sleeps this fraction of the time waited so far
#: between polls (at least 50 us, at most 20 ms), so it returns at most
#: about this fraction late.
SLEEP_FRACTION = 1 / 16


def cancel_cpu_solves() -> None:
    """Stops every CPU LAP solve in flight (they report ``ITERATION_LIMIT``)."""
    _ffi.cpu_library().jaxmatch_cancel_cpu_solves()


def wait_ready(tree: T) -> T:
    """Returns ``tree`` once every array in it is ready; a pytree holding a
    tracer (``jit``, ``vmap``, ``grad``) is returned at once."""
    leaves = jax.tree.leaves(tree)
    if any(isinstance(x, jax.core.Tracer) for x in leaves):
        return tree
    arrays: list[Any] = [x for x in leaves if isinstance(x, jax.Array)]
    # The arrays of one result share their devices.
    on_host = not arrays or all(d.platform == "cpu" for d in arrays[0].devices())
    start = time.perf_counter()
    spin_until = start + (0.0 if on_host else SPIN_SECONDS)
    try:
        while arrays:
            arrays = [x for x in arrays if not x.is_ready()]
            now = time.perf_counter()
            if arrays and now >= spin_until:
                time.sleep(min(max(SLEEP_FRACTION * (now - start), 5e-5), 0.02))
    except KeyboardInterrupt:
        cancel_cpu_solves()
        raise
    return tree


def run_host(fn: Callable[..., T], *args: Any, work: int, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` (a call into the C library that releases the
    GIL). With ``work >= THREAD_MIN_WORK`` it runs on a worker thread and the
    caller waits interruptibly: on Ctrl-C the CPU solves are cancelled and
    ``KeyboardInterrupt`` is raised without waiting for the thread."""
    if work < THREAD_MIN_WORK:
        return fn(*args, **kwargs)
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = fn(*args, **kwargs)
        except BaseException as err:  # handed to the waiting thread
            outcome["error"] = err

    worker = threading.Thread(target=target, name="jaxmatch-host-solve", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        cancel_cpu_solves()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
