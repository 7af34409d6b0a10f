#!/usr/bin/env python3
"""Writes benchmark graphs for tools/mcm_levels.cu: int32 n_rows, n_cols, nnz,
then the column CSR (cxadj [n_cols + 1], cadj [nnz], rows sorted).  For a
permuted graph (``:rcp``) it also writes NAME.perm.bin: int32 n_rows, n_cols,
then p [n_rows] and q [n_cols], the permutations of ``permute`` (the graph is
``A[p][:, q]`` of the original A).

    python3 tools/mcm_dump_graph.py OUTDIR delaunay:20 rgg:20:rcp ...

Graphs come from the matching benchmark's generators and cache
(``benchmarks/matching/graphs.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

# The generators live in the benchmarks package at the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.matching.graphs import (
    graph_name,
    graph_params,
    load_graph,
    rcp_permutations,
)


def dump(A, path: Path) -> None:
    C = A.tocsc()
    C.sort_indices()
    n_rows, n_cols = A.shape
    with open(path, "wb") as f:
        np.asarray([n_rows, n_cols, C.nnz], np.int32).tofile(f)
        C.indptr.astype(np.int32).tofile(f)
        C.indices.astype(np.int32).tofile(f)


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for spec in argv[1:]:
        family, K, *rest = spec.split(":")
        permuted = rest == ["rcp"]
        A, _ = load_graph(graph_params(family, int(K)), permuted)
        path = out / f"{graph_name(family, int(K), permuted)}.bin"
        dump(A, path)
        print(path, A.shape, A.nnz, flush=True)
        if permuted:
            p, q = rcp_permutations(family, int(K), *A.shape)
            with open(path.with_suffix(".perm.bin"), "wb") as f:
                np.asarray(A.shape, np.int32).tofile(f)
                p.astype(np.int32).tofile(f)
                q.astype(np.int32).tofile(f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
