"""Random bipartite graphs and oracles, shared by the matching tests.

Every generator takes a NumPy ``Generator`` and the sizes, and returns a
``scipy.sparse.csr_matrix`` of 0/1 entries (rows x columns, stored entries
are edges).  Graphs are then embedded into a size *bucket* with isolated
vertices (which leaves the maximum cardinality unchanged), optionally at
randomly permuted positions, and padded to a common edge capacity so that a
whole bucket runs as one ``vmap``-ed batch.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import NamedTuple

import jax
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

import jaxmatch
from jaxmatch import BipartiteGraph

# ----------------------------------------------------------------- parameters
# The option values the matching tests sweep, defined once ("auto" is tested
# on its own).

AUGMENTING_METHODS = ("apfb", "apsb", "hybrid")  # BFS phases (drivers of one loop)
METHODS = (*AUGMENTING_METHODS, "pr")  # and push-relabel (G-PR)
BFS = ("wr", "plain")
COLD_INITS = ("cheap", "greedy", "karp-sipser", None)
INITS = (*COLD_INITS, "warm")  # "warm": the random warm start made with each graph
EXECUTIONS = ("fused", "stepped")
MAPPINGS = ("ct", "mt")

# ----------------------------------------------------------------- generators


def _csr(rows, cols, n_rows: int, n_cols: int) -> sp.csr_matrix:
    rows = np.asarray(rows, np.int64)
    cols = np.asarray(cols, np.int64)
    A = sp.coo_matrix((np.ones(rows.size), (rows, cols)), shape=(n_rows, n_cols)).tocsr()
    A.sum_duplicates()
    A.data[:] = 1.0
    return A


def empty(rng, n_rows, n_cols):
    return _csr([], [], n_rows, n_cols)


def one_edge(rng, n_rows, n_cols):
    if n_rows == 0 or n_cols == 0:
        return empty(rng, n_rows, n_cols)
    return _csr([rng.integers(n_rows)], [rng.integers(n_cols)], n_rows, n_cols)


def complete(rng, n_rows, n_cols):
    return sp.csr_matrix(np.ones((n_rows, n_cols)))


def _sample_pairs(rng, n_edges: int, p_rows, p_cols, n_rows: int, n_cols: int):
    r = (
        rng.choice(n_rows, size=n_edges, p=p_rows)
        if p_rows is not None
        else rng.integers(0, n_rows, n_edges)
    )
    c = (
        rng.choice(n_cols, size=n_edges, p=p_cols)
        if p_cols is not None
        else rng.integers(0, n_cols, n_edges)
    )
    return _csr(r, c, n_rows, n_cols)


def uniform(rng, n_rows, n_cols, avg_degree: float | None = None):
    """Erdos-Renyi-like: ``avg_degree * n_cols`` edges drawn uniformly
    (duplicates merged); ``avg_degree`` random in [0.5, 6] when not given."""
    if n_rows == 0 or n_cols == 0:
        return empty(rng, n_rows, n_cols)
    if avg_degree is None:
        avg_degree = rng.choice([0.5, 1.0, 1.5, 2.0, 3.0, 6.0])
    n_edges = rng.binomial(n_rows * n_cols, min(1.0, avg_degree / n_rows))
    return _sample_pairs(rng, int(n_edges), None, None, n_rows, n_cols)


def sparse_random(rng, n_rows, n_cols, density):
    """scipy's ``sparse.random`` graph of a given density (not a family: the
    density is the caller's)."""
    return sp.random(
        n_rows,
        n_cols,
        density=density,
        format="csr",
        random_state=rng,
        data_rvs=lambda k: np.ones(k),
    )


def dense_random(rng, n_rows, n_cols):
    """Uniform with density 0.3 to 0.7."""
    return sp.csr_matrix(rng.random((n_rows, n_cols)) < rng.uniform(0.3, 0.7), dtype=np.float64)


def isolated(rng, n_rows, n_cols):
    """Uniform sparse with a random third of the rows and columns isolated."""
    A = uniform(rng, n_rows, n_cols, avg_degree=3.0).tolil()
    if n_rows:
        A[rng.random(n_rows) < 1 / 3, :] = 0
    if n_cols:
        A[:, rng.random(n_cols) < 1 / 3] = 0
    A = A.tocsr()
    A.eliminate_zeros()
    return A


