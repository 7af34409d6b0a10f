"""The exact arithmetic of :func:`jaxmatch.verify_k_best`: proven bounds on
the optimum of a k-best problem, of each region of the assignments it did
not return, and on the range of its best totals.

Every bound is on the problem as the ranking minimizes it
(:func:`_minimizing_frame`), posed as a perfect matching of its padded
``(n + m)`` square matrix (:func:`_padded`). :func:`jaxmatch.solve_lap`
only proposes (:func:`_solve_regions`, batched); nothing it returns is
trusted. The matching it finds bounds an optimum from above, its objective
summed exactly; its duals, made feasible in float64 and less the rounding
of that arithmetic, bound it from below; when neither decides against the
compared objective (:func:`_bound`), the optimum is found exactly: every
finite entry, a float, scaled to an integer by a common power of two, and
negative cycles of the proposed matching cancelled by Bellman-Ford until
there are none (:func:`_exact_optimum`). :func:`_better` so proves whether
a matrix holds a matching better than a returned assignment, within the
tolerance of the two objectives compared (:func:`_float_tol`; none for
integers).

:func:`_overflow_why` proves, in exact integers, that one of the ``k`` best
totals of int32 costs lies outside int32: the least total found exactly,
then a bounded depth-first enumeration of the partial assignments that
counts the totals that fit (at most ``_OVERFLOW_STEPS`` steps; past it the
OVERFLOW is refused as not proven)."""

from __future__ import annotations

import math
from fractions import Fraction

import jax.numpy as jnp
import numpy as np


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


def _bound(frame, t: int) -> tuple[float, Fraction, float]:
    """The objective of assignment ``t`` of the minimizing ``frame``
    (:func:`_minimizing_frame`): correctly rounded, exact, and the sum of
    its terms' absolute values."""
    C, r, c, A = frame
    terms = _terms(C, r, c, A[t])
    exact = sum((Fraction(x) for x in terms.tolist()), Fraction(0))
    return math.fsum(terms), exact, math.fsum(np.abs(terms))


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
