"""Maximum transversal of a sparse matrix: structural rank and a zero-free diagonal.

A *transversal* is a set of stored entries of a sparse matrix, no two in the
same row or column: a matching of the bipartite graph rows x columns whose
edges are the stored entries. A maximum one has the *structural rank* of the
matrix as its size (the rank of almost every matrix with that sparsity
pattern). Sparse direct solvers permute the rows along it so that the
diagonal has no zeros before they factor.

This example reads a Matrix Market file (``scipy.io.mmread``) -- with no
argument it generates a random sparse matrix of about ``--degree`` entries
per column, which leaves some rows and columns empty and so is structurally
rank deficient, writes it to a temporary ``.mtx`` file and reads it back --
then:

* solves ``jaxmatch.max_cardinality_matching`` on it and checks that the
  cardinality equals ``scipy.sparse.csgraph.structural_rank``;
* certifies the matching with ``jaxmatch.verify_matching`` (a Koenig vertex
  cover as small as the matching proves it maximum);
* permutes the matrix, matched columns first and each matched column's row
  onto the diagonal, and checks that the permuted matrix has a stored entry
  at every diagonal position ``i < rank`` and none in the block of unmatched
  rows x unmatched columns (an entry there would extend the matching);
* times ``jaxmatch.maximum_bipartite_matching`` (the eager scipy drop-in),
  the jitted ``max_cardinality_matching`` and scipy's
  ``maximum_bipartite_matching``;
* with ``--plot out.png``, saves the sparsity patterns before and after the
  permutation (needs matplotlib; without it the plot is skipped with a
  message).

Run: ``python examples/max_transversal.py [matrix.mtx] [--plot out.png]``.
Exits non-zero if a check fails.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import jax
import numpy as np
import scipy.io
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_bipartite_matching, structural_rank

import jaxmatch


def random_matrix(rows: int, cols: int, degree: float, seed: int) -> sp.csr_array:
    rng = np.random.default_rng(seed)
    return sp.random_array(
        (rows, cols), density=degree / rows, format="csr", rng=rng, data_sampler=rng.standard_normal
    )


def best_time(fn, repeat: int) -> float:
    """Seconds of the fastest of ``repeat`` calls (after one warm-up call)."""
    jax.block_until_ready(fn())
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - t0)
    return min(times)


def plot(A: sp.csr_array, B: sp.csr_array, rank: int, path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: plot skipped (pip install matplotlib)")
        return
    markersize = max(0.05, min(2.0, 100 / np.sqrt(A.nnz)))
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.5))
    for ax, M, title in ((axes[0], A, "as read"), (axes[1], B, "rows and columns permuted")):
        ax.spy(M, markersize=markersize)
        ax.set_title(f"{title} ({M.shape[0]} x {M.shape[1]}, {M.nnz} entries)", fontsize=10)
    axes[1].plot([0, rank - 1], [0, rank - 1], "r-", lw=0.5, label=f"zero-free diagonal, {rank}")
    axes[1].legend(loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"sparsity plots written to {path}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("matrix", nargs="?", help="Matrix Market file (default: a random matrix)")
    p.add_argument("--rows", type=int, default=30000, help="rows of the random matrix")
    p.add_argument("--cols", type=int, default=30000, help="columns of the random matrix")
    p.add_argument("--degree", type=float, default=2.5, help="mean entries per column")
    p.add_argument("--repeat", type=int, default=5, help="timed calls per solver (best kept)")
    p.add_argument("--plot", metavar="PNG", help="save before/after sparsity plots here")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    print(f"jaxmatch {jaxmatch.__version__} on {jax.default_backend()}")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.matrix
        if path is None:
            path = os.path.join(tmp, "random.mtx")
            scipy.io.mmwrite(path, random_matrix(args.rows, args.cols, args.degree, args.seed))
        A = sp.csr_array(scipy.io.mmread(path))
    n_rows, n_cols = A.shape
    print(f"{path if args.matrix else 'random matrix'}: {n_rows} x {n_cols}, {A.nnz} entries")

    G = jaxmatch.BipartiteGraph.from_scipy(A)
    solve = jax.jit(jaxmatch.max_cardinality_matching)
    res = solve(G)
    rank = int(res.cardinality)
    scipy_rank = int(structural_rank(A))
    cert = jaxmatch.verify_matching(G, res)
    print(
        f"structural rank {rank} (scipy: {scipy_rank}; deficiency {min(A.shape) - rank}), "
        f"{int(res.iterations)} phases, status {res.status_name}; "
        f"certificate: Koenig cover of {cert.cover_size} vertices, maximum = {cert.maximum}"
    )
    failures = []
    if rank != scipy_rank:
        failures.append(f"cardinality {rank} != scipy's structural rank {scipy_rank}")
    if not cert.maximum:
        failures.append(f"certificate failed: {cert.reason}")

    # Matched columns first, each with its row on the diagonal; then the rest.
    row_for_col = np.asarray(res.row_for_col)
    matched_cols = np.flatnonzero(row_for_col >= 0)
    col_perm = np.concatenate([matched_cols, np.flatnonzero(row_for_col < 0)])
    row_matched = np.zeros(n_rows, bool)
    row_matched[row_for_col[matched_cols]] = True
    row_perm = np.concatenate([row_for_col[matched_cols], np.flatnonzero(~row_matched)])
    B = A[row_perm][:, col_perm]
    pattern = B.copy()
    pattern.data[:] = 1  # stored entries, explicit zeros included
    on_diagonal = int(pattern.diagonal()[:rank].sum())
    trailing = int(pattern[rank:, rank:].nnz)
    print(
        f"permuted: {on_diagonal}/{rank} leading diagonal positions hold an entry; "
        f"the unmatched {n_rows - rank} x {n_cols - rank} block holds {trailing} entries"
    )
    if on_diagonal != rank:
        failures.append("the permuted matrix has a zero on its leading diagonal")
    if trailing:
        failures.append("an entry joins an unmatched row and an unmatched column")

    perm = jaxmatch.maximum_bipartite_matching(A, perm_type="column")
    ref = maximum_bipartite_matching(A, perm_type="column")
    if int((perm >= 0).sum()) != rank or int((ref >= 0).sum()) != rank:
        failures.append("the drop-in or scipy found a matching of another size")
    t_dropin = best_time(lambda: jaxmatch.maximum_bipartite_matching(A), args.repeat)
    t_jit = best_time(lambda: solve(G), args.repeat)
    t_scipy = best_time(lambda: maximum_bipartite_matching(A), args.repeat)
    print(
        f"best of {args.repeat}: jaxmatch.maximum_bipartite_matching {t_dropin * 1e3:.2f} ms, "
        f"jit(max_cardinality_matching) {t_jit * 1e3:.2f} ms, "
        f"scipy maximum_bipartite_matching {t_scipy * 1e3:.2f} ms"
    )
    if args.plot:
        plot(A, B, rank, args.plot)
    if failures:
        raise SystemExit("FAIL: " + "; ".join(failures))
    print("all checks passed")


if __name__ == "__main__":
    main()
