"""The certificate of :func:`jaxmatch.k_best_assignments`: NumPy checks,
independent of the kernel, that what a result claims holds."""

from __future__ import annotations

import math
from fractions import Fraction
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


# Steps of the enumeration that proves an OVERFLOW (the partial assignments
# visited); past it an OVERFLOW is refused as not proven.
_OVERFLOW_STEPS = 200_000


def _overflow_why(C, r, c, k: int, maximize: bool) -> str:
    """Why an OVERFLOW without assignments on int32 costs is not proven
    (empty when it is): proven when one of the ``k`` best totals, in exact
    integers, lies outside int32. The least total is found exactly
    (solve_lap's proposal on the padded matrix, then negative cycles
    cancelled in integers, :func:`_exact_optimum`): below int32 or above
    it, it decides. Otherwise no total lies below int32, and the ``k`` best
    include one above it exactly when fewer than ``k`` totals fit and some
    total does not: a depth-first enumeration of the partial assignments,
    each subtree whose lower bound (its pairs so far, each later row's
    least option, the negative column prices) passes int32's maximum
    counted as one total that does not fit, stops at ``k`` totals that fit
    or refuses past ``_OVERFLOW_STEPS`` steps (not proven)."""
    info = np.iinfo(np.int32)
    # The range of a total, in the minimizing frame (negated when maximizing).
    lo, hi = (-int(info.max), -int(info.min)) if maximize else (int(info.min), int(info.max))
    Cm, rm, cm, _ = _minimizing_frame(C, r, c, np.zeros((0, C.shape[0]), np.int64), 0, maximize)
    n, m = Cm.shape
    exits = r is not None
    if n == 0:
        total = sum(int(x) for x in cm) if exits else 0
        if lo <= total <= hi:
            return "status OVERFLOW, but the only total fits int32"
        return ""
    if n > 500:
        return f"status OVERFLOW not proven: {n} rows are too many to enumerate"
    P = _padded(Cm, rm, cm)
    feasible, cfr, _, _ = _solve_regions([P[None]])[0]
    found = _exact_optimum(P, cfr[0]) if feasible[0] else None
    if found is None:
        return "status OVERFLOW not proven: solve_lap finds no assignment"
    least = found[0]
    if least < lo or least > hi:
        return ""
    W = [[int(x) for x in row] for row in Cm]
    exit_cost = [int(x) for x in rm] if exits else [0] * n
    free_cost = [int(x) for x in cm] if exits else [0] * m
    options = [min(W[i] + exit_cost[i : i + 1 if exits else 0]) for i in range(n)]
    after = [0] * (n + 1)
    for i in range(n - 1, -1, -1):
        after[i] = after[i + 1] + options[i]
    negative = sum(min(0, x) for x in free_cost)
    used = [False] * m
    fit = above = steps = 0

    def visit(i: int, partial: int) -> bool:
        """Enumerates below row ``i``; False once it may stop."""
        nonlocal fit, above, steps
        steps += 1
        if steps > _OVERFLOW_STEPS:
            return False
        if partial + after[i] + negative > hi:
            above += 1
            return True
        if i == n:
            total = partial + sum(x for x, u in zip(free_cost, used) if not u)
            if total <= hi:
                fit += 1
                return fit < k
            above += 1
            return True
        if exits and not visit(i + 1, partial + exit_cost[i]):
            return False
        for j in range(m):
            if not used[j]:
                used[j] = True
                go = visit(i + 1, partial + W[i][j])
                used[j] = False
                if not go:
                    return False
        return True

    visit(0, 0)
    if fit >= k:
        return f"status OVERFLOW, but the {k} best totals fit int32"
    if steps > _OVERFLOW_STEPS:
        return (
            "status OVERFLOW not proven: the least total fits int32 and counting the totals "
            f"that fit takes more than {_OVERFLOW_STEPS} steps"
        )
    if above == 0:
        return "status OVERFLOW, but every total fits int32"
    return ""


