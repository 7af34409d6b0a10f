"""Any input sharding, on meshes of Auto and of Explicit axes (run by
``test_sharded_batches.py`` in a fresh process on four forced CPU devices).

Dense costs sharded by batch, rows, columns or both, and batches of sparse
costs and graphs sharded by batch or along their entries: eager and jitted
solves equal the unsharded ones, and a jitted dense solve gathers the
matrix once (at most one all-gather per mesh axis that shards a problem,
none inside a loop). Prints "any sharding: OK".
"""

from __future__ import annotations

import os
import re

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax
import numpy as np
import scipy.sparse as sp
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

import jaxmatch

rng = np.random.default_rng(5)


def stack(items):
    return jax.tree.map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *items)


#: Float sums over a problem: a partitioned gather may add them in another
#: order, so they agree to rounding; every other field must be equal.
TOTALS = ("cost", "weight")


def equal(got, want, label):
    for name, a, b in zip(want._fields, got, want, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        if name in TOTALS and a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=4 * np.finfo(a.dtype).eps, err_msg=label)
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"{label}: {name}")


def gathers(fn, *args) -> list[str]:
    """The all-gathers of ``fn``'s compiled program, with the computation
    each sits in."""
    text = jax.jit(fn).lower(*args).compile().as_text()
    found, computation = [], ""
    for line in text.splitlines():
        head = re.match(r"^(?:ENTRY )?%?([\w.\-]+) ", line)
        if head and line.rstrip().endswith("{"):
            computation = head.group(1)
        if re.search(r" all-gather\(", line):
            found.append(computation)
    return found


C2 = rng.random((24, 24), dtype=np.float32)
C3 = rng.integers(0, 9, (4, 12, 16)).astype(np.int32)
DENSE = {
    "rows": (C2, P("x", None)),
    "columns": (C2, P(None, "x")),
    "both": (C2, P("x", "y")),
    "batch": (C3, P("x")),
    "batch and columns": (C3, P("x", None, "y")),
    "rows and columns": (C3, P(None, "x", "y")),
}
bipartite = stack(
    [
        jaxmatch.BipartiteGraph.from_scipy(
            sp.random_array((16, 16), density=0.2, rng=rng, format="csr")
        ).pad_to(capacity=128)
        for _ in range(4)
    ]
)
u, v = np.triu_indices(8, 1)
weighted = stack(
    [
        jaxmatch.Graph.from_edges(u, v, rng.random(u.size).astype(np.float32), 8).pad_to(
            capacity=64
        )
        for _ in range(4)
    ]
)
costs = stack([jaxmatch.SparseCosts.from_scipy(sp.csr_array(rng.random((8, 8)))) for _ in range(4)])
GRAPHS = {
    "sparse costs": (jaxmatch.solve_lap, costs),
    "matching": (jaxmatch.max_cardinality_matching, bipartite),
    "weighted": (jaxmatch.approximate_weighted_matching, weighted),
}

for axis in (AxisType.Auto, AxisType.Explicit):
    mesh = jax.make_mesh((2, 2), ("x", "y"), axis_types=(axis, axis))
    for label, (C, spec) in DENSE.items():
        want = jaxmatch.solve_lap(C)
        Cs = jax.device_put(C, NamedSharding(mesh, spec))
        equal(jaxmatch.solve_lap(Cs), want, f"{axis.name} {label} eager")
        equal(jax.jit(jaxmatch.solve_lap)(Cs), want, f"{axis.name} {label} jit")
        cols = jax.jit(jaxmatch.hungarian)(Cs)
        np.testing.assert_array_equal(cols, np.asarray(want.col_for_row))
        found = gathers(jaxmatch.solve_lap, Cs)
        core_axes = [a for entry in tuple(spec)[C.ndim - 2 :] if entry for a in (entry,)]
        assert len(found) <= len(core_axes), (label, found)
        assert not any("while" in c or "body" in c for c in found), (label, found)
        print(f"{axis.name} dense {label}: OK ({len(found)} all-gathers)")
    for label, (fn, batch) in GRAPHS.items():
        want = jax.vmap(fn)(batch)
        for where, spec in (("batch", P(("x", "y"))), ("entries", P(None, ("x", "y")))):

            def put(a, spec=spec, mesh=mesh):
                a = np.asarray(a)
                fits = a.ndim >= len(spec) and all(
                    e is None or a.shape[i] % 4 == 0 for i, e in enumerate(spec)
                )
                return jax.device_put(a, NamedSharding(mesh, spec if fits else P()))

            sharded = jax.tree.map(put, batch)
            equal(fn(sharded), want, f"{axis.name} {label} by {where} eager")
            equal(jax.jit(fn)(sharded), want, f"{axis.name} {label} by {where} jit")
            print(f"{axis.name} {label} sharded by {where}: OK")

print("any sharding: OK")
