"""The weighted family's init against its whole solve.

The init of ``approximate_weighted_matching`` and ``approximate_b_matching``
clears the state and checks the graph: the pointers per vertex, then every
stored entry (index in range, each list sorted, each edge stored from both
ends with one key; ``cuda_ffi/weighted/check_entries.cuh``). Per graph
(``benchmarks.weighted_graphs``, uniform weights): the init alone
(``jaxmatch.weighted._ffi.weighted_init`` and ``b_matching_init``) and the
whole jitted solve (Suitor, and b-Suitor at ``--b``), medians of
``--repeats`` calls after a compiling one, each timed to
``jax.block_until_ready``.

    python -m benchmarks.weighted_init [--graphs kron:21,rgg:21,powerlaw:21] [--b 5]
        [--repeats 9]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import jaxmatch
from benchmarks.timing import waited_ms
from benchmarks.weighted_graphs import edge_weights, load_structure
from jaxmatch.weighted import _ffi as weighted_ffi
from jaxmatch.weighted.api import edge_keys


def graph_row(family: str, K: int, b: int, repeats: int) -> dict[str, Any]:
    """One graph's timings (ms) and statuses."""
    name, A, _ = load_structure(family, K, None)
    rows = np.repeat(np.arange(A.shape[0], dtype=np.int32), np.diff(A.indptr))
    w = edge_weights(family, K, "uniform", A, rows)
    G = jaxmatch.Graph(
        indptr=jnp.asarray(A.indptr.astype(np.int32)),
        indices=jnp.asarray(A.indices.astype(np.int32)),
        data=jnp.asarray(w),
        shape=A.shape,
    )
    key = jax.jit(edge_keys)(G.data)
    bs = jnp.full((G.n,), b, jnp.int32)
    init = jax.jit(lambda G, key: weighted_ffi.weighted_init(G.indptr, G.indices, key))
    b_init = jax.jit(lambda G, key: weighted_ffi.b_matching_init(G.indptr, G.indices, key, bs))
    suitor = jax.jit(jaxmatch.approximate_weighted_matching)
    b_suitor = jax.jit(jaxmatch.approximate_b_matching)
    return {
        "graph": name,
        "edges": A.nnz // 2,
        "suitor_init": waited_ms(init, G, key, repeats=repeats),
        "suitor": waited_ms(suitor, G, repeats=repeats),
        "b_init": waited_ms(b_init, G, key, repeats=repeats),
        "b_suitor": waited_ms(b_suitor, G, b, repeats=repeats),
        "status": suitor(G).status_name,
        "b_status": b_suitor(G, b).status_name,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--graphs", default="kron:21,rgg:21,powerlaw:21", help="family:K, comma-separated"
    )
    p.add_argument("--b", type=int, default=5)
    p.add_argument("--repeats", type=int, default=9)
    args = p.parse_args(argv)
    print(f"device: {jax.devices()[0]}; b = {args.b}; medians of {args.repeats} calls (ms)")
    print("| graph | edges | Suitor init | Suitor solve | b init | b solve | statuses |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for spec in args.graphs.split(","):
        family, K = spec.split(":")
        r = graph_row(family, int(K), args.b, args.repeats)
        print(
            f"| {r['graph']} | {r['edges']:,} | {r['suitor_init']:.2f} | {r['suitor']:.2f} "
            f"| {r['b_init']:.2f} | {r['b_suitor']:.2f} | {r['status']}, {r['b_status']} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
