"""The host graph constructors' fast paths: canonical input wrapped after an
O(nnz) check, other input sorted by scipy's counting sort, both equal to a
plain lexsort reference; the input never modified nor shared; the CSR
helpers of ``jaxmatch._csr``; the ingestion benchmark on a tiny matrix."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from jaxmatch import BipartiteGraph, Graph, GraphValidationError, SparseCosts, _csr

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------ references


def reference_graph(u, v, w, n):
    """Graph.from_edges by its definition: self-loops dropped, both ends
    stored, a repeated edge keeps its heaviest weight, rows sorted."""
    u, v, w = np.asarray(u, np.int64), np.asarray(v, np.int64), np.asarray(w)
    keep = u != v
    u, v, w = u[keep], v[keep], w[keep]
    src, dst, ww = np.concatenate([u, v]), np.concatenate([v, u]), np.concatenate([w, w])
    order = np.lexsort((ww, dst, src))
    src, dst, ww = src[order], dst[order], ww[order]
    last = np.ones(src.size, bool)
    last[:-1] = (src[1:] != src[:-1]) | (dst[1:] != dst[:-1])
    src, dst, ww = src[last], dst[last], ww[last]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
    return indptr, dst, ww


def assert_graph(G, indptr, indices, data):
    np.testing.assert_array_equal(np.asarray(G.indptr), indptr)
    np.testing.assert_array_equal(np.asarray(G.indices), indices)
    np.testing.assert_array_equal(np.asarray(G.data), data)
    assert np.asarray(G.indptr).dtype == np.int32 and np.asarray(G.indices).dtype == np.int32
    G.validate()


def symmetric(rng, n, density, dtype=np.float32, diagonal=False):
    A = sp.random(n, n, density=density, random_state=rng, format="csr", dtype=np.float64)
    A.data = rng.integers(1, 6, A.nnz).astype(dtype)  # ties between repeated edges
    A = (A + A.T).tocsr()
    if not diagonal:
        A.setdiag(0)
        A.eliminate_zeros()
    A.sort_indices()
    return A


EDGE_ORDERS = ["shuffled", "csr order, both ends", "upper, sorted", "lower, sorted", "mixed"]


def edge_lists(rng, A, order):
    coo = A.tocoo()
    r, c, d = coo.row, coo.col, coo.data
    if order == "csr order, both ends":
        return r, c, d
    if order in ("upper, sorted", "lower, sorted"):
        keep = r < c
        r, c, d = r[keep], c[keep], d[keep]
        return (r, c, d) if order == "upper, sorted" else (c, r, d)
    p = rng.permutation(r.size)
    r, c, d = r[p], c[p], d[p]
    if order == "mixed" and r.size:  # repeats with other weights, self-loops
        k = max(1, r.size // 4)
        extra = rng.integers(0, r.size, k)
        loops = rng.integers(0, A.shape[0], 3)
        r = np.concatenate([r, c[extra], loops])
        c = np.concatenate([c, r[extra], loops])
        d = np.concatenate([d, rng.integers(1, 9, k).astype(d.dtype), d[:3]])
    return r, c, d


# ------------------------------------------------------------ Graph


@pytest.mark.parametrize("order", EDGE_ORDERS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_from_edges_equals_the_reference(order, dtype):
    rng = np.random.default_rng(1)
    for n, density in ((1, 0.0), (7, 0.5), (60, 0.1), (200, 0.02)):
        A = symmetric(rng, n, density, dtype)
        u, v, w = edge_lists(rng, A, order)
        G = Graph.from_edges(u, v, w, n)
        assert_graph(G, *reference_graph(u, v, w, n))


def test_from_edges_sorted_but_not_symmetric_takes_the_general_path():
    """Sorted by source with as many edges up as down, but not a symmetric
    matrix: a weight differs between the two ends, or a pair is one-sided."""
    u, v, w = [0, 1, 1, 2], [1, 0, 2, 1], [3.0, 5.0, 1.0, 1.0]
    assert_graph(Graph.from_edges(u, v, w, 3), *reference_graph(u, v, w, 3))
    u, v, w = [0, 0, 1, 2], [1, 2, 0, 0], [1.0, 2.0, 1.0, 4.0]
    assert_graph(Graph.from_edges(u, v, w, 3), *reference_graph(u, v, w, 3))
    u, v, w = [0, 2], [1, 0], [1.0, 2.0]  # sorted sources, one up, one down, unequal pairs
    assert_graph(Graph.from_edges(u, v, w, 3), *reference_graph(u, v, w, 3))


def test_from_edges_of_other_index_dtypes():
    u, v, w = np.array([0, 1, 2], np.uint8), np.array([1, 2, 0], np.int16), [1.0, 2.0, 3.0]
    assert_graph(Graph.from_edges(u, v, w, 3), *reference_graph(u, v, w, 3))
    with pytest.raises(GraphValidationError, match="u index 255 out of range"):
        Graph.from_edges(np.array([255], np.uint8), [0], [1.0], 3)
    with pytest.raises(GraphValidationError, match="v index -1 out of range"):
        Graph.from_edges([0], np.array([-1], np.int8), [1.0], 3)


def canonical_of(A):
    B = sp.csr_matrix(A, copy=True)
    B.sum_duplicates()
    return B


@pytest.mark.parametrize("form", ["csr", "csr_array", "unsorted", "repeats", "coo", "csc"])
def test_from_scipy_equals_the_reference_and_leaves_the_input_alone(form):
    rng = np.random.default_rng(2)
    for n, density in ((1, 0.0), (9, 0.4), (150, 0.05)):
        A = symmetric(rng, n, density, diagonal=True)
        M = A
        if form == "csr_array":
            M = sp.csr_array(A)
        elif form in ("unsorted", "repeats"):
            coo = A.tocoo()
            r, c, d = coo.row, coo.col, coo.data
            if form == "repeats":  # every entry split in two halves
                r, c, d = np.concatenate([r, r]), np.concatenate([c, c]), np.concatenate([d, d])
                d = d / 2
            p = rng.permutation(r.size)
            M = sp.csr_matrix((d[p], (r[p], c[p])), shape=A.shape)
            # the same entries in CSR layout, unsorted within rows, repeats kept
            order = np.argsort(r[p], kind="stable")
            counts = np.bincount(r[p], minlength=n)
            M = sp.csr_matrix(
                (d[p][order], c[p][order], np.concatenate([[0], np.cumsum(counts)])), shape=A.shape
            )
        elif form == "coo":
            coo = A.tocoo()
            p = rng.permutation(coo.nnz)
            M = sp.coo_matrix((coo.data[p], (coo.row[p], coo.col[p])), shape=A.shape)
        elif form == "csc":
            M = A.tocsc()
        fields = ("row", "col", "data") if form == "coo" else ("indptr", "indices", "data")
        before = [np.array(getattr(M, f), copy=True) for f in fields]
        G = Graph.from_scipy(M)
        for f, kept in zip(fields, before):
            np.testing.assert_array_equal(getattr(M, f), kept)
        C = canonical_of(A)
        coo = sp.triu(C, 1).tocoo()
        assert_graph(G, *reference_graph(coo.row, coo.col, coo.data, n))


def test_from_scipy_errors_on_the_fast_path():
    A = symmetric(np.random.default_rng(3), 40, 0.2)
    B = A.copy()
    B.data[0] += 1  # one end differs
    with pytest.raises(GraphValidationError, match="symmetric"):
        Graph.from_scipy(B)
    B = sp.csr_matrix(np.array([[0, 1.0, 0], [1.0, 0, 1.0], [0, 0, 0]]))  # (1, 2) one-sided
    with pytest.raises(GraphValidationError, match="symmetric"):
        Graph.from_scipy(B)
    B = A.copy()
    B.data[5] = np.inf
    with pytest.raises(GraphValidationError, match="finite"):
        Graph.from_scipy(B)
    B = A.copy()
    B.indices[0] = 40
    with pytest.raises(GraphValidationError, match="index 40 out of range"):
        Graph.from_scipy(B)
    B = A.copy()
    B.indptr[3] = B.indptr[4] + 1
    with pytest.raises(GraphValidationError, match="non-decreasing"):
        Graph.from_scipy(B)


def test_the_graph_does_not_share_the_inputs_memory():
    A = symmetric(np.random.default_rng(4), 30, 0.3)
    G = Graph.from_scipy(A)
    u = A.tocoo()
    H = Graph.from_edges(u.row, u.col, u.data, 30)
    kept = [np.asarray(x).copy() for x in (G.indptr, G.indices, G.data, H.indices, H.data)]
    A.data[:] = -1
    A.indices[:] = 0
    u.data[:] = -1
    del A, u
    gc.collect()
    for x, k in zip((G.indptr, G.indices, G.data, H.indices, H.data), kept):
        np.testing.assert_array_equal(np.asarray(x), k)


# ------------------------------------------------------------ BipartiteGraph


def reference_bipartite(rows, cols, n_rows, n_cols):
    key = np.unique(np.asarray(rows, np.int64) * max(n_cols, 1) + np.asarray(cols, np.int64))
    r, c = key // max(n_cols, 1), key % max(n_cols, 1)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=n_rows))])
    order = np.lexsort((r, c))
    col_indptr = np.concatenate([[0], np.cumsum(np.bincount(c, minlength=n_cols))])
    return indptr, c, col_indptr, r[order]


def assert_bipartite(G, indptr, indices, col_indptr, col_indices):
    for name, want in zip(
        ("indptr", "indices", "col_indptr", "col_indices"),
        (indptr, indices, col_indptr, col_indices),
    ):
        got = np.asarray(getattr(G, name))
        assert got.dtype == np.int32, name
        np.testing.assert_array_equal(got, want, err_msg=name)
    G.validate()


@pytest.mark.parametrize("order", ["sorted", "shuffled", "repeats"])
def test_bipartite_from_edges_equals_the_reference(order):
    rng = np.random.default_rng(5)
    for n_rows, n_cols, density in ((1, 1, 1.0), (5, 9, 0.5), (80, 30, 0.1), (0, 4, 0.0)):
        A = sp.random(n_rows, n_cols, density=density, random_state=rng, format="csr")
        coo = A.tocoo()
        r, c = coo.row, coo.col
        if order != "sorted":
            p = rng.permutation(r.size)
            r, c = r[p], c[p]
        if order == "repeats":
            r, c = np.concatenate([r, r[::2]]), np.concatenate([c, c[::2]])
        G = BipartiteGraph.from_edges(r, c, n_rows, n_cols)
        assert_bipartite(G, *reference_bipartite(r, c, n_rows, n_cols))


@pytest.mark.parametrize("form", ["csr", "unsorted", "repeats", "coo", "csc", "padded csr"])
def test_bipartite_from_scipy_and_csr(form):
    rng = np.random.default_rng(6)
    A = sp.random(70, 40, density=0.1, random_state=rng, format="csr")
    coo = A.tocoo()
    want = reference_bipartite(coo.row, coo.col, 70, 40)
    if form == "csr":
        G = BipartiteGraph.from_scipy(A)
    elif form in ("unsorted", "repeats"):
        B = A.copy()
        for i in range(70):  # reverse every row
            lo, hi = B.indptr[i], B.indptr[i + 1]
            B.indices[lo:hi] = B.indices[lo:hi][::-1].copy()
        if form == "repeats":  # every entry stored twice, rows sorted
            B = sp.csr_matrix(
                (np.repeat(A.data, 2), np.repeat(A.indices, 2), 2 * A.indptr), shape=A.shape
            )
        kept = B.indices.copy()
        G = BipartiteGraph.from_scipy(B)
        np.testing.assert_array_equal(B.indices, kept)
    elif form == "coo":
        p = rng.permutation(coo.nnz)
        G = BipartiteGraph.from_scipy(sp.coo_matrix((coo.data[p], (coo.row[p], coo.col[p]))))
    elif form == "csc":
        G = BipartiteGraph.from_scipy(A.tocsc())
    else:  # int64 arrays, indices past indptr[-1] ignored
        indices = np.concatenate([A.indices, [39, 0, 5]]).astype(np.int64)
        G = BipartiteGraph.from_csr(A.indptr.astype(np.int64), indices, 70, 40)
    assert_bipartite(G, *want)


# ------------------------------------------------------------ helpers


def test_rows_canonical():
    p = np.array([0, 2, 2, 5])
    assert _csr.rows_canonical(p, np.array([1, 3, 0, 1, 2]))  # a row may start lower
    assert not _csr.rows_canonical(p, np.array([1, 3, 2, 2, 4]))  # a repeat
    assert not _csr.rows_canonical(p, np.array([3, 1, 0, 1, 2]))  # unsorted
    assert _csr.rows_canonical(np.array([0, 0]), np.array([], np.int32))
    assert _csr.rows_canonical(np.array([0, 2]), np.array([0, 1, 0]))  # past indptr[-1]


def test_csr_of_pairs_merges_repeats_with_the_given_reduction():
    r, c, x = np.array([1, 0, 1, 1]), np.array([2, 1, 2, 0]), np.array([1.0, 4.0, 5.0, 2.0])
    for reduce, merged in ((np.add, 6.0), (np.maximum, 5.0)):
        p, i, d, private = _csr.csr_of_pairs(r, c, x, 2, 3, reduce)
        assert private
        assert p.tolist() == [0, 1, 3] and i.tolist() == [1, 0, 2]
        assert d is not None and d.tolist() == [4.0, 2.0, merged]
    p, i, d, _ = _csr.csr_of_pairs(r, c, None, 2, 3)
    assert p.tolist() == [0, 1, 3] and i.tolist() == [1, 0, 2] and d is None
    # already canonical: the input's own arrays
    p, i, d, private = _csr.csr_of_pairs(np.array([0, 1, 1]), np.array([2, 0, 1]), x[:3], 2, 3)
    assert not private and p.tolist() == [0, 1, 3] and i.tolist() == [2, 0, 1]
    assert d is not None and d.tolist() == [1.0, 4.0, 5.0]


def test_transpose_csr():
    A = sp.random(13, 7, density=0.3, random_state=7, format="csr")
    p, i, d = _csr.transpose_csr(A.indptr, A.indices, A.data, 13, 7)
    T = A.T.tocsr()
    T.sort_indices()
    assert p.tolist() == T.indptr.tolist() and i.tolist() == T.indices.tolist()
    assert d is not None and d.tolist() == T.data.tolist()
    assert _csr.transpose_csr(A.indptr, A.indices, None, 13, 7)[2] is None


def test_on_device_copies_what_it_does_not_own():
    a = np.arange(1000, dtype=np.int64)
    x = _csr.on_device(a, np.int32)
    a[:] = 0
    assert np.asarray(x).dtype == np.int32 and np.asarray(x).tolist() == list(range(1000))
    own = _csr._aligned_copy(np.arange(5), np.int32)
    y = _csr.on_device(own, private=True)
    del own
    gc.collect()
    assert np.asarray(y).tolist() == [0, 1, 2, 3, 4]


def test_sparse_costs_from_scipy_keeps_the_entries():
    A = sp.random(9, 6, density=0.4, random_state=8, format="coo")
    S = SparseCosts.from_scipy(A)
    B = A.tocsr()
    np.testing.assert_array_equal(S.indptr, B.indptr)
    np.testing.assert_array_equal(S.indices, B.indices)
    np.testing.assert_array_equal(S.data, B.data)


# ------------------------------------------------------------ the benchmark


def test_ingest_benchmark_runs(capsys):
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from benchmarks import graph_ingest

    assert graph_ingest.main(["--entries", "3000", "--repeats", "1", "--networkx-max", "3000"]) == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| 3,")]
    assert len(rows) == len(graph_ingest.ROWS), rows
    assert all("nan" not in ln for ln in rows), rows


def test_check_range_in_every_integer_dtype():
    for dtype in (np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64):
        info = np.iinfo(dtype)
        for bound in (1, 100, 127, 128, 255, 256, 1000):
            for bad in {info.min, -1, bound, info.max} - {0}:
                if info.min <= bad <= info.max and not 0 <= bad < bound:
                    x = np.array([0, bad, 0], dtype)
                    with pytest.raises(GraphValidationError, match=f"x {bad} out of range"):
                        _csr.check_range(x, bound, "x")
            good = np.array([0, min(bound, int(info.max) + 1) - 1], dtype)
            _csr.check_range(good, bound, "x")
