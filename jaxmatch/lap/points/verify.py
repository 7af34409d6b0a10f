"""The certificate of :func:`jaxmatch.solve_lap_points`'s answers."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._certificate import certificate, invalid
from ..types import LAPCertificate
from .solve import _check_metric, _points, _tolerance
from .sweep import Metric, aligned_costs, formula, pair_costs


def verify_lap_points(
    X: Any,
    Y: Any,
    result: Any,
    *,
    metric: Metric = "sqeuclidean",
    maximize: bool = False,
    tol: float | None = None,
    block: int = 1024,
) -> LAPCertificate:
    """Certifies an assignment between two point sets by LP duality over all
    ``n * m`` pairs, a block of rows at a time (NumPy float64 for the
    built-in metrics; a function metric is evaluated with JAX), independently
    of the solver.

    Args:
      X: ``[n, d]`` points.
      Y: ``[m, d]`` points.
      result: a :class:`PointsLAPResult` (or anything with
        ``col_for_row``, ``row_for_col``, ``u`` and ``v``).
      metric: as solved.
      maximize: as solved.
      tol: absolute tolerance; default ``64 * eps * max(1, |C|, |u|, |v|)``
        with ``eps`` of ``result.dtype`` (float32 when absent).
      block: rows per block.

    Returns:
      A :class:`jaxmatch.LAPCertificate`.
    """

    Xh, Yh = _points(X, "X").astype(np.float64), _points(Y, "Y").astype(np.float64)
    _check_metric(metric)
    n, m = Xh.shape[0], Yh.shape[0]
    sign = -1.0 if maximize else 1.0
    try:
        cfr = np.asarray(result.col_for_row).astype(np.int64)
        rfc = np.asarray(result.row_for_col).astype(np.int64)
        u = sign * np.asarray(result.u, np.float64)
        v = sign * np.asarray(result.v, np.float64)
    except (AttributeError, TypeError, ValueError) as err:
        return invalid(f"the solution's fields do not fit ({err})")
    if cfr.shape != (n,) or rfc.shape != (m,) or u.shape != (n,) or v.shape != (m,):
        return invalid("the solution's fields do not fit the point sets")
    if np.any((cfr < -1) | (cfr >= m)) or np.any((rfc < -1) | (rfc >= n)):
        return invalid("an assignment index is out of range")
    rows = np.flatnonzero(cfr >= 0)
    if rows.size != min(n, m) or np.unique(cfr[rows]).size != rows.size:
        return invalid("the assignment is not a full matching")
    if np.any(rfc[cfr[rows]] != rows) or np.count_nonzero(rfc >= 0) != rows.size:
        return invalid("col_for_row and row_for_col disagree")
    if not (np.all(np.isfinite(u)) and np.all(np.isfinite(v))):
        return invalid("a dual is NaN or infinite")

    def costs(a: np.ndarray, b: np.ndarray, aligned: bool = False) -> np.ndarray:
        if callable(metric):
            with jax.enable_x64(True):
                fn = aligned_costs if aligned else pair_costs
                return np.asarray(fn(jnp.asarray(a), jnp.asarray(b), metric), np.float64)
        return formula(a - b if aligned else a[:, None, :] - b[None, :, :], metric, np)

    matched = sign * costs(Xh[rows], Yh[cfr[rows]], aligned=True)
    least = np.inf
    cost_max = 0.0
    for s in range(0, n, block):
        c = sign * costs(Xh[s : s + block], Yh)
        cost_max = max(cost_max, float(np.abs(c).max(initial=0.0)))
        least = min(least, float((c - u[s : s + block, None] - v[None, :]).min(initial=np.inf)))
    dtype = np.dtype(getattr(result, "dtype", np.float32))
    if tol is None:
        tol = _tolerance(dtype, cost_max, u, v)
    viol_dual = max(0.0, -least)
    viol_cs = float(np.abs(matched - u[rows] - v[cfr[rows]]).max(initial=0.0))
    if n != m:
        big, assigned = (v, rfc) if n < m else (u, cfr)
        viol_dual = max(viol_dual, float(big.max(initial=0.0)))
        viol_cs = max(viol_cs, float(np.abs(big[assigned < 0]).max(initial=0.0)))
    primal, dual = float(matched.sum()), float(u.sum() + v.sum())
    return certificate(primal, dual, viol_dual, viol_cs, tol, sign, n + m)
