"""BipartiteGraph constructors and validation (the matching certificate is
tested in test_matching_verify)."""

from __future__ import annotations

import dataclasses
import re
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.sparse as sp
from jax.experimental import sparse as jsparse
from matching_cases import sparse_random

from jaxmatch import BipartiteGraph, GraphValidationError
from jaxmatch._csr import CSR


def _edge_set(G):
    r, c = G.edges()
    return set(zip(r.tolist(), c.tolist()))


def test_constructors_agree_and_deduplicate():
    rows = np.array([0, 2, 2, 1, 2, 0])
    cols = np.array([1, 0, 0, 3, 2, 1])  # (2, 0) and (0, 1) twice
    G = BipartiteGraph.from_edges(rows, cols, 3, 4).validate()
    assert _edge_set(G) == {(0, 1), (2, 0), (1, 3), (2, 2)} and int(G.nnz) == 4
    mask = np.zeros((3, 4), bool)
    mask[rows, cols] = True
    A = sp.coo_matrix((np.ones(6), (rows, cols)), shape=(3, 4))  # duplicates summed
    csr = sp.csr_matrix(mask)
    for other in (
        BipartiteGraph.from_dense(mask),
        BipartiteGraph.from_scipy(A),
        BipartiteGraph.from_scipy(A.tocsc()),
        BipartiteGraph.from_csr(csr.indptr, csr.indices, 3, 4),
        BipartiteGraph.from_bcsr(jsparse.BCSR.fromdense(mask.astype(np.float32))),
        BipartiteGraph.from_bcoo(jsparse.BCOO.fromdense(mask.astype(np.float32))),
        BipartiteGraph.from_bcsr(jsparse.BCOO.fromdense(mask.astype(np.float32))),
    ):
        other.validate()
        for a, b in zip(jax.tree_util.tree_leaves(G), jax.tree_util.tree_leaves(other)):
            np.testing.assert_array_equal(a, b)


def test_pytree_and_vmap_over_padded_batch():
    rng = np.random.default_rng(0)
    graphs = [BipartiteGraph.from_scipy(sparse_random(rng, 6, 5, d)) for d in (0.2, 0.5, 0.8)]
    cap = max(int(np.shape(g.col_indices)[0]) for g in graphs)
    padded = [g.pad_to(cap) for g in graphs]
    batch = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *padded)
    assert batch.n_rows == 6 and batch.n_cols == 5
    nnz = jax.vmap(lambda g: g.nnz)(batch)
    np.testing.assert_array_equal(nnz, [int(g.nnz) for g in graphs])
    assert (
        jax.jit(lambda g: g.col_indptr.sum())(graphs[0]) == np.asarray(graphs[0].col_indptr).sum()
    )


@pytest.mark.parametrize(
    "indptr, indices, match",
    [
        ([1, 2, 3], [0, 1, 0], "start at 0"),
        ([0, 2, 1], [0, 1], "non-decreasing"),
        ([0, 1, 5], [0, 1], "only 2 indices"),
        ([0, 1, 2], [0, 7], "out of range"),
        ([0, 1, 2], [0, -1], "out of range"),
        ([0, 1], [0], "length 2, expected 3"),
        ([[0, 1, 2]], [0, 1], "one-dimensional"),
        ([0.0, 1.0, 2.0], [0, 1], "integers"),
    ],
)
def test_malformed_csr_is_rejected(indptr, indices, match):
    with pytest.raises(GraphValidationError, match=match):
        BipartiteGraph.from_csr(np.array(indptr), np.array(indices), 2, 3)


def test_malformed_edges_are_rejected():
    with pytest.raises(GraphValidationError, match="negative size"):
        BipartiteGraph.from_edges([], [], -1, 3)
    with pytest.raises(GraphValidationError, match="differ in length"):
        BipartiteGraph.from_edges([0, 1], [0], 2, 2)
    with pytest.raises(GraphValidationError, match="column index 5"):
        BipartiteGraph.from_edges([0], [5], 2, 2)
    with pytest.raises(GraphValidationError, match="2-D"):
        BipartiteGraph.from_dense(np.ones(3))
    with pytest.raises(GraphValidationError, match="scipy sparse"):
        BipartiteGraph.from_scipy(np.ones((2, 2)))
    with pytest.raises(GraphValidationError):
        BipartiteGraph.from_edges([0], [0], 1, 1).pad_to(0)


