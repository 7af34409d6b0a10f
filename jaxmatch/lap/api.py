"""The linear assignment problem: GPU Hungarian algorithms as JAX primitives.

Two variants of Date & Nagi (2016), both finding many vertex-disjoint
augmenting paths per pass:

* ``"tree"`` -- the alternating-tree (Lawler, O(n^3)) variant: one thread per
  column keeps its least slack and predecessor row.
* ``"classical"`` -- the Munkres (O(n^4)) variant: zero-slack edges are
  compressed into per-row lists, rebuilt after each dual update.

And for one core, or one warp, per problem:

* ``"jv"`` -- Jonker & Volgenant's shortest augmenting paths (1987) with
  their initialisation, duals kept in float64 (int64 for integer costs);
  on the CPU batch members are spread over the host's cores, on a GPU each
  runs in one warp (state in shared memory, up to 1536 columns) or one
  thread block (up to :data:`JV_GPU_MAX_COLUMNS` columns). Fused only.

``"auto"`` runs ``"jv"`` on the CPU, and on a GPU ``"jv"`` for problems of
at most :data:`JV_GPU_MAX_ROWS` rows (the smaller side) and for float
problems of at most :data:`JV_GPU_FLOAT_WARP_MAX_COLUMNS` columns or of
:data:`JV_GPU_FLOAT_MIN_COLUMNS` to :data:`JV_GPU_FLOAT_MAX_COLUMNS`
columns, ``"tree"`` for the others (chosen when the computation is
lowered; on integer problems of as many columns ``"jv"`` when their rows'
two least costs rarely tie (:data:`JV_GPU_INT_MAX_TIED_ROWS`), else
``"tree"`` for at most :data:`JV_GPU_INT_TREE_ITERATIONS_PER_ROW`
iterations per row, then ``"jv"`` from its duals); with
``execution="stepped"`` it runs ``"tree"``.

Two execution shapes:

* ``"stepped"`` -- ``lax.while_loop`` over a step call (forward pass, reverse
  + augmentation or dual update, control); a problem is spread over many
  thread blocks. Right for large problems.
* ``"fused"`` -- one call runs the whole solve, a thread block per problem on
  the GPU. Right for small problems and large batches (launch latency
  dominates them).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._interrupt import wait_ready
from .._static import static_int, static_str
from . import _ffi as lap_ffi
from .types import LAPResult, LAPStatus

Method = Literal["auto", "tree", "classical", "jv"]
_METHODS = ("auto", "tree", "classical", "jv")
Execution = Literal["auto", "fused", "stepped"]

#: Main-loop iterations per ``lax.while_loop`` iteration of the stepped solver.
STEPPED_ITERATIONS_PER_CALL = 4
#: On the GPU, problems with at most this many columns run fused by default.
#: Measured on an H100 (docs/benchmarks.md): fused wins at 16 x 1024^2
#: (57 ms vs 154 ms stepped with command buffers), stepped wins at 2000^2
#: (19-27 ms vs 41 ms).
FUSED_MAX_COLUMNS = 1024
#: On the GPU, ``method="auto"`` runs JV on problems with at most this many
#: rows (the smaller side), of any dtype: a warp per problem, a block from
#: 256 columns.
#: Measured on an H100 (docs/benchmarks.md): a warp ahead of the fused tree
#: variant up to 64 x 64 (1024 x 32^2: 115 us against 224 us in the
#: kernel), even at 128 x 128, behind on 100 x 100 distances.
JV_GPU_MAX_ROWS = 64
#: On the GPU, ``method="auto"`` also runs JV (a warp per problem) on float
#: problems of at most this many columns, whatever their rows: with
#: :data:`JV_GPU_FLOAT_MIN_COLUMNS` (a block), every float width up to
#: :data:`JV_GPU_FLOAT_MAX_COLUMNS`. Measured on an H100 (docs/benchmarks.md):
#: on distinct float costs ahead of the tree variant at 256 x 150^2 (0.80
#: against 1.42 ms) and 64 x 200^2 (1.37 against 1.76 ms), as at 256 x
#: 100^2 Euclidean distances and 256 x 128^2; behind on costs with many ties
#: (float copies of integers, zeros: 1.2-3.4x), which keep the tree variant
#: as int32 or with ``method="tree"``.
JV_GPU_FLOAT_WARP_MAX_COLUMNS = 255
#: On the GPU, ``method="auto"`` also runs JV (a warp per problem, each lane
#: holding up to four columns) on integer problems of at most this many
#: columns, whatever their rows. Measured on an H100 (docs/benchmarks.md),
#: GPU time per call in a stream of calls against the fused tree variant:
#: 256 x 128^2 integers in [0, n] 207 against 401 us, in [0, 10n] 256
#: against 709 us, in [0, n/10] 167 against 187 us, in [0, 3] 112 against
#: 140 us; 512 x 80^2 in [0, n] 157 against 232 us. Wider warps fall behind
#: on ties (64 x 200^2 in [0, n]: 753 against 563 us; in [0, n/10] 532
#: against 247 us).
JV_GPU_INT_WARP_MAX_COLUMNS = 128
#: On the GPU, ``method="auto"`` also runs JV (a thread block per problem, a
#: cluster of blocks from 2048 rows on GPUs with clusters) on float problems
#: with :data:`JV_GPU_FLOAT_MIN_COLUMNS` to :data:`JV_GPU_FLOAT_MAX_COLUMNS`
#: columns. Measured on an H100 (docs/benchmarks.md): on distinct float
#: costs 1.2-6.6x ahead of the tree variant from 128 x 256^2 to 16384^2
#: (3.2x at 16 x 1024^2, 6x on Machol-Wien 1024^2, 6.6x on U[0, 1) 16384^2
#: in a cluster: 1.07 against 7.09 s), behind on costs with many ties
#: (integers: the tree variant stays their default).
JV_GPU_FLOAT_MIN_COLUMNS = 256
#: See :data:`JV_GPU_FLOAT_MIN_COLUMNS`: JV's own limit,
#: :data:`JV_GPU_MAX_COLUMNS`. Measured on an H200 (docs/benchmarks.md)
#: beyond 16384 columns, single problems: JV 13x ahead of the tree variant
#: on U[0, 1) float32 20000^2 (0.56 against 7.44 s), 7.7x at 30000^2, 36x on
#: squared distances 20000^2 (1.09 against 39.3 s), and 2.3-15x ahead of the
#: alternating forest there.
JV_GPU_FLOAT_MAX_COLUMNS = 65536
#: On the GPU, ``method="auto"`` on integer problems of
#: :data:`JV_GPU_FLOAT_MIN_COLUMNS` to :data:`JV_GPU_FLOAT_MAX_COLUMNS`
#: columns (without ``max_iterations``) runs JV alone when in every problem
#: of the batch at most this fraction of the rows have two least costs that
#: tie. Uniform integers in [0, k * max(n, m)]: 16-20 % of the rows tie at
#: k = 3, 43 % at k = 1, all at k = 1/10. Measured on an
#: H100 (docs/benchmarks.md): JV alone is 1.2-5.4x faster than the tree
#: variant followed by JV from k = 3 (and on Machol-Wien ``i * j``), from
#: 512^2 to 16384^2; the tree variant is ahead at k = 1 from 4096^2 (8192^2:
#: 208 against 283 ms) and 10x ahead at k = 1/10 (4096^2: 11.8 against 114
#: ms).
JV_GPU_INT_MAX_TIED_ROWS = 0.2
#: On the GPU, ``method="auto"`` on the other integer problems of as many
#: columns runs the tree variant for at most this many iterations per row,
#: then, when some problem is left unsolved, JV warm-started from the tree
#: variant's duals and assignment. Integer costs whose reduced costs tie
#: often (integers in [0, n/10] to [0, n]: 0.005n to 0.5n iterations) finish
#: in the tree variant; those left unsolved go to JV, which starts square
#: problems from 256 rows whose rows' least columns are few with its auction
#: instead of those duals. Measured on an H100 (docs/benchmarks.md).
JV_GPU_INT_TREE_ITERATIONS_PER_ROW = 2
#: On the GPU, ``method="auto"`` solves a single problem (``C`` of shape
#: ``[n, m]``, not under ``jax.vmap``, without ``init`` or
#: ``max_iterations``) with the alternating forest of
#: :func:`jaxmatch.solve_lap_split` on its own device where that is the
#: faster solver: integer problems of :data:`JV_GPU_FLOAT_MIN_COLUMNS` to
#: :data:`JV_GPU_FLOAT_MAX_COLUMNS` columns whose least costs tie in more
#: than this fraction of the rows from :data:`FOREST_WIDE_COLUMNS` columns,
#: in more than :data:`JV_GPU_INT_MAX_TIED_ROWS` below (where the tree
#: variant then JV ran), and every problem wider than JV's range (where the
#: tree variant ran); int32 costs of magnitude ``2**28`` or more keep the
#: other solvers. Measured on an H200 (docs/benchmarks.md), one problem at
#: a time: on integers in [0, n] (43 % tied rows) 2.3-9x ahead of the tree
#: variant then JV from 500^2 to 20000^2 (8.8x ahead of JV at 20000^2); in
#: [0, 3n] (15 %) 1.4-2.5x and in [0, 10n] (5 %) 1.2-3.2x ahead of JV from
#: 2000^2 and 3000^2 to 20000^2, 2.3x behind at 1000^2 in [0, 10n]; in
#: [0, 100n] (0.3 %) 1.1-2.5x behind JV up to 10000^2, 1.3-1.6x ahead at
#: 16000^2 and 20000^2; 2.5-5.4x ahead of the tree variant from 20000^2 to
#: 40000^2 on every class tried.
FOREST_MIN_TIED_ROWS = 0.03
#: See :data:`FOREST_MIN_TIED_ROWS`.
FOREST_WIDE_COLUMNS = 2048
#: The widest problem the GPU's JV takes: a warp's state fits its 48 KiB of
#: shared memory up to 1536 columns (square; 2048 with fewer rows), a block
#: of 1024 threads owns up to 64 columns per thread.
JV_GPU_MAX_COLUMNS = 65536
#: The widest problem the GPU's JV solves in one warp.
_JV_WARP_MAX_COLUMNS = 1536
#: An eager call (``solve_lap``, ``hungarian``, ``solve_lap_split``) whose
#: costs take more than this fraction of a GPU's memory on each device
#: compiles with XLA's autotuning off: the autotuner copies a fusion's
#: inputs to time its variants, and a copy of the matrix would not fit (a
#: 102 GB matrix on a 141 GB H200 stopped the compilation with
#: ``RESOURCE_EXHAUSTED``). The fusions over the whole matrix run a few
#: times per solve, so this costs no measurable time (int32 113137^2 on
#: an H200: 9.49 against 9.47 s). Under ``jax.jit`` the caller's compiler
#: options apply (``docs/lap.md``, "Matrices over half a GPU's memory").
AUTOTUNE_MAX_FRACTION = 0.4
#: The compiler options of such a call.
UNTUNED_COMPILER_OPTIONS = {"xla_gpu_autotune_level": 0}


def autotune_off(block_bytes: int, devices: Sequence[Any]) -> bool:
    """Whether ``block_bytes`` of costs on each of ``devices`` exceed
    :data:`AUTOTUNE_MAX_FRACTION` of a GPU's memory (False off GPUs and
    where the memory is not reported)."""
    device = next(iter(devices))
    if device.platform != "gpu":
        return False
    limit = (device.memory_stats() or {}).get("bytes_limit")
    return limit is not None and block_bytes > AUTOTUNE_MAX_FRACTION * limit


def _eager_autotune_off(C: Any) -> bool:
    """:func:`autotune_off` for concrete costs ``C``: their shards' bytes
    where ``C`` is a ``jax.Array``, else the whole on the default device."""
    itemsize = np.dtype(C.dtype).itemsize
    sharding = getattr(C, "sharding", None)
    if isinstance(sharding, jax.sharding.Sharding):
        block = math.prod(sharding.shard_shape(C.shape)) * itemsize
        return autotune_off(block, list(sharding.device_set))
    chosen = getattr(jax.config, "jax_default_device", None)
    if chosen is None:
        device = jax.devices()[0]
    else:
        device = jax.devices(chosen)[0] if isinstance(chosen, str) else chosen
    return autotune_off(math.prod(C.shape) * itemsize, [device])


def _x64_enabled() -> bool:
    return bool(jax.config.read("jax_enable_x64"))


_ACCEPTED_DTYPES = (
    "bool, integer (int8-int32, uint8-uint16; int64/uint32/uint64 under "
    "jax_enable_x64) or floating (float16, bfloat16, float32; float64 under "
    "jax_enable_x64)"
)


def _canonical_costs(C) -> jax.Array:
    """Checks rank and dtype (at trace time) and picks the kernel dtype.

    Floating dtypes narrower than 32 bits (float16, bfloat16 and the other
    ML floats) are solved in float32; float64 in float64 under x64, else
    float32.
    """
    if not isinstance(C, jax.Array) and not hasattr(C, "dtype"):
        C = np.asarray(C)
    dtype = np.dtype(C.dtype)
    if jnp.issubdtype(dtype, jnp.complexfloating):
        raise TypeError(f"cost matrix must be real, got dtype {dtype}")
    # jnp.issubdtype knows the ML dtypes (bfloat16, float8, int4), whose
    # NumPy kind is "V".
    is_float = jnp.issubdtype(dtype, jnp.floating)
    is_int = jnp.issubdtype(dtype, jnp.integer) or dtype == np.bool_
    if not (is_float or is_int):
        raise TypeError(
            f"cost matrix has the non-numeric dtype {dtype}; expected {_ACCEPTED_DTYPES}"
        )
    if C.ndim < 2:
        raise ValueError(
            "expected a matrix (2-D array) or a batch of matrices [..., n, m], "
            f"got a {C.ndim} array"
        )
    if is_float:
        wide = dtype == np.float64 and _x64_enabled()
        target = jnp.float64 if wide else jnp.float32
    elif dtype.itemsize <= 4 and not (
        jnp.issubdtype(dtype, jnp.unsignedinteger) and dtype.itemsize == 4
    ):
        target = jnp.int32
    elif _x64_enabled():
        # int64 / uint32 / uint64: exact in float64 up to 2**53.
        target = jnp.float64
    elif isinstance(C, np.ndarray):
        # Concrete wide integers without x64: int32 if every value fits.
        info = np.iinfo(np.int32)
        if C.size and (C.min() < info.min + 1 or C.max() > info.max):
            raise OverflowError(
                "integer costs outside the int32 range need jax_enable_x64 "
                "(they are then solved in float64)"
            )
        target = jnp.int32
    else:
        raise TypeError(
            f"{dtype} costs need jax_enable_x64 (solved in float64); cast to int32 or float32 first"
        )
    if isinstance(C, jax.Array) and dtype == target and not C.weak_type:
        return C  # as jnp.asarray would return it, without its eager call
    return jnp.asarray(C, dtype=target)


def _maximize_flag(maximize, batch: tuple[int, ...]) -> bool | jax.Array:
    """A Python bool when ``maximize`` is concrete, else a traced bool array
    broadcastable to the batch shape (``jnp.where`` then flips the signs)."""
    if not isinstance(maximize, jax.core.Tracer):
        a = np.asarray(maximize)
        if a.ndim == 0:
            if a.dtype.kind not in "biu":
                raise TypeError(f"maximize must be a bool, got dtype {a.dtype}")
            return bool(a)
    flag = jnp.asarray(maximize)
    if not (flag.dtype == jnp.bool_ or jnp.issubdtype(flag.dtype, jnp.integer)):
        raise TypeError(f"maximize must be a bool, got dtype {flag.dtype}")
    try:
        shape = np.broadcast_shapes(flag.shape, batch)
    except ValueError:
        shape = None
    if shape != tuple(batch):
        raise ValueError(
            f"maximize of shape {flag.shape} does not broadcast to the batch shape {batch}"
        )
    return flag.astype(bool)


def _flip(x: jax.Array, maximize: bool | jax.Array, axes: int) -> jax.Array:
    """``-x`` where ``maximize``; ``axes`` trailing axes of ``x`` are not
    batch axes (``maximize`` is a bool or a ``[...]`` batch array)."""
    if isinstance(maximize, bool):
        return -x if maximize else x
    return jnp.where(maximize.reshape(maximize.shape + (1,) * axes), -x, x)


def _check_method(method: str, execution: str) -> str:
    static_str(method, "method")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}; got {method!r}")
    if method == "jv" and execution == "stepped":
        raise ValueError(
            "method 'jv' runs as one fused call (on the CPU); use execution 'auto' or "
            "'fused', or a GPU variant ('tree', 'classical') for 'stepped'"
        )
    return method


def _check_execution(execution: str) -> str:
    static_str(execution, "execution")
    if execution not in ("auto", "fused", "stepped"):
        raise ValueError(f"execution must be one of 'auto', 'fused', 'stepped'; got {execution!r}")
    return execution


def _valid_entries(Ck: jax.Array) -> jax.Array:
    """Per problem: no NaN and no -inf (forbidden entries are +inf)."""
    if jnp.issubdtype(Ck.dtype, jnp.floating):
        bad = jnp.isnan(Ck) | (Ck == -jnp.inf)
        return ~jnp.any(bad, axis=(-2, -1))
    return jnp.ones(Ck.shape[:-2], dtype=bool)


#: The most int32 values :func:`_exact_int32_sum` adds exactly: each byte
#: column's sum (at most 255 per value) must fit in int32.
EXACT_INT32_SUM_MAX = (1 << 23) - 1


def _exact_int32_sum(vals: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Exact sum over the last axis of int32 values (at most
    ``EXACT_INT32_SUM_MAX`` of them), without 64-bit integers.

    Each value is split into its four bytes (the top one signed), each byte
    column is summed in int32, and the carries are propagated upwards.

    Returns ``(total, fits)``: the sum, meaningful where it fits, and
    whether it fits in int32.
    """
    b0 = vals & 0xFF
    b1 = (vals >> 8) & 0xFF
    b2 = (vals >> 16) & 0xFF
    b3 = vals >> 24  # arithmetic shift: [-128, 127]
    s0, s1, s2, s3 = (jnp.sum(x, axis=-1) for x in (b0, b1, b2, b3))
    t1 = s1 + (s0 >> 8)
    t2 = s2 + (t1 >> 8)
    t3 = s3 + (t2 >> 8)
    fits = (t3 >= -128) & (t3 <= 127)
    total = (t3 << 24) | ((t2 & 0xFF) << 16) | ((t1 & 0xFF) << 8) | (s0 & 0xFF)
    return total, fits


