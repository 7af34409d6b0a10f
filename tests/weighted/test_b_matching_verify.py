"""verify_b_matching: certifies the b-greedy's b-matching, rejects every
corruption of it, never passes what the oracle rejects, and bounds the
optimum from above."""

from __future__ import annotations

import numpy as np
import pytest
from b_cases import (
    UNIFORM_B,
    WEIGHT_KINDS,
    b_greedy,
    capacities,
    is_b_matching,
    optimum_milp,
    random_b,
    random_graph,
    symmetric_mask,
)

from jaxmatch import Graph
from jaxmatch.weighted.verify import verify_b_matching


class Result:
    """A stand-in for BMatchingResult (the fields the certificate reads)."""

    def __init__(self, matched, degree, cardinality=None):
        self.matched = np.asarray(matched)
        self.degree = np.asarray(degree)
        if cardinality is not None:
            self.cardinality = cardinality


def greedy_result(G, b):
    g = b_greedy(G, b)
    return g, Result(g.matched, g.degree, g.cardinality)


def path():
    # 0 -1- 1 -5- 2 -4- 3 -2- 4
    return Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], [1.0, 5.0, 4.0, 2.0], 5)


def test_greedy_on_a_path_with_exact_fields():
    G = path()
    b = np.array([1, 1, 2, 1, 1])
    g, res = greedy_result(G, b)
    # (1, 2) then (2, 3) (vertex 2 has b = 2), (3, 4) blocked by 3, (0, 1) by 1.
    assert sorted(g.edges) == [(1, 2), (2, 3)]
    cert = verify_b_matching(G, b, res)
    assert cert.valid and cert.locally_dominant and cert.reason == ""
    assert cert.weight == 9.0 and cert.cardinality == 2
    # The optimum is 9 (taking (3, 4) costs (2, 3)); the top-b bound is
    # (1 + 5 + 9 + 4 + 2) / 2 = 10.5; the duals are at least 9.
    assert optimum_milp(G, b) == 9.0
    assert 9.0 <= cert.upper_bound <= 10.5
    assert cert.ratio == pytest.approx(9.0 / cert.upper_bound)


def test_b_zero_everywhere_and_empty_graphs():
    G = path()
    cert = verify_b_matching(G, 0, np.zeros(G.indices.shape[0], bool))
    assert cert.valid and cert.locally_dominant
    assert cert.weight == 0.0 and cert.upper_bound == 0.0 and cert.ratio == 1.0
    for n in (0, 3):
        E = Graph.from_edges([], [], np.zeros(0), n)
        cert = verify_b_matching(E, 2, np.zeros(E.indices.shape[0], bool))
        assert cert.valid and cert.locally_dominant and cert.upper_bound == 0.0


def test_integer_weights_are_exact():
    big = 2**31 - 1
    G = Graph.from_edges([0, 1, 2], [1, 2, 0], np.array([big, big, big], np.int32), 3)
    _, res = greedy_result(G, 2)
    cert = verify_b_matching(G, 2, res)
    assert cert.valid and cert.locally_dominant
    assert cert.weight == 3 * big and isinstance(cert.weight, int)
    assert cert.upper_bound == 3 * big and cert.ratio == 1.0


def corruptions(G, b, g):
    """(name, mask, degree, expected reason) of corrupted copies of the
    greedy's result ``g``."""
    u, v, w = G.edges(both=True)
    cap = capacities(b, G.n)
    out = []
    if g.edges:
        # A matched edge removed from the mask (degree updated to agree).
        x, y = g.edges[-1]
        mask = g.matched & ~symmetric_mask(G, [(x, y)])
        deg = g.degree.copy()
        deg[[x, y]] -= 1
        out.append(("removed", mask, deg, "not b-locally dominant"))
        # One end of an edge unmarked: asymmetric.
        k = int(np.flatnonzero(g.matched)[0])
        mask = g.matched.copy()
        mask[k] = False
        out.append(("asymmetric", mask, g.degree, "not symmetric"))
        # The degree field off by one.
        deg = g.degree.copy()
        deg[x] += 1
        out.append(("degree", g.matched, deg, "result.degree"))
    free = [
        (int(a), int(c))
        for a, c, we in zip(u, v, w)
        if a < c and we > 0 and not g.matched[np.flatnonzero((u == a) & (v == c))[0]]
    ]
    for a, c in free:
        if g.degree[a] >= cap[a] or g.degree[c] >= cap[c]:
            # An unmatched edge added at a full end: over capacity.
            mask = g.matched | symmetric_mask(G, [(a, c)])
            deg = g.degree.copy()
            deg[[a, c]] += 1
            out.append(("over capacity", mask, deg, "over b"))
            break
    for x, y in g.edges:
        # A matched edge swapped for an unmatched lighter one that fits.
        deg = g.degree.copy()
        deg[[x, y]] -= 1
        for a, c in free:
            if deg[a] < cap[a] and deg[c] < cap[c] and (a, c) != (x, y):
                mask = (g.matched & ~symmetric_mask(G, [(x, y)])) | symmetric_mask(G, [(a, c)])
                d2 = deg.copy()
                d2[[a, c]] += 1
                out.append(("swapped", mask, d2, "not b-locally dominant"))
                break
        else:
            continue
        break
    return out


