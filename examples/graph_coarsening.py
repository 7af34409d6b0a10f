"""Multilevel heavy-edge-matching coarsening of a weighted 2D triangular mesh.

Multilevel graph partitioners (METIS, KaHIP, Scotch) and aggregation AMG
shrink a graph level by level: match vertices along heavy edges, then merge
each matched pair into one coarse vertex. Here each level's matching is
``jaxmatch.approximate_weighted_matching`` (Suitor: the locally dominant
matching, the greedy 1/2-approximation of the maximum weight matching), and
the contraction is the sparse triple product ``P^T A P``, where ``P`` is the
``n x n_coarse`` 0/1 matrix mapping each vertex to its coarse vertex: it sums
the weights of parallel edges into one coarse edge and moves the weights of
contracted edges onto the diagonal (then dropped). Vertex weights are summed
the same way (``P^T w``). The matching weighs an edge ``{u, v}`` by
``a_uv / (w_u w_v)`` (the "normalized heavy edge" of the partitioners):
matching on the summed weights alone lets one ever heavier cluster swallow
its neighbours level after level, and the coarsening stalls. A graph's size
is static under ``jax.jit``, so every level's graph is padded to the mesh's
vertex count and edge capacity (isolated vertices are never matched): the
matching compiles once, not once per level.

The mesh is the Delaunay triangulation of ``--points`` random points in the
unit square, with edge weights ``1 / length`` (``--weights geometric``: short
edges are contracted first) or uniform random (``--weights random``).

Each level prints its vertices, edges, matched fraction (matched vertices /
vertices) and the certificate's ratio (a proven lower bound on weight /
optimum). Coarsening stops when at most ``--target`` vertices are left.
Checks, at every level: the certificate of ``verify_weighted_matching`` is
valid and locally dominant, the vertex count shrinks, the total vertex weight
is the number of original vertices, the edge weight is conserved (coarse
edges plus contracted edges) and the number of connected components does not
change.

Run: ``python examples/graph_coarsening.py [--points 20000 --target 100]``.
Exits non-zero if a check fails.
"""

from __future__ import annotations

import argparse
import functools
import time

import jax
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.spatial import Delaunay

import jaxmatch


def mesh(points: int, weights: str, seed: int) -> sp.csr_array:
    """Symmetric weighted adjacency matrix of a random Delaunay mesh."""
    rng = np.random.default_rng(seed)
    xy = rng.random((points, 2))
    tri = Delaunay(xy).simplices
    e = np.concatenate([tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [0, 2]]])
    e = np.unique(np.sort(e, axis=1), axis=0)
    if weights == "geometric":
        w = 1.0 / np.linalg.norm(xy[e[:, 0]] - xy[e[:, 1]], axis=1)
    else:
        w = rng.uniform(0.1, 1.0, len(e))
    A = sp.coo_array((w, (e[:, 0], e[:, 1])), shape=(points, points))
    return (A + A.T).tocsr()


def contract(A: sp.csr_array, mate: np.ndarray) -> tuple[sp.csr_array, sp.csr_array, float]:
    """Merges matched pairs; returns the coarse matrix, ``P`` and the weight
    of the contracted edges."""
    n = A.shape[0]
    v = np.arange(n)
    root = np.where(mate >= 0, np.minimum(v, mate), v)
    _, coarse = np.unique(root, return_inverse=True)
    P = sp.csr_array((np.ones(n), (v, coarse)), shape=(n, coarse.max() + 1))
    Ac = (P.T @ A @ P).tocsr()
    internal = Ac.diagonal().sum() / 2  # each contracted edge is stored twice in A
    Ac.setdiag(0)
    Ac.eliminate_zeros()
    return Ac, P, internal


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--points", type=int, default=20000, help="mesh vertices")
    p.add_argument("--weights", choices=("geometric", "random"), default="geometric")
    p.add_argument("--target", type=int, default=100, help="stop at this many vertices")
    p.add_argument("--max-levels", type=int, default=40)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    print(f"jaxmatch {jaxmatch.__version__} on {jax.default_backend()}")
    A = mesh(args.points, args.weights, args.seed)
    n0, total = A.shape[0], A.sum() / 2
    vw = np.ones(n0)
    n_comp = connected_components(A, directed=False)[0]
    contracted, levels = 0.0, 0
    capacity = 2 * sp.triu(A, k=1).nnz  # every edge is stored from both ends
    match = jax.jit(functools.partial(jaxmatch.approximate_weighted_matching, method="suitor"))
    failures = []
    print(f"{'level':>5} {'vertices':>9} {'edges':>9} {'matched':>8} {'ratio':>7} {'max vw':>7}")
    t0 = time.perf_counter()
    for level in range(args.max_levels):
        n = A.shape[0]
        upper = sp.triu(A, k=1).tocoo()
        score = upper.data / (vw[upper.row] * vw[upper.col])
        # Padded to the mesh's size (isolated vertices, unused edge slots):
        # one compiled matching serves every level.
        G = jaxmatch.Graph.from_edges(upper.row, upper.col, score, n0).pad_to(capacity)
        res = match(G)
        cert = jaxmatch.verify_weighted_matching(G, res)
        card = int(res.cardinality)
        print(
            f"{level:5d} {n:9d} {upper.nnz:9d} {2 * card / n:8.3f} {cert.ratio:7.3f} "
            f"{vw.max():7.0f}"
        )
        if not (cert.valid and cert.locally_dominant and cert.ratio >= 0.5):
            failures.append(f"level {level}: certificate failed: {cert.reason}")
        if n <= args.target or card == 0:
            break
        A, P, internal = contract(A, np.asarray(res.mate)[:n])
        contracted += internal
        levels += 1
        vw = P.T @ vw
        if A.shape[0] != n - card:
            failures.append(f"level {level}: {n} - {card} matched pairs != {A.shape[0]}")
        if vw.sum() != n0:
            failures.append(f"level {level}: total vertex weight {vw.sum()} != {n0}")
        if not np.isclose(A.sum() / 2 + contracted, total, rtol=1e-9):
            failures.append(f"level {level}: edge weight not conserved")
        if connected_components(A, directed=False)[0] != n_comp:
            failures.append(f"level {level}: connected components changed")
    n = A.shape[0]
    print(
        f"{n0} -> {n} vertices in {levels} contractions, {time.perf_counter() - t0:.2f} s; "
        f"{contracted / total:.1%} of the edge weight contracted"
    )
    if n > args.target:
        failures.append(f"stopped at {n} vertices, above the target {args.target}")
    if failures:
        raise SystemExit("FAIL: " + "; ".join(failures))
    print("all checks passed")


if __name__ == "__main__":
    main()
