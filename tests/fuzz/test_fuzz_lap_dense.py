"""Differential fuzzing of the dense LAP: ``solve_lap`` (every method and
execution), ``hungarian``, eager / ``jit`` / ``vmap``, batches and traced
``maximize``, every accepted dtype with x64 on and off, against scipy (and
brute force on tiny problems); every optimal answer certified."""

from __future__ import annotations

import functools
import warnings

import jax
import numpy as np
import pytest
from fuzz_cases import (
    BATCHES,
    COUNTS,
    SIDES,
    canonicalized,
    check_lap_batch,
    cost_arrays,
    fuzz_settings,
    kernel_dtype,
    lap_oracle,
)
from hypothesis import given
from hypothesis import strategies as st

import jaxmatch
from jaxmatch import LAPStatus

METHOD_EXECUTIONS = [
    ("auto", "auto"),
    ("jv", "auto"),
    ("jv", "fused"),
    ("tree", "fused"),
    ("tree", "stepped"),
    ("classical", "fused"),
    ("classical", "stepped"),
    ("tree", "auto"),
    ("classical", "auto"),
    ("auto", "fused"),
    ("auto", "stepped"),
]


@st.composite
def dense_problems(draw, batched: bool):
    n, m = draw(st.sampled_from(SIDES)), draw(st.sampled_from(SIDES))
    batch = draw(st.sampled_from(BATCHES[1:] if batched else BATCHES))
    C, kind = draw(cost_arrays((*batch, n, m)))
    x64 = draw(st.booleans())
    if batch and draw(st.booleans()):
        maximize = np.asarray(draw(st.lists(st.booleans(), min_size=batch[-1], max_size=batch[-1])))
    else:
        maximize = draw(st.booleans())
    return C, kind, x64, maximize


def _seen(C: np.ndarray, x64: bool, traced: bool):
    """The costs as the solver sees them, or the exception it must raise."""
    if traced:
        C = canonicalized(C, x64)
    target = kernel_dtype(C.dtype, x64, traced)
    if isinstance(target, type):
        return target
    wide = C.dtype.itemsize == 8 or C.dtype == np.uint32
    if not traced and target == np.int32 and wide:
        info = np.iinfo(np.int32)
        if C.size and (C.min() < info.min + 1 or C.max() > info.max):
            return OverflowError
    return C.astype(target)


@functools.cache
def compiled(method: str, execution: str, vmaps: int):
    """The jitted solve (``vmaps`` times ``jax.vmap``-ed), made once per
    option set: a deep run reuses its compilations instead of piling up new
    ones."""

    def solve(c, mx):
        return jaxmatch.solve_lap(c, maximize=mx, method=method, execution=execution)

    for _ in range(vmaps):
        solve = jax.vmap(solve)
    return jax.jit(solve)


def _call(C, maximize, method, execution, mode):
    if mode == "eager":
        return jaxmatch.solve_lap(C, maximize=maximize, method=method, execution=execution)
    if mode == "jit":
        return compiled(method, execution, 0)(C, maximize)
    return compiled(method, execution, 1)(C, np.broadcast_to(np.asarray(maximize), C.shape[:-2]))


@fuzz_settings(quick=90)
@given(
    problem=dense_problems(batched=False),
    me=st.sampled_from(METHOD_EXECUTIONS),
    mode=st.sampled_from(["eager", "jit", "vmap"]),
)
def test_solve_lap_against_scipy(device, problem, me, mode):
    C, kind, x64, maximize = problem
    method, execution = me
    if mode == "vmap" and C.ndim == 2:
        mode = "jit"
    COUNTS[f"solve_lap dense ({device.platform})"] += 1
    traced = mode != "eager"
    with jax.enable_x64(x64):
        seen = _seen(C, x64, traced)
        if isinstance(seen, type):
            with pytest.raises(seen):
                _call(C, maximize, method, execution, mode)
            return
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = _call(C, maximize, method, execution, mode)
        check_lap_batch(seen, maximize, res, f"{method}/{execution}/{mode}/x64={x64}/{kind}")
    if mode == "eager":  # under jit JAX rounds the argument before the library sees it
        warned = any(issubclass(w.category, jaxmatch.Float64RoundingWarning) for w in caught)
        assert warned == rounding_changes(C, x64), (C.tolist(), x64, [str(w) for w in caught])


