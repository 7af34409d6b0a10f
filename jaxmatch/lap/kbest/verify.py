"""The certificate of :func:`jaxmatch.k_best_assignments`: NumPy checks,
independent of the kernel, that what a result claims holds."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np

from ..types import LAPStatus


class KBestCertificate(NamedTuple):
    """Outcome of :func:`jaxmatch.verify_k_best` for one problem.

    Attributes:
      valid: every check passed: each of the first ``found`` assignments is
        feasible (columns in range, none twice, no forbidden pair, every
        row assigned when ``n <= m`` without ``unassigned_cost``, every
        column when ``n > m``), its cost is its objective recomputed
        (exactly for integers, within ``tol`` for floats), the costs are
        nondecreasing (nonincreasing when maximizing), no assignment comes
        twice, the entries past ``found`` are the fill values, and the
        first cost is the optimum that :func:`jaxmatch.solve_lap` finds and
        :func:`jaxmatch.verify_lap` certifies (or ``found`` is 0 exactly
        when it finds the problem infeasible), the status is the one the
        input dictates (``OPTIMAL`` with assignments; with none,
        ``OVERFLOW`` only for int32 costs holding int32's minimum when
        maximizing, else ``INFEASIBLE``), and (``complete``) no assignment
        left out is better than the last returned, or exists at all when
        ``found < k``. Costs with a NaN or a -inf (+inf when maximizing)
        entry, or a price that is not finite, have no optimum: no result
        on them is valid (``k_best_assignments`` reports
        ``INVALID_ENTRIES``).
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


def _status_why(C, r, c, count: int, status: int, maximize: bool, integer: bool) -> str:
    """Why the result cannot be certified by its status (with ``count``
    assignments): never on the inputs that _invalid_entries names (they have
    no optimum, whatever the result says); OPTIMAL with assignments; with
    none, not INVALID_ENTRIES (every entry is valid), OVERFLOW only for
    int32 costs with int32's minimum among them when maximizing (its
    negation overflows), otherwise INFEASIBLE (solve_lap's feasibility is
    checked by the caller)."""
    if not integer and _invalid_entries(C, r, c, maximize):
        return "a cost is NaN or -inf (+inf when maximizing) or a price is not finite: no optimum"
    if count > 0:
        return "" if status == LAPStatus.OPTIMAL else f"status {status} with count {count}"
    if status == LAPStatus.INVALID_ENTRIES:
        return "status INVALID_ENTRIES, but every cost and price is valid"
    if status == LAPStatus.OVERFLOW:
        low = float(np.iinfo(np.int32).min)
        lowest = np.any(np.equal(C, low)) or (
            r is not None and (np.any(np.equal(r, low)) or np.any(np.equal(c, low)))
        )
        if not (integer and maximize and lowest):
            return "status OVERFLOW, but no int32 minimum is negated"
        return ""
    if status != LAPStatus.INFEASIBLE:
        return f"status {status} with count 0"
    return ""


def _check_one(C, r, c, A, costs, count, status, maximize, tol, integer, k) -> str:
    n, m = C.shape
    sign = -1.0 if maximize else 1.0
    if not 0 <= count <= k:
        return f"count {count} outside [0, {k}]"
    why = _status_why(C, r, c, count, status, maximize, integer)
    if why:
        return why
    seen = set()
    prev = None
    for t in range(count):
        x = A[t]
        if np.any((x < -1) | (x >= m)):
            return f"assignment {t}: a column out of range"
        cols = x[x >= 0]
        if len(np.unique(cols)) != len(cols):
            return f"assignment {t}: a column assigned twice"
        if r is None and len(cols) != min(n, m):
            return f"assignment {t}: {len(cols)} pairs, not min(n, m) = {min(n, m)}"
        rows = np.nonzero(x >= 0)[0]
        pairs = C[rows, x[rows]]
        if np.any(sign * pairs == np.inf) or np.any(np.isnan(pairs)):
            return f"assignment {t}: a forbidden pair"
        total = float(np.sum(pairs))
        if r is not None:
            free = np.ones(m, bool)
            free[cols] = False
            total += float(np.sum(r[x < 0])) + float(np.sum(c[free]))
        if integer:
            if total != float(costs[t]):
                return f"assignment {t}: cost {costs[t]} but its objective is {total:.17g}"
        elif not abs(total - float(costs[t])) <= tol:
            return f"assignment {t}: cost {costs[t]} but its objective is {total:.17g}"
        if prev is not None and sign * (float(costs[t]) - prev) < -(0 if integer else tol):
            return f"costs not in order at {t}: {prev} then {costs[t]}"
        prev = float(costs[t])
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


