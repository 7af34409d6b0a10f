"""Many problems per case: each hypothesis example draws a seed, a shape,
a dtype and a value kind, and NumPy makes a batch of problems of them
(``BATCH`` problems: 8 in the quick profile, 256 in the deep one), solved in
one batched call and checked member by member against the oracles. The
deep profile reaches 10**5 problems per entry point in a few hundred
examples, where one problem per example would take hours on a device."""

from __future__ import annotations

import functools

import jax
import numpy as np
from fuzz_cases import COUNTS, PROFILE, check_lap_batch, fuzz_settings
from graph_cases import maximum_cardinality
from hypothesis import given
from hypothesis import strategies as st

import jaxmatch
from jaxmatch import BipartiteGraph, MatchingStatus

BATCH = 256 if PROFILE == "deep" else 8
SHAPES = ((1, 1), (2, 3), (5, 5), (7, 4), (16, 16), (31, 40))


def random_costs(rng, shape, dtype: str, kind: str) -> np.ndarray:
    """A batch of cost matrices of one kind: ties, floats, ints, forbidden
    entries, invalid entries (NaN, -inf), huge or tiny magnitudes."""
    if kind == "ties":
        C = rng.integers(0, 3, shape).astype(np.float64)
    elif kind == "ints":
        C = rng.integers(-1000, 1000, shape).astype(np.float64)
    elif kind == "huge":
        C = rng.integers(-(2**20), 2**20, shape) * (2.0**6 if dtype == "int32" else 1e25)
    elif kind == "tiny":
        C = rng.random(shape) * 1e-30
    else:
        C = rng.random(shape)
    if dtype != "int32":
        C[rng.random(shape) < (0.3 if kind == "forbidden" else 0.02)] = np.inf
        C[rng.random(shape) < 0.005] = rng.choice([np.nan, -np.inf])
    return C.astype(dtype)


@functools.cache
def _solve(method: str):
    return jax.jit(lambda C, mx: jaxmatch.solve_lap(C, maximize=mx, method=method))


@fuzz_settings(quick=12)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.sampled_from(SHAPES),
    dtype=st.sampled_from(["float32", "float64", "int32"]),
    kind=st.sampled_from(["ties", "ints", "uniform", "forbidden", "huge", "tiny"]),
    method=st.sampled_from(["auto", "jv", "tree", "classical"]),
)
def test_solve_lap_batches_against_scipy(device, seed, shape, dtype, kind, method):
    rng = np.random.default_rng(seed)
    C = random_costs(rng, (BATCH, *shape), dtype, kind)
    flags = rng.random(BATCH) < 0.5
    res = _solve(method)(C, flags)
    check_lap_batch(C, flags, res, f"batch {method} {dtype} {kind} seed={seed}")
    COUNTS[f"solve_lap dense, batched problems ({device.platform})"] += BATCH


@functools.cache
def _match(method: str, init: str | None):
    return jax.jit(
        jax.vmap(lambda g: jaxmatch.max_cardinality_matching(g, method=method, init=init))
    )


@fuzz_settings(quick=12)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.sampled_from(SHAPES),
    density=st.sampled_from([0.05, 0.2, 0.6]),
    method=st.sampled_from(["auto", "apfb", "apsb", "hybrid", "pr"]),
    init=st.sampled_from(["cheap", "greedy", "karp-sipser", None]),
)
def test_matching_batches_against_scipy(device, seed, shape, density, method, init):
    rng = np.random.default_rng(seed)
    graphs = [BipartiteGraph.from_dense(rng.random(shape) < density) for _ in range(BATCH)]
    cap = max(16, max(g.capacity for g in graphs))
    cap = 1 << (cap - 1).bit_length()  # one compilation per power of two
    graphs = [g.pad_to(cap) for g in graphs]
    batch = jax.tree.map(lambda *a: np.stack([np.asarray(x) for x in a]), *graphs)
    res = jax.tree.map(np.asarray, _match(method, init)(batch))
    for b, G in enumerate(graphs):
        info = (method, init, seed, b, shape, density)
        assert int(res.status[b]) == MatchingStatus.MAXIMUM, info
        assert int(res.cardinality[b]) == maximum_cardinality(G), info
        cert = jaxmatch.verify_matching(G, (res.col_for_row[b], res.row_for_col[b]))
        assert cert.valid and cert.maximum, (cert.reason, *info)
    COUNTS[f"max_cardinality_matching, batched graphs ({device.platform})"] += BATCH
