"""Limits that fail cleanly (issue 51): a problem beyond the kernels' int32
indices is a ValueError at trace time, one beyond a device's memory a
MemoryError before any kernel runs; each message names the size and the
limit. Nothing large is allocated: shapes are abstract
(``jax.ShapeDtypeStruct`` under ``jax.eval_shape``), large dense inputs are
broadcast views, and device memories are monkeypatched where a test needs a
small one."""

from __future__ import annotations

import importlib
import math
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.sparse as sp

import jaxmatch
from jaxmatch import BipartiteGraph, Graph, SparseCosts, _ffi, _limits
from jaxmatch.lap import api as lap_api

S = jax.ShapeDtypeStruct
I32 = jnp.int32
BOUND = 2**30
LIMIT_TEXT = f"2**30 - 1 = {BOUND - 1:,}"


def _assert_names(err: pytest.ExceptionInfo, size: int) -> None:
    """The message names the size and the limit."""
    assert f"{size:,}" in str(err.value), str(err.value)
    assert LIMIT_TEXT in str(err.value), str(err.value)


# -- int32 indices: ValueError at trace time -----------------------------


def _split(C):
    return jaxmatch.solve_lap_split(C)


DENSE_DOORS = {
    "solve_lap": jaxmatch.solve_lap,
    "solve_lap under jit": jax.jit(jaxmatch.solve_lap),
    "hungarian": jaxmatch.hungarian,
    "solve_lap under vmap": jax.vmap(jaxmatch.solve_lap),
}


@pytest.mark.parametrize("door", sorted(DENSE_DOORS))
@pytest.mark.parametrize("shape", [(1, BOUND), (BOUND, 3), (2, 5, BOUND), (2**31, 2)])
def test_a_dense_side_beyond_int32_indices_is_refused_at_trace_time(door, shape):
    if door.endswith("vmap") and len(shape) == 2:
        shape = (1, *shape)
    with pytest.raises(ValueError, match="larger side") as err:
        jax.eval_shape(DENSE_DOORS[door], S(shape, jnp.float32))
    _assert_names(err, max(shape[-2:]))


@pytest.mark.parametrize("shape", [(1, BOUND), (BOUND, 2)])
def test_the_split_solve_refuses_a_side_beyond_int32_indices(shape):
    with pytest.raises(ValueError, match="larger side") as err:
        jax.eval_shape(_split, S(shape, jnp.float32))
    _assert_names(err, BOUND)
    with pytest.raises(ValueError, match="larger side"):
        jax.eval_shape(jax.jit(_split), S(shape, jnp.float32))


@pytest.mark.parametrize("door", ["solve_lap", "solve_lap under jit", "hungarian"])
@pytest.mark.parametrize("shape", [(1, BOUND - 1), (BOUND - 1, 2), (3, 1, BOUND - 1)])
def test_a_dense_side_just_under_the_limit_is_accepted(door, shape):
    out = jax.eval_shape(DENSE_DOORS[door], S(shape, jnp.float32))
    cfr = out if door == "hungarian" else out.col_for_row
    assert cfr.shape == shape[:-1]


def test_the_split_solve_accepts_a_side_just_under_the_limit():
    out = jax.eval_shape(_split, S((2, BOUND - 1), jnp.float32))
    assert out.row_for_col.shape == (BOUND - 1,)


def _sparse(n, m, cap):
    return SparseCosts(S((n + 1,), I32), S((cap,), I32), S((cap,), jnp.float32), (n, m))


def _bipartite(nr, nc, cap):
    return BipartiteGraph(
        indptr=S((nr + 1,), I32),
        indices=S((cap,), I32),
        data=None,
        shape=(nr, nc),
        col_indptr=S((nc + 1,), I32),
        col_indices=S((cap,), I32),
    )


def _graph(n, cap):
    return Graph(indptr=S((n + 1,), I32), indices=S((cap,), I32), data=S((cap,), I32), shape=(n, n))


