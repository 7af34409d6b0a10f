"""The linear assignment problem between two point sets, its costs computed
on the fly: :func:`solve_lap_points` never holds the ``n x m`` cost matrix,
so hundreds of thousands of points fit where the matrix would not.

The method is column generation on the LP, exact:

1. *Candidates.* The devices (``devices=``, split by rows) compute the
   costs on the fly and keep each point's ``k`` cheapest partners,
   both ways (each row's ``k`` nearest columns and each column's ``k``
   nearest rows), plus the pairs ``(i, i)`` so that the sparse problem
   always has a full matching.
2. *Sparse solve.* Jonker and Volgenant's shortest augmenting paths on the
   candidate pairs (``cuda_ffi/lap/sparse/``, on the host, float64)
   give an optimal assignment of the sparse problem and its duals ``u, v``.
3. *Pricing.* The device sweeps every pair again and returns, for each row,
   the ``k`` pairs of least reduced cost ``c_ij - u_i - v_j``. Those
   violated in float64 join the candidates and step 2 runs again; when none
   is left, ``(u, v)`` is dual feasible on all ``n * m`` pairs, so the
   sparse optimum is the dense one, certified by LP duality.

A sweep of a built-in metric is one custom call per device
(``cuda_ffi/lap/points/``: a warp per row on GPUs, each lane's
least pairs in registers; a loop per row on CPUs); a function metric, or
more than 16 pairs per row, goes through XLA (a block of costs at a time,
ranked by ``lax.top_k``).

Square problems of ``2 * MULTISCALE_MIN_POINTS`` points or more start from
half of each set, solved the same way (recursively): its pairs, and prices
for every column from its row duals. The halves are stratified: one point
of each consecutive pair along a Z-order (Morton) curve, so that each half
keeps its set's density at every scale above the pairs' and the other
halves' points, left to the first solve, lie near a partner.

Both sets are numbered along a Z-order curve for the whole solve (the
answer is numbered back): a sparse solve's search visits columns near each
other in space, which are then near each other in memory.

Costs are computed in the points' dtype (float32, or float64 under
``jax_enable_x64``); the sparse solver takes them exactly as float64. The
tolerance is the one of :func:`jaxmatch.verify_lap` for that dtype:
``64 * eps * max(1, |C|, |u|, |v|)``.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ... import _limits
from ..._float64 import warn_if_rounded
from ..._interrupt import run_host
from ..sparse._ffi import solve_sparse_host
from ..types import LAPStatus, PointsLAPResult
from .order import stratified_half, z_order
from .sweep import METRICS, Metric, costs_of_pairs, sweep_pairs

#: Square problems of at least twice this many points start from the pairs
#: and prices of half of them (solved the same way, recursively).
MULTISCALE_MIN_POINTS = 512


#: Visits per row of the sparse solver's augmenting row reduction: on the
#: nearest-neighbour graphs of points a bound this low is 3-6x faster than
#: Jonker and Volgenant's (``cuda_ffi/lap/sparse/sparse_jv.h``).
ROW_REDUCTION_BOUND = 16


#: Pairs of least reduced cost returned per row by one pricing sweep (and
#: nearest partners per point in the first one).
DEFAULT_CANDIDATES = 16


def _default_devices() -> tuple[Any, ...]:
    """The device of ``jax.default_device`` when one is set, else every
    device of the default backend."""
    chosen = getattr(jax.config, "jax_default_device", None)
    if chosen is None:
        return tuple(jax.devices())
    return tuple(jax.devices(chosen)) if isinstance(chosen, str) else (chosen,)


def _points(A: Any, name: str) -> np.ndarray:
    a = np.asarray(A)
    if a.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array [points, dimension], got shape {a.shape}")
    if a.dtype.kind == "V" and jnp.issubdtype(a.dtype, jnp.floating):
        a = a.astype(np.float32)  # bfloat16 and the other ML floats, as solve_lap
    if a.dtype.kind not in "fiub":
        raise TypeError(f"{name} must hold real numbers, got dtype {a.dtype}")
    if a.size and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} has NaN or infinite coordinates")
    warn_if_rounded(a, f"the coordinates of {name}", stacklevel=3)
    return a


def _cost_dtype(*arrays: np.ndarray) -> np.dtype:
    wide = any(a.dtype == np.float64 for a in arrays)
    x64 = bool(jax.config.read("jax_enable_x64"))
    return np.dtype(np.float64 if wide and x64 else np.float32)


def _check_metric(metric: Metric) -> None:
    if not callable(metric) and metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS} or a function, got {metric!r}")


class _Candidates:
    """The candidate pairs: parallel arrays of rows, columns and float64
    costs (minimization form), each pair once."""

    def __init__(self, m: int, rows, cols, cost):
        self.m = m
        key = rows.astype(np.int64) * m + cols
        key, first = np.unique(key, return_index=True)
        self.key = key
        self.cost = cost[first].astype(np.float64)

    def add(self, rows, cols, cost) -> int:
        """Adds the pairs not held yet; returns how many were new."""
        key = rows.astype(np.int64) * self.m + cols
        key, first = np.unique(key, return_index=True)
        new = ~np.isin(key, self.key, assume_unique=True)
        if not new.any():
            return 0
        merged = np.concatenate([self.key, key[new]])
        order = np.argsort(merged, kind="stable")
        self.key = merged[order]
        self.cost = np.concatenate([self.cost, cost[first][new].astype(np.float64)])[order]
        return int(new.sum())

    def csr(self, n: int):
        rows = self.key // self.m
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
        return indptr, (self.key % self.m).astype(np.int32), self.cost


def _tolerance(dtype: np.dtype, cost_max: float, u: np.ndarray, v: np.ndarray) -> float:
    scale = max(
        1.0,
        cost_max,
        float(np.abs(u).max(initial=0.0)),
        float(np.abs(v).max(initial=0.0)),
    )
    return float(64.0 * np.finfo(dtype).eps * scale)


def _empty_solution(n: int, m: int, dtype: np.dtype) -> PointsLAPResult:
    return PointsLAPResult(
        col_for_row=np.full(n, -1, np.int32),
        row_for_col=np.full(m, -1, np.int32),
        cost=0.0,
        u=np.zeros(n),
        v=np.zeros(m),
        feasible=True,
        iterations=0,
        status=int(LAPStatus.OPTIMAL),
        edges=0,
        max_violation=0.0,
        tol=0.0,
        dtype=dtype,
    )


def solve_lap_points(
    X: Any,
    Y: Any,
    *,
    metric: Metric = "sqeuclidean",
    maximize: bool = False,
    candidates: int = DEFAULT_CANDIDATES,
    max_iterations: int = 100,
    devices: Sequence[Any] | None = None,
) -> PointsLAPResult:
    """Assigns the points of ``X`` to the points of ``Y`` at least total cost
    (``cost(x_i, y_j)`` by ``metric``), never forming the cost matrix.

    Eager (not traceable): the sparse solves run on the host between the
    device sweeps. Each sweep costs ``O(n * m * d)`` on the devices and
    ``O((n + m) * (d + candidates))`` memory (``O(block * m)`` where XLA
    sweeps: a function metric, more than 16 candidates); the host holds
    ``O((n + m) * candidates)`` pairs.

    Args:
      X: ``[n, d]`` points (NumPy or JAX, real).
      Y: ``[m, d]`` points.
      metric: ``"sqeuclidean"`` (default), ``"euclidean"``, ``"cityblock"``,
        or a jittable function of two points ``[d]`` to a finite scalar cost.
      maximize: maximize the total cost instead.
      candidates: pairs per point kept by the first sweep and per row added
        by each later one (up to 16, the library's sweep kernel serves the
        built-in metrics; more go through XLA's ``lax.top_k``, several times
        slower).
      max_iterations: sparse solves at most; then ``status`` is
        ``ITERATION_LIMIT`` if violated pairs remain.
      devices: the devices that sweep (their rows split evenly); default
        every device of JAX's default backend.

    Returns:
      A :class:`PointsLAPResult`; ``min(n, m)`` pairs assigned.

    Raises:
      ValueError: shapes that are not ``[n, d]`` and ``[m, d]``, NaN or
        infinite coordinates, an unknown metric, a metric that gives a NaN
        or infinite cost, or ``candidates`` or ``max_iterations`` below 1.
      TypeError: non-real points.
    """
    Xh, Yh = _points(X, "X"), _points(Y, "Y")
    if Xh.shape[1] != Yh.shape[1]:
        raise ValueError(f"X and Y have points of dimensions {Xh.shape[1]} and {Yh.shape[1]}")
    _check_metric(metric)
    if int(candidates) < 1 or int(max_iterations) < 1:
        raise ValueError("candidates and max_iterations must be at least 1")
    dtype = _cost_dtype(Xh, Yh)
    n, m = Xh.shape[0], Yh.shape[0]
    _limits.check_index("side", max(n, m), f"point sets of {n} and {m} points")
    if n == 0 or m == 0:
        return _empty_solution(n, m, dtype)
    if n > m:  # solved as Y against X: the metric's arguments swap too
        s = solve_lap_points(
            Yh, Xh, metric=_swapped(metric), maximize=maximize, candidates=candidates,
            max_iterations=max_iterations, devices=devices,
        )  # fmt: skip
        return s._replace(col_for_row=s.row_for_col, row_for_col=s.col_for_row, u=s.v, v=s.u)
    devices = tuple(devices) if devices is not None else _default_devices()
    if not devices:
        raise ValueError("devices is empty")
    sign = -1.0 if maximize else 1.0
    Xc, Yc = Xh.astype(dtype), Yh.astype(dtype)
    # Both sets numbered along a Z-order curve: a sparse solve's search
    # visits columns near each other in space, which are then near each
    # other in memory (1.5x less host time at 250,000 points).
    zx, zy = z_order(Xc), z_order(Yc)
    setup = _Setup(metric, sign, int(candidates), int(max_iterations), devices)
    sol = _renumbered(_solve(Xc[zx], Yc[zy], setup), zx, zy)
    return sol._replace(u=sign * sol.u, v=sign * sol.v)


def _inverse(order: np.ndarray) -> np.ndarray:
    """The inverse of the permutation ``order``."""
    inv = np.empty_like(order)
    inv[order] = np.arange(order.size, dtype=order.dtype)
    return inv


def _renumbered(sol: PointsLAPResult, zx: np.ndarray, zy: np.ndarray) -> PointsLAPResult:
    """``sol`` of the points ``X[zx]`` and ``Y[zy]`` as a solution of ``X``
    and ``Y``."""
    ix, iy = _inverse(zx), _inverse(zy)
    cfr, rfc = sol.col_for_row[ix], sol.row_for_col[iy]
    return sol._replace(
        col_for_row=np.where(cfr >= 0, zy[np.maximum(cfr, 0)], -1).astype(np.int32),
        row_for_col=np.where(rfc >= 0, zx[np.maximum(rfc, 0)], -1).astype(np.int32),
        u=sol.u[ix],
        v=sol.v[iy],
    )


class _Setup(NamedTuple):
    metric: Metric
    sign: float
    k: int
    max_iterations: int
    devices: tuple[Any, ...]


def _solve(Xc: np.ndarray, Yc: np.ndarray, setup: _Setup) -> PointsLAPResult:
    """The minimization form (costs ``sign * metric``, duals of that sign)
    of ``n <= m`` points of the cost dtype; square problems of at least
    ``2 * MULTISCALE_MIN_POINTS`` start from a half-size problem's pairs and
    prices."""
    n, m = Xc.shape[0], Yc.shape[0]
    start = None
    if n == m and n >= 2 * MULTISCALE_MIN_POINTS:
        start = _coarse_start(Xc, Yc, setup)
    return _column_generation(Xc, Yc, setup, start)


def _coarse_start(Xc: np.ndarray, Yc: np.ndarray, setup: _Setup) -> tuple[np.ndarray, np.ndarray]:
    """A warm start ``(x0 [n], v0 [m])`` from a stratified half of the rows
    assigned to a stratified half of the columns (:func:`stratified_half`,
    solved the same way): the half's pairs (``-1`` for the other rows), and
    column prices from the c-transform ``v_j = min_i (c_ij - u_i)`` over
    the half's rows of its row duals ``u``. Its pairs are at their rows'
    least reduced cost under these prices (up to rounding), so the first
    sparse solve keeps them. Only the speed depends on the start."""
    n = Xc.shape[0]
    rng = np.random.default_rng(n)
    rows, cols = stratified_half(Xc, rng), stratified_half(Yc, rng)
    coarse = _solve(Xc[rows], Yc[cols], setup)
    best = sweep_pairs(
        Yc, Xc[rows], np.zeros(n, Xc.dtype), coarse.u.astype(Xc.dtype),
        metric=_swapped(setup.metric), k=1, sign=setup.sign, devices=setup.devices,
    )  # fmt: skip
    x0 = np.full(n, -1, np.int32)
    cfr = coarse.col_for_row
    x0[rows] = np.where(cfr >= 0, cols[cfr], -1)
    return x0, best.cost[:, 0].astype(np.float64) - coarse.u[best.cols[:, 0]]


@functools.cache
def _swapped(metric: Metric) -> Metric:
    """``metric`` with its arguments swapped (the same for the built-ins)."""
    if not callable(metric):
        return metric
    return lambda y, x: metric(x, y)


def _column_generation(
    Xc: np.ndarray,
    Yc: np.ndarray,
    setup: _Setup,
    start: tuple[np.ndarray, np.ndarray] | None,
) -> PointsLAPResult:
    """Steps 1-3 of the module's method; ``start`` (square problems): the
    pairs ``x0`` and column prices ``v0`` of :func:`_coarse_start`, the
    prices ranking the first candidates, and both starting the first
    solve."""
    metric, sign, k, devices = setup.metric, setup.sign, setup.k, setup.devices
    dtype = Xc.dtype
    n, m = Xc.shape[0], Yc.shape[0]
    zero_n, zero_m = np.zeros(n, dtype), np.zeros(m, dtype)
    v_first = zero_m if start is None else start[1].astype(dtype)
    first = sweep_pairs(Xc, Yc, zero_n, v_first, metric=metric, k=k, sign=sign, devices=devices)
    back = sweep_pairs(
        Yc, Xc, zero_m, zero_n, metric=_swapped(metric), k=k, sign=sign, devices=devices
    )
    _check_finite(first.cost, back.cost)
    cost_max = float(max(first.cost_max.max(), back.cost_max.max()))
    if not math.isfinite(cost_max):
        raise ValueError("the metric gives NaN or infinite costs")
    diag = np.arange(n)
    diag_cost = sign * costs_of_pairs(Xc, Yc[:n], metric, devices[0])
    rows = np.concatenate([np.repeat(diag, first.cols.shape[1]), back.cols.ravel(), diag])
    cols = np.concatenate([first.cols.ravel(), np.repeat(np.arange(m), back.cols.shape[1]), diag])
    cost = np.concatenate([first.cost.ravel(), back.cost.ravel(), diag_cost])
    _check_finite(cost)
    pool = _Candidates(m, rows, cols, cost)

    rounds, status = 0, LAPStatus.ITERATION_LIMIT
    warm = None if start is None else (start[0], start[1].astype(np.float64))
    while True:
        indptr, indices, ccost = pool.csr(n)
        sol = run_host(
            solve_sparse_host, indptr, indices, ccost, n, m, warm,
            ROW_REDUCTION_BOUND, work=indices.size,
        )  # fmt: skip
        rounds += 1
        if sol.status != LAPStatus.OPTIMAL:  # pragma: no cover - (i, i) keep it feasible
            raise RuntimeError(f"the sparse solve ended with status {LAPStatus(sol.status).name}")
        tol = _tolerance(dtype, cost_max, sol.u, sol.v)
        sweep = sweep_pairs(
            Xc, Yc, sol.u.astype(dtype), sol.v.astype(dtype),
            metric=metric, k=k, sign=sign, devices=devices,
        )  # fmt: skip
        _check_finite(sweep.cost)  # NaN and -inf costs rank first
        # The sweep ranks the pairs in the cost dtype; their reduced costs
        # against the solve's own (float64) duals decide which join.
        reduced = sweep.cost.astype(np.float64) - sol.u[:, None] - sol.v[sweep.cols]
        violation = max(0.0, -float(reduced.min()))
        bad = reduced < -_tolerance(np.dtype(np.float64), cost_max, sol.u, sol.v)
        if not bad.any():
            status = LAPStatus.OPTIMAL
            break
        if rounds >= setup.max_iterations:
            break
        if n == m:  # the next solve starts from this one (sparse_jv.h)
            warm = (sol.col_for_row, sol.v)
        r_idx = np.nonzero(bad)[0].astype(np.int32)
        if pool.add(r_idx, sweep.cols[bad], sweep.cost[bad]) == 0:
            # Only candidates are violated, by their costs as recomputed (a
            # kernel may round a cost differently); nothing is left to add.
            if violation > tol:  # pragma: no cover - a metric that is not deterministic
                why = f"the metric's costs are not reproducible ({violation:.3g} > {tol:.3g})"
                raise RuntimeError(why)
            status = LAPStatus.OPTIMAL
            break

    cfr = sol.col_for_row.astype(np.int32)
    matched = costs_of_pairs(Xc, Yc[cfr], metric, devices[0]).astype(np.float64)
    return PointsLAPResult(
        col_for_row=cfr,
        row_for_col=sol.row_for_col.astype(np.int32),
        cost=float(matched.sum()),
        u=sol.u,
        v=sol.v,
        feasible=status == LAPStatus.OPTIMAL,
        iterations=rounds,
        status=int(status),
        edges=int(indices.size),
        max_violation=violation,
        tol=tol,
        dtype=dtype,
    )


def _check_finite(*arrays: np.ndarray) -> None:
    for a in arrays:
        if not np.all(np.isfinite(a)):
            raise ValueError("the metric gives NaN or infinite costs")
