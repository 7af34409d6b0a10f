"""Ctrl-C stops the eager LAP entry points at once, and the CPU solves they
started stop too (``jaxmatch/_interrupt.py``, ``cuda_ffi/common/cancel.h``).

Each problem below takes seconds to minutes on this machine kind; the
interrupt comes a fraction of a second in, and the call must raise
``KeyboardInterrupt`` within a few seconds. The SIGINT handler is armed only
around the call, so an interrupt that comes late does nothing."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import time
import types

import jax
import numpy as np
import pytest
import scipy.sparse as sp

import jaxmatch
from jaxmatch import _interrupt

INTERRUPT_AFTER_S = 0.5
#: the call must raise within this long of its start (uninterrupted, every
#: problem here takes many times as long)
RAISE_WITHIN_S = 4.0


@pytest.fixture(autouse=True)
def on_the_cpu():
    """The cancellation reaches CPU solves only (GPU work runs to its end)."""
    with jax.default_device(jax.devices("cpu")[0]):
        yield


@contextlib.contextmanager
def interrupted_after(seconds: float):
    """SIGINT to this process after ``seconds``, raising KeyboardInterrupt in
    the main thread if the block is still running then.

    The collector stays off inside the block: a Python signal handler that runs
    while a gc callback executes (hypothesis installs one) has its exception
    swallowed as unraisable, which no library can see or re-raise."""
    armed = True

    def handler(signum, frame):
        if armed:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, handler)
    collecting = gc.isenabled()
    gc.disable()
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        yield
    finally:
        armed = False
        if collecting:
            gc.enable()
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGINT, previous)


def machol_wien(n: int) -> np.ndarray:
    """c_ij = i * j: every row prefers the same columns, which makes JV run
    long shortest-path searches."""
    i = np.arange(1, n + 1, dtype=np.float64)
    return np.outer(i, i)


def assert_interrupted(call) -> None:
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt), interrupted_after(INTERRUPT_AFTER_S):
        call()
    elapsed = time.perf_counter() - start
    assert elapsed < RAISE_WITHIN_S, f"raised only after {elapsed:.1f} s"


def cpu_seconds_in(window_s: float) -> float:
    """CPU time this process uses over ``window_s`` seconds of wall time."""
    before = time.process_time()
    time.sleep(window_s)
    return time.process_time() - before


def wait_for_cpu_idle(limit_s: float = 30.0) -> None:
    """Waits (at most ``limit_s``) until work that earlier tests left running
    in this process has ended."""
    deadline = time.perf_counter() + limit_s
    while cpu_seconds_in(0.5) >= 0.1 and time.perf_counter() < deadline:
        pass


def assert_cpu_idle() -> None:
    """The cancelled solve stopped: this process burns no CPU while idle."""
    time.sleep(0.2)
    assert cpu_seconds_in(0.5) < 0.2


def test_eager_solve_lap_is_interrupted_and_its_solve_cancelled():
    C = np.random.default_rng(0).random((1500, 1500)).astype(np.float32)
    # Compile this shape outside the clock (the reductions alone solve 1 - I),
    # so the interrupt comes while the solve runs, and start from an idle
    # process, so the check below sees only this solve.
    jaxmatch.solve_lap(1 - np.eye(1500, dtype=np.float32), method="classical")
    wait_for_cpu_idle()
    assert_interrupted(lambda: jaxmatch.solve_lap(C, method="classical"))
    assert_cpu_idle()
    small = C[:60, :60]
    res = jaxmatch.solve_lap(small, method="classical")  # later solves are not cancelled
    assert int(res.status) == jaxmatch.LAPStatus.OPTIMAL
    assert bool(jaxmatch.verify_lap(small, res).optimal)


def test_linear_sum_assignment_is_interrupted():
    C = machol_wien(3000)
    assert_interrupted(lambda: jaxmatch.linear_sum_assignment(C))
    assert_cpu_idle()
    _, cols = jaxmatch.linear_sum_assignment(C[:50, :50])
    assert cols.tolist() == list(range(49, -1, -1))  # the anti-diagonal is optimal


def test_sparse_drop_in_is_interrupted():
    A = sp.csr_matrix(machol_wien(1500))
    assert_interrupted(lambda: jaxmatch.min_weight_full_bipartite_matching(A))
    assert_cpu_idle()


def test_a_cancellation_stops_a_jitted_cpu_solve_with_iteration_limit():
    C = jax.numpy.asarray(np.random.default_rng(1).random((1500, 1500)), jax.numpy.float32)
    solve = jax.jit(lambda C: jaxmatch.solve_lap(C, method="classical"))
    jax.block_until_ready(solve(C[:4, :4].copy()))
    res = solve(C)  # dispatched asynchronously
    time.sleep(INTERRUPT_AFTER_S)
    start = time.perf_counter()
    _interrupt.cancel_cpu_solves()
    res = jax.block_until_ready(res)
    assert time.perf_counter() - start < RAISE_WITHIN_S
    assert int(res.status) == jaxmatch.LAPStatus.ITERATION_LIMIT
    assert not bool(res.feasible)
    res = jax.block_until_ready(solve(C[:60, :60].copy()))
    assert int(res.status) == jaxmatch.LAPStatus.OPTIMAL


def test_small_host_solves_stay_on_the_calling_thread():
    calls = []

    def record():
        calls.append(threading.current_thread())
        return 1

    assert _interrupt.run_host(record, work=_interrupt.THREAD_MIN_WORK - 1) == 1
    assert _interrupt.run_host(record, work=_interrupt.THREAD_MIN_WORK) == 1
    assert calls[0] is threading.main_thread()
    assert calls[1] is not threading.main_thread()


def test_errors_of_a_threaded_host_solve_reach_the_caller():
    def fail():
        raise ValueError("cost matrix is infeasible")

    with pytest.raises(ValueError, match="infeasible"):
        _interrupt.run_host(fail, work=_interrupt.THREAD_MIN_WORK)


def test_wait_ready_sleeps_a_fraction_of_the_wait(monkeypatch):
    """A wait on the host's arrays never spins: it sleeps between polls, from
    50 us, each sleep at most SLEEP_FRACTION of the time waited so far (and
    20 ms), and returns the same arrays, ready."""
    sleeps: list[float] = []
    real_sleep = time.sleep

    def recorded(seconds: float) -> None:
        sleeps.append(seconds)
        real_sleep(seconds)

    clock = types.SimpleNamespace(perf_counter=time.perf_counter, sleep=recorded)
    monkeypatch.setattr(_interrupt, "time", clock)
    C = machol_wien(1500)
    start = time.perf_counter()
    res = jaxmatch.solve_lap(C, method="jv")
    waited = time.perf_counter() - start
    assert all(x.is_ready() for x in jax.tree.leaves(res))
    assert bool(res.feasible)
    assert sleeps, "a solve of this size is still running at the first poll"
    assert min(sleeps) >= 5e-5 and max(sleeps) <= 0.02
    assert max(sleeps) <= max(_interrupt.SLEEP_FRACTION * waited, 5e-5) + 1e-9


def test_wait_ready_returns_a_traced_tree_at_once():
    """Under jit the arrays are tracers: nothing to wait for."""
    seen = []

    @jax.jit
    def f(x):
        seen.append(_interrupt.wait_ready((x, x + 1)))
        return x

    f(np.float32(1))
    assert len(seen) == 1 and isinstance(seen[0][0], jax.core.Tracer)