CSR_MAKERS = {
    "SparseCosts": lambda n, cap: _sparse(3, n, cap),
    "BipartiteGraph": lambda n, cap: _bipartite(3, n, cap),
    "Graph": lambda n, cap: _graph(n, cap),
}


@pytest.mark.parametrize("kind", sorted(CSR_MAKERS))
def test_a_csr_beyond_int32_indices_is_refused_where_it_is_made(kind):
    make = CSR_MAKERS[kind]
    for cap in (BOUND, 2**31 + 5):
        with pytest.raises(ValueError, match="capacity") as err:
            make(10, cap)
        _assert_names(err, cap)
    with pytest.raises(ValueError, match="index pointer") as err:
        make(BOUND - 1, 10)  # its pointer has 2**30 entries
    _assert_names(err, BOUND)
    with pytest.raises(ValueError, match="index pointer"):
        make(2**31, 10)
    assert make(10, BOUND - 1).capacity == BOUND - 1
    assert make(BOUND - 2, 10).shape[-1] == BOUND - 2


def _with_capacity(G, cap):
    """``G`` with every capacity-sized leaf ``cap`` long, rebuilt as a
    pytree (``__post_init__``, hence the constructor's check, does not run)."""
    leaves, tree = jax.tree.flatten(G)
    size = G.capacity
    grown = [S((*x.shape[:-1], cap), x.dtype) if x.shape[-1] == size else x for x in leaves]
    return jax.tree.unflatten(tree, grown)


SOLVERS = {
    "SparseCosts": (lambda: _sparse(3, 10, 7), jaxmatch.solve_lap),
    "BipartiteGraph": (lambda: _bipartite(3, 10, 7), jaxmatch.max_cardinality_matching),
    "Graph": (lambda: _graph(10, 7), jaxmatch.approximate_weighted_matching),
}


@pytest.mark.parametrize("kind", sorted(SOLVERS))
def test_the_solvers_check_a_csr_again(kind):
    make, solve = SOLVERS[kind]
    grown = _with_capacity(make(), BOUND)
    with pytest.raises(ValueError, match="capacity") as err:
        jax.eval_shape(solve, grown)
    _assert_names(err, BOUND)
    with pytest.raises(ValueError, match="capacity"):
        jax.eval_shape(jax.jit(solve), grown)
    jax.eval_shape(solve, _with_capacity(make(), BOUND - 1))


def _last_fitting(length) -> int:
    """The largest ``k`` whose workspace ``length(k)`` is below 2**30 (the
    lengths come from the library)."""
    lo, hi = 1, BOUND
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if length(mid) < BOUND else (lo, mid)
    return lo


GRAPH_DOORS = {
    "max_cardinality_matching": (
        lambda k: _bipartite(k, k, 4),
        lambda k: _ffi.matching_workspace_len(k, k),
        jaxmatch.max_cardinality_matching,
    ),
    "cheap_matching": (
        lambda k: _bipartite(k, k, 4),
        lambda k: _ffi.matching_workspace_len(k, k),
        jaxmatch.cheap_matching,
    ),
    "approximate_weighted_matching": (
        lambda k: _graph(k, 4),
        _ffi.weighted_workspace_len,
        jaxmatch.approximate_weighted_matching,
    ),
}


@pytest.mark.parametrize("door", sorted(GRAPH_DOORS))
def test_a_graph_whose_workspace_overflows_int32_is_refused_at_trace_time(door):
    make, length, solve = GRAPH_DOORS[door]
    k = _last_fitting(length)
    assert k < BOUND // 2  # the workspace binds before the vertex count
    jax.eval_shape(solve, make(k))
    with pytest.raises(ValueError, match="workspace") as err:
        jax.eval_shape(solve, make(k + 1))
    _assert_names(err, length(k + 1))
    with pytest.raises(ValueError, match="workspace"):
        jax.eval_shape(jax.jit(solve), make(k + 1))


