#!/usr/bin/env python3
"""Test graphs of the matching benchmark (`python -m benchmarks run matching`).

Regenerates the three graph families of the GPU matching papers (Deveci,
Kaya, Ucar, Catalyurek), which took them from the UF (SuiteSparse)
collection's DIMACS10 group, at 2^K vertices:

* ``delaunay_nK``: the Delaunay triangulation of 2^K uniform random points in
  the unit square (``scipy.spatial.Delaunay``, qhull).
* ``rgg_n_2_K``: the random geometric graph of 2^K uniform random points in
  the unit square, an edge between two points closer than
  ``r = 0.55 * sqrt(ln n / n)`` (``--rgg-radius dimacs``, the default, the
  DIMACS10 generator's radius: it gives the UF graphs' degree, e.g. 13.8 at
  2^21 against rgg_n_2_21_s0's 28,975,990 / 2,097,152 = 13.8) or
  ``r = 0.55 * sqrt(ln n / (pi n))`` (``--rgg-radius pi``, the formula in the
  benchmark issue; average degree 0.3025 ln n, a third of the UF graphs').
* ``kron_g500-lognK``: the Graph500 Kronecker generator (R-MAT: A, B, C, D =
  0.57, 0.19, 0.19, 0.05; ``edge_factor * 2^K`` edges, default edge factor 16
  as in the issue), vertex labels randomly permuted as Graph500 does, then
  symmetrised, self-loops and duplicate edges dropped. The UF
  kron_g500-logn16..21 graphs are denser (kron_g500-logn20: 89,239,674
  nonzeros, 85 per vertex, which needs edge factor 48: with 16 a graph has at
  most 32 nonzeros per vertex): ``--kron-edge-factor 48`` reproduces their
  density.

and graphs whose augmenting paths are long, whose sides differ, or that are
plainly random:

* ``honeycomb_nK``: a honeycomb lattice of about 2^K vertices (a brick wall:
  an R x C grid with every horizontal edge and the vertical edges of the
  cells whose row + column is even; degree at most 3, like the UF meshes
  hugebubbles and hugetrace), 1 % of its edges removed at random; vertices
  row by row.
* ``road_nK``: a 2D grid of about 2^K vertices with 30 % of its edges
  removed at random (road-network-like: degree at most 4, long detours);
  vertices row by row.
* ``er_nK``: the Erdos-Renyi graph of 2^K vertices and ``avg_degree / 2 *
  2^K`` edges drawn uniformly (average degree 4 by default), loops and
  duplicates dropped: random, low degree, short augmenting paths; its
  numbering has no locality, so its RCP graph is another draw of the same.
* ``powerlaw-rect_nK``: a rectangular bipartite Chung-Lu graph, 2^K rows and
  3 * 2^(K-2) columns, ``8 * 2^K`` edges drawn with row and column
  probabilities proportional to ``(i + 1) ** (-1 / 1.3)`` (expected degrees
  a power law of exponent 2.3 on each side), labels permuted, duplicates
  dropped. It is the one matrix here that is not square and symmetric.

Every other graph is the n x n symmetric 0/1 adjacency matrix A (no self-loops)
read as a bipartite graph, rows = vertices, columns = vertices, an edge (i, j)
per nonzero, as the papers read the UF matrices. The geometric families number
their vertices along a Z-order (Morton) curve of the points, so the "original"
matrices have the locality of the UF matrices (a random point order would
already be a random symmetric permutation). ``permute`` gives the papers' RCP
sets: ``A[p][:, q]`` with independent random row and column permutations.

Matrices are scipy ``csr_matrix`` with int32 ``indptr``/``indices``, sorted
indices, int8 data (all ones). ``load_graph`` caches them as ``.npz`` (raw
CSR arrays, uncompressed) under a cache directory, keyed by every parameter
that changes the graph.

    python -m benchmarks.matching.graphs --sizes 16 18 20 --families delaunay,rgg,kron
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

FAMILIES = ("delaunay", "rgg", "kron", "honeycomb", "road", "er", "powerlaw-rect")
#: The families whose matrix is square and symmetric.
SYMMETRIC_FAMILIES = ("delaunay", "rgg", "kron", "honeycomb", "road", "er")
BASE_SEED = 20130826  # Euro-Par 2013
DEFAULT_CACHE = "/tmp/jm_graphs"

# Graph500 / R-MAT initiator probabilities.
KRON_A, KRON_B, KRON_C = 0.57, 0.19, 0.19


def graph_name(family: str, K: int, permuted: bool = False) -> str:
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; known: {FAMILIES}")
    special = {"rgg": f"rgg_n_2_{K}", "kron": f"kron_g500-logn{K}"}
    return special.get(family, f"{family}_n{K}") + ("-rcp" if permuted else "")


def _seed(family: str, K: int, what: str) -> int:
    h = hashlib.sha256(f"{family}/{K}/{what}".encode()).digest()
    return (BASE_SEED + int.from_bytes(h[:4], "little")) % (2**32)


# --------------------------------------------------------------------------
# CSR helpers
# --------------------------------------------------------------------------


def _csr(indptr, indices, n: int, m: int | None = None) -> sp.csr_matrix:
    indptr = np.asarray(indptr, dtype=np.int32) if indptr[-1] < 2**31 else np.asarray(indptr)
    indices = np.asarray(indices, dtype=np.int32)
    data = np.ones(indices.shape[0], dtype=np.int8)
    A = sp.csr_matrix((data, indices, indptr), shape=(n, n if m is None else m), copy=False)
    return A


def _morton_order(P: np.ndarray, bits: int = 16) -> np.ndarray:
    """Permutation sorting 2-D points in [0, 1)^2 along a Z-order curve."""
    q = np.clip((P * (1 << bits)).astype(np.uint64), 0, (1 << bits) - 1)

    def spread(x):
        x = (x | (x << np.uint64(16))) & np.uint64(0x0000FFFF0000FFFF)
        x = (x | (x << np.uint64(8))) & np.uint64(0x00FF00FF00FF00FF)
        x = (x | (x << np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
        x = (x | (x << np.uint64(2))) & np.uint64(0x3333333333333333)
        x = (x | (x << np.uint64(1))) & np.uint64(0x5555555555555555)
        return x

    code = spread(q[:, 0]) | (spread(q[:, 1]) << np.uint64(1))
    return np.argsort(code, kind="stable")


def _points(family: str, K: int, order: str) -> np.ndarray:
    n = 1 << K
    P = np.random.default_rng(_seed(family, K, "points")).random((n, 2))
    if order == "spatial":
        P = P[_morton_order(P)]
    elif order != "random":
        raise ValueError(f"order must be 'spatial' or 'random', got {order!r}")
    return P


def sorted_unique(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)`` for a 1-D integer array, by sort + mask: numpy 2.4's
    ``np.unique`` took 21 s on 16.7M int64 keys where this takes 0.14 s."""
    s = np.sort(a)
    if s.size == 0:
        return s
    keep = np.empty(s.size, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def _sym_from_pairs(i: np.ndarray, j: np.ndarray, n: int) -> sp.csr_matrix:
    """Symmetric CSR from undirected pairs (any order, loops and duplicates
    allowed: both are dropped)."""
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    keep = lo != hi
    key = sorted_unique(lo[keep] * n + hi[keep])  # sorted: by lo, then hi
    del lo, hi, keep
    lo = (key // n).astype(np.int32)
    hi = (key % n).astype(np.int32)
    del key
    counts = np.bincount(lo, minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    U = _csr(indptr, hi, n)  # strictly upper, sorted indices
    del lo, hi
    L = U.T.tocsr()  # csr_tocsc in C++: sorted indices
    A = (U + L).tocsr()
    A.indices = A.indices.astype(np.int32, copy=False)
    A.indptr = A.indptr.astype(np.int32, copy=False) if A.nnz < 2**31 else A.indptr
    A.sort_indices()
    return A


# --------------------------------------------------------------------------
# Generators
# --------------------------------------------------------------------------


def delaunay(K: int, order: str = "spatial") -> sp.csr_matrix:
    from scipy.spatial import Delaunay

    n = 1 << K
    P = _points("delaunay", K, order)
    tri = Delaunay(P)
    indptr, indices = tri.vertex_neighbor_vertices
    del tri
    A = _csr(indptr, indices, n)
    A.sort_indices()
    A.has_canonical_format = True
    return A


def rgg_radius(n: int, form: str = "dimacs") -> float:
    if form == "dimacs":
        return 0.55 * np.sqrt(np.log(n) / n)
    if form == "pi":
        return 0.55 * np.sqrt(np.log(n) / (np.pi * n))
    raise ValueError(f"rgg radius form must be 'dimacs' or 'pi', got {form!r}")


def rgg(K: int, radius: str = "dimacs", order: str = "spatial") -> sp.csr_matrix:
    from scipy.spatial import cKDTree

    n = 1 << K
    P = _points("rgg", K, order)
    r = rgg_radius(n, radius)
    pairs = cKDTree(P).query_pairs(r, output_type="ndarray")
    pairs = pairs.astype(np.int32, copy=False)
    i, j = pairs[:, 0], pairs[:, 1]
    rows = np.concatenate([i, j])
    cols = np.concatenate([j, i])
    del pairs, i, j
    A = sp.coo_matrix((np.ones(rows.shape[0], dtype=np.int8), (rows, cols)), shape=(n, n)).tocsr()
    A.indices = A.indices.astype(np.int32, copy=False)
    A.indptr = A.indptr.astype(np.int32, copy=False)
    A.sort_indices()
    return A


def kron_edges(K: int, edge_factor: int = 16, chunk: int = 1 << 24):
    """Graph500 Kronecker edge list (i, j) as uint32 arrays, labels permuted.

    Per bit level each edge picks a quadrant with probabilities A, B, C, D
    (the reference generator's two draws per level, ii_bit then jj_bit given
    ii_bit, have the same distribution); probabilities are quantised to
    1/65536 (16 random bits per level, four levels per 64-bit draw).
    """
    n = 1 << K
    m = edge_factor * n
    rng = np.random.default_rng(_seed("kron", K, f"edges/{edge_factor}"))
    tA = np.uint16(round(KRON_A * 65536))
    tAB = np.uint16(round((KRON_A + KRON_B) * 65536))
    tABC = np.uint16(round((KRON_A + KRON_B + KRON_C) * 65536))
    src = np.empty(m, dtype=np.uint32)
    dst = np.empty(m, dtype=np.uint32)
    for s in range(0, m, chunk):
        c = min(chunk, m - s)
        i = np.zeros(c, dtype=np.uint32)
        j = np.zeros(c, dtype=np.uint32)
        n_words = (K + 3) // 4
        raw = rng.integers(0, 2**64, size=(n_words, c), dtype=np.uint64, endpoint=False)
        u16 = raw.view(np.uint16).reshape(n_words, c, 4)
        for b in range(K):
            u = u16[b // 4, :, b % 4]
            ib = u >= tAB  # C or D: row bit set
            jb = ((u >= tA) & ~ib) | (u >= tABC)  # B or D: column bit set
            i |= ib.astype(np.uint32) << np.uint32(b)
            j |= jb.astype(np.uint32) << np.uint32(b)
        src[s : s + c] = i
        dst[s : s + c] = j
        del raw, u16, i, j
    perm = np.random.default_rng(_seed("kron", K, "labels")).permutation(n).astype(np.uint32)
    return perm[src], perm[dst]


def kron(K: int, edge_factor: int = 16) -> sp.csr_matrix:
    src, dst = kron_edges(K, edge_factor)
    return _sym_from_pairs(src, dst, 1 << K)


def _lattice_shape(K: int) -> tuple[int, int]:
    """Rows and columns of a lattice of 2^K vertices, as square as can be."""
    return 1 << (K // 2), 1 << (K - K // 2)


def _thinned(i: np.ndarray, j: np.ndarray, n: int, drop: float, seed: int) -> sp.csr_matrix:
    """The symmetric graph of the pairs (i, j), each dropped with probability
    ``drop``."""
    keep = np.random.default_rng(seed).random(i.size) >= drop
    return _sym_from_pairs(i[keep], j[keep], n)


def honeycomb(K: int, drop: float = 0.01) -> sp.csr_matrix:
    R, C = _lattice_shape(K)
    idx = np.arange(R * C, dtype=np.int64).reshape(R, C)
    rows, cols = np.indices((R - 1, C))
    brick = (rows + cols) % 2 == 0
    i = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :][brick]])
    j = np.concatenate([idx[:, 1:].ravel(), idx[1:, :][brick]])
    return _thinned(i, j, R * C, drop, _seed("honeycomb", K, "drop"))


def road(K: int, drop: float = 0.3) -> sp.csr_matrix:
    R, C = _lattice_shape(K)
    idx = np.arange(R * C, dtype=np.int64).reshape(R, C)
    i = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    j = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    return _thinned(i, j, R * C, drop, _seed("road", K, "drop"))


def erdos_renyi(K: int, avg_degree: int = 4) -> sp.csr_matrix:
    n = 1 << K
    rng = np.random.default_rng(_seed("er", K, "edges"))
    pairs = rng.integers(0, n, size=(2, avg_degree * n // 2), dtype=np.int64)
    return _sym_from_pairs(pairs[0], pairs[1], n)


def powerlaw_rect(K: int, exponent: float = 2.3, avg_degree: int = 8) -> sp.csr_matrix:
    n_rows, n_cols = 1 << K, 3 << max(K - 2, 0)
    rng = np.random.default_rng(_seed("powerlaw-rect", K, "edges"))
    m = avg_degree * n_rows

    def ends(n: int) -> np.ndarray:
        cdf = np.cumsum(np.arange(1, n + 1, dtype=np.float64) ** (-1 / (exponent - 1)))
        cdf /= cdf[-1]
        picked = np.minimum(np.searchsorted(cdf, rng.random(m), side="right"), n - 1)
        return rng.permutation(n)[picked]

    r, c = ends(n_rows), ends(n_cols)
    key = sorted_unique(r.astype(np.int64) * n_cols + c)
    r, c = (key // n_cols).astype(np.int32), (key % n_cols).astype(np.int32)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=n_rows), out=indptr[1:])
    A = _csr(indptr, c, n_rows, n_cols)
    A.has_sorted_indices = True
    return A


def _rcp_draws(n: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.permutation(n), rng.permutation(m)


def rcp_permutations(family: str, K: int, n: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The row and column permutations (p, q) of the RCP graph of ``family``
    at 2^K (``load_graph(..., permuted=True)`` is ``A[p][:, q]``)."""
    return _rcp_draws(n, m, _seed(family, K, "rcp"))


def permute(A: sp.csr_matrix, seed: int) -> sp.csr_matrix:
    """``A[p][:, q]`` for independent random permutations p (rows), q (columns)."""
    n, m = A.shape
    p, q = _rcp_draws(n, m, seed)
    qinv = np.empty(m, dtype=np.int32)
    qinv[q] = np.arange(m, dtype=np.int32)
    indptr = np.asarray(A.indptr, dtype=np.int64)
    lengths = np.diff(indptr)[p]
    new_ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_ptr[1:])
    # gather the row segments of A in the order p
    src = np.repeat(indptr[:-1][p] - new_ptr[:-1], lengths)
    src += np.arange(new_ptr[-1], dtype=np.int64)
    indices = qinv[A.indices[src]]
    del src
    B = _csr(new_ptr, indices, n, m)
    B.sort_indices()
    return B


# --------------------------------------------------------------------------
# Cache
# --------------------------------------------------------------------------


def graph_params(
    family: str,
    K: int,
    *,
    rgg_radius: str = "dimacs",
    kron_edge_factor: int = 16,
    order: str = "spatial",
) -> dict:
    p = {"family": family, "K": int(K), "seed": _seed(family, K, "points"), "v": 1}
    if family in ("delaunay", "rgg"):
        p["order"] = order
    if family == "rgg":
        p["rgg_radius"] = rgg_radius
    if family == "kron":
        p["edge_factor"] = int(kron_edge_factor)
    return p


def _key(params: dict, permuted: bool) -> str:
    s = json.dumps({**params, "permuted": bool(permuted)}, sort_keys=True)
    return hashlib.sha256(s.encode()).hexdigest()[:10]


def cache_path(cache: str | os.PathLike, params: dict, permuted: bool) -> Path:
    name = graph_name(params["family"], params["K"], permuted)
    return Path(cache) / f"{name}.{_key(params, permuted)}.npz"


def save_npz(path: Path, A: sp.csr_matrix, meta: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}.npz")
    np.savez(
        tmp,
        indptr=A.indptr,
        indices=A.indices,
        shape=np.asarray(A.shape, np.int64),
        meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
    )
    os.replace(tmp, path)


def load_npz(path: Path) -> tuple[sp.csr_matrix, dict]:
    with np.load(path) as z:
        n, m = (int(x) for x in z["shape"])
        A = _csr(z["indptr"], z["indices"], n, m)
        meta = json.loads(bytes(z["meta"]).decode())
    A.has_sorted_indices = True
    return A, meta


def generate(params: dict) -> sp.csr_matrix:
    fam, K = params["family"], params["K"]
    if fam == "delaunay":
        return delaunay(K, order=params.get("order", "spatial"))
    if fam == "rgg":
        return rgg(
            K, radius=params.get("rgg_radius", "dimacs"), order=params.get("order", "spatial")
        )
    if fam == "kron":
        return kron(K, edge_factor=params.get("edge_factor", 16))
    if fam == "honeycomb":
        return honeycomb(K)
    if fam == "road":
        return road(K)
    if fam == "er":
        return erdos_renyi(K)
    if fam == "powerlaw-rect":
        return powerlaw_rect(K)
    raise ValueError(f"unknown family {fam!r}; known: {FAMILIES}")


def load_graph(
    params: dict,
    permuted: bool = False,
    cache: str | None = DEFAULT_CACHE,
    original: sp.csr_matrix | None = None,
) -> tuple[sp.csr_matrix, dict]:
    """The graph (generated, or read from the cache) and its metadata:
    name, n, nnz, gen_s (seconds to generate, cached or not), cached (bool),
    load_s. ``original`` (the unpermuted graph, if at hand) saves a reload
    when ``permuted``."""
    t0 = time.perf_counter()
    path = cache_path(cache, params, permuted) if cache else None
    if path is not None and path.exists():
        try:
            A, meta = load_npz(path)
            meta.update(cached=True, load_s=time.perf_counter() - t0, path=str(path))
            return A, meta
        except Exception as err:
            print(f"cache {path} unreadable ({err}); regenerating", file=sys.stderr)
    if permuted:
        if original is None:
            original, _ = load_graph(params, False, cache)
        t1 = time.perf_counter()
        A = permute(original, _seed(params["family"], params["K"], "rcp"))
        gen_s = time.perf_counter() - t1
    else:
        t1 = time.perf_counter()
        A = generate(params)
        gen_s = time.perf_counter() - t1
    n = A.shape[0]
    meta = dict(
        name=graph_name(params["family"], params["K"], permuted),
        params=params,
        permuted=bool(permuted),
        n=int(n),
        nnz=int(A.nnz),
        gen_s=gen_s,
        avg_degree=float(A.nnz / max(n, 1)),
        max_degree=int(np.diff(A.indptr).max()) if n else 0,
        empty_rows=int((np.diff(A.indptr) == 0).sum()),
    )
    if path is not None:
        t2 = time.perf_counter()
        save_npz(path, A, meta)
        meta["save_s"] = time.perf_counter() - t2
        meta["path"] = str(path)
    meta.update(cached=False, load_s=time.perf_counter() - t0)
    return A, meta


def check_graph(A: sp.csr_matrix, symmetric: bool) -> dict:
    """Structural checks (tests and --check): canonical CSR, no loops, symmetry."""
    out = {"int32": A.indices.dtype == np.int32 and A.indptr.dtype == np.int32}
    B = A.copy()
    B.sum_duplicates()
    out["no_duplicates"] = B.nnz == A.nnz
    out["sorted"] = bool(A.has_sorted_indices)
    if symmetric:  # (an RCP matrix has loops and is not symmetric)
        out["no_loops"] = int(A.diagonal().astype(bool).sum()) == 0
        out["symmetric"] = (abs(A - A.T)).nnz == 0
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--families", default=",".join(FAMILIES))
    p.add_argument(
        "--sizes", nargs="+", type=int, default=[16, 18, 20], help="K values (2^K vertices)"
    )
    p.add_argument("--cache", default=DEFAULT_CACHE, help="cache directory ('' for none)")
    p.add_argument("--permuted", action="store_true", help="also make the RCP (permuted) graphs")
    p.add_argument("--rgg-radius", choices=("dimacs", "pi"), default="dimacs")
    p.add_argument("--kron-edge-factor", type=int, default=16)
    p.add_argument("--order", choices=("spatial", "random"), default="spatial")
    p.add_argument("--check", action="store_true", help="structural checks (slow at large K)")
    args = p.parse_args(argv)
    for fam in [f.strip() for f in args.families.split(",") if f.strip()]:
        for K in args.sizes:
            params = graph_params(
                fam,
                K,
                rgg_radius=args.rgg_radius,
                kron_edge_factor=args.kron_edge_factor,
                order=args.order,
            )
            A, meta = load_graph(params, False, args.cache or None)
            line = (
                f"{meta['name']:24s} n={meta['n']:>9,d} nnz={meta['nnz']:>12,d} "
                f"deg={meta['avg_degree']:6.2f} max={meta['max_degree']:>6d} "
                f"gen={meta['gen_s']:7.2f}s{' (cached)' if meta['cached'] else ''}"
            )
            if args.check:
                line += f" {check_graph(A, fam in SYMMETRIC_FAMILIES)}"
            print(line, flush=True)
            if args.permuted:
                B, mb = load_graph(params, True, args.cache or None, original=A)
                line = (
                    f"{mb['name']:24s} n={mb['n']:>9,d} nnz={mb['nnz']:>12,d} "
                    f"perm={mb['gen_s']:7.2f}s{' (cached)' if mb['cached'] else ''}"
                )
                if args.check:
                    line += f" {check_graph(B, False)}"
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
