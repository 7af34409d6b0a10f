"""The matching certificate accepts maximum matchings and rejects wrong ones.

:func:`jaxmatch.verify_matching` is what every solver test trusts, so each
way it can reject a matching has a case here: a pair that is not an edge,
row and column matches that disagree, indices out of range, wrong shapes, a
valid matching that is not maximum (its Koenig cover is larger), and a cover
that misses an edge.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from matching_cases import networkx_cardinality, sparse_random
from scipy.sparse.csgraph import maximum_bipartite_matching

import jaxmatch
from jaxmatch import BipartiteGraph

# A path r0 - c0 - r1 - c1: {(r1, c0)} is maximal but not maximum.
_PATH2 = BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1], 2, 2)


def _scipy_matching(A):
    cm = maximum_bipartite_matching(sp.csr_matrix(A), perm_type="row")  # row per column
    rm = np.full(A.shape[0], -1)
    rm[cm[cm >= 0]] = np.flatnonzero(cm >= 0)
    return rm, cm


def _random_cases(seed, n_trials):
    """Random graphs of several densities, shapes and permutations, with
    scipy's maximum matching of each."""
    rng = np.random.default_rng(seed)
    for trial in range(n_trials):
        n_rows, n_cols = (int(x) for x in rng.integers(1, 30, size=2))
        A = sparse_random(rng, n_rows, n_cols, rng.choice([0.02, 0.1, 0.3, 0.8]))
        if trial % 3 == 0:
            A = A[rng.permutation(n_rows)][:, rng.permutation(n_cols)]
        yield A, BipartiteGraph.from_scipy(A), _scipy_matching(A)


def _assert_rejected(cert, reason):
    assert not cert.valid and not cert.maximum and not cert.is_cover, cert
    assert reason in cert.reason, cert.reason


# ------------------------------------------------------------ acceptance


def test_empty_graphs():
    for n_rows, n_cols in [(0, 0), (0, 3), (4, 0), (3, 3)]:
        G = BipartiteGraph.from_edges([], [], n_rows, n_cols).validate()
        cert = jaxmatch.verify_matching(G, (np.full(n_rows, -1), np.full(n_cols, -1)))
        assert cert.valid and cert.maximum and cert.cardinality == 0
        assert cert.cover_size == 0 and cert.reason == ""


def test_certificate_on_maximum_matchings():
    """scipy's maximum matchings certify, with networkx's cardinality; the
    cover returned touches every edge and has ``cover_size`` vertices."""
    for A, G, (rm, cm) in _random_cases(seed=1, n_trials=120):
        cert = jaxmatch.verify_matching(G, (rm, cm))
        assert cert.valid and cert.is_cover and cert.maximum, cert.reason
        assert cert.reason == ""
        assert cert.cover_size == cert.cardinality == networkx_cardinality(A)
        rows, cols = G.edges()
        assert np.all(cert.cover_rows[rows] | cert.cover_cols[cols])
        assert int(cert.cover_rows.sum() + cert.cover_cols.sum()) == cert.cover_size


def test_accepts_a_solver_result():
    """A :class:`MatchingResult` is read through its fields, like a tuple."""
    G = _PATH2
    res = jax.device_get(jaxmatch.max_cardinality_matching(G))
    cert = jaxmatch.verify_matching(G, res)
    assert cert.maximum and cert.cardinality == 2
    swapped = np.array([1, 0], np.int32)  # pairs (r0, c1), (r1, c0); (r0, c1) is no edge
    _assert_rejected(
        jaxmatch.verify_matching(G, res._replace(col_for_row=swapped, row_for_col=swapped)),
        "matched pair (0, 1) is not an edge",
    )


# ------------------------------------------------------------- rejection


def test_rejects_non_maximum_matching():
    G = _PATH2
    cert = jaxmatch.verify_matching(G, (np.array([-1, 0]), np.array([1, -1])))
    assert cert.valid and cert.cardinality == 1
    assert cert.is_cover and cert.cover_size == 2 > cert.cardinality
    assert not cert.maximum and "augmenting path" in cert.reason
    best = jaxmatch.verify_matching(G, (np.array([0, 1]), np.array([0, 1])))
    assert best.maximum and best.cardinality == 2


