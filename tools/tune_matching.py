"""Times the matching solver's options on the GPU, to set the defaults
(execution crossover, CT vs MT, levels per call).

Usage: python tools/tune_matching.py [--sizes 12 14 16 18] [--budget 2]
Prints one line per (graph, option set): median seconds, phases, levels.
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import numpy as np
import scipy.sparse as sp
from scipy.spatial import Delaunay

import jaxmatch


def delaunay(k: int, rng) -> sp.csr_matrix:
    pts = rng.random((1 << k, 2))
    tri = Delaunay(pts).simplices
    e = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [0, 2]]])
    e = np.concatenate([e, e[:, ::-1]])
    n = 1 << k
    A = sp.csr_matrix((np.ones(len(e), np.int8), (e[:, 0], e[:, 1])), shape=(n, n))
    A.sum_duplicates()
    return A


def permuted(A, rng):
    p, q = rng.permutation(A.shape[0]), rng.permutation(A.shape[1])
    return A[p][:, q].tocsr()


def timeit(fn, *args, budget=2.0, repeats=5):
    out = jax.block_until_ready(fn(*args))
    times = []
    while len(times) < repeats and sum(times) < budget:
        t0 = time.perf_counter()
        out = jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[12, 14, 16, 18])
    ap.add_argument("--budget", type=float, default=2.0)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    gpu = jax.devices("gpu")[0]
    cpu = jax.devices("cpu")[0]
    for k in args.sizes:
        A0 = delaunay(k, rng)
        for label, A in (("orig", A0), ("perm", permuted(A0, rng))):
            G = jaxmatch.BipartiteGraph.from_scipy(A)
            cheap = jaxmatch.cheap_matching(jax.device_put(G, cpu))
            rm, cm = np.asarray(cheap.col_for_row), np.asarray(cheap.row_for_col)
            name = f"delaunay_n{k}/{label} nnz={A.nnz} cheap={int(cheap.cardinality)}"
            variants = [("cpu", "fused", "apfb", "wr", "ct", None)]
            if k <= 14:
                variants.append(("gpu", "fused", "apfb", "wr", "ct", None))
            for method in ("apfb", "apsb", "hybrid"):
                for bfs in ("wr", "plain"):
                    for mapping in ("ct", "mt"):
                        variants.append(("gpu", "stepped", method, bfs, mapping, None))
            for lpc in (4, 64):
                variants.append(("gpu", "stepped", "apfb", "wr", "ct", lpc))
            for dev, execution, method, bfs, mapping, lpc in variants:
                d = gpu if dev == "gpu" else cpu
                Gd, rmd, cmd = jax.device_put((G, rm, cm), d)
                fn = jax.jit(
                    lambda G, rm, cm, e=execution, m=method, b=bfs, mp=mapping, lpc=lpc: (
                        jaxmatch.max_cardinality_matching(
                            G,
                            method=m,
                            bfs=b,
                            mapping=mp,
                            execution=e,
                            levels_per_call=lpc,
                            init=(rm, cm),
                        )
                    )
                )
                try:
                    t, res = timeit(fn, Gd, rmd, cmd, budget=args.budget)
                except Exception as err:  # report and go on
                    print(f"{name} {dev}/{execution}/{method}/{bfs}/{mapping}/{lpc}: ERROR {err}")
                    continue
                ok = jaxmatch.verify_matching(G, jax.device_get(res)).maximum
                print(
                    f"{name} {dev}/{execution}/{method}/{bfs}/{mapping}/lpc={lpc}: "
                    f"{t * 1e3:.2f} ms card={int(res.cardinality)} phases={int(res.iterations)} "
                    f"levels={int(res.levels)} certified={ok}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
