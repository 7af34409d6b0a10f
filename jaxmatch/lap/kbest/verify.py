"""The certificate of :func:`jaxmatch.k_best_assignments`: NumPy checks,
independent of the kernel, that what a result claims holds (the bounds on
optima that they rest on are proven in :mod:`._bounds`)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..types import LAPStatus
from ._bounds import (
    _better,
    _bound,
    _float_tol,
    _minimizing_frame,
    _overflow_why,
    _padded,
    _solve_regions,
    _terms,
)


class KBestCertificate(NamedTuple):
    """Outcome of :func:`jaxmatch.verify_k_best` for one problem.

    Attributes:
      valid: every check passed: each of the first ``found`` assignments is
        feasible (columns in range, none twice, no forbidden pair, every
        row assigned when ``n <= m`` without ``unassigned_cost``, every
        column when ``n > m``), its cost is its objective recomputed
        (exactly for integers, within the tolerance of its own terms for
        floats), the costs are nondecreasing (nonincreasing when
        maximizing), no assignment comes twice, the entries past ``found``
        are the fill values, no assignment is better than the first (or
        ``found`` is 0 exactly when :func:`jaxmatch.solve_lap` finds the
        problem infeasible), the status is the one the input dictates
        (``OPTIMAL`` with assignments; with none, ``OVERFLOW`` only for
        int32 costs holding int32's minimum when maximizing or whose ``k``
        best totals are proven, in exact integers, to include one outside
        int32 (an honest ``OVERFLOW`` it cannot prove is refused, its
        reason saying "not proven"), else ``INFEASIBLE``), and
        (``complete``) no assignment left out is better than the last
        returned, or exists at all when ``found < k``. Costs with a NaN or
        a -inf (+inf when maximizing) entry, or a price that is not finite,
        have no optimum: no result on them is valid (``k_best_assignments``
        reports ``INVALID_ENTRIES``).
      reason: the first failed check; empty when ``valid``.
    """

    valid: bool
    reason: str = ""


def _prices(unassigned_cost: Any, batch: tuple[int, ...], n: int, m: int):
    if unassigned_cost is None:
        return None, None
    if isinstance(unassigned_cost, (tuple, list)):
        rows, cols = unassigned_cost
    else:
        rows = cols = unassigned_cost
    r = np.broadcast_to(np.asarray(rows, np.float64), (*batch, n))
    c = np.broadcast_to(np.asarray(cols, np.float64), (*batch, m))
    return r, c


def _invalid_entries(C, r, c, maximize: bool) -> bool:
    """Whether the input is one that k_best_assignments must refuse: a NaN
    or a -inf (+inf when maximizing) cost, or a price that is not finite."""
    wrong = np.inf if maximize else -np.inf
    if np.any(np.isnan(C)) or np.any(np.equal(C, wrong)):
        return True
    return r is not None and not (np.all(np.isfinite(r)) and np.all(np.isfinite(c)))


def _status_why(C, r, c, count: int, status: int, maximize: bool, integer: bool, k: int) -> str:
    """Why the result cannot be certified by its status (with ``count``
    assignments): never on the inputs that _invalid_entries names (they have
    no optimum, whatever the result says); OPTIMAL with assignments; with
    none, not INVALID_ENTRIES (every entry is valid), OVERFLOW only for
    int32 costs with int32's minimum among them when maximizing (its
    negation overflows) or when some of the ``k`` best totals is proven to
    lie outside int32 (:func:`_overflow_why`), otherwise INFEASIBLE
    (solve_lap's feasibility is checked by the caller)."""
    if not integer and _invalid_entries(C, r, c, maximize):
        return "a cost is NaN or -inf (+inf when maximizing) or a price is not finite: no optimum"
    if count > 0:
        if status == LAPStatus.OVERFLOW:
            return f"status OVERFLOW with count {count}: an overflowing ranking returns nothing"
        return "" if status == LAPStatus.OPTIMAL else f"status {status} with count {count}"
    if status == LAPStatus.INVALID_ENTRIES:
        return "status INVALID_ENTRIES, but every cost and price is valid"
    if status == LAPStatus.OVERFLOW:
        if not integer:
            return "status OVERFLOW, but the costs are not int32"
        low = float(np.iinfo(np.int32).min)
        lowest = np.any(np.equal(C, low)) or (
            r is not None and (np.any(np.equal(r, low)) or np.any(np.equal(c, low)))
        )
        if maximize and lowest:
            return ""
        return _overflow_why(C, r, c, k, maximize)
    if status != LAPStatus.INFEASIBLE:
        return f"status {status} with count 0"
    return ""


def _check_one(C, r, c, A, costs, count, status, maximize, tol, eps, integer, k):
    """Why one problem's result fails the checks that need no solve (empty
    when it passes them)."""
    n, m = C.shape
    sign = -1.0 if maximize else 1.0
    scales: list[float] = []
    if not 0 <= count <= k:
        return f"count {count} outside [0, {k}]"
    why = _status_why(C, r, c, count, status, maximize, integer, k)
    if why:
        return why
    seen = set()
    for t in range(count):
        x = A[t]
        if np.any((x < -1) | (x >= m)):
            return f"assignment {t}: a column out of range"
        cols = x[x >= 0]
        if len(np.unique(cols)) != len(cols):
            return f"assignment {t}: a column assigned twice"
        if r is None and len(cols) != min(n, m):
            return f"assignment {t}: {len(cols)} pairs, not min(n, m) = {min(n, m)}"
        terms = _terms(C, r, c, x)
        pairs = terms[: len(cols)]
        if np.any(sign * pairs == np.inf) or np.any(np.isnan(pairs)):
            return f"assignment {t}: a forbidden pair"
        total = math.fsum(terms)
        scales.append(math.fsum(np.abs(terms)))
        # Each cost within the rounding of its own terms' sum (the kernel
        # sums in float64 and rounds to the cost dtype once).
        tol_t = 0.0 if integer else tol if tol is not None else _float_tol(eps, scales[t])
        if not abs(total - float(costs[t])) <= tol_t:
            return f"assignment {t}: cost {costs[t]} but its objective is {total:.17g}"
        if t:
            # Each cost within its tolerance of its objective: a pair in
            # order may differ by the two tolerances the other way.
            tol_o = tol_t
            if not integer and tol is None:
                tol_o += _float_tol(eps, scales[t - 1])
            if sign * (float(costs[t]) - float(costs[t - 1])) < -tol_o:
                return f"costs not in order at {t}: {costs[t - 1]} then {costs[t]}"
        key = tuple(int(v) for v in x)
        if key in seen:
            return f"assignment {t} comes twice"
        seen.add(key)
    if np.any(A[count:] != -1):
        return "assignments past count are not -1"
    fill = -np.inf if maximize else np.inf
    past = costs[count:].astype(np.float64)
    if integer:
        info = np.iinfo(np.int32)
        fill = info.min if maximize else info.max
    if np.any(past != fill):
        return "costs past count are not the fill value"
    return ""


def _regions(sols: list[tuple[int, ...]], n: int):
    """The complement of the solutions ``sols`` in the solution space as
    disjoint regions ``(prefix, excluded)``: rows ``0..d-1`` fixed to
    ``prefix``, row ``d`` taking none of ``excluded`` (the nodes of the
    solutions' trie)."""
    nxt: dict[tuple[int, ...], set[int]] = {}
    for x in sols:
        for d in range(n):
            nxt.setdefault(x[:d], set()).add(x[d])
    return list(nxt.items())


def _region_matrix(P, n: int, m: int, prefix, excluded) -> np.ndarray:
    Q = P.copy()
    for i, j in enumerate(prefix):
        keep = j if j >= 0 else m + i
        saved = Q[i, keep]
        Q[i, :] = np.inf
        Q[:, keep] = np.inf
        Q[i, keep] = saved
    d = len(prefix)
    for j in excluded:
        Q[d, j if j >= 0 else m + d] = np.inf
    return Q


def _region_matrices(P, n: int, m: int, A, count: int) -> tuple[list, list[np.ndarray]]:
    """The regions of the complement of the first ``count`` assignments of
    ``A`` (:func:`_regions`) and their padded matrices (from ``P``,
    :func:`_padded`)."""
    if n == 0 or count == 0:
        return [], []
    sols = [tuple(int(v) for v in A[t]) for t in range(count)]
    regions = _regions(sols, n)
    return regions, [_region_matrix(P, n, m, p, e) for p, e in regions]


def verify_k_best(
    C: Any,
    result: Any,
    *,
    unassigned_cost: Any = None,
    maximize: bool = False,
    tol: float | None = None,
    complete: bool = True,
) -> KBestCertificate | list[KBestCertificate]:
    """Certifies a :class:`~jaxmatch.KBestResult` (NumPy), independently of
    the kernel: each assignment feasible, its cost its objective, the costs
    in order, no assignment twice, none better than the first, and, with
    ``complete``, that they are the k best: the assignments not returned
    form at most ``count * n`` regions (the nodes of the returned
    assignments' trie: a prefix of rows fixed, the next row barred from the
    values the returned ones take there), none of which holds an assignment
    better than the last returned (or any, when ``count < k``).

    The whole problem and each region are solved by one batched
    :func:`jaxmatch.solve_lap` on the padded ``(n + m)`` square matrix
    (float32 without x64), whose answers are only proposals: the
    assignment found bounds the optimum from above, exactly; the duals,
    made feasible in float64 (each column's dual lowered to its least
    reduced cost) and less the rounding of that arithmetic, bound it from
    below; when the bounds straddle the compared cost, the optimum is found
    exactly (negative cycles of the found assignment cancelled in integer
    arithmetic). Infeasibility (``count`` 0, or a region without an
    assignment) is solve_lap's finding.

    Float tolerances are those of the objectives compared: an assignment's
    cost may differ from its objective by ``64 * eps * (1 + s)``, ``s`` the
    sum of the absolute values of the terms (pair costs and prices) its
    objective adds and ``eps`` that of the result's cost dtype; consecutive
    costs may be out of order by the sum of their two tolerances; an
    assignment outside the returned ones is better than a returned one
    when it beats it by more than ``64 * eps * (1 + s + s')``, ``s'`` its
    own terms' sum. Integer costs are compared exactly. Costs and prices
    that no compared assignment pays widen no tolerance.

    Args:
      C: ``[..., n, m]`` the costs that were ranked.
      result: the :class:`~jaxmatch.KBestResult` of
        ``k_best_assignments(C, k, unassigned_cost=..., maximize=...)``.
      unassigned_cost: as it was passed (float prices are taken in the
        result's cost dtype, as the ranking takes them).
      maximize: as it was passed.
      tol: an absolute tolerance on float costs, in place of the default
        ones above for every comparison.
      complete: also check that no assignment left out is better than the
        last returned (``count * n`` LAP solves of side ``n + m``, batched).

    Returns:
      A :class:`KBestCertificate` for a single matrix, a list of them (in
      row-major batch order) for a batch.
    """
    C = np.asarray(C)
    *batch, n, m = C.shape
    A = np.asarray(result.assignments)
    costs = np.asarray(result.costs)
    count = np.asarray(result.found).reshape(-1)
    status = np.asarray(result.status).reshape(-1)
    k = A.shape[-2] if A.ndim >= 2 else 0
    B = int(np.prod(batch)) if batch else 1
    if A.shape != (*batch, k, n) or costs.shape != (*batch, k) or count.size != B:
        bad = KBestCertificate(False, "fields of the wrong shape")
        return [bad] * B if batch else bad
    integer = np.issubdtype(costs.dtype, np.integer)
    r, c = _prices(unassigned_cost, tuple(batch), n, m)
    if r is not None and c is not None and not integer:
        # The prices as ranked: in the cost dtype.
        with np.errstate(over="ignore"):
            r = r.astype(costs.dtype).astype(np.float64)
            c = c.astype(costs.dtype).astype(np.float64)
    Cf = C.astype(np.float64).reshape(B, n, m)
    rf = None if r is None else r.reshape(B, n)
    cf = None if c is None else c.reshape(B, m)
    A = A.reshape(B, k, n)
    costs = costs.reshape(B, k)
    eps = 0.0 if integer else float(np.finfo(costs.dtype).eps)
    whys: list[str] = []
    frames: list[tuple | None] = []
    regions: list[list] = []
    Qs: list[np.ndarray] = []
    for b in range(B):
        rb = None if rf is None else rf[b]
        cb = None if cf is None else cf[b]
        cnt = int(count[b])
        why = _check_one(
            Cf[b], rb, cb, A[b], costs[b], cnt, int(status[b]), maximize, tol, eps, integer, k
        )
        whys.append(why)
        frames.append(None)
        regions.append([])
        Qs.append(np.zeros((0, 1, 1)))
        if why or (cnt == 0 and int(status[b]) == LAPStatus.OVERFLOW):
            continue
        # The problem as ranked (minimizing, rows <= columns), padded: the
        # whole of it (its optimum, or that it has none), then, with
        # complete, the regions of what was not returned.
        Cm, rm, cm, Am = _minimizing_frame(Cf[b], rb, cb, A[b], cnt, maximize)
        nm, mm = Cm.shape
        P = _padded(Cm, rm, cm)
        got = _region_matrices(P, nm, mm, Am, cnt) if complete else ([], [])
        frames[b] = (Cm, rm, cm, Am)
        regions[b] = got[0]
        Qs[b] = np.stack([P, *got[1]]) if nm else np.zeros((0, mm, mm))
    solved = _solve_regions(Qs)
    for b in range(B):
        if whys[b] or frames[b] is None:
            continue
        cnt = int(count[b])
        frame = frames[b]
        feasible, cfr, u, v = solved[b]
        if not len(feasible):  # no rows: one assignment, the empty one
            if cnt == 0:
                whys[b] = "count 0 but the problem has an assignment"
            continue
        if cnt == 0 or not feasible[0]:
            if feasible[0] or cnt:
                whys[b] = f"count {cnt} but solve_lap finds feasible={bool(feasible[0])}"
            continue

        args = (eps, integer, tol)
        sign = -1.0 if maximize else 1.0
        better = _better(Qs[b][0], feasible[0], cfr[0], u[0], v[0], _bound(frame, 0), *args)
        if isinstance(better, str):
            whys[b] = better
            continue
        if better is not None:
            whys[b] = f"first cost {costs[b][0]} but the optimum is {sign * better:.17g} or better"
            continue
        last = _bound(frame, cnt - 1)
        for q, (prefix, excluded) in enumerate(regions[b], 1):
            where = f"rows {list(prefix)} then row {len(prefix)} not in {sorted(excluded)}"
            if cnt < k:
                if feasible[q]:
                    whys[b] = f"only {cnt} assignments but another exists ({where})"
                    break
                continue
            better = _better(Qs[b][q], feasible[q], cfr[q], u[q], v[q], last, *args)
            if isinstance(better, str):
                whys[b] = better
                break
            if better is not None:
                whys[b] = (
                    f"an assignment of objective {sign * better:.17g} is missing ({where}), "
                    f"better than the last {costs[b][cnt - 1]}"
                )
                break
    out = [KBestCertificate(not why, why) for why in whys]
    return out if batch else out[0]