def rounding_changes(C: np.ndarray, x64: bool) -> bool:
    """Whether float64 costs solved in float32 (x64 off) change by rounding:
    when the library must warn (``Float64RoundingWarning``)."""
    if C.dtype != np.float64 or x64:
        return False
    with np.errstate(over="ignore"):
        return not np.array_equal(C.astype(np.float32), C, equal_nan=True)


@fuzz_settings(quick=40)
@given(problem=dense_problems(batched=True), method=st.sampled_from(["auto", "jv", "tree"]))
def test_solve_lap_vmap_of_jit_equals_the_batch(device, problem, method):
    """A batch solved as one call, as ``vmap`` of the jitted solve and member
    by member: the same statuses and optimal costs."""
    C, kind, x64, maximize = problem
    COUNTS[f"solve_lap batch/vmap ({device.platform})"] += 1
    with jax.enable_x64(x64):
        seen = _seen(C, x64, traced=True)
        if isinstance(seen, type):
            return
        flags = np.broadcast_to(np.asarray(maximize), C.shape[:-2])
        whole = jaxmatch.solve_lap(seen, maximize=flags, method=method)
        check_lap_batch(seen, flags, whole, f"batch {method} {kind}")
        res = compiled(method, "auto", len(C.shape[:-2]))(seen, flags)
        check_lap_batch(seen, flags, res, f"vmap(jit) {method} {kind}")
        np.testing.assert_array_equal(np.asarray(res.status), np.asarray(whole.status))
    if np.all(flags == flags.flat[0]):  # the batch certificate: one verdict per member
        whole = jax.tree.map(np.asarray, whole)
        certs = jaxmatch.verify_lap(seen, whole, maximize=bool(flags.flat[0]))
        optimal = (whole.status == LAPStatus.OPTIMAL).reshape(-1)
        assert [c.optimal for c in certs] == optimal.tolist(), ([c.reason for c in certs], kind)


@fuzz_settings(quick=40)
@given(
    problem=dense_problems(batched=False),
    method=st.sampled_from(["auto", "jv", "tree", "classical"]),
)
def test_hungarian_against_scipy(device, problem, method):
    C, _kind, x64, maximize = problem
    COUNTS[f"hungarian ({device.platform})"] += 1
    with jax.enable_x64(x64):
        seen = _seen(C, x64, traced=False)
        if isinstance(seen, type):
            with pytest.raises(seen):
                jaxmatch.hungarian(C, maximize=maximize, method=method)
            return
        cfr = np.asarray(jaxmatch.hungarian(C, maximize=maximize, method=method))
    flags = np.broadcast_to(np.asarray(maximize, bool), C.shape[:-2])
    for b in np.ndindex(*C.shape[:-2]):
        S, mx = seen[b], bool(flags[b])
        want = lap_oracle(S, mx)
        if want.status != LAPStatus.OPTIMAL:
            assert (cfr[b] == -1).all(), (want, S.tolist())
            continue
        rows = np.flatnonzero(cfr[b] >= 0)
        if rows.size == 0 and min(S.shape) > 0:  # OVERFLOW: an honest failure
            assert S.dtype == np.int32, S.tolist()
            continue
        assert rows.size == min(S.shape) and np.unique(cfr[b][rows]).size == rows.size
        total = S[rows, cfr[b][rows]].astype(np.float64).sum()
        tol = 1e-6 * max(1.0, float(np.abs(S[np.isfinite(S)]).max(initial=0.0))) * sum(S.shape)
        assert abs(total - float(want.cost)) <= tol, (total, want, S.tolist(), mx)


def test_jv_refuses_stepped():
    with pytest.raises(ValueError, match="jv"):
        jaxmatch.solve_lap(np.zeros((2, 2), np.float32), method="jv", execution="stepped")
