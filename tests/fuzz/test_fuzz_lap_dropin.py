"""Differential fuzzing of the scipy drop-ins against scipy itself:
``linear_sum_assignment`` (every dtype, empty sides, ``+-inf``, NaN),
``min_weight_full_bipartite_matching`` (duplicate, unsorted and zero
entries, every sparse format; non-finite entries against the contract, not
scipy, which is erratic there) and ``maximum_bipartite_matching``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from dropin_cases import (
    check_linear_sum_assignment,
    check_maximum_bipartite_matching,
    check_min_weight_full_bipartite_matching,
)
from fuzz_cases import COUNTS, DTYPES, SIDES, cost_arrays, fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse import csgraph

import jaxmatch


@fuzz_settings(quick=150)
@given(
    n=st.sampled_from(SIDES),
    m=st.sampled_from(SIDES),
    data=st.data(),
    maximize=st.booleans(),
)
def test_linear_sum_assignment_against_scipy(n, m, data, maximize):
    C, kind = data.draw(cost_arrays((n, m)))
    COUNTS["linear_sum_assignment"] += 1
    check_linear_sum_assignment(C, maximize, kind)


@st.composite
def sparse_entries(draw, values=True):
    """``(rows, cols, vals, shape)``: COO entries, duplicates and any order."""
    n, m = draw(st.sampled_from(SIDES)), draw(st.sampled_from(SIDES))
    k = draw(st.integers(0, 3 * n * m)) if n * m else 0
    rows = np.asarray(
        draw(st.lists(st.integers(0, max(n - 1, 0)), min_size=k, max_size=k)), np.int64
    )
    cols = np.asarray(
        draw(st.lists(st.integers(0, max(m - 1, 0)), min_size=k, max_size=k)), np.int64
    )
    vals, kind = (
        draw(cost_arrays((k,), ("int8", "int32", "int64", "float32", "float64")))
        if values
        else (np.ones(k), "")
    )
    return rows, cols, vals, (n, m), kind


@fuzz_settings(quick=150)
@given(entries=sparse_entries(), maximize=st.booleans(), fmt=st.sampled_from(["csr", "csc", "coo"]))
def test_min_weight_full_bipartite_matching_against_scipy(entries, maximize, fmt):
    rows, cols, vals, shape, _kind = entries
    COUNTS["min_weight_full_bipartite_matching"] += 1
    check_min_weight_full_bipartite_matching(rows, cols, vals, shape, maximize, fmt)


@fuzz_settings(quick=100)
@given(
    entries=sparse_entries(values=False),
    perm=st.sampled_from(["row", "column"]),
    fmt=st.sampled_from(["csr", "csc", "coo"]),
)
def test_maximum_bipartite_matching_against_scipy(entries, perm, fmt):
    rows, cols, _, shape, _ = entries
    COUNTS["maximum_bipartite_matching"] += 1
    check_maximum_bipartite_matching(rows, cols, shape, perm, fmt)


@pytest.mark.parametrize("name", ["float16", "bfloat16", "int64", "uint32", "bool"])
def test_linear_sum_assignment_reads_every_dtype(name):
    C = np.array([[3, 1], [1, 0]]).astype(DTYPES[name])
    r, c = jaxmatch.linear_sum_assignment(C)
    assert r.tolist() == [0, 1] and c.tolist() in ([1, 0], [0, 1])


def test_coo_duplicates_sum_without_wrapping_like_scipy():
    """A COO matrix whose duplicate int8 entries sum past int8: scipy sums
    them in float64 (200); the drop-in once wrapped them (-56). Issue 51."""
    vals = np.array([100, 100, 1, 1, 1], np.int8)
    M = sp.coo_array((vals, ([0, 0, 0, 1, 1], [0, 0, 1, 0, 1])), shape=(2, 2))
    want = csgraph.min_weight_full_bipartite_matching(M)
    got = jaxmatch.min_weight_full_bipartite_matching(M)
    assert want[1].tolist() == [1, 0] and got[1].tolist() == want[1].tolist()