@pytest.mark.parametrize("seed", range(12))
def test_corruptions_are_rejected(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 30))
    G = random_graph(rng, n, kind=("uniform", "two_values", "small_ints")[seed % 3])
    b = random_b(rng, n, (1, 2, "per_vertex")[seed % 3])
    g, res = greedy_result(G, b)
    assert verify_b_matching(G, b, res).locally_dominant
    cases = corruptions(G, b, g)
    assert {"removed", "asymmetric", "degree"} <= {c[0] for c in cases}
    for name, mask, deg, reason in cases:
        cert = verify_b_matching(G, b, Result(mask, deg))
        assert not (cert.valid and cert.locally_dominant), name
        assert reason in cert.reason, (name, cert.reason)


def test_swap_and_over_capacity_on_a_path():
    G = path()
    b = np.array([1, 1, 2, 1, 1])
    g, _ = greedy_result(G, b)
    names = {c[0] for c in corruptions(G, b, g)}
    assert {"removed", "asymmetric", "degree", "over capacity", "swapped"} == names
    for name, mask, deg, reason in corruptions(G, b, g):
        cert = verify_b_matching(G, b, Result(mask, deg))
        assert reason in cert.reason, (name, cert.reason)
        if name == "swapped":
            assert cert.valid and not cert.locally_dominant


def test_other_faults():
    G = path()
    cap = G.indices.shape[0]
    b = 2
    g = b_greedy(G, b)
    with pytest.raises(TypeError, match="bool mask"):
        verify_b_matching(G, b, g.matched.astype(np.int32))
    cert = verify_b_matching(G, b, g.matched[:-1])
    assert not cert.valid and "shape" in cert.reason
    wrong = Result(g.matched, g.degree, cardinality=g.cardinality + 1)
    assert "cardinality" in verify_b_matching(G, b, wrong).reason
    padded = G.pad_to(cap + 4)
    mask = np.r_[g.matched, False, False, True, False]
    cert = verify_b_matching(padded, b, mask)
    assert not cert.valid and "padding" in cert.reason
    assert verify_b_matching(padded, b, np.r_[g.matched, [False] * 4]).locally_dominant


def raw_graph(rows, w, n):
    """An unvalidated Graph of adjacency lists ``rows`` (self loops and
    repeats kept) with weights ``w`` (lists of the same shape)."""
    indptr = np.r_[0, np.cumsum([len(r) for r in rows])].astype(np.int32)
    indices = np.array([x for r in rows for x in r], np.int32)
    data = np.array([x for r in w for x in r], np.float32)
    return Graph(indptr, indices, data, (n, n))


def test_self_loops_nonpositive_and_repeated_entries():
    # 0: [0 (loop, 9), 1 (3), 1 (5)]; 1: [0 (3), 0 (5), 2 (0)]; 2: [1 (0)]
    G = raw_graph([[0, 1, 1], [0, 0, 2], [1]], [[9, 3, 5], [3, 5, 0], [0]], 3)
    loop = np.array([1, 0, 0, 0, 0, 0, 0], bool)
    assert "self loop" in verify_b_matching(G, 2, loop).reason
    zero = np.array([0, 0, 0, 0, 0, 1, 1], bool)
    assert "<= 0" in verify_b_matching(G, 2, zero).reason
    both = np.array([0, 1, 1, 1, 1, 0, 0], bool)
    assert "two stored entries" in verify_b_matching(G, 2, both).reason
    mixed = np.array([0, 1, 0, 0, 1, 0, 0], bool)  # 3 from 0's end, 5 from 1's
    assert "different weights" in verify_b_matching(G, 2, mixed).reason
    heavy = np.array([0, 0, 1, 0, 1, 0, 0], bool)  # the heavier copy: dominant
    cert = verify_b_matching(G, 2, heavy)
    assert cert.valid and cert.locally_dominant and cert.weight == 5.0
    assert np.array_equal(b_greedy(G, 2).matched, heavy)
    light = np.array([0, 1, 0, 1, 0, 0, 0], bool)  # the lighter copy: not
    cert = verify_b_matching(G, 2, light)
    assert cert.valid and not cert.locally_dominant and cert.weight == 3.0


def test_bad_capacities_are_refused():
    G = path()
    mask = np.zeros(G.indices.shape[0], bool)
    for b, err in [(-1, ValueError), (np.array([1, 1, -2, 1, 1]), ValueError),
                   (np.ones(4, np.int32), ValueError), (1.0, TypeError),
                   (np.ones(5), TypeError), (True, TypeError)]:  # fmt: skip
        with pytest.raises(err):
            verify_b_matching(G, b, mask)
    with pytest.raises(ValueError, match="refine"):
        verify_b_matching(G, 1, mask, refine=-1)
    import jax
    import jax.numpy as jnp

    batch = jax.tree.map(lambda x: jnp.stack([x, x]), G)
    with pytest.raises(ValueError, match="one graph"):
        verify_b_matching(batch, 1, mask)