def _total_cost(vals: jax.Array, ok: jax.Array) -> tuple[jax.Array, jax.Array]:
    """The sum of the matched costs ``vals`` (``[..., k]``, 0 where none):
    exact for int32 (with whether it fits), NaN or 0 where not ``ok``."""
    if jnp.issubdtype(vals.dtype, jnp.integer):
        if vals.shape[-1] > EXACT_INT32_SUM_MAX:
            raise ValueError(
                f"int32 costs support at most {EXACT_INT32_SUM_MAX} rows "
                f"(got {vals.shape[-1]}); use floats"
            )
        total, fits = _exact_int32_sum(vals)
        return jnp.where(ok & fits, total, 0), fits
    total = jnp.sum(vals, axis=-1)
    return jnp.where(ok, total, jnp.nan), jnp.ones(ok.shape, bool)


def finished_result(
    col_for_row: jax.Array,
    row_for_col: jax.Array,
    matched_costs: jax.Array,
    u: jax.Array,
    v: jax.Array,
    n_iters: jax.Array,
    status: jax.Array,
    assignment_final: bool = False,
) -> LAPResult:
    """The result of a solve: ``cost`` from ``matched_costs`` (``[..., k]``,
    the cost of each matched pair, 0 elsewhere; an int32 total that does not
    fit makes the status OVERFLOW), and the assignment -1 unless OPTIMAL.
    ``assignment_final``: the solver did both already (JV's kernels), so
    ``status`` and the assignment are taken as they are."""
    ok = status == LAPStatus.OPTIMAL
    cost, fits = _total_cost(matched_costs, ok)
    if assignment_final:
        return LAPResult(col_for_row, row_for_col, cost, u, v, ok, n_iters, status)
    status = jnp.where(ok & ~fits, LAPStatus.OVERFLOW, status)
    ok = status == LAPStatus.OPTIMAL
    return LAPResult(
        col_for_row=jnp.where(ok[..., None], col_for_row, -1),
        row_for_col=jnp.where(ok[..., None], row_for_col, -1),
        cost=cost,
        u=u,
        v=v,
        feasible=ok,
        n_iters=n_iters,
        status=status,
    )


