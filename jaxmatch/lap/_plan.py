"""The LAP planner: every ``auto`` decision of the family, in one place.

A plan is decided from what is known when a call is traced (shape, dtype,
the options, the devices holding the costs) and the tuning values of
:class:`LAPTuning`. Decisions that need the costs' values (how often rows
tie, whether int32 costs fit the forest) are made on the device by the
solvers the plan names, with thresholds from the same :class:`LAPTuning`.
The measurements behind each rule and default are in ``docs/benchmarks.md``,
"Why the planner chooses what it does"; the limits of the kernels come
from the compiled library (:func:`library_limits`).

Rules are tables read top to bottom; the first that applies decides.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any, Literal, NamedTuple

import numpy as np

from .. import _ffi, _limits

Solver = Literal["jv", "fused", "stepped"]


@dataclasses.dataclass(frozen=True)
class LAPTuning:
    """The tuning values of the LAP planner: frozen and hashable, so a call
    under ``jax.jit`` may pass one as a static argument (``tuning=``).

    The defaults are measured (``docs/benchmarks.md``, "Why the planner
    chooses what it does"); change them to explore another GPU.

    Attributes:
      fused_max_columns: on a GPU, the tree and classical variants run
        fused (one call per solve, a thread block per problem) up to this
        many columns and stepped (a ``lax.while_loop`` of step kernels
        spread over the GPU) above.
      stepped_iterations_per_call: main-loop iterations per ``while_loop``
        iteration of a stepped solve.
      jv_max_rows: on a GPU, ``auto`` runs JV on problems of at most this
        many rows (the smaller side), any dtype.
      jv_float_warp_max_columns: ... and on float problems of at most this
        many columns (a warp per problem).
      jv_float_min_columns: ... and on float problems of this many columns
        up to ``jv_float_max_columns`` (a block, or a cluster of blocks,
        per problem).
      jv_float_max_columns: see ``jv_float_min_columns``; the library's
        limit (:func:`library_limits`) caps it.
      jv_int_warp_max_columns: ... and on integer problems of at most this
        many columns (a warp per problem).
      jv_int_max_tied_rows: integer problems of ``jv_float_min_columns`` to
        ``jv_float_max_columns`` columns run JV alone when in every problem
        of the batch at most this fraction of the rows have two least costs
        that tie; else the tree variant first (decided on the device).
      jv_int_tree_iterations_per_row: ... that tree variant runs at most
        this many iterations per row, then JV finishes from its duals.
      forest_min_tied_rows: a single integer problem (not under ``vmap``)
        from ``forest_wide_columns`` columns runs the alternating forest
        when more than this fraction of its rows tie (below
        ``forest_wide_columns``, more than ``jv_int_max_tied_rows``).
      forest_wide_columns: see ``forest_min_tied_rows``.
      autotune_max_fraction: an eager call whose costs take more than this
        fraction of a GPU's memory on each device compiles with XLA's
        autotuning off (the autotuner copies a fusion's inputs).
      gather_max_fraction: a concrete matrix whose rows are sharded over
        several devices is solved split over them when it takes more than
        this fraction of one device's memory.
      split_min_int_rows: on GPUs, an integer matrix sharded by rows is
        also solved split, where its rows lie, from this many rows (the
        smaller side): the copy onto one device and one device's forest
        cost more than the devices' forest there.
      split_tied_min_rows: ... and from this many rows where at least
        ``split_tied_rows`` of its rows have two least costs that tie.
      split_tied_rows: see ``split_tied_min_rows``.
      split_all_tied_rows: ... and at any size where at least this fraction
        of its rows tie. Every other sharded matrix is gathered onto one
        device and solved there.
      split_iterations_per_trip: forest iterations per ``while_loop``
        iteration (on a GPU each iteration's predicate is a device-to-host
        copy; an iteration after the solve has ended is a no-op).
    """

    fused_max_columns: int = 1024
    stepped_iterations_per_call: int = 4
    jv_max_rows: int = 64
    jv_float_warp_max_columns: int = 255
    jv_float_min_columns: int = 256
    jv_float_max_columns: int = 65536
    jv_int_warp_max_columns: int = 128
    jv_int_max_tied_rows: float = 0.2
    jv_int_tree_iterations_per_row: int = 2
    forest_min_tied_rows: float = 0.03
    forest_wide_columns: int = 2048
    autotune_max_fraction: float = 0.4
    gather_max_fraction: float = 0.45
    split_min_int_rows: int = 20_000
    split_tied_min_rows: int = 10_000
    split_tied_rows: float = 0.4
    split_all_tied_rows: float = 0.9
    split_iterations_per_trip: int = 4


DEFAULT_TUNING = LAPTuning()

#: XLA compiler options of a program whose costs are too large for XLA's
#: autotuner (:attr:`LAPTuning.autotune_max_fraction`).
UNTUNED_COMPILER_OPTIONS = {"xla_gpu_autotune_level": 0}


class Limits(NamedTuple):
    """The kernels' limits, as the compiled library states them.

    Attributes:
      jv_max_columns: the widest problem the GPU's JV solves (a block).
      jv_warp_max_columns: the widest problem it solves in one warp.
    """

    jv_max_columns: int
    jv_warp_max_columns: int


@functools.cache
def library_limits() -> Limits:
    """The :class:`Limits` read from the library (loaded on first use)."""
    _ffi.register()
    return Limits(
        jv_max_columns=_ffi.constant("LAP_JV_GPU_MAX_COLUMNS"),
        jv_warp_max_columns=_ffi.constant("LAP_JV_WARP_MAX_COLUMNS"),
    )


class Problem(NamedTuple):
    """What the planner sees of a dense problem (rows <= columns).

    Attributes:
      rows: the smaller side.
      cols: the larger side.
      floating: the kernel dtype is floating (else int32).
    """

    rows: int
    cols: int
    floating: bool


class Rule(NamedTuple):
    """One row of a decision table: where ``applies`` holds, ``choice``."""

    why: str
    applies: Callable[[Any, LAPTuning, Limits], bool]
    choice: str


def _jv_float_max(t: LAPTuning, lim: Limits) -> int:
    return min(t.jv_float_max_columns, lim.jv_max_columns)


#: ``method="auto"`` on a GPU: the problems JV solves; the others go to the
#: tree variant.
GPU_AUTO_JV_RULES: tuple[Rule, ...] = (
    Rule(
        "few rows: a warp per problem",
        lambda p, t, lim: p.rows <= t.jv_max_rows and p.cols <= lim.jv_warp_max_columns,
        "jv",
    ),
    Rule(
        "float costs up to a warp's width",
        lambda p, t, lim: p.floating and 1 <= p.cols <= t.jv_float_warp_max_columns,
        "jv",
    ),
    Rule(
        "float costs, a block or cluster per problem",
        lambda p, t, lim: p.floating and t.jv_float_min_columns <= p.cols <= _jv_float_max(t, lim),
        "jv",
    ),
    Rule(
        "integer costs up to a warp's width",
        lambda p, t, lim: (
            not p.floating and p.cols <= min(t.jv_int_warp_max_columns, lim.jv_max_columns)
        ),
        "jv",
    ),
)


def first_rule(rules: Sequence[Rule], p: Any, t: LAPTuning, lim: Limits) -> Rule | None:
    """The first rule of ``rules`` that applies, or None."""
    return next((r for r in rules if r.applies(p, t, lim)), None)


class DensePlan(NamedTuple):
    """How a dense problem is solved on each platform.

    Attributes:
      variant: the Hungarian variant of the ``"fused"`` and ``"stepped"``
        solvers (``"tree"`` or ``"classical"``); ``"jv"`` when JV alone runs.
      cpu: the CPU's solver.
      gpu: the GPU's solver.
      gpu_integer_auto: on a GPU, JV or the tree variant then JV, chosen on
        the device by how often rows tie (``jv_int_max_tied_rows``).
      gpu_forest: on a GPU, a single problem (not under ``vmap``) may run
        the alternating forest (:mod:`jaxmatch.lap.split`) instead,
        decided on the device (``forest_min_tied_rows``); always where the
        problem is wider than JV's range.
      self_checked: JV solves it on every platform: its kernels report
        invalid entries and int32 overflow themselves.
    """

    variant: str
    cpu: Solver
    gpu: Solver
    gpu_integer_auto: bool = False
    gpu_forest: bool = False
    self_checked: bool = False


def plan_dense(
    rows: int,
    cols: int,
    floating: bool,
    *,
    method: str,
    execution: str,
    max_iterations: int,
    single: bool,
    warm: bool,
    tuning: LAPTuning,
    limits: Limits | None = None,
) -> DensePlan:
    """The plan of a dense solve.

    Args:
      rows: the smaller side (the kernels see ``rows <= cols``).
      cols: the larger side.
      floating: the kernel dtype is floating (else int32).
      method: ``"auto"``, ``"tree"``, ``"classical"`` or ``"jv"``.
      execution: ``"auto"``, ``"fused"`` or ``"stepped"``.
      max_iterations: 0 for no limit.
      single: one problem (``C`` of rank 2).
      warm: a warm start is given.
      tuning: the tuning values.
      limits: the library's limits (default: :func:`library_limits`).
    """
    lim = library_limits() if limits is None else limits
    if not (_limits.is_concrete(rows) and _limits.is_concrete(cols)):
        return plan_for_any_size(method, execution)
    if method == "jv":
        return DensePlan("jv", "jv", "jv", self_checked=True)
    variant = "tree" if method == "auto" else method
    if execution == "stepped":
        return DensePlan(variant, "stepped", "stepped")
    cpu: Solver = "jv" if method == "auto" else "fused"
    p = Problem(rows, cols, floating)
    if method == "auto" and first_rule(GPU_AUTO_JV_RULES, p, tuning, lim) is not None:
        return DensePlan("jv", "jv", "jv", self_checked=True)
    gpu: Solver = "fused" if execution == "fused" or cols <= tuning.fused_max_columns else "stepped"
    integer_auto = (
        method == execution == "auto"
        and max_iterations == 0
        and not floating
        and tuning.jv_float_min_columns <= cols <= _jv_float_max(tuning, lim)
    )
    wide = gpu == "stepped" and cols > _jv_float_max(tuning, lim)
    forest = (
        single
        and method == execution == "auto"
        and max_iterations == 0
        and not warm
        and (wide or integer_auto)
    )
    return DensePlan(variant, cpu, gpu, integer_auto, forest)


def plan_for_any_size(method: str, execution: str) -> DensePlan:
    """The plan of a problem whose sizes are symbolic (``jax.export`` with
    symbolic shapes): one that solves every size, since no size may be
    compared while such a program is traced. ``auto``: JV on the CPU (any
    size), the tree variant stepped on the GPU (JV's GPU kernels stop at
    ``Limits.jv_max_columns``); an explicit method or execution as asked
    (``method="jv"`` on a GPU then fails at run time on a problem wider
    than its kernels take).
    """
    if method == "jv":
        return DensePlan("jv", "jv", "jv", self_checked=True)
    variant = "tree" if method == "auto" else method
    if execution != "auto":
        return DensePlan(variant, execution, execution)  # type: ignore[arg-type]
    return DensePlan(variant, "jv" if method == "auto" else "fused", "stepped")


def autotune_off(block_bytes: int, devices: Sequence[Any], tuning: LAPTuning) -> bool:
    """Whether ``block_bytes`` of costs on each of ``devices`` exceed
    ``tuning.autotune_max_fraction`` of a GPU's memory (False off GPUs and
    where the memory is not reported)."""
    limit = _memory_limit(next(iter(devices)))
    return limit is not None and block_bytes > tuning.autotune_max_fraction * limit


def _memory_limit(device: Any) -> int | None:
    """A GPU's memory in bytes; None for other devices or when unreported."""
    return _limits.device_memory(device) if device.platform == "gpu" else None


class ShardedProblem(NamedTuple):
    """What the planner sees of a concrete matrix sharded by rows.

    Attributes:
      rows: the smaller side.
      nbytes: the matrix's size in bytes.
      floating: the kernel dtype is floating.
      on_gpus: the matrix lies on GPUs.
      device_memory: one device's memory in bytes (None: not reported, as
        for CPU devices, which share the host's memory).
      tied_rows: computes the fraction of the rows whose two least costs
        tie (a reduction where the matrix lies), called only by the rules
        that need it.
    """

    rows: int
    nbytes: int
    floating: bool
    on_gpus: bool
    device_memory: int | None
    tied_rows: Callable[[], float]


def _integer_on_gpus(p: ShardedProblem) -> bool:
    return p.on_gpus and not p.floating


#: A concrete ``[n, m]`` matrix whose rows are sharded over several
#: devices (``solve_lap`` with every option ``auto``): ``"split"`` solves
#: it over those devices (:mod:`jaxmatch.lap.split`), ``"gather"`` copies
#: it to the first one and solves it there like any other matrix.
ROW_SHARDED_RULES: tuple[Rule, ...] = (
    Rule(
        "too large for one device",
        lambda p, t, lim: (
            p.device_memory is not None and p.nbytes > t.gather_max_fraction * p.device_memory
        ),
        "split",
    ),
    Rule(
        "large integer costs: the devices' forest where the rows lie",
        lambda p, t, lim: _integer_on_gpus(p) and p.rows >= t.split_min_int_rows,
        "split",
    ),
    Rule(
        "integer costs whose rows often tie",
        lambda p, t, lim: (
            _integer_on_gpus(p)
            and p.rows >= t.split_tied_min_rows
            and p.tied_rows() >= t.split_tied_rows
        ),
        "split",
    ),
    Rule(
        "integer costs whose rows almost all tie",
        lambda p, t, lim: _integer_on_gpus(p) and p.tied_rows() >= t.split_all_tied_rows,
        "split",
    ),
    Rule("the rest: one device's solvers are ahead", lambda p, t, lim: True, "gather"),
)


def plan_row_sharded(
    shape: tuple[int, ...],
    dtype: Any,
    device: Any,
    tuning: LAPTuning,
    tied_rows: Callable[[], float],
) -> Literal["split", "gather"]:
    """How a concrete matrix of ``shape`` and kernel ``dtype``, its rows
    sharded over several devices of which ``device`` is one, is solved;
    ``tied_rows`` computes the fraction of its rows whose two least costs
    tie, where the rules need it."""
    p = ShardedProblem(
        rows=min(shape),
        nbytes=int(np.prod(shape)) * np.dtype(dtype).itemsize,
        floating=bool(np.issubdtype(np.dtype(dtype), np.floating)),
        on_gpus=device.platform == "gpu",
        device_memory=_memory_limit(device),
        tied_rows=tied_rows,
    )
    rule = first_rule(ROW_SHARDED_RULES, p, tuning, library_limits())
    assert rule is not None
    return rule.choice  # type: ignore[return-value]