def test_other_tie_orders_keep_the_half_bound():
    """A b-greedy that breaks ties otherwise (as networkit may) is valid and
    dominant by weight: ratio >= 1/2, maybe not dominant in jaxmatch's
    order."""
    seen_not_dominant = False
    for seed in range(30):
        rng = np.random.default_rng(seed)
        G = random_graph(rng, 12, kind="equal" if seed % 2 else "two_values")
        b = random_b(rng, 12, (1, 2, "per_vertex")[seed % 3])
        other = b_greedy(G, b, ties="smaller")
        cert = verify_b_matching(G, b, other.matched)
        assert cert.valid and cert.ratio >= 0.5
        assert cert.upper_bound >= optimum_milp(G, b) - 1e-9
        mine = b_greedy(G, b)
        same = np.array_equal(other.matched, mine.matched)
        assert cert.locally_dominant == same
        if not same:
            seen_not_dominant = True
            assert "ratio 1/2 still holds" in cert.reason
    assert seen_not_dominant


def random_mask(rng, G, g, b):
    """A b-matching-ish mask near the greedy's: a few matched edges dropped,
    a few unmatched ones added (maybe over capacity), sometimes one stored
    entry flipped."""
    u, v, _ = G.edges()
    mask = g.matched.copy()
    if g.edges and rng.random() < 0.7:
        drop = rng.choice(len(g.edges), size=int(rng.integers(1, 3)), replace=True)
        mask &= ~symmetric_mask(G, [g.edges[i] for i in drop])
    if u.size and rng.random() < 0.7:
        add = rng.choice(u.size, size=int(rng.integers(1, 3)), replace=True)
        mask |= symmetric_mask(G, [(u[i], v[i]) for i in add])
    if mask.size and rng.random() < 0.1:
        mask[rng.integers(mask.size)] ^= True
    return mask


@pytest.mark.parametrize("seed", range(8))
def test_never_passes_what_the_oracle_rejects(seed):
    """Randomized: the certificate's valid is the oracle's; its
    valid-and-dominant holds exactly for the greedy's mask (the dominant
    b-matching is unique); its upper bound is at least the optimum and its
    ratio at most the observed one."""
    rng = np.random.default_rng(1000 + seed)
    kinds = list(WEIGHT_KINDS)
    for it in range(40):
        n = int(rng.integers(0, 10))
        G = random_graph(
            rng, n, family=("random", "sparse", "star", "complete")[it % 4], kind=kinds[it % 5]
        )
        b = random_b(rng, n, (*UNIFORM_B, "per_vertex")[it % 6])
        g = b_greedy(G, b)
        mask = random_mask(rng, G, g, b) if it % 4 else g.matched
        cert = verify_b_matching(G, b, mask)
        assert cert.valid == is_b_matching(G, b, mask), (seed, it)
        greedy = np.array_equal(mask, g.matched)
        assert (cert.valid and cert.locally_dominant) == greedy, (seed, it, cert.reason)
        if cert.valid:
            opt = optimum_milp(G, b)
            assert cert.upper_bound >= opt - 1e-9 * max(1.0, opt)
            assert float(cert.weight) <= opt + 1e-9 * max(1.0, opt)
            assert float(cert.weight) >= cert.ratio * opt - 1e-9 * max(1.0, opt)
            if greedy:
                assert cert.ratio >= 0.5


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_larger_graphs_bound_and_dtype(dtype):
    rng = np.random.default_rng(7)
    for b in (1, 2, 5, "per_vertex", "large"):
        G = random_graph(rng, 120, family="power_law", kind="small_ints", dtype=dtype)
        bb = random_b(rng, 120, b)
        g = b_greedy(G, bb)
        cert = verify_b_matching(G, bb, Result(g.matched, g.degree, g.cardinality))
        assert cert.valid and cert.locally_dominant and cert.reason == ""
        assert cert.weight == pytest.approx(g.weight) and cert.cardinality == g.cardinality
        opt = optimum_milp(G, bb)
        assert cert.upper_bound >= opt - 1e-6 and cert.ratio >= 0.5
        assert g.weight >= cert.ratio * opt - 1e-6


def test_an_unfinished_solve_is_named():
    """A result whose status is not DOMINANT (its mask empty) is a valid,
    not dominant b-matching, and the reason names the status."""
    G = path()
    empty = Result(np.zeros(G.indices.shape[0], bool), np.zeros(5, np.int64), 0)
    empty.status = np.int32(4)  # OVERFLOW
    cert = verify_b_matching(G, 1, empty)
    assert cert.valid and not cert.locally_dominant
    assert "OVERFLOW, not DOMINANT" in cert.reason