def _optimum(C, unassigned_cost, maximize):
    """The optimum by solve_lap and verify_lap: (cost, feasible, certificates)
    per problem."""
    from ..api import solve_lap
    from ..verify import verify_lap

    res = solve_lap(C, maximize=maximize, unassigned_cost=unassigned_cost)
    certs = verify_lap(C, res, maximize=maximize, unassigned_cost=unassigned_cost)
    if not isinstance(certs, list):
        certs = [certs]
    cost = np.asarray(res.cost, np.float64).reshape(-1)
    feasible = np.asarray(res.feasible).reshape(-1)
    return cost, feasible, certs


def _padded(C, r, c) -> np.ndarray:
    """The square (n + m) matrix whose perfect matchings are the partial
    assignments (minimizing): rows then a dummy row per column, columns
    then an exit per row; exits cost r, dummies c, dummy-exit pairs 0."""
    n, m = C.shape
    P = np.full((n + m, m + n), np.inf)
    P[:n, :m] = C
    P[np.arange(n), m + np.arange(n)] = r
    P[n + np.arange(m), np.arange(m)] = c
    P[n:, m:] = 0.0
    return P


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


def _region_problems(C, r, c, A, count: int):
    """The regions of the complement of the first ``count`` assignments of
    ``A`` (:func:`_regions`) and their padded matrices ``[R, n + m, n + m]``
    (minimizing; plain problems have ``r`` +inf and ``c`` 0, ``n <= m``)."""
    n, m = C.shape
    if n == 0 or count == 0:
        return [], np.zeros((0, n + m, n + m))
    sols = [tuple(int(v) for v in A[t]) for t in range(count)]
    regions = _regions(sols, n)
    P = _padded(C, r, c)
    return regions, np.stack([_region_matrix(P, n, m, p, e) for p, e in regions])


def _solve_regions(Qs: list[np.ndarray]):
    """Every region of every problem by one :func:`jaxmatch.solve_lap` per
    side length (the batch padded to a power of two, so that calls reuse
    their compiled programs), certified by :func:`jaxmatch.verify_lap`:
    per problem, (feasible, cost, certificates) of its regions."""
    from ..api import solve_lap
    from ..verify import verify_lap

    out: list = [None] * len(Qs)
    by_side: dict[int, list[int]] = {}
    for b, Q in enumerate(Qs):
        if len(Q):
            by_side.setdefault(Q.shape[-1], []).append(b)
        else:
            out[b] = (np.zeros(0, bool), np.zeros(0), [])
    for side, members in by_side.items():
        stack = np.concatenate([Qs[b] for b in members])
        total = len(stack)
        padded = 1 << max(0, (total - 1).bit_length())
        stack = np.concatenate([stack, np.zeros((padded - total, side, side))])
        # Certified on the matrices solve_lap solved: float32 without x64.
        solved = jnp.asarray(stack)
        res = solve_lap(solved)
        feasible = np.asarray(res.feasible)[:total]
        cost = np.asarray(res.cost, np.float64)[:total]
        certs = verify_lap(np.asarray(solved), res)[:total]
        start = 0
        for b in members:
            stop = start + len(Qs[b])
            out[b] = (feasible[start:stop], cost[start:stop], certs[start:stop])
            start = stop
    return out


def _complete(regions, solved, count: int, k: int, last: float, tol: float) -> str:
    """That no assignment outside the first ``count`` is better than
    ``last`` (when ``count == k``) or exists at all (``count < k``): each
    region of their complement, solved and certified (:func:`_solve_regions`)."""
    feasible, cost, certs = solved
    for q, (prefix, excluded) in enumerate(regions):
        if not feasible[q]:
            continue
        if not certs[q].optimal:
            return f"a region's optimum is not certified: {certs[q].reason}"
        if count < k:
            return (
                f"only {count} assignments but another exists (rows {list(prefix)} then row "
                f"{len(prefix)} not in {sorted(excluded)}: cost {cost[q]:.17g})"
            )
        if cost[q] < last - tol:
            return (
                f"an assignment of cost {cost[q]:.17g} is missing (rows {list(prefix)} then "
                f"row {len(prefix)} not in {sorted(excluded)}), better than the last {last:.17g}"
            )
    return ""


