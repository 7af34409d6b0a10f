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
   candidate pairs (``cuda_ffi/lap/lap_sparse_jv.h``, on the host, float64)
   give an optimal assignment of the sparse problem and its duals ``u, v``.
3. *Pricing.* The device sweeps every pair again and returns, for each row,
   the ``k`` pairs of least reduced cost ``c_ij - u_i - v_j``. Those
   violated in float64 join the candidates and step 2 runs again; when none
   is left, ``(u, v)`` is dual feasible on all ``n * m`` pairs, so the
   sparse optimum is the dense one, certified by LP duality.

A sweep of a built-in metric is one custom call per device
(``cuda_ffi/lap/lap_points_steps.h``: a warp per row on GPUs, each lane's
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
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .. import _ffi
from .._interrupt import run_host
from . import _ffi as lap_ffi
from .api import UNTUNED_COMPILER_OPTIONS
from .types import LAPCertificate, LAPStatus
from .verify import _invalid, certificate

Metric = str | Callable[[jax.Array, jax.Array], jax.Array]

#: The built-in metrics: cost of the pair (x, y) of points of dimension d.
METRICS = ("sqeuclidean", "euclidean", "cityblock")

#: Bytes of one block of costs (rows x all columns) on a GPU and on a CPU.
GPU_BLOCK_BYTES = 1 << 30
CPU_BLOCK_BYTES = 1 << 26

#: Square problems of at least twice this many points start from the pairs
#: and prices of half of them (solved the same way, recursively).
MULTISCALE_MIN_POINTS = 512

#: Bits per coordinate of the Z-order codes that stratify the halves (at
#: most 62 bits in all, so fewer in more than three dimensions).
MORTON_BITS = 20

#: Visits per row of the sparse solver's augmenting row reduction: on the
#: nearest-neighbour graphs of points a bound this low is 3-6x faster than
#: Jonker and Volgenant's (``cuda_ffi/lap/lap_sparse_jv.h``).
ROW_REDUCTION_BOUND = 16

#: Pairs of least reduced cost returned per row by one pricing sweep (and
#: nearest partners per point in the first one).
DEFAULT_CANDIDATES = 16


class PointsLAPSolution(NamedTuple):
    """An assignment between two point sets and its LP duals (NumPy).

    Attributes:
      col_for_row: int32 ``[n]``, the point of ``Y`` assigned to each point
        of ``X``; ``-1`` for the points left over when ``n > m``.
      row_for_col: int32 ``[m]``, the point of ``X`` assigned to each point
        of ``Y``; ``-1`` when unassigned.
      cost: float, the total cost (float64 sum of the assigned pairs' costs).
      u: float64 ``[n]``, the row duals.
      v: float64 ``[m]``, the column duals; ``C - u[:, None] - v[None, :]
        >= -tol`` on every pair (``<= tol`` when maximizing), with equality
        on the assigned pairs, as for :func:`jaxmatch.solve_lap`.
      status: int, a :class:`jaxmatch.LAPStatus` code: ``OPTIMAL``, or
        ``ITERATION_LIMIT`` when ``max_rounds`` pricing sweeps still found
        violated pairs (the assignment is then optimal only on the candidate
        pairs).
      rounds: int, the sparse solves run.
      edges: int, the candidate pairs of the last sparse solve.
      max_violation: float, the largest ``-(c_ij - u_i - v_j)`` of the last
        pricing sweep (in the minimization form), ``<= tol`` when optimal.
      tol: float, the tolerance of the pricing.
      dtype: the dtype in which the costs were computed.
    """

    col_for_row: np.ndarray
    row_for_col: np.ndarray
    cost: float
    u: np.ndarray
    v: np.ndarray
    status: int
    rounds: int
    edges: int
    max_violation: float
    tol: float
    dtype: np.dtype

    @property
    def status_name(self) -> str:
        """The :class:`jaxmatch.LAPStatus` name of ``status``."""
        return LAPStatus(self.status).name


def _formula(diff: Any, metric: str, xp: Any) -> Any:
    """A built-in metric of the coordinate differences ``diff [..., d]``
    (``xp``: ``jax.numpy`` or NumPy)."""
    if metric == "cityblock":
        return xp.sum(xp.abs(diff), axis=-1)
    sq = xp.sum(diff * diff, axis=-1)
    return xp.sqrt(sq) if metric == "euclidean" else sq


def pair_costs(x: jax.Array, y: jax.Array, metric: Metric) -> jax.Array:
    """The costs of every pair of two blocks of points.

    Args:
      x: ``[b, d]`` points.
      y: ``[m, d]`` points of the same dtype.
      metric: one of :data:`METRICS`, or a jittable function of two points
        ``[d]`` to a scalar cost.

    Returns:
      ``[b, m]``, the cost of each pair.
    """
    if callable(metric):
        return jax.vmap(jax.vmap(metric, (None, 0)), (0, None))(x, y)
    return _formula(x[:, None, :] - y[None, :, :], metric, jnp)


def _aligned_body(x: jax.Array, y: jax.Array, metric: Metric) -> jax.Array:
    """``[b]``: the cost of each pair ``(x[i], y[i])``."""
    if callable(metric):
        return jax.vmap(metric)(x, y)
    return _formula(x - y, metric, jnp)


_aligned_costs = jax.jit(_aligned_body, static_argnames="metric")
_aligned_costs_untuned = jax.jit(
    _aligned_body, static_argnames="metric", compiler_options=UNTUNED_COMPILER_OPTIONS
)


def autotune_off(metric: Metric, devices: Sequence[Any]) -> bool:
    """Whether the programs of a solve on ``devices`` compile without XLA's
    autotuner: on GPUs, for the built-in metrics. Their programs (elementwise
    costs, reductions, ``top_k``, the sweep kernel's call) hold no matrix
    product, and on H100s the autotuner took 4-7 s of the 8-12 s that a
    first solve of 100,000 or 250,000 points spent compiling, with no sweep
    faster for it (``docs/benchmarks.md``). A function metric may hold
    products (a dot of its points), so it keeps the autotuner."""
    return isinstance(metric, str) and next(iter(devices)).platform == "gpu"


class _Sweep(NamedTuple):
    """Per row: the columns of the ``k`` least reduced costs, their costs,
    and the largest ``|cost|`` of the row."""

    cols: np.ndarray
    cost: np.ndarray
    cost_max: np.ndarray


def fused_sweep(metric: Metric, k: int, d: int, device: Any) -> bool:
    """Whether a sweep on ``device`` runs as the library's kernel (one custom
    call per device: costs computed and ranked in registers, never stored):
    for the built-in metrics, ``k`` up to 16 and points of 1 to 512
    dimensions, on CPUs and on CUDA GPUs where the CUDA library was built.
    Otherwise XLA computes a block of costs at a time and ``lax.top_k``
    ranks them."""
    platform_ok = device.platform == "cpu" or (device.platform == "gpu" and _ffi.has_cuda())
    return (
        platform_ok
        and isinstance(metric, str)
        and k <= lap_ffi.points_limit("MAX_K")
        and 1 <= d <= lap_ffi.points_limit("MAX_DIM")
    )


def _sweep_block(x, u, Y, v, *, metric, k, sign):
    c = sign * pair_costs(x, Y, metric)
    r = c - u[:, None] - v[None, :]
    # NaN reduced costs sort first, as violations, so that they are seen;
    # -0 counts as +0 (top_k would rank it first), as in the library's kernel.
    r = jnp.where(jnp.isnan(r), -jnp.inf, jnp.where(r == 0, 0, r))
    _, cols = jax.lax.top_k(-r, k)
    return cols.astype(jnp.int32), jnp.take_along_axis(c, cols, 1), jnp.max(jnp.abs(c), 1)


def _sweep_local(X, u, Y, v, *, metric, k, sign, block):
    """The sweep of one device's rows, ``block`` rows at a time."""
    d = X.shape[1]
    blocks = (X.reshape(-1, block, d), u.reshape(-1, block))
    fn = functools.partial(_sweep_block, Y=Y, v=v, metric=metric, k=k, sign=sign)
    out = jax.lax.map(lambda a: fn(*a), blocks)
    return tuple(o.reshape((-1,) + o.shape[2:]) for o in out)


def _sweep_local_fused(X, u, Y, v, *, metric, k, sign):
    """The sweep of one device's rows by the library's kernel."""
    return lap_ffi.points_sweep(X, u, Y.T, v, metric=metric, k=k, negate=sign < 0)


@functools.cache
def _sweep_program(
    metric: Metric,
    k: int,
    sign: float,
    block: int | None,
    devices: tuple[Any, ...],
    untuned: bool,
):
    """The jitted sweep (``block`` None: the library's kernel)."""
    if block is None:
        local = functools.partial(_sweep_local_fused, metric=metric, k=k, sign=sign)
    else:
        local = functools.partial(_sweep_local, metric=metric, k=k, sign=sign, block=block)
    options = UNTUNED_COMPILER_OPTIONS if untuned else None
    if len(devices) == 1:
        return jax.jit(local, compiler_options=options)
    mesh = Mesh(np.array(devices), ("rows",))
    rows, rep = PartitionSpec("rows"), PartitionSpec()
    mapped = jax.shard_map(local, mesh=mesh, in_specs=(rows, rows, rep, rep), out_specs=(rows,) * 3)
    return jax.jit(mapped, compiler_options=options)


def _sweep(X, Y, u, v, *, metric, k, sign, devices) -> _Sweep:
    """For each row of ``X [n, d]``, the ``k`` pairs of least reduced cost
    ``sign * cost - u_i - v_j`` over all of ``Y [m, d]`` (NumPy arrays of
    the cost dtype; the devices split the rows, and nothing of size
    ``n * m`` is held)."""
    n, m = X.shape[0], Y.shape[0]
    k = min(k, m)
    per_device = -(-n // len(devices))
    block: int | None = None
    if fused_sweep(metric, k, X.shape[1], devices[0]):
        rows = per_device
    else:
        budget = GPU_BLOCK_BYTES if devices[0].platform == "gpu" else CPU_BLOCK_BYTES
        # Four [block, m] arrays live at once: costs, reduced costs, top_k's.
        block = max(1, min(per_device, budget // (4 * max(m, 1) * X.dtype.itemsize)))
        rows = block * -(-per_device // block)
    pad = len(devices) * rows - n
    Xp = np.concatenate([X, np.broadcast_to(X[:1], (pad, X.shape[1]))]) if pad else X
    up = np.concatenate([u, np.zeros(pad, u.dtype)]) if pad else u
    scramble = _scramble(m)
    Y, v = Y[scramble], v[scramble]
    untuned = autotune_off(metric, devices)
    program = _sweep_program(metric, k, float(sign), block, tuple(devices), untuned)
    if len(devices) == 1:
        args = jax.device_put((Xp, up, Y, v), devices[0])
    else:
        mesh = Mesh(np.array(devices), ("rows",))
        split = NamedSharding(mesh, PartitionSpec("rows"))
        whole = NamedSharding(mesh, PartitionSpec())
        args = jax.device_put((Xp, up, Y, v), (split, split, whole, whole))
    cols, cost, cost_max = (np.asarray(a)[:n] for a in program(*args))
    return _Sweep(scramble[cols], cost, cost_max)


@functools.lru_cache(maxsize=8)
def _scramble(m: int) -> np.ndarray:
    """The fixed order (int32 ``[m]``) in which a sweep visits ``m``
    columns. In the solve's Z-order numbering a row's nearest columns sit
    together and the columns before them come nearer and nearer, so a row's
    list of least pairs would take many more insertions (a CPU sweep of
    12,000 points: 0.18 s in that order, 0.10 s in this one)."""
    order = np.random.default_rng(m).permutation(m).astype(np.int32)
    order.flags.writeable = False  # shared by every sweep of m columns
    return order


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
    if a.dtype.kind not in "fiub":
        raise TypeError(f"{name} must hold real numbers, got dtype {a.dtype}")
    if a.size and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} has NaN or infinite coordinates")
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


def _empty_solution(n: int, m: int, dtype: np.dtype) -> PointsLAPSolution:
    return PointsLAPSolution(
        col_for_row=np.full(n, -1, np.int32),
        row_for_col=np.full(m, -1, np.int32),
        cost=0.0,
        u=np.zeros(n),
        v=np.zeros(m),
        status=int(LAPStatus.OPTIMAL),
        rounds=0,
        edges=0,
        max_violation=0.0,
        tol=0.0,
        dtype=dtype,
    )


def solve_lap_points(
    X: Any,
    Y: Any,
    metric: Metric = "sqeuclidean",
    *,
    maximize: bool = False,
    candidates: int = DEFAULT_CANDIDATES,
    max_rounds: int = 100,
    devices: Sequence[Any] | None = None,
) -> PointsLAPSolution:
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
      max_rounds: sparse solves at most; then ``status`` is
        ``ITERATION_LIMIT`` if violated pairs remain.
      devices: the devices that sweep (their rows split evenly); default
        every device of JAX's default backend.

    Returns:
      A :class:`PointsLAPSolution`; ``min(n, m)`` pairs assigned.

    Raises:
      ValueError: shapes that are not ``[n, d]`` and ``[m, d]``, NaN or
        infinite coordinates, an unknown metric, a metric that gives a NaN
        or infinite cost, or ``candidates`` or ``max_rounds`` below 1.
      TypeError: non-real points.
    """
    Xh, Yh = _points(X, "X"), _points(Y, "Y")
    if Xh.shape[1] != Yh.shape[1]:
        raise ValueError(f"X and Y have points of dimensions {Xh.shape[1]} and {Yh.shape[1]}")
    _check_metric(metric)
    if int(candidates) < 1 or int(max_rounds) < 1:
        raise ValueError("candidates and max_rounds must be at least 1")
    dtype = _cost_dtype(Xh, Yh)
    n, m = Xh.shape[0], Yh.shape[0]
    if n == 0 or m == 0:
        return _empty_solution(n, m, dtype)
    if n > m:  # solved as Y against X: the metric's arguments swap too
        s = solve_lap_points(
            Yh, Xh, _swapped(metric), maximize=maximize, candidates=candidates,
            max_rounds=max_rounds, devices=devices,
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
    setup = _Setup(metric, sign, int(candidates), int(max_rounds), devices)
    sol = _renumbered(_solve(Xc[zx], Yc[zy], setup), zx, zy)
    return sol._replace(u=sign * sol.u, v=sign * sol.v)


def _inverse(order: np.ndarray) -> np.ndarray:
    """The inverse of the permutation ``order``."""
    inv = np.empty_like(order)
    inv[order] = np.arange(order.size, dtype=order.dtype)
    return inv


def _renumbered(sol: PointsLAPSolution, zx: np.ndarray, zy: np.ndarray) -> PointsLAPSolution:
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
    max_rounds: int
    devices: tuple[Any, ...]


def _solve(Xc: np.ndarray, Yc: np.ndarray, setup: _Setup) -> PointsLAPSolution:
    """The minimization form (costs ``sign * metric``, duals of that sign)
    of ``n <= m`` points of the cost dtype; square problems of at least
    ``2 * MULTISCALE_MIN_POINTS`` start from a half-size problem's pairs and
    prices."""
    n, m = Xc.shape[0], Yc.shape[0]
    start = None
    if n == m and n >= 2 * MULTISCALE_MIN_POINTS:
        start = _coarse_start(Xc, Yc, setup)
    return _column_generation(Xc, Yc, setup, start)


def z_order(points: np.ndarray) -> np.ndarray:
    """The order of ``points`` (``[n, d]``) along a Z-order (Morton) curve of
    their bounding box: ``[n]`` indices. Each coordinate is quantised to
    ``min(MORTON_BITS, 62 // d)`` bits (at least 1; beyond 62 dimensions the
    first 62 coordinates) and the bits interleaved, most significant
    first."""
    n, d = points.shape
    dims = min(d, 62)
    if dims == 0:
        return np.arange(n)
    bits = max(1, min(MORTON_BITS, 62 // dims))
    # Halves: a span of finite coordinates then stays finite.
    P = points[:, :dims].astype(np.float64) / 2
    lo, hi = P.min(axis=0), P.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    q = np.floor((P - lo) / span * ((1 << bits) - 1)).astype(np.uint64)
    code = np.zeros(n, np.uint64)
    one = np.uint64(1)
    for b in range(bits - 1, -1, -1):
        for k in range(dims):
            code = (code << one) | ((q[:, k] >> np.uint64(b)) & one)
    return np.argsort(code, kind="stable")


def stratified_half(points: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``n // 2`` of ``points`` (``[n, d]``), sorted indices: one of each
    consecutive pair along :func:`z_order`, chosen at random."""
    order = z_order(points)
    half = points.shape[0] // 2
    return np.sort(order[2 * np.arange(half) + rng.integers(0, 2, half)])


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
    best = _sweep(
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
) -> PointsLAPSolution:
    """Steps 1-3 of the module's method; ``start`` (square problems): the
    pairs ``x0`` and column prices ``v0`` of :func:`_coarse_start`, the
    prices ranking the first candidates, and both starting the first
    solve."""
    metric, sign, k, devices = setup.metric, setup.sign, setup.k, setup.devices
    dtype = Xc.dtype
    n, m = Xc.shape[0], Yc.shape[0]
    zero_n, zero_m = np.zeros(n, dtype), np.zeros(m, dtype)
    v_first = zero_m if start is None else start[1].astype(dtype)
    first = _sweep(Xc, Yc, zero_n, v_first, metric=metric, k=k, sign=sign, devices=devices)
    back = _sweep(Yc, Xc, zero_m, zero_n, metric=_swapped(metric), k=k, sign=sign, devices=devices)
    _check_finite(first.cost, back.cost)
    cost_max = float(max(first.cost_max.max(), back.cost_max.max()))
    if not math.isfinite(cost_max):
        raise ValueError("the metric gives NaN or infinite costs")
    diag = np.arange(n)
    diag_cost = sign * _costs_of_pairs(Xc, Yc[:n], metric, devices[0])
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
            lap_ffi.solve_sparse_host, indptr, indices, ccost, n, m, warm,
            ROW_REDUCTION_BOUND, work=indices.size,
        )  # fmt: skip
        rounds += 1
        if sol.status != LAPStatus.OPTIMAL:  # pragma: no cover - (i, i) keep it feasible
            raise RuntimeError(f"the sparse solve ended with status {LAPStatus(sol.status).name}")
        tol = _tolerance(dtype, cost_max, sol.u, sol.v)
        sweep = _sweep(
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
        if rounds >= setup.max_rounds:
            break
        if n == m:  # the next solve starts from this one (lap_sparse_jv.h)
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
    matched = _costs_of_pairs(Xc, Yc[cfr], metric, devices[0]).astype(np.float64)
    return PointsLAPSolution(
        col_for_row=cfr,
        row_for_col=sol.row_for_col.astype(np.int32),
        cost=float(matched.sum()),
        u=sol.u,
        v=sol.v,
        status=int(status),
        rounds=rounds,
        edges=int(indices.size),
        max_violation=violation,
        tol=tol,
        dtype=dtype,
    )


def _costs_of_pairs(x: np.ndarray, y: np.ndarray, metric: Metric, device: Any) -> np.ndarray:
    """``[b]``: the cost of each pair ``(x[i], y[i])``, computed on ``device``."""
    program = _aligned_costs_untuned if autotune_off(metric, [device]) else _aligned_costs
    return np.asarray(program(*jax.device_put((x, y), device), metric))


def _check_finite(*arrays: np.ndarray) -> None:
    for a in arrays:
        if not np.all(np.isfinite(a)):
            raise ValueError("the metric gives NaN or infinite costs")


def verify_lap_points(
    X: Any,
    Y: Any,
    solution: Any,
    metric: Metric = "sqeuclidean",
    *,
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
      solution: a :class:`PointsLAPSolution` (or anything with
        ``col_for_row``, ``row_for_col``, ``u`` and ``v``).
      metric: as solved.
      maximize: as solved.
      tol: absolute tolerance; default ``64 * eps * max(1, |C|, |u|, |v|)``
        with ``eps`` of ``solution.dtype`` (float32 when absent).
      block: rows per block.

    Returns:
      A :class:`jaxmatch.LAPCertificate`.
    """

    Xh, Yh = _points(X, "X").astype(np.float64), _points(Y, "Y").astype(np.float64)
    _check_metric(metric)
    n, m = Xh.shape[0], Yh.shape[0]
    sign = -1.0 if maximize else 1.0
    try:
        cfr = np.asarray(solution.col_for_row).astype(np.int64)
        rfc = np.asarray(solution.row_for_col).astype(np.int64)
        u = sign * np.asarray(solution.u, np.float64)
        v = sign * np.asarray(solution.v, np.float64)
    except (AttributeError, TypeError, ValueError) as err:
        return _invalid(f"the solution's fields do not fit ({err})")
    if cfr.shape != (n,) or rfc.shape != (m,) or u.shape != (n,) or v.shape != (m,):
        return _invalid("the solution's fields do not fit the point sets")
    if np.any((cfr < -1) | (cfr >= m)) or np.any((rfc < -1) | (rfc >= n)):
        return _invalid("an assignment index is out of range")
    rows = np.flatnonzero(cfr >= 0)
    if rows.size != min(n, m) or np.unique(cfr[rows]).size != rows.size:
        return _invalid("the assignment is not a full matching")
    if np.any(rfc[cfr[rows]] != rows) or np.count_nonzero(rfc >= 0) != rows.size:
        return _invalid("col_for_row and row_for_col disagree")
    if not (np.all(np.isfinite(u)) and np.all(np.isfinite(v))):
        return _invalid("a dual is NaN or infinite")

    def costs(a: np.ndarray, b: np.ndarray, aligned: bool = False) -> np.ndarray:
        if callable(metric):
            with jax.enable_x64(True):
                fn = _aligned_costs if aligned else pair_costs
                return np.asarray(fn(jnp.asarray(a), jnp.asarray(b), metric), np.float64)
        return _formula(a - b if aligned else a[:, None, :] - b[None, :, :], metric, np)

    matched = sign * costs(Xh[rows], Yh[cfr[rows]], aligned=True)
    least = np.inf
    cost_max = 0.0
    for s in range(0, n, block):
        c = sign * costs(Xh[s : s + block], Yh)
        cost_max = max(cost_max, float(np.abs(c).max(initial=0.0)))
        least = min(least, float((c - u[s : s + block, None] - v[None, :]).min(initial=np.inf)))
    dtype = np.dtype(getattr(solution, "dtype", np.float32))
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