class _Solution(NamedTuple):
    """A solve's state without its workspaces, whose lengths differ by
    variant (so that both branches of a platform choice have one shape)."""

    col_for_row: jax.Array
    row_for_col: jax.Array
    u: jax.Array
    v: jax.Array
    info: jax.Array


def _solution(state: lap_ffi.LapState) -> _Solution:
    return _Solution(state.col_for_row, state.row_for_col, state.u, state.v, state.info)


def _fused(
    Ck: jax.Array,
    variant: int,
    max_iterations: int,
    warm: tuple[jax.Array, jax.Array] | None = None,
    auction: bool = False,
) -> _Solution:
    if warm is not None:
        x0, v0 = warm
        state = lap_ffi.lap_solve_warm(
            Ck, x0, v0, variant=variant, max_iterations=max_iterations, auction=auction
        )
        return _solution(state)
    return _solution(lap_ffi.lap_solve(Ck, variant=variant, max_iterations=max_iterations))


def _stepped(
    Ck: jax.Array,
    variant: int,
    max_iterations: int,
    warm: tuple[jax.Array, jax.Array] | None = None,
) -> _Solution:
    running_code = int(LAPStatus.RUNNING)

    def running(state):
        return jnp.any(lap_ffi.info_field(state.info, "STATUS") == running_code)

    def step(state):
        return lap_ffi.lap_step(Ck, state, variant=variant, iterations=STEPPED_ITERATIONS_PER_CALL)

    if warm is not None:
        x0, v0 = warm
        init = lap_ffi.lap_init_warm(Ck, x0, v0, variant=variant, max_iterations=max_iterations)
    else:
        init = lap_ffi.lap_init(Ck, variant=variant, max_iterations=max_iterations)
    return _solution(lax.while_loop(running, step, init))


