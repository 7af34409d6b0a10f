"""Tied costs: the greedy start spreads tied columns over the rows, so equal
costs need no main-loop iteration and few-valued costs few; every result
certified."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from lap_cases import check_against_scipy, device_cases

import jaxmatch


@pytest.mark.parametrize(
    "device, method", device_cases("tree", "classical", "jv"), indirect=["device"]
)
@pytest.mark.parametrize("shape", [(300, 300), (200, 300)])
def test_equal_costs_are_assigned_by_the_start(device, method, shape):
    C = np.full(shape, 3.0, np.float32)
    res = jax.device_get(jaxmatch.solve_lap(C, method=method))
    check_against_scipy(C, res, False)
    assert int(res.iterations) == 0


@pytest.mark.parametrize("method", ["tree", "classical"])
@pytest.mark.parametrize("values", [2, 4])
def test_few_valued_costs_need_few_iterations(device, method, values):
    """Before the spread start, a 600^2 0/1 matrix took one iteration per
    row (each iteration found one path: every free column joined the tree of
    the first free row)."""
    C = np.random.default_rng(values).integers(0, values, (600, 600)).astype(np.float32)
    res = jax.device_get(jaxmatch.solve_lap(C, method=method))
    check_against_scipy(C, res, False)
    assert int(res.iterations) < 60
