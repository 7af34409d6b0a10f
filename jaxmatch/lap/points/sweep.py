"""The pricing sweep of :func:`jaxmatch.solve_lap_points`: for each point
of one set, the ``k`` pairs of least reduced cost over the other set,
computed on the fly over the devices (one custom call per device for the
built-in metrics, ``cuda_ffi/lap/points/``; XLA's ``lax.top_k`` over
blocks of costs for the others)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from ... import _ffi
from .._plan import UNTUNED_COMPILER_OPTIONS
from . import _ffi as points_ffi

Metric = str | Callable[[jax.Array, jax.Array], jax.Array]


#: The built-in metrics: cost of the pair (x, y) of points of dimension d.
METRICS = ("sqeuclidean", "euclidean", "cityblock")


#: Bytes of one block of costs (rows x all columns) on a GPU and on a CPU.
GPU_BLOCK_BYTES = 1 << 30


CPU_BLOCK_BYTES = 1 << 26


def formula(diff: Any, metric: str, xp: Any) -> Any:
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
    return formula(x[:, None, :] - y[None, :, :], metric, jnp)


def _aligned_body(x: jax.Array, y: jax.Array, metric: Metric) -> jax.Array:
    """``[b]``: the cost of each pair ``(x[i], y[i])``."""
    if callable(metric):
        return jax.vmap(metric)(x, y)
    return formula(x - y, metric, jnp)


aligned_costs = jax.jit(_aligned_body, static_argnames="metric")


aligned_costs_untuned = jax.jit(
    _aligned_body, static_argnames="metric", compiler_options=UNTUNED_COMPILER_OPTIONS
)


def autotune_off(metric: Metric, devices: Sequence[Any]) -> bool:
    """Whether the programs of a solve on ``devices`` compile without XLA's
    autotuner: on GPUs, for the built-in metrics. Their programs (elementwise
    costs, reductions, ``top_k``, the sweep kernel's call) hold no matrix
    product, so the autotuner only adds compilation time (``docs/benchmarks.md``,
    "Tried and dropped"). A function metric may hold products (a dot of its
    points), so it keeps the autotuner."""
    return isinstance(metric, str) and next(iter(devices)).platform == "gpu"


class Sweep(NamedTuple):
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
        and k <= points_ffi.points_limit("MAX_K")
        and 1 <= d <= points_ffi.points_limit("MAX_DIM")
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
    return points_ffi.points_sweep(X, u, Y.T, v, metric=metric, k=k, negate=sign < 0)


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


def sweep_pairs(X, Y, u, v, *, metric, k, sign, devices) -> Sweep:
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
    scramble = scrambled_columns(m)
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
    return Sweep(scramble[cols], cost, cost_max)


@functools.lru_cache(maxsize=8)
def scrambled_columns(m: int) -> np.ndarray:
    """The fixed order (int32 ``[m]``) in which a sweep visits ``m``
    columns. In the solve's Z-order numbering a row's nearest columns sit
    together and the columns before them come nearer and nearer, so a row's
    list of least pairs would take many more insertions (a CPU sweep of
    12,000 points: 0.18 s in that order, 0.10 s in this one)."""
    order = np.random.default_rng(m).permutation(m).astype(np.int32)
    order.flags.writeable = False  # shared by every sweep of m columns
    return order


def costs_of_pairs(x: np.ndarray, y: np.ndarray, metric: Metric, device: Any) -> np.ndarray:
    """``[b]``: the cost of each pair ``(x[i], y[i])``, computed on ``device``."""
    program = aligned_costs_untuned if autotune_off(metric, [device]) else aligned_costs
    return np.asarray(program(*jax.device_put((x, y), device), metric))
