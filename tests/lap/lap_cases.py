"""Random LAP instances and the scipy oracle, shared by the LAP tests."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment as scipy_lsa

import jaxmatch

# The option values the LAP tests sweep, defined once.
METHODS = ("tree", "classical")
EXECUTIONS = ("fused", "stepped")

DISTRIBUTIONS = ("uniform", "int_n", "int_10n", "ties01", "inf_blocks")


def make_costs(rng, dist: str, n: int, m: int, dtype) -> np.ndarray:
    """One cost matrix of a named distribution (the paper's families + ties)."""
    k = max(n, m, 1)
    if dist == "uniform":
        C = rng.random((n, m))
        if np.issubdtype(dtype, np.integer):
            C = np.floor(C * 1000)
    elif dist == "int_n":
        C = rng.integers(0, k + 1, (n, m))
    elif dist == "int_10n":
        C = rng.integers(0, 10 * k + 1, (n, m))
    elif dist == "ties01":
        C = rng.integers(0, 2, (n, m))
    elif dist == "inf_blocks":
        C = rng.random((n, m)) * 10
        if not np.issubdtype(dtype, np.integer) and n and m:
            # Forbid random rectangles; often still feasible, sometimes not.
            for _ in range(rng.integers(1, 4)):
                r0, c0 = rng.integers(0, n), rng.integers(0, m)
                h, w = rng.integers(1, n + 1), rng.integers(1, m + 1)
                C[r0 : r0 + h, c0 : c0 + w] = np.inf
    else:
        raise ValueError(dist)
    return C.astype(dtype)


def scipy_optimum(C: np.ndarray, maximize: bool):
    """scipy's optimal objective (float64), or None when infeasible."""
    try:
        r, c = scipy_lsa(C.astype(np.float64), maximize=maximize)
    except ValueError as err:
        if "infeasible" not in str(err):
            raise  # an instance scipy rejects for another reason is a broken test
        return None
    return float(C.astype(np.float64)[r, c].sum())


def tolerance(C: np.ndarray) -> float:
    if np.issubdtype(C.dtype, np.integer):
        return 0.0
    finite = np.abs(C[np.isfinite(C)])
    scale = max(1.0, float(finite.max()) if finite.size else 1.0)
    eps = np.finfo(C.dtype).eps
    return 16 * eps * scale * max(C.shape)


def member(res, *index):
    """Member ``index`` of a batched (host) result."""
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[index], res)


def check_against_scipy(C: np.ndarray, res, maximize: bool) -> None:
    """Asserts that one result is optimal (scipy's objective) and certified."""
    C = np.asarray(C)
    opt = scipy_optimum(C, maximize)
    if opt is None:
        assert not bool(res.feasible), "scipy: infeasible, jaxmatch: feasible"
        assert int(res.status) == jaxmatch.LAPStatus.INFEASIBLE
        return
    assert bool(res.feasible), f"feasible problem reported infeasible: {res.status}"
    cfr = np.asarray(res.col_for_row)
    rows = np.flatnonzero(cfr >= 0)
    ours = float(C.astype(np.float64)[rows, cfr[rows]].sum())
    tol = tolerance(C)
    assert abs(ours - opt) <= tol, (ours, opt, tol)
    if np.issubdtype(C.dtype, np.integer):
        assert int(res.cost) == int(opt)
    else:
        assert abs(float(res.cost) - opt) <= tol + 1e-6 * abs(opt)
    cert = jaxmatch.verify_lap(C, res, maximize=maximize)
    assert cert.optimal, cert


def device_cases(*methods: str) -> list:
    """``(device, method)`` parameters for ``indirect=["device"]``: every
    method on the CPU and on the GPU."""
    cases: list = [("cpu", m) for m in methods]
    cases += [pytest.param("gpu", m, marks=pytest.mark.gpu) for m in methods]
    return cases


def padded_square(C, r, c) -> np.ndarray:
    """The square ``(n + m)`` matrix ``[[C, diag(r)], [diag(c), 0]]`` with
    ``+inf`` off the diagonals, float64, whose perfect matchings are the
    partial assignments of ``C`` ``[n, m]`` with prices ``r`` ``[n]`` and
    ``c`` ``[m]`` for unassigned rows and columns (row i's private exit
    column ``m + i``, column j's private row ``n + j``), up to the pairing
    of the private rows with the private columns."""
    C = np.asarray(C, np.float64)
    n, m = C.shape
    P = np.full((n + m, m + n), np.inf)
    P[:n, :m] = C
    P[np.arange(n), m + np.arange(n)] = r
    P[n + np.arange(m), np.arange(m)] = c
    P[n:, m:] = 0.0
    return P


def unassigned_optimum(C, r, c, maximize: bool = False) -> float:
    """The optimum of the LAP with prices ``r`` ``[n]``, ``c`` ``[m]`` for
    unassigned rows and columns (``solve_lap(unassigned_cost=(r, c))``), by
    scipy on :func:`padded_square`."""
    sign = -1.0 if maximize else 1.0
    P = padded_square(*(sign * np.asarray(x, np.float64) for x in (C, r, c)))
    rows, cols = scipy_lsa(P)
    return sign * float(P[rows, cols].sum())