def test_from_bcoo_padding_zeros_and_duplicates():
    """BCOO's out-of-bound padding entries are dropped, explicit zeros are
    edges (as in from_scipy), duplicates are merged; from_bcsr passes a BCOO
    on; other inputs get a message that says what is wanted."""
    mask = np.array([[1, 0, 1], [0, 0, 1]], np.float32)
    padded = jsparse.BCOO.fromdense(mask, nse=6)  # 3 entries + 3 padding at (2, 3)
    assert int(np.asarray(padded.indices).max()) == 3
    G = BipartiteGraph.from_bcoo(padded).validate()
    assert _edge_set(G) == {(0, 0), (0, 2), (1, 2)} and (G.n_rows, G.n_cols) == (2, 3)
    data = jax.numpy.asarray([0.0, 5.0, 1.0])
    indices = jax.numpy.asarray([[1, 0], [0, 1], [0, 1]])  # explicit zero; a duplicate
    G = BipartiteGraph.from_bcoo(jsparse.BCOO((data, indices), shape=(2, 2)))
    assert _edge_set(G) == {(1, 0), (0, 1)} and int(G.nnz) == 2
    assert _edge_set(BipartiteGraph.from_bcsr(padded)) == {(0, 0), (0, 2), (1, 2)}
    batched = jsparse.BCOO.fromdense(np.stack([mask, mask]), n_batch=1)
    with pytest.raises(GraphValidationError, match=r"unbatched 2-D BCOO.*n_batch=1"):
        BipartiteGraph.from_bcoo(batched)
    dense_dim = jsparse.BCOO.fromdense(mask, n_dense=1)
    with pytest.raises(GraphValidationError, match="n_dense=1"):
        BipartiteGraph.from_bcsr(dense_dim)
    negative = jsparse.BCOO((data[:1], jax.numpy.asarray([[-1, 0]])), shape=(2, 2))
    with pytest.raises(GraphValidationError, match="negative index -1"):
        BipartiteGraph.from_bcoo(negative)
    with pytest.raises(GraphValidationError, match=r"BCSR \(or BCOO\).*from_scipy"):
        BipartiteGraph.from_bcsr(sp.csr_matrix(mask))
    wants = re.escape("takes a jax.experimental.sparse.BCOO")
    with pytest.raises(GraphValidationError, match=wants):
        BipartiteGraph.from_bcoo(jsparse.BCSR.fromdense(mask))


# ------------------------------------------------------ the CSR base


def test_the_csr_base():
    """jaxmatch._csr.CSR: scipy's field names and a static shape; a subclass
    is a pytree as soon as it is defined; pad_to pads the fields its class
    lists (NumPy stays NumPy); validate checks every batch member."""

    @dataclasses.dataclass(frozen=True, eq=False, repr=False)
    class Tagged(CSR):
        tags: Any
        kind: str = dataclasses.field(default="x", metadata={"static": True})

        capacity_fields: ClassVar[tuple[str, ...]] = ("indices", "data", "tags")

    indptr = np.array([0, 1, 3], np.int32)
    indices = np.array([2, 0, 1], np.int32)
    C = Tagged(indptr, indices, np.ones(3, np.float32), (2, 3), np.arange(3))
    assert (C.n_rows, C.n_cols, C.capacity, int(C.nnz)) == (2, 3, 3, 3)
    assert repr(C) == "Tagged(shape=(2, 3), capacity=3, data=float32, batch=())"
    leaves, tree = jax.tree_util.tree_flatten(C)
    assert len(leaves) == 4  # indptr, indices, data, tags; shape and kind are static
    paths = [jax.tree_util.keystr(p) for p, _ in jax.tree_util.tree_flatten_with_path(C)[0]]
    assert paths == [".indptr", ".indices", ".data", ".tags"]
    back = jax.tree_util.tree_unflatten(tree, leaves)
    assert type(back) is Tagged and back.shape == (2, 3) and back.kind == "x"
    assert int(jax.jit(lambda c: c.nnz + c.n_cols)(C)) == 6

    P = C.pad_to(5)
    assert all(isinstance(getattr(P, f), np.ndarray) for f in ("indices", "data", "tags"))
    assert [getattr(P, f).shape for f in ("indices", "data", "tags")] == [(5,), (5,), (5,)]
    assert P.indptr is C.indptr
    assert jax.tree_util.tree_map(jnp.asarray, C).pad_to(4).indices.shape == (4,)
    with pytest.raises(GraphValidationError, match="capacity 2 < current 3"):
        C.pad_to(2)

    batch = jax.tree_util.tree_map(lambda a: np.stack([a, a]), P)
    assert batch.validate() is batch and batch.nnz.tolist() == [3, 3]
    bad_indices = batch.indices.copy()
    bad_indices[1, 0] = 3
    bad = dataclasses.replace(batch, indices=bad_indices)
    with pytest.raises(GraphValidationError, match=re.escape("index 3 out of range [0, 3)")):
        bad.validate()
    with pytest.raises(GraphValidationError, match="data has shape"):
        dataclasses.replace(C, data=np.ones(2)).validate()

    pattern = CSR(indptr, indices, None, (2, 3))
    assert pattern.pad_to(4).data is None and pattern.validate() is pattern
    assert jax.tree_util.tree_structure(pattern).num_leaves == 2