def _jv_max_columns() -> int:
    """The widest problem ``method="auto"`` gives JV from
    :data:`JV_GPU_FLOAT_MIN_COLUMNS` columns."""
    return min(JV_GPU_FLOAT_MAX_COLUMNS, JV_GPU_MAX_COLUMNS)


def _gpu_plan(Ck: jax.Array, method: str, execution: str, max_iterations: int) -> tuple[str, bool]:
    """The GPU's solver for ``Ck`` (rows <= columns): ``"jv"``, or the tree
    or classical variant ``"fused"`` or ``"stepped"``; and whether integer
    ``auto`` picks JV or that variant then JV at run time
    (:func:`_integer_auto`). The rules are :func:`_run_solver`'s."""
    if method == "jv":
        return "jv", False
    if execution == "stepped":
        return "stepped", False
    n, m = Ck.shape[-2:]
    few_rows = n <= JV_GPU_MAX_ROWS and m <= _JV_WARP_MAX_COLUMNS
    jv_float_max = _jv_max_columns()
    jv_float = jnp.issubdtype(Ck.dtype, jnp.floating) and (
        1 <= m <= JV_GPU_FLOAT_WARP_MAX_COLUMNS or JV_GPU_FLOAT_MIN_COLUMNS <= m <= jv_float_max
    )
    jv_int_warp = jnp.issubdtype(Ck.dtype, jnp.integer) and m <= min(
        JV_GPU_INT_WARP_MAX_COLUMNS, JV_GPU_MAX_COLUMNS
    )
    if method == "auto" and (few_rows or jv_float or jv_int_warp):
        return "jv", False
    plan = "fused" if execution == "fused" or m <= FUSED_MAX_COLUMNS else "stepped"
    jv_int = (
        method == "auto"
        and execution == "auto"
        and max_iterations == 0
        and jnp.issubdtype(Ck.dtype, jnp.integer)
        and JV_GPU_FLOAT_MIN_COLUMNS <= m <= jv_float_max
    )
    return plan, jv_int


