"""Oracles of the k best assignments: brute-force enumeration (tiny
problems) and a plain Murty on scipy's ``linear_sum_assignment`` over the
padded matrix (up to n = 50), both in float64 NumPy, independent of
jaxmatch.

A problem is ``C`` ``[n, m]`` (``+inf`` forbids a pair) with row prices
``r`` ``[n]`` and column prices ``c`` ``[m]``, or ``r = c = None`` for the
plain LAP (every row assigned when ``n <= m``, every column when
``n > m``). A solution is a tuple of each row's column (-1: unassigned);
its objective is the assigned pairs' costs plus the prices of the
unassigned rows and columns.
"""

from __future__ import annotations

import heapq
import itertools

import numpy as np
from lap_cases import padded_square
from scipy.optimize import linear_sum_assignment


def objective(C, r, c, x) -> float:
    """The objective of solution ``x`` (float64; ``inf`` when it uses a
    forbidden pair)."""
    C = np.asarray(C, np.float64)
    total = 0.0
    used = set()
    for i, j in enumerate(x):
        if j >= 0:
            total += C[i, j]
            used.add(j)
        elif r is not None:
            total += float(r[i])
    if c is not None:
        total += sum(float(c[j]) for j in range(C.shape[1]) if j not in used)
    return total


def _solutions(n: int, m: int, exits: bool):
    """Every solution's tuple: partial assignments with exits; else every
    row assigned (n <= m) or every column assigned (n > m)."""
    if exits:

        def rec(i, used):
            if i == n:
                yield ()
                return
            for rest in rec(i + 1, used):
                yield (-1, *rest)
            for j in range(m):
                if j not in used:
                    for rest in rec(i + 1, used | {j}):
                        yield (j, *rest)

        yield from rec(0, frozenset())
    elif n <= m:
        yield from itertools.permutations(range(m), n)
    else:
        for rows in itertools.permutations(range(n), m):
            x = [-1] * n
            for j, i in enumerate(rows):
                x[i] = j
            yield tuple(x)


def brute_force(C, k: int, r=None, c=None) -> list[tuple[float, tuple[int, ...]]]:
    """The ``k`` best ``(objective, solution)`` pairs by enumeration, in
    order (ties in enumeration order); fewer when fewer exist."""
    C = np.asarray(C, np.float64)
    n, m = C.shape
    found = []
    for x in _solutions(n, m, r is not None):
        cost = objective(C, r, c, x)
        if cost < np.inf:
            found.append((cost, x))
    found.sort(key=lambda t: t[0])
    return found[:k]


def _solve(P: np.ndarray, n: int, m: int, forced: dict, banned: set):
    """The best solution under ``forced`` (row -> value) and ``banned``
    ((row, value) pairs), or None."""
    Q = P.copy()
    for i, j in banned:
        Q[i, j if j >= 0 else m + i] = np.inf
    for i, j in forced.items():
        keep = j if j >= 0 else m + i
        saved = Q[i, keep]
        Q[i, :] = np.inf
        Q[i, keep] = saved
        Q[:, keep] = np.where(np.arange(n + m) == i, Q[:, keep], np.inf)
    try:
        rows, cols = linear_sum_assignment(Q)
    except ValueError:  # infeasible
        return None
    if not np.all(np.isfinite(Q[rows, cols])):
        return None
    x = [-1] * n
    for i, j in zip(rows, cols):
        if i < n and j < m:
            x[i] = int(j)
    return tuple(x)


def scipy_murty(C, k: int, r=None, c=None) -> list[tuple[float, tuple[int, ...]]]:
    """The ``k`` best ``(objective, solution)`` pairs by Murty's partition
    over the rows, each subproblem solved by scipy on the padded matrix
    with forced pairs and banned pairs as cost edits."""
    C = np.asarray(C, np.float64)
    n, m = C.shape
    if r is None:
        if n > m:  # every column assigned: the transposed problem
            out = scipy_murty(C.T, k)
            return [(cost, _transpose(x, n)) for cost, x in out]
        r = np.full(n, np.inf)
        c = np.zeros(m)
        exits_priced = False
    else:
        exits_priced = True
    r = np.asarray(r, np.float64)
    c = np.asarray(c, np.float64)
    P = padded_square(C, r, c)

    def value(x):
        return objective(C, r if exits_priced else None, c if exits_priced else None, x)

    heap = []
    tick = itertools.count()
    x = _solve(P, n, m, {}, set())
    if x is None:
        return []
    heapq.heappush(heap, (value(x), next(tick), x, {}, frozenset()))
    out = []
    while heap and len(out) < k:
        cost, _, x, forced, banned = heapq.heappop(heap)
        out.append((cost, x))
        fixed = dict(forced)
        for i in range(n):
            if i in forced:
                continue
            child_banned = banned | {(i, x[i])}
            y = _solve(P, n, m, fixed, child_banned)
            if y is not None:
                heapq.heappush(heap, (value(y), next(tick), y, dict(fixed), child_banned))
            fixed[i] = x[i]
    return out


def _transpose(x, n: int) -> tuple[int, ...]:
    """A tall problem's solution from its transposed one's (the row of
    each column)."""
    out = [-1] * n
    for j, i in enumerate(x):
        if i >= 0:
            out[i] = j
    return tuple(out)
