"""Batches sharded over devices (run by test_sharded_batches.py in a fresh
process: the CPU devices must be forced before JAX starts).

    python tests/sharded_batches_check.py auto|explicit [n_devices]

(``JAX_PLATFORMS=cuda`` runs it on the GPUs instead of forced CPU devices.)

For meshes of Auto and of Explicit axes, every solver on a batch sharded over
its leading dimension: the results equal the unsharded solve's, keep the
batch sharding, and the compiled program gathers nothing (no all-gather, no
all-to-all). Prints one line per check and "sharded batches: OK" at the end.
"""

from __future__ import annotations

import functools
import os
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "auto"
DEVICES = int(sys.argv[2]) if len(sys.argv) > 2 else 4
os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={DEVICES}"
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax.sharding import AxisType, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import jaxmatch  # noqa: E402

AXIS = AxisType.Explicit if MODE == "explicit" else AxisType.Auto
MESH = jax.make_mesh((DEVICES,), ("d",), axis_types=(AXIS,))
GATHERS = ("all-gather", "all-to-all")


def shard(x, spec=None):
    return jax.device_put(x, NamedSharding(MESH, P("d") if spec is None else spec))


def stack(items):
    return jax.tree_util.tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *items)


#: Fields that are float sums over a problem. On a GPU, XLA may order such
#: a sum differently for different batch shapes (seen on H200s), so there
#: they agree to float rounding; every other field, the assignments and
#: duals included, must be equal (and on the CPU, every field).
TOTALS = ("cost", "weight")
#: Fields, by result type, that depend on the order in which GPU threads win
#: their races: a maximum matching's mates and pass counts, the Suitor
#: rounds. On a GPU they are not compared; the matchings are certified
#: instead. (Every field of a LAP result is compared.)
RACY = {
    "MatchingResult": ("col_for_row", "row_for_col", "iterations", "levels"),
    "WeightedMatchingResult": ("iterations",),
}
ON_GPU = jax.default_backend() == "gpu"


def same(name, got, want):
    """Two answers of one batch agree: on a GPU the totals to rounding and
    the racy fields not at all; the rest exactly."""
    racy = RACY.get(type(got).__name__, ())
    if hasattr(got, "_asdict"):
        pairs = [(k, got._asdict()[k], want._asdict()[k]) for k in got._fields]
    else:
        leaves = zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want))
        pairs = [(f"leaf {k}", a, b) for k, (a, b) in enumerate(leaves)]
    for field, a, b in pairs:
        a, b = np.asarray(a), np.asarray(b)
        if ON_GPU and field in racy:
            continue
        if ON_GPU and field in TOTALS and np.issubdtype(a.dtype, np.floating):
            np.testing.assert_allclose(a, b, rtol=1e-6, err_msg=f"{name}: {field}")
        else:
            np.testing.assert_array_equal(a, b, err_msg=f"{name}: {field}")


def check(name, f, sharded, plain, batch_spec=("d",), certify=None):
    """f on the sharded input equals f on the plain one (and passes
    ``certify``, given the answer on the host), keeps the batch sharding,
    and its program gathers nothing."""
    got = jax.device_get(f(sharded))
    same(name, got, jax.device_get(f(plain)))
    if certify is not None:
        certify(got)
    out = f(sharded)
    leaf = jax.tree_util.tree_leaves(out)[0]
    # On a mesh of one device every placement is the batch's (jax 0.11
    # reports it as replicated, P()).
    if leaf.sharding.num_devices > 1:
        spec = tuple(leaf.sharding.spec)[: len(batch_spec)]
        assert spec == tuple(batch_spec), f"{name}: output sharded {leaf.sharding.spec}"
    hlo = f.lower(sharded).compile().as_text()
    found = [g for g in GATHERS if g in hlo]
    assert not found, f"{name}: the compiled program has {found}"
    print(f"{name}: same results, output {leaf.sharding.spec}, no gather", flush=True)


