"""Sharded batches under JAX's multi-controller runtime: one of two
processes joined by ``jax.distributed`` on localhost (gloo collectives),
each with two forced CPU devices, run by ``test_distributed.py``.

    python tests/distributed_check.py PROCESS_ID PORT

Both processes build the same global batches sharded over the four
devices, solve them with one jitted call per family, and check the shards
they hold against scipy and the certificates. Prints "distributed: OK".
"""

from __future__ import annotations

import os
import sys

PROCESS_ID, PORT = int(sys.argv[1]), int(sys.argv[2])
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402

jax.config.update("jax_cpu_collectives_implementation", "gloo")
jax.distributed.initialize(f"127.0.0.1:{PORT}", num_processes=2, process_id=PROCESS_ID)

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402
from scipy.optimize import linear_sum_assignment  # noqa: E402
from scipy.sparse.csgraph import maximum_bipartite_matching  # noqa: E402

import jaxmatch  # noqa: E402

assert jax.device_count() == 4 and jax.local_device_count() == 2, jax.devices()
MESH = jax.make_mesh((4,), ("d",))
BATCH = 8


def global_batch(tree):
    """The same NumPy batch in every process, as global arrays sharded by
    their leading dimension."""
    sharding = NamedSharding(MESH, P("d"))

    def put(x):
        x = np.asarray(x)
        return jax.make_array_from_callback(x.shape, sharding, lambda index: x[index])

    return jax.tree.map(put, tree)


def local_rows(array):
    """``{batch index: row}`` of the shards this process holds."""
    out = {}
    for shard in array.addressable_shards:
        start = shard.index[0].start or 0
        for k, row in enumerate(np.asarray(shard.data)):
            out[start + k] = row
    return out


def stack(items):
    return jax.tree.map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *items)


rng = np.random.default_rng(11)  # the same in both processes

# Dense LAP: costs and assignments against scipy.
C = rng.random((BATCH, 6, 9), dtype=np.float32)
res = jax.jit(jaxmatch.solve_lap)(global_batch(C))
costs, cols = local_rows(res.cost[:, None]), local_rows(res.col_for_row)
assert len(costs) == BATCH // 2, sorted(costs)
for b, cost in costs.items():
    r, c = linear_sum_assignment(C[b])
    assert abs(float(cost[0]) - float(C[b][r, c].sum())) <= 1e-5, (b, cost)
    assert C[b][np.arange(6), cols[b]].sum() == cost[0]

# Cardinality matching: the same maximum cardinality as scipy's.
graphs = []
for _ in range(BATCH):
    A = sp.random_array((20, 24), density=0.12, rng=rng, format="csr")
    graphs.append(jaxmatch.BipartiteGraph.from_scipy(A).pad_to(capacity=24 * 20))
res = jax.jit(jaxmatch.max_cardinality_matching)(global_batch(stack(graphs)))
held = local_rows(res.cardinality[:, None])
assert len(held) == BATCH // 2, sorted(held)
for b, cardinality in held.items():
    A = sp.csr_array((np.ones(graphs[b].nnz), graphs[b].indices[: graphs[b].nnz],
                      graphs[b].indptr), shape=(20, 24))  # fmt: skip
    want = int((maximum_bipartite_matching(A, perm_type="column") >= 0).sum())
    assert int(cardinality[0]) == want, (b, cardinality, want)

# Weighted matching: the Suitor matching's weight equals the greedy one's.
wgraphs = []
for _ in range(BATCH):
    u, v = np.triu_indices(10, 1)
    keep = rng.random(u.size) < 0.4
    w = rng.random(int(keep.sum())).astype(np.float32)
    wgraphs.append(jaxmatch.Graph.from_edges(u[keep], v[keep], w, 10).pad_to(capacity=90))
res = jax.jit(jaxmatch.approximate_weighted_matching)(global_batch(stack(wgraphs)))
held = local_rows(res.mate)
assert len(held) == BATCH // 2, sorted(held)
for b, mate in held.items():
    alone = jaxmatch.approximate_weighted_matching(wgraphs[b])
    np.testing.assert_array_equal(mate, np.asarray(alone.mate), err_msg=str(b))

print(f"process {PROCESS_ID}: distributed: OK", flush=True)
jax.distributed.shutdown()