def perfect(rng, n_rows, n_cols):
    """A matching saturating the smaller side, hidden in sparse noise."""
    k = min(n_rows, n_cols)
    rows = rng.permutation(n_rows)[:k]
    cols = rng.permutation(n_cols)[:k]
    noise = uniform(rng, n_rows, n_cols, avg_degree=rng.choice([0.5, 1.0, 2.0])).tocoo()
    return _csr(np.r_[rows, noise.row], np.r_[cols, noise.col], n_rows, n_cols)


def hall_violator(rng, n_rows, n_cols):
    """No matching saturates the rows: ``k`` rows see only ``k - 1`` columns
    (and the rest is random)."""
    if n_rows < 2 or n_cols < 1:
        return uniform(rng, n_rows, n_cols)
    k = int(rng.integers(2, min(n_rows, n_cols + 1) + 1))
    A = perfect(rng, n_rows, n_cols).tolil()
    bad_rows = rng.permutation(n_rows)[:k]
    bad_cols = rng.permutation(n_cols)[: k - 1]
    A[bad_rows, :] = 0
    sub = rng.random((k, k - 1)) < 0.6
    for a, r in enumerate(bad_rows):
        for b, c in enumerate(bad_cols):
            if sub[a, b]:
                A[r, c] = 1
    A = A.tocsr()
    A.eliminate_zeros()
    return A


def power_law(rng, n_rows, n_cols):
    """Chung-Lu style: edge endpoints drawn with probability proportional to
    Pareto weights (a few hubs, many degree-1 vertices), duplicates merged."""
    if n_rows == 0 or n_cols == 0:
        return empty(rng, n_rows, n_cols)
    alpha = rng.uniform(1.2, 2.5)
    wr = rng.pareto(alpha, n_rows) + 1.0
    wc = rng.pareto(alpha, n_cols) + 1.0
    n_edges = int(rng.uniform(1.0, 4.0) * n_cols)
    return _sample_pairs(rng, n_edges, wr / wr.sum(), wc / wc.sum(), n_rows, n_cols)


