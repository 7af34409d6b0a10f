"""Independent certificates of solver results (NumPy, float64)."""

from __future__ import annotations

import numpy as np

from .types import LAPCertificate, LAPResult


def _default_tol(C: np.ndarray, dtype: np.dtype, u, v) -> float:
    if np.issubdtype(dtype, np.integer):
        return 0.0
    finite = C[np.isfinite(C)]
    scale = max(
        1.0,
        float(np.abs(finite).max()) if finite.size else 0.0,
        float(np.abs(u).max()) if u.size else 0.0,
        float(np.abs(v).max()) if v.size else 0.0,
    )
    eps = np.finfo(np.float32 if dtype == np.float32 else np.float64).eps
    return 64.0 * eps * scale


def _verify_one(C, cfr, rfc, u, v, maximize, tol, dtype) -> LAPCertificate:
    n, m = C.shape
    sign = -1.0 if maximize else 1.0
    Cs = sign * C.astype(np.float64)  # minimisation form; forbidden = +inf
    us, vs = sign * u.astype(np.float64), sign * v.astype(np.float64)
    if tol is None:
        tol = _default_tol(C.astype(np.float64), dtype, u, v)

    k = min(n, m)
    assigned_rows = np.flatnonzero(cfr >= 0)
    cols = cfr[assigned_rows]
    valid = (
        len(assigned_rows) == k
        and np.all(cols < m)
        and len(np.unique(cols)) == k
        and np.all(rfc[cols] == assigned_rows)
        and np.count_nonzero(rfc >= 0) == k
        and bool(np.all(np.isfinite(Cs[assigned_rows, cols])))
    )
    if not valid:
        nan = float("nan")
        return LAPCertificate(False, False, False, nan, nan, nan, nan, False)

    with np.errstate(invalid="ignore"):
        reduced = Cs - us[:, None] - vs[None, :]
    reduced = np.where(np.isposinf(Cs), np.inf, reduced)
    viol_dual = max(0.0, -float(reduced.min())) if reduced.size else 0.0
    viol_cs = float(np.abs(reduced[assigned_rows, cols]).max()) if k else 0.0
    # Rectangular LP: the duals of the larger side are <= 0, and 0 where
    # that vertex is unassigned.
    if n < m:
        free = rfc < 0
        viol_cs = max(viol_cs, float(np.abs(vs[free]).max()) if free.any() else 0.0)
        viol_dual = max(viol_dual, float(vs.max()) if m else 0.0)
    elif n > m:
        free = cfr < 0
        viol_cs = max(viol_cs, float(np.abs(us[free]).max()) if free.any() else 0.0)
        viol_dual = max(viol_dual, float(us.max()) if n else 0.0)
    primal = float(Cs[assigned_rows, cols].sum())
    dual = float(us.sum() + vs.sum())
    gap = primal - dual
    dual_feasible = viol_dual <= tol
    slack_ok = viol_cs <= tol
    optimal = dual_feasible and slack_ok and abs(gap) <= tol * max(1, n + m)
    return LAPCertificate(
        valid_assignment=True,
        dual_feasible=dual_feasible,
        complementary_slackness=slack_ok,
        primal_cost=sign * primal,
        dual_objective=sign * dual,
        duality_gap=gap,
        max_violation=max(viol_dual, viol_cs),
        optimal=optimal,
    )


def verify_lap(C, result: LAPResult, *, maximize: bool = False, tol: float | None = None):
    """Certifies a LAP solution by LP duality, independently of the solver.

    Checks that the assignment is valid (each row of the smaller side assigned
    to a distinct column, ``row_for_col`` consistent, no forbidden entry used),
    that the duals are feasible (``C - u - v >= -tol``, reversed when
    maximizing; on rectangular problems the larger side's duals are ``<= 0``),
    complementary slackness (zero reduced cost on assigned pairs, zero duals
    on unassigned vertices), and that the duality gap vanishes.

    Args:
      C: ``[..., n, m]`` the costs that were solved.
      result: the :class:`LAPResult` of ``solve_lap(C, maximize=maximize)``.
      maximize: whether ``result`` maximizes.
      tol: absolute tolerance; default 0 for integer costs, else
        ``64 * eps(dtype) * max(1, |C|, |u|, |v|)``.

    Returns:
      A :class:`LAPCertificate` for a single matrix, or a list of them (in
      row-major batch order) for a batch.
    """
    C = np.asarray(C)
    dtype = C.dtype
    cfr, rfc = np.asarray(result.col_for_row), np.asarray(result.row_for_col)
    u, v = np.asarray(result.u), np.asarray(result.v)
    if C.ndim == 2:
        return _verify_one(C, cfr, rfc, u, v, maximize, tol, dtype)
    n, m = C.shape[-2:]
    B = int(np.prod(C.shape[:-2]))
    return [
        _verify_one(
            C.reshape(B, n, m)[b], cfr.reshape(B, n)[b], rfc.reshape(B, m)[b],
            u.reshape(B, n)[b], v.reshape(B, m)[b], maximize, tol, dtype,
        )
        for b in range(B)
    ]
