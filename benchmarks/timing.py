"""Timing of jitted calls on the default device: a call waited for alone,
and a call's share of several in flight at once."""

from __future__ import annotations

import time

import jax
import numpy as np

#: Calls in flight at once for :func:`pipelined_ms`.
IN_FLIGHT = 20


def waited_ms(fn, *args, repeats: int) -> float:
    """A call waited for alone (ms, median of ``repeats`` after a first
    call): what a caller that needs each result before the next call sees."""
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times))


def pipelined_ms(fn, *args, repeats: int) -> float:
    """A call's share of ``IN_FLIGHT`` calls issued before any is waited for
    (ms, median over ``repeats`` rounds): the device's time per call,
    without the host's wait for each result."""
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        jax.block_until_ready([fn(*args) for _ in range(IN_FLIGHT)])
        times.append((time.perf_counter() - t) / IN_FLIGHT)
    return 1e3 * float(np.median(times))