def _grid_shape(rng, n):
    a = int(rng.integers(1, max(1, int(np.sqrt(n))) + 1))
    return a, max(1, n // a)


def grid(rng, n_rows, n_cols):
    """The adjacency matrix of an ``a x b`` grid graph (``a * b`` vertices on
    both sides) used as a bipartite matrix; sometimes with edges removed."""
    a, b = _grid_shape(rng, min(n_rows, n_cols))
    if min(n_rows, n_cols) == 0:
        return empty(rng, n_rows, n_cols)
    idx = np.arange(a * b).reshape(a, b)
    src = np.r_[idx[:, :-1].ravel(), idx[:-1, :].ravel()]
    dst = np.r_[idx[:, 1:].ravel(), idx[1:, :].ravel()]
    r, c = np.r_[src, dst], np.r_[dst, src]
    if rng.random() < 0.5:
        keep = rng.random(r.size) < 0.7
        r, c = r[keep], c[keep]
    return _csr(r, c, n_rows, n_cols)


def checkerboard(rng, n_rows, n_cols):
    """A grid graph as the bipartite graph it is: black cells (rows) against
    white cells (columns); odd grids have no perfect matching."""
    a, b = _grid_shape(rng, min(n_rows, n_cols) * 2)
    colour = np.add.outer(np.arange(a), np.arange(b)) % 2
    black = -np.ones((a, b), np.int64)
    white = -np.ones((a, b), np.int64)
    black[colour == 0] = np.arange(int((colour == 0).sum()))
    white[colour == 1] = np.arange(int((colour == 1).sum()))
    r, c = [], []
    for i, j in zip(*np.nonzero(colour == 0)):
        for di, dj in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            u, v = i + di, j + dj
            if 0 <= u < a and 0 <= v < b:
                r.append(black[i, j])
                c.append(white[u, v])
    r, c = np.asarray(r, np.int64), np.asarray(c, np.int64)
    keep = (r < n_rows) & (c < n_cols)
    return _csr(r[keep], c[keep], n_rows, n_cols)


def delaunay(rng, n_rows, n_cols):
    """The adjacency matrix of the Delaunay triangulation of random points
    in the unit square (a planar, mesh-like graph) as a bipartite matrix."""
    n = min(n_rows, n_cols)
    if n < 4:
        return uniform(rng, n_rows, n_cols)
    from scipy.spatial import Delaunay

    tri = Delaunay(rng.random((n, 2)))
    s = tri.simplices
    src = np.r_[s[:, 0], s[:, 1], s[:, 2]]
    dst = np.r_[s[:, 1], s[:, 2], s[:, 0]]
    return _csr(np.r_[src, dst], np.r_[dst, src], n_rows, n_cols)


def triangular(rng, n_rows, n_cols):
    """Row i sees columns ``i <= j < i + w`` (full upper triangle, or a band
    of width 2 or 3: a unique perfect matching of the leading square and
    long augmenting paths), under a random relabelling that makes greedy
    starts poor."""
    k = min(n_rows, n_cols)
    w = k if (k <= 200 and rng.random() < 0.5) else int(rng.integers(2, 4))
    i = np.repeat(np.arange(k), w)
    j = i + np.tile(np.arange(w), k)
    keep = j < k
    return _csr(rng.permutation(n_rows)[i[keep]], rng.permutation(n_cols)[j[keep]], n_rows, n_cols)


def chain(rng, n_rows, n_cols):
    """A path r0 - c0 - r1 - c1 - ... (and a long augmenting path for an
    unlucky initial matching)."""
    k = min(n_rows, n_cols)
    r = np.r_[np.arange(k), np.arange(1, k)]
    c = np.r_[np.arange(k), np.arange(k - 1)]
    keep = r < n_rows
    return _csr(r[keep], c[keep], n_rows, n_cols)


FAMILIES: dict[str, Callable] = {
    "empty": empty,
    "one_edge": one_edge,
    "complete": complete,
    "uniform": uniform,
    "dense": dense_random,
    "isolated": isolated,
    "perfect": perfect,
    "hall_violator": hall_violator,
    "power_law": power_law,
    "grid": grid,
    "checkerboard": checkerboard,
    "delaunay": delaunay,
    "triangular": triangular,
    "chain": chain,
}


def make_graph(rng, family: str, n_rows: int, n_cols: int) -> sp.csr_matrix:
    A = FAMILIES[family](rng, n_rows, n_cols)
    assert A.shape == (n_rows, n_cols), (family, A.shape)
    return sp.csr_matrix(A)


# -------------------------------------------------------------- embeddings


def embed(A: sp.spmatrix, n_rows: int, n_cols: int, rng=None) -> sp.csr_matrix:
    """``A`` inside an ``n_rows x n_cols`` graph, the extra vertices isolated:
    at the end, or (with ``rng``) with every row and column permuted."""
    A = sp.coo_matrix(A)
    r, c = A.row.astype(np.int64), A.col.astype(np.int64)
    if rng is not None:
        r = rng.permutation(n_rows)[r]
        c = rng.permutation(n_cols)[c]
    return _csr(r, c, n_rows, n_cols)


# ------------------------------------------------------------------ oracles


def scipy_cardinality(A) -> int:
    if min(A.shape) == 0:
        return 0
    return int(np.count_nonzero(scipy_mbm(sp.csr_matrix(A), perm_type="row") >= 0))


def networkx_cardinality(A) -> int:
    import networkx as nx

    A = sp.coo_matrix(A)
    n_rows, n_cols = A.shape
    B = nx.Graph()
    B.add_nodes_from(range(n_rows), bipartite=0)
    B.add_nodes_from(range(n_rows, n_rows + n_cols), bipartite=1)
    B.add_edges_from(zip(A.row.tolist(), (A.col + n_rows).tolist()))
    return len(nx.bipartite.hopcroft_karp_matching(B, top_nodes=range(n_rows))) // 2


_PERMS: dict[int, np.ndarray] = {}


def brute_force_cardinality(A) -> int:
    """Exhaustive maximum over all injections of rows into columns (graphs
    of at most 7 x 7)."""
    M = np.asarray(sp.csr_matrix(A).toarray() != 0)
    k = max(M.shape)
    assert k <= 7
    if min(M.shape) == 0:
        return 0
    S = np.zeros((k, k), bool)
    S[: M.shape[0], : M.shape[1]] = M
    if k not in _PERMS:
        _PERMS[k] = np.array(list(itertools.permutations(range(k))))
    return int(S[np.arange(k), _PERMS[k]].sum(1).max())


def greedy_matching(A) -> tuple[np.ndarray, np.ndarray]:
    """The papers' sequential cheap matching: columns in order, each takes
    its first (smallest) free neighbouring row."""
    A = sp.csc_matrix(A)
    A.sort_indices()
    rm = np.full(A.shape[0], -1, np.int64)
    cm = np.full(A.shape[1], -1, np.int64)
    for j in range(A.shape[1]):
        for i in A.indices[A.indptr[j] : A.indptr[j + 1]]:
            if rm[i] < 0:
                rm[i], cm[j] = j, i
                break
    return rm, cm


def is_maximal(A, rm, cm) -> bool:
    """No edge has both endpoints unmatched."""
    A = sp.coo_matrix(A)
    return not np.any((np.asarray(rm)[A.row] < 0) & (np.asarray(cm)[A.col] < 0))


def random_warm_start(rng, A, corrupt: str = "none"):
    """A random valid partial matching of ``A`` (greedy over a random half of
    its edges) as int32 ``(col_for_row, row_for_col)``, optionally with bad
    entries the solvers must drop: ``"non_edge"`` (a pair named by both sides
    that is not an edge), ``"one_sided"`` (a row naming a column that does not
    name it back, and a column naming a row that does not name it back),
    ``"out_of_range"`` (indices past the sizes, and below -1)."""
    A = sp.coo_matrix(A)
    n_rows, n_cols = A.shape
    rm = np.full(n_rows, -1, np.int32)
    cm = np.full(n_cols, -1, np.int32)
    for e in rng.permutation(A.nnz)[: (A.nnz + 1) // 2]:
        i, j = A.row[e], A.col[e]
        if rm[i] < 0 and cm[j] < 0:
            rm[i], cm[j] = j, i
    if corrupt == "non_edge":
        dense = np.asarray(sp.csr_matrix(A).toarray() != 0)
        free = np.argwhere(~dense & (rm[:, None] < 0) & (cm[None, :] < 0))
        if len(free):
            i, j = free[rng.integers(len(free))]
            rm[i], cm[j] = j, i
    elif corrupt == "one_sided":
        if n_cols and np.any(rm < 0):
            rm[rng.choice(np.flatnonzero(rm < 0))] = rng.integers(n_cols)
        if n_rows and np.any(cm < 0):
            cm[rng.choice(np.flatnonzero(cm < 0))] = rng.integers(n_rows)
    elif corrupt == "out_of_range":
        if n_rows:
            rm[rng.integers(n_rows)] = n_cols + int(rng.integers(0, 5))
            rm[rng.integers(n_rows)] = np.iinfo(np.int32).min
        if n_cols:
            cm[rng.integers(n_cols)] = -2 - int(rng.integers(0, 5))
            cm[rng.integers(n_cols)] = np.iinfo(np.int32).max
    elif corrupt != "none":
        raise ValueError(corrupt)
    return rm, cm


# ------------------------------------------------------------------ batches


class Bucket(NamedTuple):
    """Graphs of one padded shape, stacked for ``vmap``."""

    name: str
    n_rows: int
    n_cols: int
    mats: list  # scipy CSR, each n_rows x n_cols (already embedded)
    graphs: list  # BipartiteGraph of each, unpadded capacity
    batch: BipartiteGraph  # stacked, common capacity
    oracle: np.ndarray  # maximum cardinality of each
    warm_rm: np.ndarray  # [B, n_rows] warm starts (some with bad pairs)
    warm_cm: np.ndarray  # [B, n_cols]
    labels: list  # (family, original shape, permuted) of each


def graph_arrays(A, capacity: int | None = None) -> BipartiteGraph:
    """The :class:`BipartiteGraph` that ``BipartiteGraph.from_scipy(A)
    .pad_to(capacity)`` builds, with NumPy leaves and without JAX calls (a
    bucket builds hundreds; ``test_matching`` checks the two agree)."""
    A = sp.csr_matrix(A, copy=True)
    A.sum_duplicates()
    A.sort_indices()
    C = A.tocsc()
    C.sort_indices()
    cap = A.nnz if capacity is None else capacity
    assert cap >= A.nnz

    def padded(x):
        out = np.zeros(cap, np.int32)
        out[: x.size] = x
        return out

    return BipartiteGraph(
        indptr=A.indptr.astype(np.int32),
        indices=padded(A.indices),
        data=None,
        shape=A.shape,
        col_indptr=C.indptr.astype(np.int32),
        col_indices=padded(C.indices),
    )


def stack_graphs(graphs) -> BipartiteGraph:
    """Stacks graphs of one shape after padding them (``pad_to``) to their
    largest edge count."""
    cap = max([int(np.shape(g.col_indices)[-1]) for g in graphs] + [1])
    padded = [g.pad_to(cap) for g in graphs]
    return jax.tree_util.tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *padded)


def graph_key(A) -> tuple:
    """Hashable identity of a graph (shape and edge set)."""
    A = sp.csr_matrix(A)
    A.sort_indices()
    return (A.shape, A.indptr.tobytes(), A.indices.tobytes())


def make_bucket(
    name: str,
    seed: int,
    n_rows: int,
    n_cols: int,
    n_base: int,
    families=None,
    oracle: str = "scipy",
) -> Bucket:
    """``n_base`` random graphs of sizes up to the bucket's, cycling through
    the families, each embedded twice (isolated vertices at the end, and at
    randomly permuted positions); duplicates are dropped, so every graph of
    the bucket is distinct (at most ``2 * n_base``)."""
    rng = np.random.default_rng(seed)
    families = list(families or FAMILIES)
    mats, labels, seen = [], [], set()
    for k in range(n_base):
        fam = families[k % len(families)]
        # the full bucket (a quarter of the time), else random (tall, wide,
        # square, empty) shapes inside it
        if rng.random() < 0.25:
            nr, nc = n_rows, n_cols
        else:
            nr, nc = int(rng.integers(0, n_rows + 1)), int(rng.integers(0, n_cols + 1))
        A = make_graph(rng, fam, nr, nc)
        for permuted in (False, True):
            E = embed(A, n_rows, n_cols, rng if permuted else None)
            key = graph_key(E)
            if key not in seen:  # keep distinct graphs only
                seen.add(key)
                mats.append(E)
                labels.append((fam, (nr, nc), permuted))
    cap = max([A.nnz for A in mats] + [1])
    graphs = [graph_arrays(A) for A in mats]
    batch_graphs = [graph_arrays(A, cap) for A in mats]
    if oracle == "brute":
        card = np.array([brute_force_cardinality(A) for A in mats])
    else:
        card = np.array([scipy_cardinality(A) for A in mats])
    corrupt = ("none", "non_edge", "one_sided", "out_of_range")
    warm = [random_warm_start(rng, A, corrupt[k % 4]) for k, A in enumerate(mats)]
    batch = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *batch_graphs)
    return Bucket(
        name,
        n_rows,
        n_cols,
        mats,
        graphs,
        batch,
        card,
        np.stack([w[0] for w in warm]).reshape(len(mats), n_rows),
        np.stack([w[1] for w in warm]).reshape(len(mats), n_cols),
        labels,
    )


