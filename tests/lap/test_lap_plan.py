"""The LAP planner's decision tables (``jaxmatch/lap/_plan.py``), case by
case, with the kernels' limits given (no library needed)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import jaxmatch
from jaxmatch.lap import _plan
from jaxmatch.lap._plan import DensePlan, LAPTuning, Limits

LIMITS = Limits(jv_max_columns=65536, jv_warp_max_columns=1536)
T = LAPTuning()


def plan(rows, cols, floating, *, method="auto", execution="auto", max_iterations=0,
         single=False, warm=False, tuning=T):  # fmt: skip
    return _plan.plan_dense(
        rows, cols, floating, method=method, execution=execution,
        max_iterations=max_iterations, single=single, warm=warm, tuning=tuning, limits=LIMITS,
    )  # fmt: skip


JV = DensePlan("jv", "jv", "jv", self_checked=True)

# (rows, cols, floating, options) -> the plan: each row of the tables once,
# and the edges of each range.
CASES = [
    # few rows: a warp per problem, any dtype, up to the warp's width
    ((64, 1536, False), {}, JV),
    ((64, 1537, False), {}, DensePlan("tree", "jv", "stepped", True)),
    ((65, 200, False), {}, DensePlan("tree", "jv", "fused")),
    # float costs up to a warp's width, then a block from 256 columns
    ((100, 255, True), {}, JV),
    ((200, 255, True), {}, JV),
    ((100, 256, True), {}, JV),
    ((65536, 65536, True), {}, JV),
    ((70000, 70000, True), {}, DensePlan("tree", "jv", "stepped")),
    ((70000, 70000, True), {"single": True}, DensePlan("tree", "jv", "stepped", False, True)),
    # integer costs: a warp up to 128 columns
    ((128, 128, False), {}, JV),
    ((129, 129, False), {}, DensePlan("tree", "jv", "fused")),
    ((255, 255, False), {}, DensePlan("tree", "jv", "fused")),
    # ... from 256 columns JV or the tree then JV, decided on the device
    ((256, 256, False), {}, DensePlan("tree", "jv", "fused", True)),
    ((1024, 1024, False), {}, DensePlan("tree", "jv", "fused", True)),
    ((1025, 1025, False), {}, DensePlan("tree", "jv", "stepped", True)),
    ((2000, 2000, False), {"single": True}, DensePlan("tree", "jv", "stepped", True, True)),
    ((70000, 70000, False), {"single": True}, DensePlan("tree", "jv", "stepped", False, True)),
    # a bounded or warm-started solve never runs the forest or integer auto
    (
        (2000, 2000, False),
        {"single": True, "max_iterations": 5},
        DensePlan("tree", "jv", "stepped"),
    ),
    ((2000, 2000, False), {"single": True, "warm": True}, DensePlan("tree", "jv", "stepped", True)),
    # explicit options
    ((10, 10, True), {"method": "tree"}, DensePlan("tree", "fused", "fused")),
    ((10, 10, True), {"method": "classical"}, DensePlan("classical", "fused", "fused")),
    ((10, 10, True), {"execution": "stepped"}, DensePlan("tree", "stepped", "stepped")),
    ((5000, 5000, True), {"method": "jv"}, JV),
    ((5000, 5000, True), {"execution": "fused"}, JV),
    ((5000, 5000, False), {"execution": "fused"}, DensePlan("tree", "jv", "fused")),
    ((5000, 5000, False), {"method": "tree"}, DensePlan("tree", "fused", "stepped")),
]


@pytest.mark.parametrize(("problem", "options", "expected"), CASES)
def test_dense_plan_table(problem, options, expected):
    assert plan(*problem, **options) == expected


def test_tuning_values_move_the_boundaries():
    narrow = LAPTuning(fused_max_columns=100, jv_int_warp_max_columns=50)
    assert plan(129, 129, False) == DensePlan("tree", "jv", "fused")
    assert plan(129, 129, False, tuning=narrow) == DensePlan("tree", "jv", "stepped")
    assert plan(100, 100, False, tuning=narrow) == DensePlan("tree", "jv", "fused")
    no_float_jv = LAPTuning(jv_float_warp_max_columns=0, jv_float_min_columns=10**6, jv_max_rows=0)
    assert plan(100, 100, True, tuning=no_float_jv) == DensePlan("tree", "jv", "fused")


def test_library_limits_cap_the_tuning():
    wide = LAPTuning(jv_float_max_columns=10**6)
    assert plan(70000, 70000, True, tuning=wide) == DensePlan("tree", "jv", "stepped")


def test_tuning_is_frozen_hashable_and_public():
    assert jaxmatch.LAPTuning is LAPTuning
    with pytest.raises(dataclasses.FrozenInstanceError):
        T.fused_max_columns = 5  # type: ignore[misc]
    assert hash(LAPTuning()) == hash(LAPTuning())
    assert LAPTuning(fused_max_columns=5) != LAPTuning()


def test_every_rule_explains_itself():
    for table in (_plan.GPU_AUTO_JV_RULES, _plan.ROW_SHARDED_RULES):
        for rule in table:
            assert rule.why and rule.choice


class _Device:
    def __init__(self, platform, memory):
        self.platform = platform
        self._memory = memory

    def memory_stats(self):
        return None if self._memory is None else {"bytes_limit": self._memory}


H200 = _Device("gpu", 141 * 10**9)


# The row-sharded table, at the points measured on two H200s
# (docs/benchmarks.md, "Why the planner chooses what it does"): the tie
# fractions of uniform integers in [0, n/10], [0, n], [0, 3n], [0, 10n] and
# [0, 100n] are about 1.0, 0.42, 0.15, 0.05 and 0.005.
@pytest.mark.parametrize(
    ("shape", "dtype", "tied", "device", "expected"),
    [
        # float costs that one device holds: its JV is far ahead
        ((12000, 12000), np.float32, 0.0, H200, "gather"),
        ((40000, 40000), np.float32, 0.0, H200, "gather"),
        # no single device can hold it
        ((160000, 160000), np.float32, 0.0, H200, "split"),
        # integers from 20,000 rows: the devices' forest where the rows lie
        ((20000, 20000), np.int32, 0.005, H200, "split"),
        ((40000, 40000), np.int32, 0.05, H200, "split"),
        # from 10,000 rows where rows often tie
        ((10000, 10000), np.int32, 0.42, H200, "split"),
        ((10000, 10000), np.int32, 0.15, H200, "gather"),
        ((10000, 10000), np.int32, 0.005, H200, "gather"),
        # smaller: only where almost every row ties
        ((5000, 5000), np.int32, 1.0, H200, "split"),
        ((5000, 5000), np.int32, 0.42, H200, "gather"),
        ((5000, 5000), np.int32, 0.05, H200, "gather"),
        # CPU devices share the host's memory: always gathered
        ((40000, 40000), np.int32, 1.0, _Device("cpu", None), "gather"),
        ((500, 500), np.float32, 0.0, _Device("gpu", None), "gather"),
    ],
)
def test_row_sharded_table(shape, dtype, tied, device, expected, monkeypatch):
    monkeypatch.setattr(_plan, "library_limits", lambda: LIMITS)
    asked = []

    def tied_rows():
        asked.append(True)
        return tied

    assert _plan.plan_row_sharded(shape, dtype, device, T, tied_rows) == expected
    if np.dtype(dtype).kind == "f" or device.platform != "gpu" or min(shape) >= 20000:
        assert asked == []  # computed only where a rule needs it


def test_autotune_off_only_for_large_costs_on_gpus():
    assert _plan.autotune_off(60 * 10**9, [H200], T)
    assert not _plan.autotune_off(50 * 10**9, [H200], T)
    assert not _plan.autotune_off(10**12, [_Device("cpu", None)], T)
