"""Differential fuzzing of ``solve_lap_split`` (four forced CPU devices in a
child process, ``split_fuzz.py``; every GPU with the ``gpu`` marker) and of
``solve_lap_points`` (every metric, a function metric, point dtypes, x64 on
and off, empty sets, duplicate points) against scipy on the dense costs;
every optimal answer certified."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
import scipy.optimize
from fuzz_cases import COUNTS, PROFILE, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxmatch
from jaxmatch import LAPStatus

SCRIPT = Path(__file__).with_name("split_fuzz.py")


def _split_examples() -> int:
    if os.environ.get("JAXMATCH_FUZZ_EXAMPLES"):
        return int(os.environ["JAXMATCH_FUZZ_EXAMPLES"])
    return 100_000 if PROFILE == "deep" else 30


@pytest.mark.parametrize("mode", ["4", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_solve_lap_split_against_scipy(mode):
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    if mode != "gpu":
        env["JAX_PLATFORMS"] = "cpu"
    else:
        env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    paths = (str(SCRIPT.parents[2]), str(SCRIPT.parent), env.get("PYTHONPATH"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), mode, str(_split_examples())],
        capture_output=True,
        text=True,
        env=env,
        timeout=None if PROFILE == "deep" else 600,
    )
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-8000:]
    found = re.search(r"split fuzz: (\d+) cases OK", proc.stdout)
    assert found, proc.stdout[-3000:]
    COUNTS[f"solve_lap_split ({'gpu' if mode == 'gpu' else 'forced cpu x4'})"] += int(found[1])


POINT_DTYPES = {
    "float32": np.float32,
    "float64": np.float64,
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "int32": np.int32,
    "int8": np.int8,
    "bool": np.bool_,
}


def cubed(a, b):
    """A function metric: the sum of cubed absolute differences."""
    return jnp.sum(jnp.abs(a - b) ** 3)


METRICS = {"sqeuclidean": "sqeuclidean", "euclidean": "euclidean", "cityblock": "cityblock"}
METRICS["cubed"] = cubed


def dense_costs(X: np.ndarray, Y: np.ndarray, metric) -> np.ndarray:
    d = X[:, None, :].astype(np.float64) - Y[None, :, :].astype(np.float64)
    if metric == "sqeuclidean":
        return (d**2).sum(-1)
    if metric == "euclidean":
        return np.sqrt((d**2).sum(-1))
    if metric == "cityblock":
        return np.abs(d).sum(-1)
    return (np.abs(d) ** 3).sum(-1)


@st.composite
def point_sets(draw):
    n, m = draw(st.sampled_from((0, 1, 2, 3, 5, 9))), draw(st.sampled_from((0, 1, 2, 3, 5, 9)))
    d = draw(st.sampled_from((1, 2, 3)))
    dtype = np.dtype(POINT_DTYPES[draw(st.sampled_from(list(POINT_DTYPES)))])
    kind = draw(st.sampled_from(["grid", "uniform", "huge", "tiny"]))
    elements = {
        "grid": st.integers(0, 3).map(float),  # duplicate points, ties
        "uniform": st.floats(-1.0, 1.0, allow_nan=False),
        "huge": st.sampled_from([1e4, -1e4, 3e4, 1.0]),
        "tiny": st.sampled_from([0.0, 1e-20, 2e-20, 1e-30]),
    }[kind]
    if dtype.kind in "iub":
        elements = st.integers(0, 1 if dtype == np.bool_ else 3)
    X = draw(hnp.arrays(np.float64, (n, d), elements=elements)).astype(dtype)
    Y = draw(hnp.arrays(np.float64, (m, d), elements=elements)).astype(dtype)
    return X, Y, kind


@fuzz_settings(quick=40)
@given(
    points=point_sets(),
    metric=st.sampled_from(list(METRICS)),
    maximize=st.booleans(),
    x64=st.booleans(),
    candidates=st.sampled_from([1, 4, 16]),
)
def test_solve_lap_points_against_scipy(device, points, metric, maximize, x64, candidates):
    X, Y, kind = points
    COUNTS[f"solve_lap_points ({device.platform})"] += 1
    fn = METRICS[metric]
    with jax.enable_x64(x64):
        res = jaxmatch.solve_lap_points(X, Y, metric=fn, maximize=maximize, candidates=candidates)
        cert = jaxmatch.verify_lap_points(X, Y, res, metric=fn, maximize=maximize)
    info = (metric, kind, X.dtype, x64, maximize, candidates, X.tolist(), Y.tolist())
    assert int(res.status) == LAPStatus.OPTIMAL and bool(res.feasible), info
    solve_dtype = np.float64 if X.dtype == Y.dtype == np.float64 and x64 else np.float32
    assert np.dtype(res.dtype) == solve_dtype, (res.dtype, *info)
    C = dense_costs(X.astype(solve_dtype), Y.astype(solve_dtype), metric)
    n, m = C.shape
    cfr = np.asarray(res.col_for_row)
    rows = np.flatnonzero(cfr >= 0)
    assert rows.size == min(n, m) and np.unique(cfr[rows]).size == rows.size, info
    assert np.all(np.asarray(res.row_for_col)[cfr[rows]] == rows), info
    total = float(C[rows, cfr[rows]].sum())
    r, c = scipy.optimize.linear_sum_assignment(C, maximize=maximize)
    best = float(C[r, c].sum())
    eps = np.finfo(solve_dtype).eps
    tol = 2 * 64 * eps * max(1.0, float(np.abs(C).max(initial=0.0))) * (n + m + 1)
    assert abs(total - best) <= tol, (total, best, tol, *info)
    assert abs(float(res.cost) - total) <= tol, (res.cost, total, *info)
    assert cert.optimal, (cert.reason, *info)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_points_with_non_finite_coordinates_are_refused(bad):
    X = np.zeros((3, 2))
    X[1, 0] = bad
    with pytest.raises(ValueError, match="NaN or infinite"):
        jaxmatch.solve_lap_points(X, np.ones((3, 2)))


def test_bfloat16_points_are_solved_in_float32():
    """Refused once as not real (issue 51); solved in float32 as dense costs are."""
    X = np.array([[0.0], [1.0]], ml_dtypes.bfloat16)
    res = jaxmatch.solve_lap_points(X, X[::-1])
    assert np.asarray(res.col_for_row).tolist() == [1, 0] and np.dtype(res.dtype) == np.float32