def _minimizing_frame(C, r, c, A, count: int, maximize: bool):
    """The problem as the ranking minimizes it, rows <= columns without
    prices: ``(C, r, c, A)`` with ``r`` +inf, ``c`` 0 and tall problems
    transposed (each assignment then the row of each column)."""
    sign = -1.0 if maximize else 1.0
    C = sign * C
    n, m = C.shape
    if r is not None:
        return C, sign * r, sign * c, A
    if n <= m:
        return C, np.full(n, np.inf), np.zeros(m), A
    At = np.full((A.shape[0], m), -1, np.int64)
    for t in range(count):
        for i, j in enumerate(A[t]):
            if j >= 0:
                At[t, j] = i
    return C.T, np.full(m, np.inf), np.zeros(n), At


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
    in order, no assignment twice, and the first the optimum (solved by
    :func:`jaxmatch.solve_lap` and certified by :func:`jaxmatch.verify_lap`),
    and, with ``complete``, that they are the k best: the assignments not
    returned form at most ``count * n`` regions (the nodes of the returned
    assignments' trie: a prefix of rows fixed, the next row barred from the
    values the returned ones take there), and each region's optimum, by
    :func:`jaxmatch.solve_lap` on the padded ``(n + m)`` square matrix and
    certified by :func:`jaxmatch.verify_lap`, is no better than the last
    returned cost (or the region is infeasible, when ``count < k``).

    Args:
      C: ``[..., n, m]`` the costs that were ranked.
      result: the :class:`~jaxmatch.KBestResult` of
        ``k_best_assignments(C, k, unassigned_cost=..., maximize=...)``.
      unassigned_cost: as it was passed.
      maximize: as it was passed.
      tol: absolute tolerance on float costs; default
        ``64 * eps * max(1, sum |finite C| + sum |prices|)`` with the eps of
        the result's cost dtype.
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
    Cf = C.astype(np.float64).reshape(B, n, m)
    rf = None if r is None else r.reshape(B, n)
    cf = None if c is None else c.reshape(B, m)
    A = A.reshape(B, k, n)
    costs = costs.reshape(B, k)
    eps = 0.0 if integer else float(np.finfo(costs.dtype).eps)
    opt, feasible, certs = _optimum(C, unassigned_cost, maximize)
    whys, tols = [], []
    for b in range(B):
        finite = Cf[b][np.isfinite(Cf[b])]
        scale = 1.0 + float(np.sum(np.abs(finite)))
        if rf is not None and cf is not None:
            scale += float(np.sum(np.abs(rf[b])) + np.sum(np.abs(cf[b])))
        tol_b = tol if tol is not None else 64 * eps * scale
        tols.append(tol_b)
        why = _check_one(
            Cf[b],
            None if rf is None else rf[b],
            None if cf is None else cf[b],
            A[b],
            costs[b],
            int(count[b]),
            int(status[b]),
            maximize,
            tol_b,
            integer,
            k,
        )
        if not why:
            if bool(feasible[b]) != (count[b] > 0):
                why = f"count {count[b]} but solve_lap finds feasible={bool(feasible[b])}"
            elif count[b] > 0:
                if not certs[b].optimal:
                    why = f"solve_lap's optimum is not certified: {certs[b].reason}"
                elif not abs(opt[b] - float(costs[b][0])) <= (0 if integer else tol_b):
                    why = f"first cost {costs[b][0]} but the optimum is {opt[b]:.17g}"
        whys.append(why)
    if complete:
        regions: list[list] = []
        Qs: list[np.ndarray] = []
        for b in range(B):
            if whys[b]:
                regions.append([])
                Qs.append(np.zeros((0, 1, 1)))
                continue
            Cm, rm, cm, Am = _minimizing_frame(
                Cf[b],
                None if rf is None else rf[b],
                None if cf is None else cf[b],
                A[b],
                int(count[b]),
                maximize,
            )
            got = _region_problems(Cm, rm, cm, Am, int(count[b]))
            regions.append(got[0])
            Qs.append(got[1])
        solved = _solve_regions(Qs)
        for b in range(B):
            if not whys[b]:
                last = (-1.0 if maximize else 1.0) * float(costs[b][max(int(count[b]) - 1, 0)])
                whys[b] = _complete(regions[b], solved[b], int(count[b]), k, last, tols[b])
    out = [KBestCertificate(not why, why) for why in whys]
    return out if batch else out[0]
