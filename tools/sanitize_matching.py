"""A representative matching workload for compute-sanitizer (memcheck).

Every driver x level kernel x init x execution shape x thread mapping, on
graphs with free rows and columns left, batched (vmap) and single, plus a
malformed graph (the kernels must reject it without touching memory out of
bounds).  Run with XLA_PYTHON_CLIENT_ALLOCATOR=platform so every XLA buffer
is its own cudaMalloc.  Exits non-zero if any result fails its certificate.
"""

from __future__ import annotations

import itertools
import sys

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp

import jaxmatch


def graphs(rng):
    out = []
    for nr, nc, dens in ((7, 9, 0.3), (40, 31, 0.08), (300, 260, 0.01), (2000, 2100, 0.002)):
        A = sp.random(nr, nc, density=dens, format="csr", random_state=int(rng.integers(1 << 30)))
        out.append(jaxmatch.BipartiteGraph.from_scipy(A))
    return out


def main() -> int:
    rng = np.random.default_rng(0)
    bad = 0
    runs = 0
    for G in graphs(rng):
        for method, bfs, init, execution, mapping in itertools.product(
            ("apfb", "apsb", "hybrid"), ("wr", "plain"), ("cheap", None), ("fused", "stepped"), ("ct", "mt")
        ):
            if execution == "fused" and mapping == "mt":
                continue
            res = jaxmatch.max_cardinality_matching(
                G, method=method, bfs=bfs, init=init, execution=execution, mapping=mapping
            )
            runs += 1
            if not jaxmatch.verify_matching(G, res).maximum:
                bad += 1
    # a batch of padded graphs, both shapes
    Gs = [jaxmatch.BipartiteGraph.from_scipy(sp.random(50, 40, density=0.05, format="csr", random_state=s))
          for s in range(6)]
    cap = max(int(g.cadj.shape[0]) for g in Gs)
    Gb = jax.tree.map(lambda *x: jnp.stack(x), *[g.pad_to(cap) for g in Gs])
    for execution in ("fused", "stepped"):
        res = jax.vmap(lambda G: jaxmatch.max_cardinality_matching(G, execution=execution))(Gb)
        for i, G in enumerate(Gs):
            runs += 1
            member = jax.tree.map(lambda x: x[i], res)
            if not jaxmatch.verify_matching(G, member).maximum:
                bad += 1
    # malformed column CSR built without validation: a row index out of range
    G = Gs[0]
    cadj = G.cadj.at[0].set(10**6)
    broken = jaxmatch.BipartiteGraph(G.cxadj, cadj, G.rxadj, G.radj, G.n_rows, G.n_cols)
    for execution in ("fused", "stepped"):
        res = jaxmatch.max_cardinality_matching(broken, execution=execution)
        runs += 1
        if int(res.status) != jaxmatch.MatchingStatus.INVALID_GRAPH:
            bad += 1
    print(f"sanitize matching workload done: {runs} runs, failed checks: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
