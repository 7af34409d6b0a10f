"""``solve_lap_split`` on forced CPU devices, or on every GPU (run by
``test_lap_split.py`` in a fresh process: JAX reads the device count once,
at start).

Usage: ``python split_check.py DEVICES`` (that many forced CPU devices) or
``python split_check.py gpu``. Prints ``split: OK`` when every check passes.
"""

from __future__ import annotations

import os
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "4"
if MODE != "gpu":
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={int(MODE)}"

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec  # noqa: E402
from scipy.optimize import linear_sum_assignment  # noqa: E402

import jaxmatch  # noqa: E402
from jaxmatch import LAPStatus  # noqa: E402
from jaxmatch.lap import _plan  # noqa: E402

all_devices = jax.devices("gpu" if MODE == "gpu" else "cpu")
DEVICES = len(all_devices)
assert MODE == "gpu" or int(MODE) == DEVICES, all_devices


def oracle(C: np.ndarray, maximize: bool) -> float:
    r, c = linear_sum_assignment(C, maximize=maximize)
    return float(C[r, c].astype(np.float64).sum())


def check(C: np.ndarray, maximize: bool = False, devices=None, label: str = "") -> None:
    res = jaxmatch.solve_lap_split(C, maximize=maximize, devices=devices)
    assert int(res.status) == LAPStatus.OPTIMAL, (label, res.status_name)
    want = oracle(C, maximize)
    tol = 1e-9 if C.dtype.kind in "iu" or C.dtype == np.float64 else 2e-5
    assert abs(float(res.cost) - want) <= tol * max(1.0, abs(want)), (label, res.cost, want)
    cert = jaxmatch.verify_lap(C, jax.tree.map(np.asarray, res), maximize=maximize)
    assert cert.optimal, (label, cert.reason)


rng = np.random.default_rng(2026)

# Random sweep: shapes (square, wide, tall, rows not divisible by the
# device count), dtypes, ties, maximize, device counts.
counts = sorted(k for k in {1, 2, DEVICES - 1, DEVICES} if 1 <= k <= DEVICES)
case = 0
shapes = [(1, 1), (1, 7), (7, 1), (2, 2), (5, 5), (13, 13), (30, 47), (47, 30), (64, 64), (101, 99)]
for n, m in shapes:
    for kind in ("f32", "f64", "int", "ties"):
        if kind == "f32":
            C = rng.random((n, m), dtype=np.float32)
        elif kind == "f64":
            C = rng.random((n, m))
        elif kind == "int":
            C = rng.integers(-50, 1000, (n, m)).astype(np.int32)
        else:
            C = rng.integers(0, 3, (n, m)).astype(np.int32)
        # Each case on one device count and sense, in turn (a compilation
        # per combination; every count and sense meets every shape).
        case += 1
        k, maximize = counts[case % len(counts)], case % 3 == 0
        check(C, maximize, all_devices[:k], f"{n}x{m} {kind} max={maximize} dev={k}")

# Many seeds, larger: ties make many columns tight at once and many trees
# end a phase together (concurrent appends, walks and flips on a GPU).
for seed in range(16):
    r = np.random.default_rng(seed)
    n = int(r.integers(150, 420))
    m = n if seed % 2 else int(r.integers(n, n + 60))
    hi = (2, 5, 50, 10**6)[seed % 4]
    C = r.integers(0, hi, (n, m)).astype(np.int32)
    if seed % 3 == 0:
        C = C.astype(np.float32) + r.random((n, m), dtype=np.float32) * (seed % 2)
    k = counts[seed % len(counts)]
    check(C, seed % 5 == 0, all_devices[:k], f"stress {seed}: {n}x{m} hi={hi} dev={k}")

# Geometric costs (many near-ties in float32), zeros, one distinct value.
X, Y = rng.random((120, 2)), rng.random((120, 2))
check((((X[:, None] - Y[None]) ** 2).sum(-1)).astype(np.float32), label="sqdist")
check(np.zeros((40, 40), np.float32), label="zeros")
check(np.full((9, 33), 7, np.int32), label="constant")

# Forbidden (+inf) entries: a feasible pattern, and an infeasible one.
C = rng.random((50, 60))
C[rng.random((50, 60)) < 0.7] = np.inf
for i in range(50):
    C[i, i] = rng.random()
check(C, label="sparse +inf")
C = rng.random((6, 6))
C[:, :2] = np.inf
res = jaxmatch.solve_lap_split(C)
assert int(res.status) == LAPStatus.INFEASIBLE and not bool(res.feasible), res.status_name
assert (np.asarray(res.col_for_row) == -1).all()

# Maximize forbids -inf instead.
C = rng.random((20, 20))
C[0, 1:] = -np.inf
check(C, maximize=True, label="maximize -inf")

