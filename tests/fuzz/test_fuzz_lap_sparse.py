"""Differential fuzzing of the sparse LAP, ``solve_lap`` on
:class:`jaxmatch.SparseCosts` (methods auto / jv / tree; eager, ``jit``,
``vmap``): duplicate and unsorted entries, zeros, padding full of garbage,
``+-inf``, NaN, malformed CSR, every accepted dtype with x64 on and off,
against scipy on the dense equivalent (absent pairs forbidden); every
optimal answer certified on the dense and on the sparse costs."""

from __future__ import annotations

import functools

import jax
import ml_dtypes
import numpy as np
import pytest
from fuzz_cases import COUNTS, SIDES, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from sparse_cases import check_sparse_member, sparse_problems

import jaxmatch
from jaxmatch import LAPStatus, SparseCosts

SOLVE_JIT = jax.jit(jaxmatch.solve_lap, static_argnames=("maximize", "method"))


@fuzz_settings(quick=70)
@given(
    member=sparse_problems(),
    maximize=st.booleans(),
    method=st.sampled_from(["auto", "jv", "tree"]),
    mode=st.sampled_from(["eager", "jit"]),
    x64=st.booleans(),
)
def test_sparse_solve_lap_against_scipy(device, member, maximize, method, mode, x64):
    indptr, indices, data, shape, _corrupt, _kind = member
    if method == "jv" and device.platform != "cpu":
        method = "tree"  # the sparse JV runs on the CPU only
    COUNTS[f"solve_lap sparse ({device.platform})"] += 1
    with jax.enable_x64(x64):
        S = SparseCosts(indptr, indices, data, shape)
        solve = jaxmatch.solve_lap if mode == "eager" else SOLVE_JIT
        res = solve(S, maximize=maximize, method=method)
        check_sparse_member(S, member, res, maximize, x64, f"{method}/{mode}/x64={x64}")


@fuzz_settings(quick=30)
@given(data=st.data(), maximize=st.booleans(), method=st.sampled_from(["auto", "tree"]))
def test_sparse_vmap_equals_members(device, data, maximize, method):
    shape = (data.draw(st.sampled_from(SIDES)), data.draw(st.sampled_from(SIDES)))
    members = [data.draw(sparse_problems(shape)) for _ in range(3)]
    floats = [m for m in members if m[2].dtype.kind == "f"]
    members = [(*m[:2], m[2].astype(np.float32), *m[3:]) for m in members]  # one dtype
    del floats
    COUNTS[f"solve_lap sparse vmap ({device.platform})"] += 1
    stack = [np.stack([m[i] for m in members]) for i in range(3)]
    S = SparseCosts(*stack, shape)
    res = _vmapped(maximize, method)(S)
    whole = jaxmatch.solve_lap(S, maximize=maximize, method=method)
    for b, member in enumerate(members):
        one = jax.tree.map(lambda a, b=b: np.asarray(a)[b], res)
        check_sparse_member(
            SparseCosts(*member[:3], shape), member, one, maximize, True, f"vmap {method}"
        )
        assert int(np.asarray(whole.status)[b]) == int(one.status)


@functools.cache
def _vmapped(maximize: bool, method: str):
    return jax.jit(jax.vmap(lambda s: jaxmatch.solve_lap(s, maximize=maximize, method=method)))


@pytest.mark.parametrize("dtype", [np.int64, np.uint32])
def test_wide_integer_sparse_costs_are_refused(dtype):
    S = SparseCosts(
        np.array([0, 1], np.int32), np.array([0], np.int32), np.array([1], dtype), (1, 1)
    )
    with pytest.raises(TypeError, match="at most 32 bits"):
        jaxmatch.solve_lap(S)


def _bfloat16_tiny_case():
    """bfloat16 costs below float32's normal range: the solve flushes them to
    zero (duals 0), within float32's tolerance of the optimum (the
    certificate once took bfloat16 for integers, tolerance 0: issue 51)."""
    data = np.full(5, 9.18355e-41, ml_dtypes.bfloat16)
    indptr, indices = np.array([0, 3, 4, 5], np.int32), np.array([0, 1, 2, 1, 2], np.int32)
    S = SparseCosts(indptr, indices, data, (3, 5))
    res = jax.tree.map(np.asarray, jaxmatch.solve_lap(S))
    assert int(res.status) == LAPStatus.OPTIMAL
    return jaxmatch.verify_lap(S, res)


def test_bfloat16_sparse_costs_certify_with_float32_tolerance():
    cert = _bfloat16_tiny_case()
    assert cert.optimal, cert.reason