def member(res, b: int):
    """Member ``b`` of a batched (host) result."""
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[b], res)


def check_result(G: BipartiteGraph, res, expected: int, what: str = "") -> None:
    """``res`` is a maximum matching of ``G`` of cardinality ``expected``,
    certified by :func:`jaxmatch.verify_matching`."""
    status = int(np.asarray(res.status))
    assert status == jaxmatch.MatchingStatus.MAXIMUM, f"{what}: status {status}"
    cert = jaxmatch.verify_matching(G, res)
    assert cert.valid and cert.maximum, f"{what}: {cert.reason}"
    assert cert.cardinality == expected, f"{what}: {cert.cardinality} != oracle {expected}"
    assert int(np.asarray(res.cardinality)) == expected, what
    assert cert.cover_size == expected, what
    assert int(np.asarray(res.iterations)) >= 0 and int(np.asarray(res.levels)) >= 0, what


# ------------------------------------------------- Karp-Sipser reference

# karp_sipser.h's constants (slices, links followed per start)
KS_SLICES = 4
KS_CHAIN_CAP = 256


def karp_sipser_reference(A) -> tuple[np.ndarray, np.ndarray]:
    """The Karp-Sipser initial matching as one serial worker runs it
    (cuda_ffi/matching/karp_sipser.h, on the CPU): degree-one rounds on the
    columns, then on the rows, each repeated while it matches; then a seed
    slice (``c % KS_SLICES``) whose free columns take their free row of least
    degree; after the last slice, every free column takes its first free row.
    Sorted adjacency, as the ``BipartiteGraph`` constructors build it."""
    C = sp.csc_matrix(A)
    C.sort_indices()
    R = sp.csr_matrix(A)
    R.sort_indices()
    n_rows, n_cols = A.shape
    cx, ca, rx, ra = C.indptr, C.indices, R.indptr, R.indices
    rm = np.full(n_rows, -1, np.int64)
    cm = np.full(n_cols, -1, np.int64)
    dc, dr = np.diff(cx).astype(np.int64), np.diff(rx).astype(np.int64)

    def drop(c_or_r, ptr, idx, deg, match):  # first free vertex brought to 1
        nxt = -1
        for v in idx[ptr[c_or_r] : ptr[c_or_r + 1]]:
            deg[v] -= 1
            if deg[v] == 1 and match[v] < 0 and nxt < 0:
                nxt = v
        return nxt

    def chain(v, ptr, idx, other, mine, side_deg, other_deg, optr, oidx):
        matched = False
        for _ in range(KS_CHAIN_CAP):
            if v < 0 or mine[v] >= 0:
                break
            u = next((u for u in idx[ptr[v] : ptr[v + 1]] if other[u] < 0), -1)
            if u < 0:
                break
            mine[v], other[u], matched = u, v, True
            drop(v, ptr, idx, other_deg, other)
            v = drop(u, optr, oidx, side_deg, mine)
        return matched

    stage, seed = "cols", 0
    while stage != "done":
        matched = False
        if stage == "cols":
            for c in range(n_cols):
                if cm[c] < 0 and dc[c] == 1:
                    matched |= chain(c, cx, ca, rm, cm, dc, dr, rx, ra)
            stage = "cols" if matched else "rows"
        elif stage == "rows":
            for r in range(n_rows):
                if rm[r] < 0 and dr[r] == 1:
                    matched |= chain(r, rx, ra, cm, rm, dr, dc, cx, ca)
            stage = "rows" if matched else ("seed" if seed < KS_SLICES else "done")
        else:
            for c in range(seed, n_cols, KS_SLICES):
                if cm[c] >= 0 or dc[c] <= 0:
                    continue
                free = [r for r in ca[cx[c] : cx[c + 1]] if rm[r] < 0]
                if free:
                    r = min(free, key=lambda r: dr[r])  # the first of least degree
                    cm[c], rm[r] = r, c
                    drop(c, cx, ca, dr, rm)
                    drop(r, rx, ra, dc, cm)
            seed, stage = seed + 1, "cols"
    for c in range(n_cols):  # the greedy completion
        if cm[c] < 0:
            r = next((r for r in ca[cx[c] : cx[c + 1]] if rm[r] < 0), -1)
            if r >= 0:
                cm[c], rm[r] = r, c
    return rm, cm


def random_forest(rng, n_rows: int, n_cols: int) -> sp.csr_matrix:
    """A random forest as a bipartite graph: vertices are added one by one,
    each joined (with probability 0.9) to a random earlier vertex of the
    other side; its maximum matching is what Karp-Sipser finds."""
    side = rng.integers(0, 2, n_rows + n_cols)  # 0 row, 1 column
    ids = np.zeros(side.size, np.int64)
    ids[side == 0] = np.arange(int((side == 0).sum()))
    ids[side == 1] = np.arange(int((side == 1).sum()))
    keep = np.r_[np.flatnonzero(side == 0)[:n_rows], np.flatnonzero(side == 1)[:n_cols]]
    order = np.sort(keep)
    rows, cols = [], []
    for k, v in enumerate(order):
        earlier = order[:k][side[order[:k]] != side[v]]
        if earlier.size and rng.random() < 0.9:
            u = earlier[rng.integers(earlier.size)]
            r, c = (v, u) if side[v] == 0 else (u, v)
            rows.append(ids[r])
            cols.append(ids[c])
    return _csr(rows, cols, n_rows, n_cols)