def _terms(C, r, c, x) -> np.ndarray:
    """The terms that the objective of assignment ``x`` adds (float64): its
    pairs' costs and, with prices, those of its unassigned rows and
    columns."""
    rows = np.nonzero(x >= 0)[0]
    parts = [C[rows, x[rows]]]
    if r is not None and c is not None:
        free = np.ones(C.shape[1], bool)
        free[x[rows]] = False
        parts += [r[x < 0], c[free]]
    return np.concatenate(parts)


def _float_tol(eps: float, *scales: float) -> float:
    """The tolerance of a comparison between objectives whose terms' absolute
    values sum to ``scales``: ``64 * eps * (1 + sum(scales))``."""
    return 64.0 * eps * (1.0 + sum(scales))


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


def _region_matrices(P, n: int, m: int, A, count: int) -> tuple[list, list[np.ndarray]]:
    """The regions of the complement of the first ``count`` assignments of
    ``A`` (:func:`_regions`) and their padded matrices (from ``P``,
    :func:`_padded`)."""
    if n == 0 or count == 0:
        return [], []
    sols = [tuple(int(v) for v in A[t]) for t in range(count)]
    regions = _regions(sols, n)
    return regions, [_region_matrix(P, n, m, p, e) for p, e in regions]


def _solve_regions(Qs: list[np.ndarray]):
    """Every padded matrix of every problem by one :func:`jaxmatch.solve_lap`
    per side length (the batch padded to a power of two, so that calls reuse
    their compiled programs): per problem, the ``(feasible, col_for_row, u,
    v)`` of its matrices (float64; the duals as solved, float32 without
    x64). The solves only propose: :func:`_better` proves their bounds."""
    from ..api import solve_lap

    out: list = [None] * len(Qs)
    by_side: dict[int, list[int]] = {}
    for b, Q in enumerate(Qs):
        if len(Q):
            by_side.setdefault(Q.shape[-1], []).append(b)
        else:
            side = Q.shape[-1]
            none = np.zeros((0, side))
            out[b] = (np.zeros(0, bool), none.astype(np.int64), none, none)
    for side, members in by_side.items():
        stack = np.concatenate([Qs[b] for b in members])
        total = len(stack)
        padded = 1 << max(0, (total - 1).bit_length())
        stack = np.concatenate([stack, np.zeros((padded - total, side, side))])
        res = solve_lap(jnp.asarray(stack))
        feasible = np.asarray(res.feasible)[:total]
        cfr = np.asarray(res.col_for_row, np.int64)[:total]
        u = np.asarray(res.u, np.float64)[:total]
        v = np.asarray(res.v, np.float64)[:total]
        start = 0
        for b in members:
            stop = start + len(Qs[b])
            out[b] = (feasible[start:stop], cfr[start:stop], u[start:stop], v[start:stop])
            start = stop
    return out


