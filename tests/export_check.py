"""``jax.export`` round trips of every family, in two fresh processes
(run by ``test_export.py``): ``export DIR PLATFORM`` serializes jitted
jaxmatch functions and saves their inputs and answers; ``run DIR PLATFORM``
deserializes them after nothing but ``import jaxmatch`` and checks that
the answers are equal. ``PLATFORM`` is ``cpu`` or ``gpu``. With a third
argument ``stale`` the export names targets of another ABI version.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import jaxmatch

MODE, DIR, PLATFORM = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
STALE = len(sys.argv) > 4 and sys.argv[4] == "stale"
DEVICE = jax.devices(PLATFORM)[0]


def problems() -> dict[str, tuple]:
    """name -> (function, arguments): every family, pytrees in and out."""
    rng = np.random.default_rng(7)
    A = (rng.random((7, 9)) < 0.4).astype(np.float32) * rng.random((7, 9), dtype=np.float32)
    A[np.arange(7), np.arange(7)] = 1.0
    import scipy.sparse as sp

    graph = jaxmatch.BipartiteGraph.from_scipy(sp.csr_array(A))
    u, v = np.triu_indices(6, 1)
    weighted = jaxmatch.Graph.from_edges(u, v, rng.random(u.size).astype(np.float32), 6)
    return {
        "solve_lap": (jaxmatch.solve_lap, (rng.random((3, 6, 8), dtype=np.float32),)),
        "hungarian": (jaxmatch.hungarian, (rng.integers(0, 9, (5, 5)).astype(np.int32),)),
        "sparse": (jaxmatch.solve_lap, (jaxmatch.SparseCosts.from_scipy(sp.csr_array(A)),)),
        "matching": (jaxmatch.max_cardinality_matching, (graph,)),
        "weighted": (jaxmatch.approximate_weighted_matching, (weighted,)),
        "b_matching": (jaxmatch.approximate_b_matching, (weighted, np.array([2, 1, 0, 3, 2, 2]))),
    }


def on_device(args):
    return jax.tree.map(lambda a: jax.device_put(jnp.asarray(a), DEVICE), args)


if MODE == "export":
    if STALE:  # as an older jaxmatch would name its targets
        jaxmatch._ffi.ABI_VERSION -= 1
    checks = jaxmatch.export_disabled_checks()
    saved = {}
    for name, (fn, args) in problems().items():
        args = on_device(args)
        exp = jax.export.export(jax.jit(fn), disabled_checks=checks)(*args)
        want = jax.tree.map(np.asarray, jax.jit(fn)(*args)) if not STALE else None
        saved[name] = (exp.serialize(), jax.tree.map(np.asarray, args), want)
    (DIR / "exported.pkl").write_bytes(pickle.dumps(saved))
    print("exported:", ", ".join(saved))
else:
    saved = pickle.loads((DIR / "exported.pkl").read_bytes())
    for name, (blob, args, want) in saved.items():
        exp = jax.export.deserialize(bytearray(blob))
        if STALE:
            try:
                jax.block_until_ready(exp.call(*on_device(args)))
            except Exception as error:  # XLA's error for an unregistered target
                abi = jaxmatch._ffi.ABI_VERSION - 1
                assert f"_abi{abi}" in str(error), str(error)[:500]
                continue
            raise AssertionError(f"{name}: a stale program ran")
        got = exp.call(*on_device(args))
        assert jax.tree.structure(got) == jax.tree.structure(want), name
        for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_array_equal(np.asarray(a), b, err_msg=name)
    print("ran:", ", ".join(saved))
