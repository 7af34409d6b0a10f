"""The initial matchings that read the row CSR (``init="greedy"`` and
``init="karp-sipser"``): valid with a row CSR that is not the transpose of
the column CSR, and ``INVALID_GRAPH`` with a malformed one, on every back
end and execution shape.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from matching_cases import EXECUTIONS, check_result, graph_arrays, make_graph, scipy_cardinality

import jaxmatch
from jaxmatch import BipartiteGraph, MatchingStatus

ROW_CSR_INITS = {
    "greedy": jaxmatch.greedy_matching,
    "karp-sipser": jaxmatch.karp_sipser_matching,
}


@pytest.mark.parametrize("init", ROW_CSR_INITS)
def test_row_csr_that_is_not_the_transpose(device, init):
    """A row CSR in range but of another graph steers the initial matching
    wrongly; its pairs are still one column per row and edges of the column
    CSR, so the initial matching is valid and the solve maximum."""
    rng = np.random.default_rng(9)
    A = make_graph(rng, "uniform", 40, 40)
    B = make_graph(rng, "dense", 40, 40)
    cap = max(A.nnz, B.nnz)
    GA, GB = graph_arrays(A, cap), graph_arrays(B, cap)
    H = BipartiteGraph(
        indptr=GB.indptr,
        indices=GB.indices,
        data=None,
        shape=(40, 40),
        col_indptr=GA.col_indptr,
        col_indices=GA.col_indices,
    )
    one = jax.device_get(ROW_CSR_INITS[init](H))
    cert = jaxmatch.verify_matching(graph_arrays(A), one)
    assert cert.valid, cert.reason
    for execution in EXECUTIONS:
        res = jax.device_get(jaxmatch.max_cardinality_matching(H, init=init, execution=execution))
        check_result(graph_arrays(A), res, scipy_cardinality(A), execution)


@pytest.mark.parametrize("init", ROW_CSR_INITS)
def test_malformed_row_csr_is_an_invalid_graph(device, init):
    """Out of range in the row CSR is INVALID_GRAPH for the inits that read
    it; the default cheap start does not read it and solves."""
    G = BipartiteGraph.from_edges([0, 1, 1, 2], [0, 0, 1, 2], 3, 3)
    for bad_rx, bad_ra in (
        (G.indptr, G.indices.at[1].set(3)),  # a column past n_cols
        (G.indptr.at[1].set(7), G.indices),  # a pointer past the capacity
    ):
        H = BipartiteGraph(
            indptr=bad_rx,
            indices=bad_ra,
            data=None,
            shape=(3, 3),
            col_indptr=G.col_indptr,
            col_indices=G.col_indices,
        )
        res = jax.device_get(ROW_CSR_INITS[init](H))
        assert int(res.status) == MatchingStatus.INVALID_GRAPH
        assert np.all(res.col_for_row == -1) and np.all(res.row_for_col == -1)
        for execution in EXECUTIONS:
            res = jax.device_get(
                jaxmatch.max_cardinality_matching(H, init=init, execution=execution)
            )
            assert int(res.status) == MatchingStatus.INVALID_GRAPH
            default = jaxmatch.max_cardinality_matching(H, execution=execution)
            check_result(G, jax.device_get(default), 3, execution)