# Permuting rows and columns permutes the answer, same cost.
C = rng.integers(0, 20, (37, 41)).astype(np.int32)
p, q = rng.permutation(37), rng.permutation(41)
a = jaxmatch.solve_lap_split(C)
b = jaxmatch.solve_lap_split(C[p][:, q])
assert int(a.cost) == int(b.cost) == oracle(C, False)

# The same optimum as one device, and as solve_lap.
C = rng.random((200, 200), dtype=np.float32)
one = jaxmatch.solve_lap_split(C, devices=all_devices[:1])
many = jaxmatch.solve_lap_split(C)
ref = jaxmatch.solve_lap(C)
assert float(one.cost) == float(many.cost), (one.cost, many.cost)
assert abs(float(many.cost) - float(ref.cost)) <= 1e-5 * float(ref.cost)

# A row-sharded matrix: solve_lap_split finds the mesh itself, and its
# results stay replicated over the mesh. solve_lap gathers a matrix that
# one device holds (every matrix on CPU devices) onto the mesh's first
# device and solves it there (the planner's ROW_SHARDED_RULES); one that
# the planner sends to the split solver gets solve_lap_split's answer.
mesh = Mesh(np.array(all_devices), ("rows",))
rows = NamedSharding(mesh, PartitionSpec("rows"))
Cs = jax.device_put(rng.random((96, 96), dtype=np.float32), rows)
want = oracle(np.asarray(Cs), False)
split = jaxmatch.solve_lap_split(Cs)
gathered = jaxmatch.solve_lap(Cs)
first = next(iter(mesh.devices.flat))
for res in (split, gathered):
    assert int(res.status) == LAPStatus.OPTIMAL
    assert abs(float(res.cost) - want) <= 1e-5 * want, (res.cost, want)
    assert jaxmatch.verify_lap(np.asarray(Cs), jax.tree.map(np.asarray, res)).optimal
assert split.col_for_row.sharding.is_fully_replicated
assert len(split.col_for_row.sharding.device_set) == DEVICES
assert gathered.col_for_row.sharding.device_set == {first}
assert _plan.plan_row_sharded(Cs.shape, Cs.dtype, first, jaxmatch.LAPTuning(), lambda: 0.0) == (
    "gather"
)
on_first = jaxmatch.solve_lap(jax.device_put(np.asarray(Cs), first))
for got, ref in zip(gathered, on_first, strict=True):
    assert np.array_equal(np.asarray(got), np.asarray(ref))
plan_row_sharded = _plan.plan_row_sharded
_plan.plan_row_sharded = lambda *args: "split"  # as for a matrix no device holds
try:
    routed = jaxmatch.solve_lap(Cs)
finally:
    _plan.plan_row_sharded = plan_row_sharded
assert routed.col_for_row.sharding.is_fully_replicated
# A mesh of one device splits nothing: the planner is not asked, and the
# matrix is solved where it lies.
for got, ref in zip(routed, split if DEVICES > 1 else on_first, strict=True):
    assert np.array_equal(np.asarray(got), np.asarray(ref))

# Under jit, with the mesh given; a two-axis mesh split over both axes.
if DEVICES % 2 == 0:
    mesh2 = Mesh(np.array(all_devices).reshape(2, -1), ("a", "b"))
    solve = jax.jit(lambda C: jaxmatch.solve_lap_split(C, mesh=mesh2, axis_name=("a", "b")))
    C = rng.integers(0, 100, (70, 90)).astype(np.int32)
    res = solve(jnp.asarray(C))
    assert int(res.status) == LAPStatus.OPTIMAL and int(res.cost) == oracle(C, False)
    solve = jax.jit(lambda C: jaxmatch.solve_lap_split(C, mesh=mesh2, axis_name="b", maximize=True))
    res = solve(jnp.asarray(C))
    assert int(res.status) == LAPStatus.OPTIMAL and int(res.cost) == oracle(C, True)

# jax.vmap over a batch of problems, each split over every device.
Cb = rng.integers(0, 5, (3, 30, 34)).astype(np.int32)
res = jax.vmap(lambda c: jaxmatch.solve_lap_split(c, devices=all_devices))(jnp.asarray(Cb))
for b in range(Cb.shape[0]):
    assert int(res.status[b]) == LAPStatus.OPTIMAL, res.status
    assert int(res.cost[b]) == oracle(Cb[b], False), (b, res.cost)

# The iteration limit stops the solve; its result is not certified.
C = rng.random((80, 80))
res = jaxmatch.solve_lap_split(C, max_iterations=3)
assert int(res.status) == LAPStatus.ITERATION_LIMIT and int(res.iterations) == 3
assert not jaxmatch.verify_lap(C, jax.tree.map(np.asarray, res)).optimal

print("split: OK")
