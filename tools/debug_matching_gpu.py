"""Finds which matching variant hangs on the GPU: prints before and after each call."""
import itertools, sys, time
import jax, numpy as np, scipy.sparse as sp
import jaxmatch

gpu = jax.devices("gpu")[0]
graphs = [("1x1", sp.csr_matrix(np.ones((1, 1)))),
          ("7x9", sp.random(7, 9, density=0.3, format="csr", random_state=1))]
for name, A in graphs:
    G = jax.device_put(jaxmatch.BipartiteGraph.from_scipy(A), gpu)
    for what in ["cheap"] + list(itertools.product(("fused", "stepped"), ("apfb", "apsb"), ("wr", "plain"), ("cheap", None))):
        print(name, what, "...", end=" ", flush=True)
        t = time.perf_counter()
        if what == "cheap":
            r = jaxmatch.cheap_matching(G)
        else:
            ex, m, b, i = what
            r = jaxmatch.max_cardinality_matching(G, execution=ex, method=m, bfs=b, init=i, levels_per_call=2)
        r = jax.device_get(r)
        print(f"card {int(r.cardinality)} status {int(r.status)} phases {int(r.n_phases)} levels {int(r.n_levels)} {time.perf_counter()-t:.2f}s", flush=True)
