"""Point assignments against scipy on the dense costs (the points fuzz
test and its batched deep run): the metrics, point sets, the check."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import scipy.optimize
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxmatch
from jaxmatch import LAPStatus

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


def check_points(X, Y, metric: str, maximize: bool, x64: bool, candidates: int, kind: str):
    """One point assignment against scipy on the dense costs, certified."""
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