def lap_checks(rng):
    B, n = 2 * DEVICES, 12
    C = rng.random((B, n, n)).astype(np.float32)
    Ci = rng.integers(0, 4, (B, n, n + 3)).astype(np.int32)  # ties, rectangular
    for method, execution in (("tree", "fused"), ("tree", "stepped"), ("classical", "fused")):
        f = jax.jit(functools.partial(jaxmatch.solve_lap, method=method, execution=execution))
        check(f"solve_lap {method}/{execution}", f, shard(C), C)
        check(f"solve_lap {method}/{execution} int rect", f, shard(Ci), Ci)
    f = jax.jit(functools.partial(jaxmatch.solve_lap, method="jv"))
    check("solve_lap jv", f, shard(C), C)
    check("vmap(solve_lap)", jax.jit(jax.vmap(jaxmatch.solve_lap)), shard(C), C)
    maximize = jax.jit(lambda c: jaxmatch.hungarian(c, maximize=True))
    check("hungarian maximize", maximize, shard(C), C)
    C2 = C.reshape(DEVICES, 2, n, n)  # two batch dimensions, the first sharded
    check("solve_lap [d, 2, n, n]", jax.jit(jaxmatch.solve_lap), shard(C2), C2)
    C2t = np.ascontiguousarray(np.swapaxes(C2, 0, 1))  # the second sharded
    check(
        "solve_lap [2, d, n, n]",
        jax.jit(jaxmatch.solve_lap),
        shard(C2t, P(None, "d")),
        C2t,
        batch_spec=(None, "d"),
    )
    if MODE == "auto":  # (Explicit axes refuse an uneven slice)
        # a batch sliced inside jit to a size that does not divide over the
        # devices: solved replicated
        f = jax.jit(lambda c: jaxmatch.solve_lap(c[: DEVICES + 1]))
        same("solve_lap uneven", jax.device_get(f(shard(C))), jax.device_get(f(C)))
    g = jax.jit(jaxmatch.solve_lap)
    same("solve_lap replicated", jax.device_get(g(shard(C, P()))), jax.device_get(g(C)))
    print("solve_lap uneven and replicated batches: same results", flush=True)


def matching_checks(rng):
    graphs = []
    for _ in range(2 * DEVICES):
        u, v = rng.integers(0, 20, 50), rng.integers(0, 16, 50)
        graphs.append(jaxmatch.BipartiteGraph.from_edges(u, v, 20, 16).pad_to(64))
    G = stack(graphs)

    def certify(res):
        for k, graph in enumerate(graphs):
            member = jax.tree_util.tree_map(lambda x, k=k: x[k], res)
            cert = jaxmatch.verify_matching(graph, member)
            assert cert.valid and cert.maximum, cert.reason

    for execution in ("fused", "stepped"):
        for init in ("cheap", "karp-sipser"):
            f = jax.jit(
                functools.partial(jaxmatch.max_cardinality_matching, execution=execution, init=init)
            )
            name = f"max_cardinality_matching {execution}/{init}"
            check(name, f, shard(G), G, certify=certify)
    f = jax.jit(functools.partial(jaxmatch.max_cardinality_matching, method="pr"))
    check("max_cardinality_matching pr", f, shard(G), G, certify=certify)


def weighted_checks(rng):
    graphs = []
    for _ in range(2 * DEVICES):
        u, v = rng.integers(0, 30, 90), rng.integers(0, 30, 90)
        w = rng.integers(1, 4, 90).astype(np.float32)
        graphs.append(jaxmatch.Graph.from_edges(u, v, w, 30).pad_to(256))
    G = stack(graphs)
    for method in ("suitor", "ld"):
        f = jax.jit(functools.partial(jaxmatch.approximate_weighted_matching, method=method))
        check(f"approximate_weighted_matching {method}", f, shard(G), G)


def main() -> None:
    assert len(jax.devices()) == DEVICES, jax.devices()
    rng = np.random.default_rng(7)
    lap_checks(rng)
    matching_checks(rng)
    weighted_checks(rng)
    print("sharded batches: OK", flush=True)


if __name__ == "__main__":
    main()