def _exact_optimum(Q: np.ndarray, perm) -> tuple[Fraction, list[int]] | None:
    """The least total of the perfect matchings of the square ``Q``
    (minimizing; ``+inf`` forbids a pair), exactly, and a matching that
    attains it; None if ``perm`` is not a perfect matching of finite
    entries. Bellman-Ford on the exchange graph of the matching (row ``i``
    to row ``i'``: ``i`` takes the column of ``i'``) in integer arithmetic
    (every finite entry, a float, times a common power of two) finds a
    negative cycle, cancelled, until there is none."""
    N = len(Q)
    sig = [int(j) for j in perm]
    if sorted(sig) != list(range(N)):
        return None
    ratios = {}
    for i, j in zip(*np.nonzero(np.isfinite(Q))):
        ratios[int(i), int(j)] = float(Q[i, j]).as_integer_ratio()
    scale = max((q for _, q in ratios.values()), default=1)
    W: list[list[int | None]] = [[None] * N for _ in range(N)]
    for (i, j), (p, q) in ratios.items():
        W[i][j] = p * (scale // q)
    while True:
        own = [W[i][sig[i]] for i in range(N)]
        if any(x is None for x in own):
            return None
        d = [0] * N
        pred = [-1] * N
        changed = -1
        for _ in range(N):
            changed = -1
            for i in range(N):
                Wi, di = W[i], d[i]
                for t in range(N):
                    a = Wi[sig[t]]
                    if a is not None and di + a - own[t] < d[t]:  # type: ignore[operator]
                        d[t] = di + a - own[t]  # type: ignore[operator]
                        pred[t] = i
                        changed = t
            if changed < 0:
                return Fraction(sum(own), scale), sig  # type: ignore[arg-type]
        # Still relaxing after N rounds: the predecessors hold a negative
        # cycle, reached from the last relaxed row within N steps.
        x = changed
        for _ in range(N):
            x = pred[x]
            if x < 0:
                return None
        cycle = [x]
        y = pred[x]
        while y != x:
            cycle.append(y)
            y = pred[y]
        new = sig[:]
        for y in cycle:
            new[pred[y]] = sig[y]
        sig = new


def _better(Q, feasible, cfr, u, v, bound, eps: float, integer: bool, tol) -> str | float | None:
    """Whether the padded matrix ``Q`` (minimizing) has a perfect matching
    better than ``bound = (value, exact, scale)``, the objective of a
    returned assignment (float64, exact, sum of its terms' absolute
    values): the value of one found (a float), None when there is none, or
    why it cannot be told (a str). Better means by more than the tolerance
    of the two objectives compared, ``tol`` or ``64 * eps * (1 + scale +
    the other's scale)`` (0 for integers). The solve's matching ``cfr``
    bounds the region's optimum from above; its duals ``u``, ``v``, made
    feasible in float64 (each column's dual lowered to its least reduced
    cost) and less the rounding of that arithmetic, from below; when
    neither decides, the optimum is found exactly (:func:`_exact_optimum`)."""
    value, exact, scale = bound
    N = len(Q)

    def tol_of(other: float) -> float:
        return 0.0 if integer else tol if tol is not None else _float_tol(eps, scale, other)

    if not feasible or N == 0:
        return None
    rows = np.arange(N)
    if sorted(cfr.tolist()) != rows.tolist() or not np.all(np.isfinite(Q[rows, cfr])):
        return "a region's solve gave no assignment"
    terms = Q[rows, cfr]
    upper, other = math.fsum(terms), math.fsum(np.abs(terms))
    if upper < value - tol_of(other):
        return upper
    fin = np.isfinite(Q)
    if np.all(np.isfinite(u)) and np.all(np.isfinite(v)):
        with np.errstate(invalid="ignore"):
            least = np.min(np.where(fin, Q - u[:, None], np.inf), axis=0)
        w = np.minimum(v, least)
        values = np.concatenate([Q[fin], u, w])
        big = float(np.max(np.abs(values)))
        lower = math.fsum(u) + math.fsum(w)
        if np.all(values == np.round(values)) and big < 2.0**40:
            margin = 0.0  # integers: float64 is exact here
        else:
            e64 = float(np.finfo(np.float64).eps)
            margin = 2 * e64 * (N * 2 * big + math.fsum(np.abs(u)) + math.fsum(np.abs(w)))
            margin += e64 * abs(value)
        if lower - margin >= value - tol_of(other):
            return None
    found = _exact_optimum(Q, cfr)
    if found is None:
        return "a region's solve gave no assignment"
    optimum, sig = found
    other = math.fsum(np.abs(Q[rows, sig]))
    if optimum < exact - Fraction(tol_of(other)):
        return float(optimum)
    return None


def _bound(frame, t: int) -> tuple[float, Fraction, float]:
    """The objective of assignment ``t`` of the minimizing ``frame``
    (:func:`_minimizing_frame`): correctly rounded, exact, and the sum of
    its terms' absolute values."""
    C, r, c, A = frame
    terms = _terms(C, r, c, A[t])
    exact = sum((Fraction(x) for x in terms.tolist()), Fraction(0))
    return math.fsum(terms), exact, math.fsum(np.abs(terms))


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