def _jv_everywhere(Ck: jax.Array, method: str, execution: str, max_iterations: int) -> bool:
    """Whether JV solves ``Ck`` on every platform: its kernels report NaN
    and -inf entries (``INVALID_ENTRIES``) and an int32 total that does not
    fit (``OVERFLOW``) themselves, and leave the assignment -1 unless
    optimal. The GPU's plan decides: where it is JV alone, the CPU's is JV
    too (``"jv"``, or ``"auto"``)."""
    return _gpu_plan(Ck, method, execution, max_iterations) == ("jv", False)


def _run_solver(
    Ck: jax.Array,
    method: str,
    execution: str,
    max_iterations: int,
    warm: tuple[jax.Array, jax.Array] | None = None,
) -> _Solution:
    """Runs the chosen method and execution shape; ``"auto"`` is chosen per
    platform when the computation is lowered. Method: JV on the CPU; on a
    GPU JV up to :data:`JV_GPU_MAX_ROWS` rows (and 1536 columns), on
    float costs of up to :data:`JV_GPU_FLOAT_WARP_MAX_COLUMNS` or of
    :data:`JV_GPU_FLOAT_MIN_COLUMNS` to :data:`JV_GPU_FLOAT_MAX_COLUMNS`
    columns and on integer costs of up to
    :data:`JV_GPU_INT_WARP_MAX_COLUMNS` columns, the tree variant for the
    others (and in every stepped solve);
    on integer costs of as many columns JV when their rows rarely tie, else
    the tree variant followed by JV when it runs out of iterations
    (:func:`_integer_auto`). Execution: fused on the CPU, on a GPU fused up
    to :data:`FUSED_MAX_COLUMNS` columns and stepped above. ``warm`` (the
    internal ``x0``, ``v0``) goes to every method."""
    jv = functools.partial(
        _fused, variant=lap_ffi.variant_code("jv"), max_iterations=max_iterations, warm=warm
    )
    if method == "jv":
        return jv(Ck)
    variant = lap_ffi.variant_code("tree" if method == "auto" else method)
    fused = functools.partial(_fused, variant=variant, max_iterations=max_iterations, warm=warm)
    stepped = functools.partial(_stepped, variant=variant, max_iterations=max_iterations, warm=warm)
    if execution == "stepped":
        return stepped(Ck)
    cpu = jv if method == "auto" else fused
    plan, jv_int = _gpu_plan(Ck, method, execution, max_iterations)
    gpu: Callable[[jax.Array], _Solution] = {"jv": jv, "fused": fused, "stepped": stepped}[plan]
    if jv_int:
        tree_then_jv = functools.partial(_tree_then_jv, tree=gpu, auction=warm is None)
        gpu = functools.partial(_integer_auto, jv=jv, tree_then_jv=tree_then_jv)
    single = Ck.ndim == 2 and method == execution == "auto" and max_iterations == 0
    wide = plan == "stepped" and Ck.shape[-1] > _jv_max_columns()
    if single and warm is None and (wide or jv_int):
        gpu = _forest_for_single_problems(gpu)
    return lax.platform_dependent(Ck, cpu=cpu, cuda=gpu)


def _forest_suits(Ck: jax.Array) -> jax.Array | None:
    """Whether the forest runs the single problem ``Ck`` (rows <= columns)
    on the GPU (:data:`FOREST_MIN_TIED_ROWS`): a bool scalar, or None when it
    always does."""
    from . import split  # imports this module

    if not jnp.issubdtype(Ck.dtype, jnp.integer):
        return None
    suits = split.fits_int32_forest(Ck)
    m = Ck.shape[-1]
    if m <= _jv_max_columns():
        floor = FOREST_MIN_TIED_ROWS if m >= FOREST_WIDE_COLUMNS else JV_GPU_INT_MAX_TIED_ROWS
        suits &= _tied_rows(Ck) > floor
    return suits


def _forest(Ck: jax.Array) -> _Solution:
    """The alternating forest of :mod:`jaxmatch.lap.split` on ``Ck``'s
    device, for a single problem."""
    from . import split  # imports this module

    cfr, rfc, u, v, iters, status = split.solve_on_one_device(Ck)
    return _Solution(cfr, rfc, u, v, lap_ffi.info_of(status, iters))


def _forest_for_single_problems(
    other: Callable[[jax.Array], _Solution],
) -> Callable[[jax.Array], _Solution]:
    """``other`` (the GPU's solver), except for a single problem that suits
    the forest (:func:`_forest_suits`); under ``jax.vmap`` a batch of
    problems always goes to ``other``, whose kernels solve the members side
    by side."""

    @jax.custom_batching.custom_vmap
    def solve(Ck: jax.Array) -> _Solution:
        suits = _forest_suits(Ck)
        if suits is None:
            return _forest(Ck)
        return lax.cond(suits, _forest, other, Ck)

    @solve.def_vmap
    def solve_batch(axis_size, in_batched, Ck):
        del axis_size
        (batched,) = in_batched
        out = jax.vmap(other)(Ck) if batched else solve(Ck)
        return out, jax.tree.map(lambda _: batched, out)

    return solve


def _tied_rows(C: jax.Array) -> jax.Array:
    """The fraction of each problem's rows whose two least costs tie.

    Args:
      C: ``[..., n, m]`` costs, ``m >= 2``.

    Returns:
      ``[...]`` float32: per problem, the fraction of its ``n`` rows holding
      their least cost more than once.
    """
    least = jnp.min(C, axis=-1, keepdims=True)
    repeated = jnp.sum(least == C, axis=-1, dtype=jnp.int32) >= 2
    return jnp.mean(repeated, axis=-1, dtype=jnp.float32)


