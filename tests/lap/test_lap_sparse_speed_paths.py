"""The sparse drop-in's fast paths against scipy: a CSR or CSC matrix read in
place in either orientation, a tall matrix solved by its column minima or
through its transpose (built by the library), and stored zeros passed as
absent edges; every answer's weight equal to scipy's and certified."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm

import jaxmatch
from jaxmatch.lap.sparse import solve_scipy
from jaxmatch.lap.sparse._ffi import _sparse_host_entry


def _check(A, maximize: bool = False) -> None:
    """The drop-in's matching weighs what scipy's does, with scipy's dtypes,
    and solve_scipy's duals certify it (scipy reads the matrix as CSR: its
    own reading of a tall CSC matrix raises)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # stored zeros
        r1, c1 = scipy_mwfbm(A.tocsr(), maximize=maximize)
        r2, c2 = jaxmatch.min_weight_full_bipartite_matching(A, maximize=maximize)
        sol = solve_scipy(A, maximize=maximize)
    D = A.toarray().astype(np.float64)
    assert (r1.dtype, c1.dtype) == (r2.dtype, c2.dtype)
    assert len(r2) == min(A.shape) and len(set(c2.tolist())) == len(c2)
    assert np.all(np.diff(r2) > 0) and np.all(D[r2, c2] != 0)
    assert D[r2, c2].sum() == D[r1, c1].sum()
    assert sol.cost == D[r1, c1].sum()
    assert jaxmatch.verify_lap(A, sol, maximize=maximize).optimal


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("kind", ["ties", "integers", "floats"])
@pytest.mark.parametrize("shape", [(300, 40), (40, 300), (120, 120), (61, 60)])
def test_every_orientation_equals_scipy(fmt, kind, shape):
    # Tall ties take the column-minima path, tall floats the transpose; a
    # CSC matrix is read in place as the CSR of its transpose.
    rng = np.random.default_rng(sum(shape) + len(kind) + len(fmt))
    A = sp.random_array(shape, density=0.3, rng=rng, format="coo")
    n = min(shape)
    rows, cols = rng.permutation(shape[0])[:n], rng.permutation(shape[1])[:n]
    A = sp.coo_array(
        (np.r_[A.data, np.ones(n)], (np.r_[A.row, rows], np.r_[A.col, cols])), shape=shape
    ).asformat(fmt)
    if fmt != "coo":
        A.sum_duplicates()
    size = A.data.size
    if kind == "ties":
        A.data = rng.integers(0, 3, size).astype(np.float64)  # zeros too
    elif kind == "integers":
        A.data = rng.integers(-100, 100, size).astype(np.float64)
    else:
        A.data = rng.standard_normal(size)
    for maximize in (False, True):
        try:
            scipy_mwfbm(A.tocsr(), maximize=maximize)
        except ValueError:  # zeros removed: no full matching left
            with pytest.raises(ValueError, match="no full matching exists"):
                jaxmatch.min_weight_full_bipartite_matching(A, maximize=maximize)
            continue
        _check(A, maximize)


def test_tall_column_minima_path_and_its_fallback():
    # Every column's least cost sits on its own row: the minima solve it.
    A = sp.csr_array(np.array([[1.0, 5, 5], [5, 1, 5], [5, 5, 1], [1, 1, 1]]))
    _check(A)
    # Two columns share their one least-cost row: the transpose is solved.
    A = sp.csr_array(np.array([[1.0, 1, 9], [7, 8, 9], [9, 2, 1], [9, 9, 9]]))
    _check(A)
    # The greedy order takes row 0 for column 0, leaving column 1 no tight
    # row: the fallback finds the matching of ties.
    A = sp.csr_array(np.array([[1.0, 1], [1, 2], [3, 3]]))
    _check(A)


def test_tall_infeasible_and_infinite_entries():
    A = sp.csr_array(np.array([[1.0, 0], [2, 0], [3, 0]]))  # column 1 has no edge
    with pytest.raises(ValueError, match="no full matching exists"):
        jaxmatch.min_weight_full_bipartite_matching(A)
    A = sp.csr_array(np.array([[1.0, np.inf], [2, np.inf], [3, np.inf]]))  # +inf: absent
    with pytest.raises(ValueError, match="no full matching exists"):
        jaxmatch.min_weight_full_bipartite_matching(A)
    A = sp.csr_array(np.array([[1.0, np.inf], [2, np.inf], [3, 4]]))
    row_ind, col_ind = jaxmatch.min_weight_full_bipartite_matching(A)
    assert row_ind.tolist() == [0, 2] and col_ind.tolist() == [0, 1]
    with pytest.raises(ValueError, match="invalid numeric entries"):
        jaxmatch.min_weight_full_bipartite_matching(
            sp.csr_array(np.array([[1.0, -np.inf], [2, 3], [3, 4]]))
        )


def test_stored_zeros_warn_and_are_absent_on_the_fast_path():
    A = sp.csr_array((np.array([0.0, 2, 3, 1]), np.array([0, 1, 0, 1]), np.array([0, 2, 4])))
    assert A.has_canonical_format
    with pytest.warns(UserWarning, match="explicit zero weights are removed"):
        _, col_ind = jaxmatch.min_weight_full_bipartite_matching(A)
    assert col_ind.tolist() == [1, 0]


def test_host_entry_rejects_more_entries_than_int():
    fn = _sparse_host_entry()
    indptr = np.array([0, 2**31], np.int64)
    out = np.zeros(64, np.int64)
    p = out.ctypes.data
    assert fn(1, 1, indptr.ctypes.data, None, None, None, None, 0, p, p, p, p, p) == 1
