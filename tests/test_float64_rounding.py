"""float64 data with ``jax_enable_x64`` off: JAX solves it in float32, and
a Float64RoundingWarning says so where rounding changes the values (issue
"no silent wrong answer")."""

from __future__ import annotations

import warnings

import jax
import numpy as np
import pytest
import scipy.sparse as sp

import jaxmatch
from jaxmatch import Float64RoundingWarning


@pytest.fixture(autouse=True)
def x64_off():
    """The suite runs with x64 on (``conftest.py``); these tests without."""
    with jax.enable_x64(False):
        yield


def test_no_warning_with_x64():
    with jax.enable_x64(True), warnings.catch_warnings():
        warnings.simplefilter("error", Float64RoundingWarning)
        res = jaxmatch.solve_lap(_near_tied_costs())
    assert res.cost.dtype == np.float64


def _near_tied_costs() -> np.ndarray:
    """The issue's matrix: 1e6 plus a thousandth of uniform noise, whose
    float32 rounding changes the optimum."""
    return 1e6 + 1e-3 * np.random.default_rng(0).random((40, 40))


def test_rounded_dense_costs_warn_and_name_the_fix():
    with pytest.warns(Float64RoundingWarning, match="jax_enable_x64") as record:
        res = jaxmatch.solve_lap(_near_tied_costs())
    assert res.status_name == "OPTIMAL"
    assert record[0].filename == __file__  # points at the caller's line
    assert "float32" in str(record[0].message)


@pytest.mark.parametrize(
    "solve",
    [
        lambda C: jaxmatch.hungarian(C),
        lambda C: jaxmatch.solve_lap(jaxmatch.SparseCosts.from_scipy(sp.csr_array(C))),
        lambda C: jaxmatch.solve_lap_points(C[:, :2], C[:, 2:4]),
        lambda C: jaxmatch.Graph.from_edges(np.array([0]), np.array([1]), C[0, :1], 2),
    ],
    ids=["hungarian", "sparse", "points", "graph"],
)
def test_every_family_warns(solve):
    with pytest.warns(Float64RoundingWarning):
        solve(_near_tied_costs())


@pytest.mark.parametrize(
    "data",
    [
        np.arange(12.0).reshape(3, 4),  # integers: exact in float32
        np.array([[0.5, 0.25], [np.inf, 2.0**-20]]),  # float32 numbers, +inf
        np.random.default_rng(1).random((3, 3)).astype(np.float32),
    ],
)
def test_no_warning_when_rounding_changes_nothing(data):
    with warnings.catch_warnings():
        warnings.simplefilter("error", Float64RoundingWarning)
        jaxmatch.solve_lap(data)
        jaxmatch.solve_lap(jaxmatch.SparseCosts.from_scipy(sp.csr_array(data)))


def test_jax_arrays_are_already_float32():
    C = jax.numpy.asarray(_near_tied_costs())  # rounded by JAX, visibly
    with warnings.catch_warnings():
        warnings.simplefilter("error", Float64RoundingWarning)
        jaxmatch.solve_lap(C)