@jax.custom_batching.custom_vmap
def _all_members(flag: jax.Array) -> jax.Array:
    """``flag`` (a bool scalar); under ``jax.vmap`` whether it holds for
    every member, unbatched, so that a ``lax.cond`` on it stays a branch
    rather than running both sides for the whole batch."""
    return flag


@_all_members.def_vmap
def _all_members_vmap(axis_size, in_batched, flag):
    del axis_size
    (batched,) = in_batched
    return (_all_members(jnp.all(flag, axis=0)) if batched else flag), False


def _integer_auto(
    Ck: jax.Array, jv: Callable[..., _Solution], tree_then_jv: Callable[..., _Solution]
) -> _Solution:
    """Integer ``auto`` on the GPU: JV alone when every problem's rows
    rarely tie (:data:`JV_GPU_INT_MAX_TIED_ROWS`), else the tree variant
    then JV (:func:`_tree_then_jv`)."""
    distinct = _all_members(jnp.all(_tied_rows(Ck) <= JV_GPU_INT_MAX_TIED_ROWS))
    return lax.cond(distinct, jv, tree_then_jv, Ck)


def _tree_then_jv(Ck: jax.Array, tree: Callable[..., _Solution], auction: bool) -> _Solution:
    """The tree variant (``tree``: its fused or stepped solve) for at most
    :data:`JV_GPU_INT_TREE_ITERATIONS_PER_ROW` iterations per row, then,
    when some problem of the batch is left unsolved, JV from the tree
    variant's column duals and assignment (JV keeps the rows whose column
    attains their least reduced cost, as the tree variant's feasible duals
    make every assigned row's), or, with ``auction`` (no warm start of the
    user's) where the GPU's auction start runs (square problems whose rows'
    least columns are few: Machol-Wien, rank one), from the auction
    instead. The iterations are the sum of both."""
    cap = JV_GPU_INT_TREE_ITERATIONS_PER_ROW * Ck.shape[-2]
    first = tree(Ck, max_iterations=cap)
    limited = lap_ffi.info_field(first.info, "STATUS") == int(LAPStatus.ITERATION_LIMIT)

    def finish(sol: _Solution) -> _Solution:
        warm = (sol.col_for_row, sol.v)
        jv = _fused(Ck, lap_ffi.variant_code("jv"), 0, warm=warm, auction=auction)
        iters = lap_ffi.info_field(sol.info, "ITERS")
        return jv._replace(info=lap_ffi.info_field_added(jv.info, "ITERS", iters))

    solved = _all_members(~jnp.any(limited))
    return lax.cond(solved, lambda sol: sol, finish, first)


def _internal_warm_start(init, Ck, maximize, transposed):
    """``init`` (a :class:`LAPResult`'s four arrays) in the kernels'
    convention: rows <= columns, minimisation, C's dtype; a non-finite price
    (an infeasible earlier solve) becomes 0."""
    cfr, rfc, u, v = init
    x0 = (rfc if transposed else cfr).astype(jnp.int32)
    v0 = _flip((u if transposed else v).astype(Ck.dtype), maximize, 1)
    if jnp.issubdtype(v0.dtype, jnp.floating):
        v0 = jnp.where(jnp.isfinite(v0), v0, jnp.zeros((), v0.dtype))
    return x0, v0


def _solve(
    C: jax.Array,
    init,
    maximize: bool | jax.Array,
    method: str,
    execution: str,
    max_iterations: int,
) -> LAPResult:
    """One solve; ``maximize`` is a Python bool, or a bool array (traced or
    not) broadcastable to the batch shape, in which case the signs are
    flipped with ``jnp.where``; ``init`` is None or the four arrays
    (col_for_row, row_for_col, u, v) of a warm start."""
    *batch, n, m = C.shape
    transposed = n > m
    Ck = jnp.swapaxes(C, -1, -2) if transposed else C
    nk = Ck.shape[-2]
    Ck = _flip(Ck, maximize, 2)
    # JV's kernels check the entries and finish the assignment themselves; a
    # maximized integer problem keeps the checks below, which see C's signs.
    self_checked = _jv_everywhere(Ck, method, execution, max_iterations) and (
        maximize is False or jnp.issubdtype(C.dtype, jnp.floating)
    )

    if nk == 0:  # an empty side: the empty assignment is optimal
        status = jnp.full(batch, LAPStatus.OPTIMAL, jnp.int32)
        zeros_i = jnp.zeros(batch, jnp.int32)
        return LAPResult(
            col_for_row=jnp.full((*batch, n), -1, jnp.int32),
            row_for_col=jnp.full((*batch, m), -1, jnp.int32),
            cost=jnp.zeros(batch, C.dtype),
            u=jnp.zeros((*batch, n), C.dtype),
            v=jnp.zeros((*batch, m), C.dtype),
            feasible=jnp.ones(batch, bool),
            n_iters=zeros_i,
            status=status,
        )

    if not self_checked:
        valid = _valid_entries(Ck)
        overflow = jnp.zeros(valid.shape, bool)
        if maximize is not False and jnp.issubdtype(C.dtype, jnp.integer):
            # -INT32_MIN does not fit: such problems report OVERFLOW.
            overflow = maximize & jnp.any(jnp.iinfo(jnp.int32).min == C, axis=(-2, -1))
        ok_input = valid & ~overflow
        Ck = jnp.where(ok_input[..., None, None], Ck, jnp.zeros((), Ck.dtype))
    warm = None if init is None else _internal_warm_start(init, Ck, maximize, transposed)
    state = _run_solver(Ck, method, execution, max_iterations, warm)

    status = lap_ffi.info_field(state.info, "STATUS")
    if not self_checked:
        status = jnp.where(valid, status, LAPStatus.INVALID_ENTRIES)
        status = jnp.where(overflow, LAPStatus.OVERFLOW, status)
    cfr, rfc = state.col_for_row, state.row_for_col
    u, v = _flip(state.u, maximize, 1), _flip(state.v, maximize, 1)
    if transposed:
        cfr, rfc, u, v = rfc, cfr, v, u

    picked = jnp.take_along_axis(C, jnp.clip(cfr, 0, None)[..., None], axis=-1)[..., 0]
    matched = jnp.where(cfr >= 0, picked, jnp.zeros((), C.dtype))
    iters = lap_ffi.info_field(state.info, "ITERS")
    return finished_result(cfr, rfc, matched, u, v, iters, status, assignment_final=self_checked)


