"""verify_weighted_matching catches every kind of bad matching."""

from __future__ import annotations

import numpy as np
import pytest

import jaxmatch
from jaxmatch import Graph


def path():
    # 0 -1- 1 -5- 2 -1- 3 -2- 4
    return Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], [1.0, 5.0, 1.0, 2.0], 5)


def test_greedy_matching_is_certified_with_bounds():
    cert = jaxmatch.verify_weighted_matching(path(), np.array([-1, 2, 1, 4, 3]))
    assert cert.valid and cert.locally_dominant and cert.reason == ""
    assert cert.weight == 7.0 and cert.cardinality == 2
    # best incident weights 1, 5, 5, 2, 2 -> 7.5; 2 * 7 = 14
    assert cert.upper_bound == 7.5
    assert cert.ratio == pytest.approx(7.0 / 7.5)


@pytest.mark.parametrize(
    "mate, message",
    [
        ([-1, 2, 1, -1, -1], "not locally dominant"),  # edge (3, 4) free at both ends
        ([1, 0, -1, 4, 3], "not locally dominant"),  # (1, 2) heavier than both
        ([2, -1, 0, -1, -1], "not an edge"),
        ([1, -1, -1, -1, -1], "symmetric"),
        ([0, -1, -1, -1, -1], "itself"),
        ([5, -1, -1, -1, -1], "out of range"),
        ([-1, -1], "shape"),
    ],
)
def test_bad_matchings(mate, message):
    cert = jaxmatch.verify_weighted_matching(path(), np.array(mate))
    assert not (cert.valid and cert.locally_dominant)
    assert message in cert.reason


def test_integer_weights_and_empty():
    G = Graph.from_edges([0], [1], [3], 2)
    cert = jaxmatch.verify_weighted_matching(G, np.array([1, 0]))
    assert cert.weight == 3 and isinstance(cert.weight, int) and cert.ratio == 1.0
    E = Graph.from_edges([], [], [], 3)
    cert = jaxmatch.verify_weighted_matching(E, np.array([-1, -1, -1]))
    assert cert.locally_dominant and cert.upper_bound == 0 and cert.ratio == 1.0


def test_batch_and_bad_types_are_refused():
    G = path()
    with pytest.raises(TypeError, match="integer mate"):
        jaxmatch.verify_weighted_matching(G, np.zeros(5))
    import jax
    import jax.numpy as jnp

    batch = jax.tree.map(lambda x: jnp.stack([x, x]), G)
    with pytest.raises(ValueError, match="one graph"):
        jaxmatch.verify_weighted_matching(batch, np.array([-1] * 5))