def test_the_drop_ins_and_host_entries_refuse_sizes_ctypes_would_wrap():
    """The eager drop-ins pass sizes to C as ``int``: a side of 2**32 + 5
    would wrap to 5 and solve the first five columns. Each is refused,
    naming the size, before any NumPy work."""
    wide = sp.csr_array(([5.0, 1.0], [2, 2**32 + 3], [0, 2]), shape=(1, 2**32 + 5))
    for call in (
        lambda: jaxmatch.maximum_bipartite_matching(wide, perm_type="row"),
        lambda: jaxmatch.min_weight_full_bipartite_matching(wide),
        lambda: jaxmatch.linear_sum_assignment(np.broadcast_to(np.float32(1), (1, 2**32 + 5))),
        lambda: _ffi.lap_workspace_lens(1, 2**32 + 5, 0),
        lambda: _ffi.matching_workspace_len(1, 2**32 + 5),
        lambda: _ffi.weighted_workspace_len(2**32 + 5),
    ):
        with pytest.raises(ValueError, match=r"4,294,967,30\d.*2\*\*30 - 1"):
            call()


def test_the_limits_table_names_each_quantity_and_bound():
    assert set(_limits.LIMITS) == {"side", "vertices", "entries", "workspace", "memory"}
    for limit in _limits.LIMITS.values():
        assert limit.quantity and limit.message
        if limit.bound is not None:
            assert limit.bound == _limits.INDEX_BOUND == BOUND
            assert limit.error is ValueError
            _limits.check_index(limit.name, BOUND - 1, "x")
            with pytest.raises(ValueError) as err:
                _limits.check_index(limit.name, BOUND, "x")
            _assert_names(err, BOUND)
    assert _limits.LIMITS["memory"].error is MemoryError


# -- device memory: MemoryError before any kernel, eager calls only -------


@pytest.fixture
def small_memory(monkeypatch):
    """Sets every device's memory (``.limit``) and records each count the
    check makes (``.counts``: the total over a pool's devices)."""
    state = SimpleNamespace(limit=None, counts=[])
    monkeypatch.setattr(_limits, "device_memory", lambda d: state.limit)
    refuse = _limits._refuse_over

    def spy(what, need, members):
        state.counts.append(sum(need.values()))
        return refuse(what, need, members)

    monkeypatch.setattr(_limits, "_refuse_over", spy)
    return state


def test_a_dense_problem_beyond_the_device_memory_is_refused_before_any_copy(device, monkeypatch):
    limit = _limits.device_memory(device)
    assert limit is not None, device
    n = math.isqrt(limit // 4) + 1  # float32 costs of more than the whole memory
    C = np.broadcast_to(np.float32(1), (n, n))  # a view: nothing is allocated

    def no_copy(C):
        raise AssertionError("the costs reached canonical_costs (a cast or a transfer)")

    monkeypatch.setattr(lap_api, "canonical_costs", no_copy)
    monkeypatch.setattr(
        importlib.import_module("jaxmatch.lap.split.solve"), "canonical_costs", no_copy
    )
    with pytest.raises(MemoryError) as err:
        jaxmatch.solve_lap(C)
    message = str(err.value)
    assert f"shape ({n}, {n})" in message and f"{limit:,} bytes" in message, message
    with pytest.raises(MemoryError, match="split LAP"):
        jaxmatch.solve_lap_split(C, devices=[device])


def _dense(device):
    return jax.device_put(jnp.arange(3 * 6 * 5, dtype=jnp.float32).reshape(3, 6, 5), device)


def _sparse_costs():
    return SparseCosts.from_scipy(sp.random(6, 8, density=0.5, random_state=0, format="csr"))


def _bipartite_graph():
    return BipartiteGraph.from_dense(np.eye(6, 8, dtype=bool) | np.eye(6, 8, 1, dtype=bool))


def _weighted_graph():
    return Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 4], [1.0, 2.0, 3.0, 4.0], 6)