def _cost_tangent(C, dC, res: LAPResult) -> LAPResult:
    """The tangent of a solve: ``cost`` moves with ``dC`` on the assignment
    (the envelope theorem); nothing else moves."""
    m = C.shape[-1]
    assign = (res.col_for_row[..., None] == jnp.arange(m)) & (res.col_for_row[..., None] >= 0)
    dcost = jnp.sum(jnp.where(assign, dC, jnp.zeros((), dC.dtype)), axis=(-2, -1))
    dcost = jnp.where(res.feasible, dcost, jnp.zeros((), dcost.dtype))

    def no_tangent(x):
        if jnp.issubdtype(x.dtype, jnp.inexact):
            return jnp.zeros_like(x)
        return np.zeros(x.shape, dtype=jax.dtypes.float0)

    return LAPResult(*(no_tangent(x) for x in res))._replace(cost=dcost)


# Two differentiable entry points: a Python-bool ``maximize`` stays static
# (no ``jnp.where`` in the graph); a traced one is an operand (so it may be
# batched by ``vmap``) that carries no tangent. ``init`` (None or a warm
# start's arrays) is an operand without a tangent.
@functools.partial(jax.custom_jvp, nondiff_argnums=(2, 3, 4, 5))
def _solve_static(C, init, maximize: bool, method, execution, max_iterations) -> LAPResult:
    return _solve(C, init, maximize, method, execution, max_iterations)


@_solve_static.defjvp
def _solve_static_jvp(maximize, method, execution, max_iterations, primals, tangents):
    (C, init), (dC, _) = primals, tangents
    res = _solve_static(C, init, maximize, method, execution, max_iterations)
    return res, _cost_tangent(C, dC, res)


@functools.partial(jax.custom_jvp, nondiff_argnums=(3, 4, 5))
def _solve_traced(C, init, maximize: jax.Array, method, execution, max_iterations) -> LAPResult:
    return _solve(C, init, maximize, method, execution, max_iterations)


@_solve_traced.defjvp
def _solve_traced_jvp(method, execution, max_iterations, primals, tangents):
    (C, init, maximize), (dC, _, _) = primals, tangents
    res = _solve_traced(C, init, maximize, method, execution, max_iterations)
    return res, _cost_tangent(C, dC, res)


# An eager call runs the whole solve as one compiled program: XLA's CPU
# client executes a program of a single custom call on the calling thread,
# which no Ctrl-C reaches, and dispatches larger ones asynchronously, so the
# caller can wait interruptibly (wait_ready).
_solve_static_eager = jax.jit(_solve_static, static_argnums=(2, 3, 4, 5))
_solve_traced_eager = jax.jit(_solve_traced, static_argnums=(3, 4, 5))
# The same for costs too large for XLA's autotuner (AUTOTUNE_MAX_FRACTION).
_solve_static_eager_untuned = jax.jit(
    _solve_static, static_argnums=(2, 3, 4, 5), compiler_options=UNTUNED_COMPILER_OPTIONS
)
_solve_traced_eager_untuned = jax.jit(
    _solve_traced, static_argnums=(3, 4, 5), compiler_options=UNTUNED_COMPILER_OPTIONS
)


