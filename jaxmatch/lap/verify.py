"""The LAP certificate: LP duality checked in NumPy (float64), independently
of the solver."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._certificate import NAN as _NAN
from ._certificate import certificate, invalid
from .sparse.costs import SparseCosts
from .sparse.verify import verify_sparse
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
    # The solve's dtype: float64 only for float64 costs (float16 and bfloat16
    # are solved in float32).
    eps = np.finfo(np.float64 if dtype == np.float64 else np.float32).eps
    return float(64.0 * eps * scale)


def _field(result, name: str, shape: tuple[int, ...], kinds: str):
    """``(array, "")`` when ``result.<name>`` is an array of ``shape`` whose
    dtype kind is in ``kinds``; else ``(None, why)``."""
    try:
        a = np.asarray(getattr(result, name))
    except (TypeError, ValueError) as err:  # ragged lists, odd objects
        return None, f"{name} is not an array ({err})"
    if a.shape != shape:
        return None, f"{name} has shape {a.shape}, expected {shape}"
    if a.size and a.dtype.kind not in kinds:
        what = "integers" if kinds == "iu" else "real numbers"
        return None, f"{name} must hold {what}, got dtype {a.dtype}"
    return a, ""


def _assignment_problem(cfr: np.ndarray, rfc: np.ndarray, Cs: np.ndarray, full: bool) -> str:
    """Empty string when ``cfr``/``rfc`` (right shapes, integer dtypes) are a
    valid assignment of ``Cs`` (minimization form): of ``min(n, m)`` pairs
    when ``full``, else of any number (``unassigned_cost``); else the first
    problem."""
    n, m = Cs.shape
    # Compare in the arrays' own dtypes: a cast of uint64 to int64 could wrap.
    if np.any((cfr < -1) | (cfr >= m)) or np.any((rfc < -1) | (rfc >= n)):
        return "an assignment index is out of range"
    cfr, rfc = cfr.astype(np.int64), rfc.astype(np.int64)
    rows = np.flatnonzero(cfr >= 0)
    cols = cfr[rows]
    if full and rows.size != min(n, m):
        return f"{rows.size} rows are assigned, expected {min(n, m)}"
    if np.unique(cols).size != cols.size:
        return "a column is assigned to two rows"
    if np.any(rfc[cols] != rows) or np.count_nonzero(rfc >= 0) != rows.size:
        return "col_for_row and row_for_col disagree"
    if not np.all(np.isfinite(Cs[rows, cols])):
        return "the assignment uses a forbidden (or NaN) entry"
    return ""


def _verify_one(C, cfr, rfc, u, v, maximize, tol, dtype, why="", prices=None) -> LAPCertificate:
    """One problem. ``cfr``/``rfc`` (or ``u``/``v``) are None, with ``why``
    saying so, when they do not fit ``C``. ``prices``: the prices ``[n]``,
    ``[m]`` of unassigned rows and columns (``unassigned_cost``), or None
    for the plain LAP, whose LP dual is that problem's with the larger side
    priced 0 and the smaller side not allowed to stay unassigned (+inf)."""
    n, m = C.shape
    sign = -1.0 if maximize else 1.0
    Cs = sign * C.astype(np.float64)  # minimisation form; forbidden = +inf
    if prices is None:
        rs = np.full(n, np.inf if n <= m else 0.0)
        cs = np.full(m, np.inf if m <= n else 0.0)
    else:
        rs, cs = (sign * x.astype(np.float64) for x in prices)
    if cfr is None or rfc is None:
        return invalid(why)
    reason = _assignment_problem(cfr, rfc, Cs, full=prices is None)
    if reason:
        return invalid(reason)
    cfr, rfc = cfr.astype(np.int64), rfc.astype(np.int64)
    rows = np.flatnonzero(cfr >= 0)
    cols = cfr[rows]
    free_rows, free_cols = cfr < 0, rfc < 0
    primal = float(Cs[rows, cols].sum() + rs[free_rows].sum() + cs[free_cols].sum())
    if u is None or v is None:
        return LAPCertificate(True, False, False, sign * primal, _NAN, _NAN, _NAN, False, why)

    us, vs = sign * u.astype(np.float64), sign * v.astype(np.float64)
    if not (np.all(np.isfinite(us)) and np.all(np.isfinite(vs))):
        reason = "a dual is NaN or infinite"
        return LAPCertificate(True, False, False, sign * primal, _NAN, _NAN, _NAN, False, reason)
    if tol is None:
        values = C if prices is None else np.concatenate([C.ravel(), *prices])
        tol = _default_tol(values.astype(np.float64), dtype, u, v)

    with np.errstate(invalid="ignore"):
        reduced = Cs - us[:, None] - vs[None, :]
    reduced = np.where(np.isposinf(Cs), np.inf, reduced)
    # NaN or -inf costs (+inf when maximizing) make every dual infeasible:
    # the solver reports such a matrix as INVALID_ENTRIES.
    invalid_entries = bool(np.any(np.isnan(Cs) | np.isneginf(Cs)))
    reduced = np.where(np.isnan(reduced), -np.inf, reduced)
    # Every dual constraint's slack (>= 0): the pairs, and each row's and
    # column's price of staying unassigned; tight on the assigned pairs and
    # the unassigned vertices.
    slack = (reduced.ravel(), rs - us, cs - vs)
    viol_dual = max(0.0, -min((float(x.min()) for x in slack if x.size), default=0.0))
    tight = (reduced[rows, cols], (rs - us)[free_rows], (cs - vs)[free_cols])
    viol_cs = max((float(np.abs(x).max()) for x in tight if x.size), default=0.0)
    cert = certificate(primal, float(us.sum() + vs.sum()), viol_dual, viol_cs, tol, sign, n + m)
    if invalid_entries:
        reason = f"C has NaN or {'+' if maximize else '-'}inf entries"
        return cert._replace(optimal=False, reason=reason)
    if prices is not None and not (np.all(np.isfinite(rs)) and np.all(np.isfinite(cs))):
        return cert._replace(optimal=False, reason="unassigned_cost is NaN or infinite")
    return cert


def verify_lap(
    C,
    result: LAPResult,
    *,
    maximize: bool = False,
    tol: float | None = None,
    unassigned_cost: Any = None,
):
    """Certifies a LAP solution by LP duality, independently of the solver.

    Checks that the assignment is valid (each row of the smaller side assigned
    to a distinct column, ``row_for_col`` consistent, no forbidden entry used),
    that the duals are feasible (``C - u - v >= -tol``, reversed when
    maximizing; on rectangular problems the larger side's duals are ``<= 0``),
    complementary slackness (zero reduced cost on assigned pairs, zero duals
    on unassigned vertices), and that the duality gap vanishes.

    Any ``result`` gives certificates, never an exception: fields of the
    wrong shape (they must be ``col_for_row [..., n]``, ``row_for_col
    [..., m]``, ``u [..., n]``, ``v [..., m]`` for ``C`` of shape
    ``[..., n, m]``) or dtype (integer assignments, real duals), indices out
    of range, and NaN or infinite duals make the certificate fail, with the
    first problem in ``reason``: a bad assignment gives
    ``valid_assignment=False``, bad duals ``dual_feasible=False``, and both
    ``optimal=False``. A ``C`` with NaN (or ``-inf``; ``+inf`` when
    maximizing) entries is never certified optimal.

    Sparse costs are certified on their stored entries: a
    :class:`~jaxmatch.SparseCosts` as its solvers read it (zeros are edges,
    a pair stored twice costs its cheaper entry), a scipy sparse matrix as
    scipy's csgraph reads it (duplicates summed, explicit zeros removed);
    the assignment must then be full (``min(n, m)`` pairs) unless
    ``unassigned_cost`` is given, and the tolerance defaults to
    ``64 * eps64 * max(1, |C|, |u|, |v|)``.

    Args:
      C: ``[..., n, m]`` the costs that were solved (a real dtype), a
        :class:`~jaxmatch.SparseCosts`, or a scipy sparse matrix.
      result: the :class:`LAPResult` of ``solve_lap(C, maximize=maximize)``,
        or any object with its ``col_for_row``, ``row_for_col``, ``u`` and
        ``v`` attributes.
      maximize: whether ``result`` maximizes.
      tol: absolute tolerance; default 0 for integer costs, else
        ``64 * eps * max(1, |C|, |u|, |v|)`` with the ``eps`` of the dtype
        the solve ran in (float32 for float16 and bfloat16 costs).
      unassigned_cost: the prices of unassigned rows and columns the
        result was solved with (:func:`jaxmatch.solve_lap`: a scalar or a
        pair ``(row_costs, col_costs)`` broadcastable to ``[..., n]`` and
        ``[..., m]``). The assignment may then be partial, and the checks
        are those of that problem's LP dual: ``u[i] + v[j] <= C[i, j]``
        (on sparse costs: over the stored entries), ``u[i] <=
        row_costs[i]``, ``v[j] <= col_costs[j]``, with equality on
        assigned pairs, unassigned rows and unassigned columns;
        ``primal_cost`` counts the prices of the unassigned.

    Returns:
      A :class:`LAPCertificate` for a single matrix, or a list of them (in
      row-major batch order) for a batch.

    Raises:
      ValueError: ``C`` has fewer than two dimensions, or is not real (bool,
        integer or floating point).
      TypeError: ``result`` lacks one of the four attributes.
    """
    missing = [f for f in ("col_for_row", "row_for_col", "u", "v") if not hasattr(result, f)]
    if missing:
        raise TypeError(f"verify_lap: result has no {', '.join(missing)}")
    if _is_sparse(C):
        prices = None
        if unassigned_cost is not None:
            batch = np.shape(C.indptr)[:-1] if isinstance(C, SparseCosts) else ()
            prices = _prices_of(unassigned_cost, batch, *C.shape)
        return verify_sparse(C, result, maximize=maximize, tol=tol, prices=prices)
    C = np.asarray(C)
    if C.ndim < 2:
        raise ValueError(f"verify_lap: C must have shape [..., n, m], got {C.shape}")
    if C.size and C.dtype.kind not in "biuf":
        raise ValueError(f"verify_lap: C must be real, got dtype {C.dtype}")
    dtype = C.dtype
    batch, (n, m) = C.shape[:-2], C.shape[-2:]
    prices = None if unassigned_cost is None else _prices_of(unassigned_cost, batch, n, m)
    cfr, why_cfr = _field(result, "col_for_row", (*batch, n), "iu")
    rfc, why_rfc = _field(result, "row_for_col", (*batch, m), "iu")
    u, why_u = _field(result, "u", (*batch, n), "biuf")
    v, why_v = _field(result, "v", (*batch, m), "biuf")
    if cfr is None or rfc is None:
        cfr = rfc = None
    if u is None or v is None:
        u = v = None
    why = why_cfr or why_rfc or why_u or why_v
    # Garbage may overflow (sums of huge duals) or subtract infinities; the
    # checks see the resulting inf/nan, so NumPy need not warn.
    with np.errstate(over="ignore", invalid="ignore"):
        if C.ndim == 2:
            return _verify_one(C, cfr, rfc, u, v, maximize, tol, dtype, why, prices)
        return _verify_batch(C, prices, cfr, rfc, u, v, maximize, tol, dtype, why)


def _prices_of(unassigned_cost: Any, batch, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """``unassigned_cost`` as the row prices ``[..., n]`` and the column
    prices ``[..., m]`` (NumPy)."""
    if isinstance(unassigned_cost, (tuple, list)):
        if len(unassigned_cost) != 2:
            raise ValueError("verify_lap: unassigned_cost must be a scalar or a pair")
        rows, cols = (np.asarray(x) for x in unassigned_cost)
    else:
        rows = cols = np.asarray(unassigned_cost)
        if rows.ndim:
            raise ValueError("verify_lap: unassigned_cost must be a scalar or a pair")
    for x in (rows, cols):
        if x.size and x.dtype.kind not in "biuf":
            raise ValueError(f"verify_lap: unassigned_cost must be real, got dtype {x.dtype}")
    try:
        return np.broadcast_to(rows, (*batch, n)), np.broadcast_to(cols, (*batch, m))
    except ValueError as err:
        raise ValueError(f"verify_lap: unassigned_cost does not fit C: {err}") from None


def _verify_batch(C, prices, cfr, rfc, u, v, maximize, tol, dtype, why) -> list[LAPCertificate]:
    n, m = C.shape[-2:]
    B = int(np.prod(C.shape[:-2]))

    def member(a, size, b):
        return None if a is None else a.reshape(B, size)[b]

    def prices_of(b):
        return None if prices is None else (member(prices[0], n, b), member(prices[1], m, b))

    return [
        _verify_one(
            C.reshape(B, n, m)[b],
            member(cfr, n, b),
            member(rfc, m, b),
            member(u, n, b),
            member(v, m, b),
            maximize,
            tol,
            dtype,
            why,
            prices_of(b),
        )
        for b in range(B)
    ]


def _is_sparse(C: Any) -> bool:
    """Whether ``C`` is sparse costs: a :class:`~jaxmatch.SparseCosts` or a
    scipy sparse matrix (without importing scipy)."""
    if isinstance(C, SparseCosts):
        return True
    return type(C).__module__.startswith("scipy.sparse")