EAGER_CALLS = {
    "solve_lap dense": lambda d: jaxmatch.solve_lap(_dense(d)),
    "solve_lap classical": lambda d: jaxmatch.solve_lap(_dense(d), method="classical"),
    "solve_lap sparse": lambda d: jaxmatch.solve_lap(_sparse_costs()),
    "solve_lap_split": lambda d: jaxmatch.solve_lap_split(_dense(d)[0], devices=[d]),
    "max_cardinality_matching": lambda d: jaxmatch.max_cardinality_matching(_bipartite_graph()),
    "karp_sipser_matching": lambda d: jaxmatch.karp_sipser_matching(_bipartite_graph()),
    "approximate_weighted_matching": lambda d: jaxmatch.approximate_weighted_matching(
        _weighted_graph()
    ),
}


@pytest.mark.parametrize("call", sorted(EAGER_CALLS))
def test_the_memory_bound_is_the_count(device, small_memory, call):
    """Accepted with exactly the memory it counts, refused with a byte less;
    the message names both."""
    run = EAGER_CALLS[call]
    small_memory.limit = 2**40
    run(device)
    need = small_memory.counts[-1]
    assert need > 0
    small_memory.limit = need
    run(device)
    small_memory.limit = need - 1
    with pytest.raises(MemoryError) as err:
        run(device)
    assert f"{need:,} bytes" in str(err.value) and f"{need - 1:,} bytes" in str(err.value)


def test_the_count_includes_the_classical_workspace(device, small_memory):
    small_memory.limit = 2**40
    C = _dense(device)
    jaxmatch.solve_lap(C, method="tree")
    jaxmatch.solve_lap(C, method="classical")
    tree, classical = small_memory.counts[-2:]
    assert classical - tree >= 4 * C.size  # int32 [n, m] per problem
    assert tree >= C.nbytes + 4 * 3 * (6 + 5)  # the costs and the assignment


JITTED_CALLS = {
    "solve_lap": lambda d: jax.jit(jaxmatch.solve_lap)(_dense(d)),
    "solve_lap sparse": lambda d: jax.jit(jaxmatch.solve_lap)(_sparse_costs()),
    "max_cardinality_matching": lambda d: jax.jit(jaxmatch.max_cardinality_matching)(
        _bipartite_graph()
    ),
    "approximate_weighted_matching": lambda d: jax.jit(jaxmatch.approximate_weighted_matching)(
        _weighted_graph()
    ),
}


@pytest.mark.parametrize("call", sorted(JITTED_CALLS))
def test_the_memory_check_is_skipped_under_jit(device, small_memory, call):
    small_memory.limit = 1
    out = JITTED_CALLS[call](device)
    assert np.all(np.asarray(out.status) >= 0)
    assert small_memory.counts == []


class _Device:
    """A stand-in device: its platform and reported memory statistics."""

    def __init__(self, platform, stats=None):
        self.platform, self.stats = platform, stats

    def memory_stats(self):
        return self.stats


def test_device_memory_reads_the_allocator_limit_or_the_host_memory():
    assert _limits.device_memory(_Device("gpu", {"bytes_limit": 123, "bytes_in_use": 5})) == 123
    assert _limits.device_memory(_Device("gpu", {})) is None
    assert _limits.device_memory(_Device("gpu", None)) is None
    host = _limits.device_memory(jax.devices("cpu")[0])
    assert host is not None and host > 2**26


def test_gpus_are_counted_one_by_one_and_cpu_devices_together(monkeypatch):
    monkeypatch.setattr(_limits, "device_memory", lambda d: 100)
    gpus = [_Device("gpu"), _Device("gpu")]
    _limits.check_memory_on("two blocks", gpus, 60)
    with pytest.raises(MemoryError, match=r"the host's CPU devices") as err:
        _limits.check_memory_on("two blocks", [_Device("cpu"), _Device("cpu")], 60)
    assert "120 bytes" in str(err.value) and "100 bytes" in str(err.value)
    assert "2 problems" in str(err.value)