def solve_lap(
    C: jax.Array,
    *,
    maximize: bool | jax.Array = False,
    method: Method = "auto",
    execution: Execution = "auto",
    max_iterations: int | None = None,
    init: LAPResult | None = None,
) -> LAPResult:
    """Solves the linear assignment problem min (or max) sum_i C[i, x(i)].

    Pure and jittable; ``C`` may carry leading batch dimensions, and
    ``jax.vmap`` batches the kernels (the batch is a grid dimension).
    ``method`` and ``execution`` are static: under ``jax.jit`` pass them as
    Python strings, with ``jax.jit(f, static_argnames=("method",
    "execution"))`` or ``functools.partial(f, method=...)``; ``C`` and
    ``maximize`` may be traced.

    Args:
      C: ``[..., n, m]`` costs: float32, float64 (with ``jax_enable_x64``) or
        int32 (smaller integer and bool dtypes are cast to int32; int64 is
        solved in float64 under x64; float16, bfloat16 and other floats
        narrower than 32 bits are solved in float32, and ``cost``, ``u``,
        ``v`` are then float32). ``+inf`` marks a forbidden pair (``-inf``
        with ``maximize=True``). Any of ``n``, ``m`` may be larger, or zero.
      maximize: maximize the total instead. A Python bool, or a bool array
        (traced under ``jit``, batched under ``vmap``) of shape ``[]`` or
        broadcastable to the batch shape ``[...]``, choosing per problem.
      method: static. ``"tree"`` (alternating tree, Lawler), ``"classical"``
        (Munkres), ``"jv"`` (Jonker-Volgenant, fused only; on a GPU up to
        :data:`JV_GPU_MAX_COLUMNS` columns), or ``"auto"`` (JV on the CPU;
        on a GPU JV up to :data:`JV_GPU_MAX_ROWS` rows and on float costs
        of up to :data:`JV_GPU_FLOAT_WARP_MAX_COLUMNS` or of
        :data:`JV_GPU_FLOAT_MIN_COLUMNS` to
        :data:`JV_GPU_FLOAT_MAX_COLUMNS` columns, the tree variant for
        the others, finished by JV on integer costs of as many columns when
        it needs more than :data:`JV_GPU_INT_TREE_ITERATIONS_PER_ROW`
        iterations per row; the tree variant in stepped solves; on a GPU
        a single problem with many tied integer costs, or wider than JV's
        range, runs the alternating forest of
        :func:`jaxmatch.solve_lap_split` on its device
        (:data:`FOREST_MIN_TIED_ROWS`), whose ``n_iters`` counts forest
        iterations).
      execution: static. ``"fused"`` (the whole solve in one kernel),
        ``"stepped"`` (``lax.while_loop`` of step kernels) or ``"auto"``.
      max_iterations: static int >= 1, or None. Stops a solve after this
        many iterations of the main loop (JV: augmenting searches) with
        ``status == ITERATION_LIMIT`` and ``feasible`` False; None: a bound
        no solve reaches. A way to bound the time of a solve under ``jit``.
      init: a warm start: the :class:`LAPResult` of an earlier solve of a
        problem of the same shape and ``maximize`` (its arrays may be
        traced, and batched like ``C``). JV (``"jv"``, and ``"auto"`` where
        it runs JV) keeps each row's earlier column when it is still the
        row's cheapest at the earlier column prices ``v`` and augments the
        rest, so a slowly changing sequence of problems solves faster
        (tracking, iterated bounds); any ``init`` gives the same optimum.
        The tree and classical variants start a square problem from
        the column prices ``v`` (row duals: each row's least reduced cost)
        and the earlier pairs that are tight there, then run the greedy
        rounds and the main loop; a rectangular problem starts cold.

    A concrete ``[n, m]`` ``C`` whose rows are sharded over several devices
    (a ``NamedSharding``), with ``method`` and ``execution`` ``"auto"``, no
    ``init`` and a Python bool ``maximize``, is solved by
    :func:`jaxmatch.solve_lap_split` over its mesh (``docs/lap.md``, "One
    problem over several devices").

    Called eagerly (no tracer in sight), it returns once the result is ready,
    and Ctrl-C interrupts the wait and cancels the CPU solves in flight
    (``docs/lap.md``, "Interrupting a solve").

    Returns:
      A :class:`LAPResult`. Data-dependent failures (NaN, an infeasible
      ``+inf`` pattern, int32 overflow) do not raise: ``feasible`` is False
      and ``status`` says why. ``jax.grad`` of ``cost`` is the assignment
      matrix (the envelope theorem).

    Raises:
      TypeError: non-numeric or complex costs; uint32 costs without x64;
        ``method`` or ``execution`` not a Python string (e.g. traced by
        ``jax.jit`` without ``static_argnames``); a non-boolean ``maximize``.
      ValueError: rank below 2, an unknown ``method``/``execution``, a
        ``maximize`` array that does not broadcast to the batch shape,
        ``max_iterations`` below 1, or an ``init`` whose shapes do not
        match ``C``, or with ``method="tree"``/``"classical"`` or
        ``execution="stepped"``.
      OverflowError: concrete 64-bit integer costs outside the int32 range
        without x64 (never wrapped).
    """
    C = _canonical_costs(C)
    _check_execution(execution)
    _check_method(method, execution)
    limit = 0
    if max_iterations is not None:
        limit = static_int(max_iterations, "max_iterations")
        if not 1 <= limit < 2**31:
            raise ValueError(f"max_iterations must be in [1, 2**31), got {limit}")
    flag = _maximize_flag(maximize, tuple(C.shape[:-2]))
    warm = _warm_start_arrays(init, C)
    eager = not any(isinstance(x, jax.core.Tracer) for x in jax.tree.leaves((C, flag, warm)))
    if eager and warm is None and method == execution == "auto" and isinstance(flag, bool):
        from . import split  # imports this module

        found = split.row_split_axis(C)
        if found is not None:
            return split.solve_lap_split(
                C, maximize=flag, mesh=found[0], axis_name=found[1], max_iterations=max_iterations
            )
    untuned = eager and _eager_autotune_off(C)
    if isinstance(flag, bool):
        solve = _solve_static_eager if eager else _solve_static
        solve = _solve_static_eager_untuned if untuned else solve
    else:
        solve = _solve_traced_eager if eager else _solve_traced
        solve = _solve_traced_eager_untuned if untuned else solve
    res = solve(C, warm, flag, method, execution, limit)
    return wait_ready(res) if eager else res


def _warm_start_arrays(init, C: jax.Array):
    """``init``'s (col_for_row, row_for_col, u, v) as arrays, checked against
    ``C``; None without a warm start."""
    if init is None:
        return None
    fields = ("col_for_row", "row_for_col", "u", "v")
    if not all(hasattr(init, f) for f in fields):
        raise TypeError(
            f"init must be the LAPResult of an earlier solve; got {type(init).__name__}"
        )
    *batch, n, m = C.shape
    want = {"col_for_row": n, "row_for_col": m, "u": n, "v": m}
    arrays = []
    for f in fields:
        x = jnp.asarray(getattr(init, f))
        if tuple(x.shape) != (*batch, want[f]):
            raise ValueError(
                f"init.{f} has shape {tuple(x.shape)}; a warm start for costs of shape "
                f"{tuple(C.shape)} needs {(*batch, want[f])}"
            )
        arrays.append(x)
    return tuple(arrays)


def hungarian(
    C: jax.Array, *, maximize: bool | jax.Array = False, method: Method = "auto"
) -> jax.Array:
    """The optimal assignment of a (batch of) cost matrix(es).

    Jittable: ``jax.jit(hungarian)(C, maximize=True)`` traces ``maximize``;
    ``method`` is static (``jax.jit(hungarian, static_argnames=("method",))``).

    Args:
      C: ``[..., n, m]`` costs; see :func:`solve_lap` (float16 and bfloat16
        are solved in float32).
      maximize: maximize the total instead; a bool, traced or not (see
        :func:`solve_lap`).
      method: static. ``"auto"``, ``"tree"``, ``"classical"`` or ``"jv"``.

    Returns:
      int32 ``[..., n]``: the column assigned to each row, ``-1`` for rows
      left unassigned when ``n > m`` (and for every row of an infeasible
      problem; use :func:`solve_lap` to tell).
    """
    return solve_lap(C, maximize=maximize, method=method).col_for_row
