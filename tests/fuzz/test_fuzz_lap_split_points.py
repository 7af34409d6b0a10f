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

import ml_dtypes
import numpy as np
import pytest
from fuzz_cases import COUNTS, PROFILE, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from points_cases import METRICS, check_points, point_sets

import jaxmatch

SCRIPT = Path(__file__).with_name("split_fuzz.py")


def _split_examples() -> int:
    if os.environ.get("JAXMATCH_FUZZ_EXAMPLES"):
        return int(os.environ["JAXMATCH_FUZZ_EXAMPLES"])
    # deep: 32 problems a case (split_fuzz.PER_CASE), 10**5 in all
    return -(-100_000 // 32) if PROFILE == "deep" else 30


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
    check_points(X, Y, metric, maximize, x64, candidates, kind)


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
