"""A concrete matrix sharded by rows, on forced CPU devices (run by
``test_lap_row_sharded.py`` in a fresh process: JAX reads the device count
once, at start). Prints ``row-sharded: OK`` when every check passes."""

from __future__ import annotations

import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax
import numpy as np
from jax.sharding import AxisType, NamedSharding, PartitionSpec
from scipy.optimize import linear_sum_assignment

import jaxmatch
from jaxmatch.lap import _plan, api

rng = np.random.default_rng(3)


def optimum(C: np.ndarray, maximize: bool) -> float:
    r, c = linear_sum_assignment(C, maximize=maximize)
    return float(C[r, c].astype(np.float64).sum())


def check(res, C, maximize, where):
    assert res.status_name == "OPTIMAL", (where, res.status_name)
    assert abs(float(res.cost) - optimum(C, maximize)) <= 1e-4 * max(1.0, abs(float(res.cost)))
    cert = jaxmatch.verify_lap(C, res, maximize=maximize)
    assert cert.optimal, (where, cert.reason)


for types in ((AxisType.Explicit,), (AxisType.Auto,)):
    mesh = jax.make_mesh((4,), ("rows",), axis_types=types)
    rows = NamedSharding(mesh, PartitionSpec("rows", None))
    for shape, dtype, maximize in [
        ((24, 24), np.float32, False),
        ((24, 24), np.int32, True),
        ((20, 28), np.float32, True),
        ((28, 20), np.int32, False),
    ]:
        C = (rng.random(shape) * 50).astype(dtype)
        Cs = jax.device_put(C, rows)
        # The planner's default here: it fits one device, so it is gathered.
        res = jaxmatch.solve_lap(Cs, maximize=maximize)
        check(res, C, maximize, (types, shape, "gathered"))
        assert len(res.col_for_row.sharding.device_set) == 1, res.col_for_row.sharding
        # solve_lap_split reshards an unsharded C onto the mesh itself.
        res = jaxmatch.solve_lap_split(C, maximize=maximize, mesh=mesh, axis_name="rows")
        check(res, C, maximize, (types, shape, "split, unsharded input"))

    # Where the planner says split, solve_lap runs the split solver over the
    # matrix's own mesh: the answer is replicated over its devices.
    C = rng.random((24, 24)).astype(np.float32)
    planned: list[tuple[int, ...]] = []

    def split_always(shape, dtype, device, tuning, tied_rows, planned=planned):
        planned.append(shape)
        return "split"

    real = _plan.plan_row_sharded
    api._plan.plan_row_sharded = split_always
    try:
        res = jaxmatch.solve_lap(jax.device_put(C, rows))
    finally:
        api._plan.plan_row_sharded = real
    assert planned == [(24, 24)], planned
    check(res, C, False, (types, "split by plan"))
    assert len(res.col_for_row.sharding.device_set) == 4, res.col_for_row.sharding

# The tie fraction the GPU rules read, computed where the rows lie (tall
# matrices: of the smaller side's rows).
mesh = jax.make_mesh((4,), ("rows",))
for shape in ((24, 24), (28, 20)):
    C = rng.integers(0, 4, shape).astype(np.int32)
    Ck = C if shape[0] <= shape[1] else C.T
    want = np.mean(np.sum(Ck == Ck.min(axis=1, keepdims=True), axis=1) >= 2)
    got = api._tied_rows(jax.device_put(C, NamedSharding(mesh, PartitionSpec("rows", None))))()
    assert abs(got - want) < 1e-6, (got, want)

print("row-sharded: OK")