def test_rejects_maximum_matchings_less_one_pair():
    """Dropping a pair of a maximum matching leaves a valid matching whose
    Koenig cover is larger: the freed column is reachable from its freed
    row, so the certificate finds the augmenting path."""
    checked = 0
    for _, G, (rm, cm) in _random_cases(seed=2, n_trials=60):
        rows = np.flatnonzero(rm >= 0)
        if rows.size == 0:
            continue
        r = rows[rows.size // 2]
        rm2, cm2 = rm.copy(), cm.copy()
        cm2[rm2[r]], rm2[r] = -1, -1
        cert = jaxmatch.verify_matching(G, (rm2, cm2))
        assert cert.valid and cert.cardinality == rows.size - 1, cert.reason
        assert cert.is_cover and cert.cover_size > cert.cardinality
        assert not cert.maximum and "augmenting path" in cert.reason
        checked += 1
    assert checked > 50


@pytest.mark.parametrize(
    "rm, cm, reason",
    [
        ([1, -1], [-1, 0], "matched pair (0, 1) is not an edge"),
        ([-1, 0], [0, -1], "col_for_row and row_for_col disagree"),
        ([0, 0], [0, -1], "col_for_row and row_for_col disagree"),
        ([0, -1], [0, 0], "row_for_col has matches that col_for_row lacks"),
        ([-1, -1], [-1, 1], "row_for_col has matches that col_for_row lacks"),
        ([0, 5], [0, 1], "out of range"),
        ([0, 1], [0, 2], "out of range"),
        ([-2, 1], [-1, 1], "out of range"),
        ([0, 1], [-5, 1], "out of range"),
    ],
    ids=[
        "not an edge",
        "row names a column that names another row",
        "two rows name one column",
        "two columns name one row",
        "column names a row that names no column",
        "row index past n_cols",
        "column index past n_rows",
        "row below -1",
        "column below -1",
    ],
)
def test_rejects_invalid_matching(rm, cm, reason):
    _assert_rejected(jaxmatch.verify_matching(_PATH2, (np.array(rm), np.array(cm))), reason)


def test_rejects_wrong_shapes():
    G = BipartiteGraph.from_edges([0, 1, 2], [0, 1, 1], 3, 2)
    good = (np.array([0, 1, -1]), np.array([0, 1]))
    assert jaxmatch.verify_matching(G, good).maximum
    for rm, cm in [
        (good[0][:2], good[1]),  # col_for_row too short
        (good[0], np.r_[good[1], -1]),  # row_for_col too long
        (good[1], good[0]),  # the two swapped (3 x 2 graph)
        (good[0][None], good[1][None]),  # a batch of one
        (np.int64(0), good[1]),  # a scalar
    ]:
        _assert_rejected(jaxmatch.verify_matching(G, (rm, cm)), "shapes")


def test_padding_past_the_last_pointer_is_not_an_edge():
    """Entries of ``col_indices`` past ``col_indptr[-1]`` are padding: a pair found only
    there is not an edge."""
    G = BipartiteGraph.from_edges([0], [0], 2, 2)
    padded = BipartiteGraph(
        indptr=G.indptr,
        indices=np.zeros(4, np.int32),
        data=None,
        shape=(2, 2),
        col_indptr=G.col_indptr,
        col_indices=np.array([0, 1, 1, 1], np.int32),
    )
    cert = jaxmatch.verify_matching(padded, (np.array([0, 1]), np.array([0, 1])))
    _assert_rejected(cert, "matched pair (1, 1) is not an edge")


def test_cover_that_misses_an_edge_is_not_maximum():
    """The cover is grown along the row CSR and checked against the column
    CSR's edges: when the row CSR lacks an edge, the cover misses it and no
    maximum is claimed for the empty matching of a graph with an edge."""
    G = BipartiteGraph(
        indptr=np.array([0, 0], np.int32),
        # row 0 sees nothing
        indices=np.array([0], np.int32),
        data=None,
        shape=(1, 1),
        col_indptr=np.array([0, 1], np.int32),
        # column 0 sees row 0
        col_indices=np.array([0], np.int32),
    )
    cert = jaxmatch.verify_matching(G, (np.array([-1]), np.array([-1])))
    assert cert.valid and not cert.is_cover and not cert.maximum
    assert "misses an edge" in cert.reason


# -------------------------------------- malformed input gives a certificate


def _graph(col_indptr, col_indices, indptr, indices, n_rows=2, n_cols=2):
    """A hand-built graph, bypassing every constructor's validation."""
    return BipartiteGraph(
        indptr=np.asarray(indptr),
        indices=np.asarray(indices),
        data=None,
        shape=(n_rows, n_cols),
        col_indptr=np.asarray(col_indptr),
        col_indices=np.asarray(col_indices),
    )


_GOOD = (np.array([0, 1]), np.array([0, 1]))  # a maximum matching of _PATH2


@pytest.mark.parametrize(
    "G, reason",
    [
        (_graph([0, 2, 3], [0, 5, 1], [0, 1, 3], [0, 0, 1]), "column CSR: index 5 out of range"),
        (_graph([0, 2, 3], [0, 1, 1], [0, 1, 3], [0, 0, 9]), "row CSR: index 9 out of range"),
        (_graph([0, 2, 3], [0, -1, 1], [0, 1, 3], [0, 0, 1]), "index -1 out of range"),
        (_graph([0, 3, 2], [0, 1, 1], [0, 1, 3], [0, 0, 1]), "non-decreasing"),
        (_graph([1, 2, 3], [0, 1, 1], [0, 1, 3], [0, 0, 1]), "must start at 0"),
        (_graph([0, 2, 9], [0, 1, 1], [0, 1, 3], [0, 0, 1]), "only 3 indices"),
        (_graph([0, 2], [0, 1, 1], [0, 1, 3], [0, 0, 1]), "has length 2, expected 3"),
        (_graph([0, 2, 3], [0, 1, 1], [0, 1, 3, 3], [0, 0, 1]), "has length 4, expected 3"),
        (_graph([0.0, 2, 3], [0, 1, 1], [0, 1, 3], [0, 0, 1]), "must hold integers"),
        (_graph([0, 2, 3], [0.5, 1, 1], [0, 1, 3], [0, 0, 1]), "must hold integers"),
        (_graph([0, 2, 3], [0, 1, 1], [0, 1, 3], [[0, 0, 1]]), "one-dimensional"),
        (
            _graph(np.array([0, 2**63 - 1, -(2**63)]), [0, 1, 1], [0, 1, 3], [0, 0, 1]),
            "non-decreasing",
        ),
        (
            # Compared in its own dtype (no wrap to int64): it ends past the indices.
            _graph(np.array([0, 2, 2**64 - 1], np.uint64), [0, 1, 1], [0, 1, 3], [0, 0, 1]),
            "ends at 18446744073709551615 but there are only 3 indices",
        ),
        (_graph([0], [], [0], [], n_rows=-1, n_cols=-1), "negative size"),
    ],
    ids=[
        "col_indices row past n_rows",
        "indices column past n_cols",
        "negative index",
        "decreasing pointer",
        "pointer not starting at 0",
        "pointer past the indices",
        "col_indptr too short",
        "indptr too long",
        "float pointers",
        "float indices",
        "two-dimensional indices",
        "pointer diff overflows int64",
        "uint64 pointer past int64",
        "negative sizes",
    ],
)
def test_malformed_graph_gives_a_certificate(G, reason):
    """Issue 17: a hand-built graph with a bad index or pointer used to raise
    IndexError; it now gives an invalid certificate that names the problem."""
    cert = jaxmatch.verify_matching(G, _GOOD)
    _assert_rejected(cert, "malformed graph")
    assert reason in cert.reason, cert.reason
    assert cert.cardinality == 0 and cert.cover_size == 0
    assert cert.cover_rows.shape == (max(G.n_rows, 0),)
    assert cert.cover_cols.shape == (max(G.n_cols, 0),)


def test_batched_graph_gives_a_certificate():
    """A batch of graphs is not one graph: its rank-2 arrays are rejected."""
    G = jax.tree.map(lambda x: np.stack([x, x]), _PATH2)
    _assert_rejected(jaxmatch.verify_matching(G, _GOOD), "one-dimensional")


@pytest.mark.parametrize(
    "rm, cm, reason",
    [
        (np.array([0.0, 1.0]), np.array([0, 1]), "col_for_row must hold integers"),
        (np.array([0, 1]), np.array([0.5, 1.0]), "row_for_col must hold integers"),
        (np.array([np.nan, 1.0]), np.array([0, 1]), "must hold integers"),
        (np.array([True, False]), np.array([0, 1]), "must hold integers"),
        (np.array(["0", "1"]), np.array([0, 1]), "must hold integers"),
        (np.array([0, 1], np.uint64), np.array([0, 2**64 - 1], np.uint64), "out of range"),
        (np.array([0, 2**62]), np.array([0, 1]), "out of range"),
        ([[0], [1, 2]], [0, 1], "col_for_row is not an array"),
    ],
    ids=[
        "float rows",
        "fractional columns",
        "nan",
        "bool",
        "strings",
        "uint64 past int64",
        "huge index",
        "ragged list",
    ],
)
def test_non_integer_or_out_of_range_matches_give_a_certificate(rm, cm, reason):
    _assert_rejected(jaxmatch.verify_matching(_PATH2, (rm, cm)), reason)


def test_empty_float_matches_of_an_empty_graph_are_valid():
    """``np.array([])`` is float64; with no vertices there is nothing to hold."""
    G = BipartiteGraph.from_edges([], [], 0, 0)
    cert = jaxmatch.verify_matching(G, ([], np.array([])))
    assert cert.valid and cert.maximum


def test_a_list_pair_is_read_like_a_tuple_and_other_objects_raise():
    assert jaxmatch.verify_matching(_PATH2, [[0, 1], [0, 1]]).maximum
    with pytest.raises(TypeError, match="col_for_row and row_for_col"):
        jaxmatch.verify_matching(_PATH2, np.array([0, 1]))


def test_certificate_fields_are_plain_python():
    for matching in (_GOOD, (np.array([-1, 0]), np.array([1, -1])), (np.array([1, -1]), _GOOD[1])):
        cert = jaxmatch.verify_matching(_PATH2, matching)
        assert type(cert.valid) is bool and type(cert.is_cover) is bool
        assert type(cert.maximum) is bool and type(cert.reason) is str
        assert type(cert.cardinality) is int and type(cert.cover_size) is int
        assert isinstance(cert.cover_rows, np.ndarray) and cert.cover_rows.dtype == bool
        assert isinstance(cert.cover_cols, np.ndarray) and cert.cover_cols.dtype == bool


_INDEX = st.integers(-(2**40), 2**40) | st.integers(-3, 8)


@settings(max_examples=300, deadline=None)
@given(
    n_rows=st.integers(0, 5),
    n_cols=st.integers(0, 5),
    capacity=st.integers(0, 8),
    data=st.data(),
)
def test_property_garbage_of_the_right_shapes_never_raises(n_rows, n_cols, capacity, data):
    """Random pointers, indices and matches (mostly in a small range, so that
    some graphs are well formed and some matchings valid) always give a
    certificate; a maximum is only claimed for a well-formed graph, with a
    valid matching and a cover that checks out."""

    def ints(size):
        dtype = data.draw(st.sampled_from([np.int32, np.int64, np.uint32]))
        values = data.draw(st.lists(_INDEX, min_size=size, max_size=size))
        if dtype != np.int64:
            info = np.iinfo(dtype)
            values = [min(max(x, int(info.min)), int(info.max)) for x in values]
        return np.array(values, dtype)

    def pointer(n_major):
        if data.draw(st.booleans()):  # a well-formed pointer, often
            counts = data.draw(st.lists(st.integers(0, 3), min_size=n_major, max_size=n_major))
            return np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
        return ints(n_major + 1)

    G = BipartiteGraph(
        indptr=pointer(n_rows),
        indices=ints(capacity),
        data=None,
        shape=(n_rows, n_cols),
        col_indptr=pointer(n_cols),
        col_indices=ints(capacity),
    )
    rm, cm = ints(n_rows), ints(n_cols)
    if data.draw(st.booleans()):
        rm = rm.astype(np.float64) + data.draw(st.sampled_from([0.0, 0.5, np.nan]))
    cert = jaxmatch.verify_matching(G, (rm, cm))
    assert isinstance(cert, jaxmatch.MatchingCertificate)
    assert cert.cover_rows.shape == (n_rows,) and cert.cover_cols.shape == (n_cols,)
    if cert.maximum:
        rows, cols = G.edges()
        assert cert.valid and cert.is_cover
        assert np.all(cert.cover_rows[rows] | cert.cover_cols[cols])
        matched = np.flatnonzero(np.asarray(rm) >= 0)
        assert {(int(r), int(rm[r])) for r in matched} <= set(zip(rows.tolist(), cols.tolist()))
    elif not cert.valid:
        assert cert.reason


# ------------------------------- the two ways of finding the reached sets


def _random_matchings(seed, n_trials):
    """Maximum matchings (scipy's), the same less one pair, and greedy ones
    (maximal, often not maximum), each with its graph."""
    rng = np.random.default_rng(seed)
    for _, G, (rm, cm) in _random_cases(seed, n_trials):
        yield G, rm, cm
        rows = np.flatnonzero(rm >= 0)
        if rows.size:
            r = rows[rng.integers(rows.size)]
            rm2, cm2 = rm.copy(), cm.copy()
            cm2[rm2[r]], rm2[r] = -1, -1
            yield G, rm2, cm2
        rm3, cm3 = np.full(G.n_rows, -1), np.full(G.n_cols, -1)
        rows_, cols_ = G.edges()
        for k in rng.permutation(rows_.size):
            if rm3[rows_[k]] < 0 and cm3[cols_[k]] < 0:
                rm3[rows_[k]], cm3[cols_[k]] = cols_[k], rows_[k]
        yield G, rm3, cm3


def test_compiled_and_level_reach_agree():
    """scipy's compiled BFS and the NumPy level loop reach the same rows and
    columns, on maximum matchings and on matchings with augmenting paths."""
    from scipy.sparse.csgraph import breadth_first_order

    from jaxmatch.matching import verify

    n = 0
    for G, rm, cm in _random_matchings(seed=3, n_trials=80):
        a = verify._reach_by_scipy(G, rm, cm, breadth_first_order)
        b = verify._reach_by_levels(G, rm, cm)
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
        n += 1
    assert n > 200


def test_certificate_without_scipy_or_past_int32(monkeypatch):
    """Without scipy, or where a graph would overflow its int32 indices, the
    level loop finds the sets, and every certificate is the same."""
    import sys

    from jaxmatch.matching import verify

    cases = list(_random_matchings(seed=4, n_trials=30))
    want = [jaxmatch.verify_matching(G, (rm, cm)) for G, rm, cm in cases]
    levels_calls = []
    real_levels = verify._reach_by_levels

    def counted(*args):
        levels_calls.append(1)
        return real_levels(*args)

    monkeypatch.setattr(verify, "_reach_by_levels", counted)
    for block in ("no scipy", "int32"):
        with monkeypatch.context() as m:
            if block == "no scipy":
                m.setitem(sys.modules, "scipy.sparse.csgraph", None)
            else:
                m.setattr(verify, "_INT32_MAX", 2)
            levels_calls.clear()
            for (G, rm, cm), w in zip(cases, want):
                got = jaxmatch.verify_matching(G, (rm, cm))
                assert got.maximum == w.maximum and got.reason == w.reason
                assert got.cover_size == w.cover_size and got.cardinality == w.cardinality
                assert np.array_equal(got.cover_rows, w.cover_rows)
                assert np.array_equal(got.cover_cols, w.cover_cols)
            assert len(levels_calls) == len(cases), block
    assert any(not w.maximum for w in want) and any(w.maximum for w in want)
