"""The library owns every layout, code and size: the Python side reads them
from it, checks them at load, and lowers each platform to its own kernels."""

from __future__ import annotations

import ctypes
import enum
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxmatch
from jaxmatch import _ffi, _limits
from jaxmatch.lap import _ffi as lap_ffi
from jaxmatch.matching import _ffi as matching_ffi


def test_library_speaks_this_packages_abi():
    lib = _ffi.cpu_library()
    lib.jaxmatch_abi_version.restype = ctypes.c_int
    assert lib.jaxmatch_abi_version() == _ffi.ABI_VERSION


def test_stale_library_is_refused_with_the_fix(tmp_path):
    class StaleLibrary:
        @staticmethod
        def jaxmatch_abi_version():
            return _ffi.ABI_VERSION - 1

    with pytest.raises(_ffi.JaxmatchLibraryError, match=r"stale.*pip install"):
        _ffi._check_abi(StaleLibrary(), tmp_path / "libjaxmatch_cpu.so")


def test_library_without_abi_symbol_is_refused(tmp_path):
    with pytest.raises(_ffi.JaxmatchLibraryError, match="ABI None"):
        _ffi._check_abi(object(), tmp_path / "libjaxmatch_cpu.so")


@pytest.mark.parametrize(
    "enum_cls, prefix",
    [
        (jaxmatch.LAPStatus, "LAP_STATUS_"),
        (jaxmatch.MatchingStatus, "MATCHING_STATUS_"),
        (jaxmatch.WeightedMatchingStatus, "WEIGHTED_STATUS_"),
    ],
)
def test_status_enums_are_the_librarys_codes(enum_cls, prefix):
    _ffi.check_enum(enum_cls, prefix)
    exported = {k: v for k, v in _ffi.constants().items() if k.startswith(prefix)}
    assert exported == {prefix + m.name: int(m.value) for m in enum_cls}


def test_a_drifted_enum_is_detected():
    Drifted = enum.IntEnum("Drifted", {"RUNNING": 0, "OPTIMAL": 2})
    with pytest.raises(_ffi.JaxmatchLibraryError, match="does not match"):
        _ffi.check_enum(Drifted, "LAP_STATUS_")


def test_every_option_the_api_sends_is_exported():
    assert {lap_ffi.variant_code(m) for m in ("tree", "classical")} == {0, 1}
    names = {
        "DRIVER": ("apfb", "apsb", "hybrid", "auto", "pr"),
        "BFS": ("wr", "plain"),
        "INIT": ("none", "cheap", "given", "karp_sipser"),
        "MAPPING": ("ct", "mt"),
    }
    for kind, values in names.items():
        codes = [matching_ffi.code(kind, v) for v in values]
        assert len(set(codes)) == len(codes), kind
    with pytest.raises(_ffi.JaxmatchLibraryError, match="no constant"):
        matching_ffi.code("DRIVER", "hopcroft_karp")


def test_limits_are_the_librarys():
    """The limits the planner and the solvers read from the library
    (cuda_ffi/lap/registrations.h), with the values C++ decides."""
    c = _ffi.constants()
    # The GPU's JV: a block of 1024 threads, 64 columns a thread.
    assert c["LAP_JV_GPU_MAX_COLUMNS"] == 64 * 1024
    # The widest square problem whose JV state (prices and distances in 8
    # bytes, predecessors and owners in 4 per column; the assignment and
    # free rows in 4 per row) fits a warp's 48 KiB of shared memory.
    m = c["LAP_JV_WARP_MAX_COLUMNS"]
    assert m * (8 + 8 + 4 + 4) + m * (4 + 4) <= 48 * 1024 < (m + 1) * 32
    assert m == 1536
    # A block (or a cluster) from 256 columns, a warp below.
    assert c["LAP_JV_BLOCK_MIN_COLUMNS"] == 256
    assert c["LAP_JV_BLOCK_MIN_COLUMNS"] <= m <= c["LAP_JV_GPU_MAX_COLUMNS"]
    assert c["LAP_SPLIT_INT32_COST_BOUND"] == 1 << 28
    assert c["LAP_POINTS_MAX_K"] == 16 and c["LAP_POINTS_MAX_DIM"] == 512
    # The kernels' int32 indices: the bound jaxmatch/_limits.py checks.
    assert c["COMMON_INDEX_BOUND"] == _limits.INDEX_BOUND == 1 << 30


def test_constants_have_unique_family_prefixed_names():
    lib = _ffi.cpu_library()
    lib.jaxmatch_num_constants.restype = ctypes.c_int
    lib.jaxmatch_constant_name.restype = ctypes.c_char_p
    lib.jaxmatch_constant_name.argtypes = [ctypes.c_int]
    lib.jaxmatch_constant_value.restype = ctypes.c_int64
    lib.jaxmatch_constant_value.argtypes = [ctypes.c_int]
    names = [lib.jaxmatch_constant_name(i) for i in range(lib.jaxmatch_num_constants())]
    assert len(names) == len(set(names)) == len(_ffi.constants())
    prefixes = {"COMMON", "LAP", "MATCHING", "WEIGHTED"}
    assert all(n.split("_")[0] in prefixes for n in _ffi.constants())
    assert lib.jaxmatch_constant_name(len(names)) is None
    assert lib.jaxmatch_constant_value(len(names)) == 0


def test_workspace_lengths_come_from_the_library():
    tree = _ffi.lap_workspace_lens(5, 7, lap_ffi.variant_code("tree"))
    classical = _ffi.lap_workspace_lens(5, 7, lap_ffi.variant_code("classical"))
    # slack [m], delta [2], and the duals' rounding errors [n] and [m]
    assert tree[1] == classical[1] == 7 + 2 + 5 + 7
    assert classical[0] - tree[0] == 5 + 5 + 5 * 7  # tree list, zero counts, zero lists
    # bfs, root, queue, ia [n_cols]; pred [n_rows]
    assert _ffi.matching_workspace_len(3, 4) == 4 * 4 + 3
    # offer (n 64-bit words), cand, cand_edge, heavy; padded to an even length
    assert _ffi.weighted_workspace_len(5) == 5 * 5 + 1
    assert _ffi.weighted_workspace_len(4) == 5 * 4
    assert _ffi.weighted_workspace_len(0) == 0


def test_state_buffers_are_named():
    C = jnp.asarray(np.random.default_rng(0).random((2, 3, 4)), jnp.float32)
    state = lap_ffi.lap_solve(C, variant=lap_ffi.variant_code("tree"))
    assert state.col_for_row.shape == (2, 3) and state.row_for_col.shape == (2, 4)
    assert state.u.shape == (2, 3) and state.v.shape == (2, 4)
    status = lap_ffi.info_field(state.info, "STATUS")
    assert np.all(np.asarray(status) == jaxmatch.LAPStatus.OPTIMAL)


def test_missing_cuda_stub_names_the_fix():
    """Without the CUDA library, CUDA lowering finds a stand-in handler that
    fails with the install command; run it here on the CPU to read it."""
    jax.ffi.register_ffi_target(
        "jaxmatch_test_missing_cuda",
        jax.ffi.pycapsule(_ffi.cpu_library().jaxmatch_missing_cuda),
        platform="cpu",
    )
    call = jax.ffi.ffi_call("jaxmatch_test_missing_cuda", jax.ShapeDtypeStruct((2,), jnp.int32))
    cpu = jax.default_device(jax.devices("cpu")[0])  # the target is the CPU's
    with cpu, pytest.raises(Exception, match=r"nvcc.*pip install"):
        jax.block_until_ready(call(jnp.zeros(3), variant=np.int32(0)))


# ------------------------------------------------- lowering per platform


def _custom_calls(fn, *args, platforms):
    text = jax.jit(fn).trace(*args).lower(lowering_platforms=platforms).as_text()
    # Whole names: lap_solve is a prefix of lap_solve_warm.
    names = [n.removeprefix("jaxmatch_") for n in _ffi.registrations()["cpu"]]
    suffix = _ffi.target_name("")
    return {t for t in names if re.search(rf"jaxmatch_{t}{suffix}\b", text)}


@pytest.mark.parametrize(
    "m, dtype, gpu_targets",
    [
        (8, jnp.float32, {"lap_solve"}),
        # A single problem: the forest where the rows often tie; else JV
        # alone where they rarely do, else the stepped tree, then JV from
        # its duals where a problem is left
        (
            1100,
            jnp.int32,
            {"lap_solve", "lap_init", "lap_step", "lap_solve_warm"}
            | {"lap_split_scan", "lap_split_update"},
        ),
        (1100, jnp.float32, {"lap_solve"}),  # JV, a block per problem
    ],
)
def test_lap_auto_execution_follows_the_lowering_platform(m, dtype, gpu_targets):
    C = jnp.zeros((m, m), dtype)
    solve = lambda C: jaxmatch.solve_lap(C).cost  # noqa: E731
    assert _custom_calls(solve, C, platforms=("cpu",)) == {"lap_solve"}
    assert _custom_calls(solve, C, platforms=("cuda",)) == gpu_targets


def test_matching_auto_execution_follows_the_lowering_platform():
    n = jaxmatch.MatchingTuning().fused_max_vertices + 1
    G = jaxmatch.BipartiteGraph.from_edges(np.arange(n), np.arange(n), n, n)
    solve = lambda G: jaxmatch.max_cardinality_matching(G).cardinality  # noqa: E731
    assert _custom_calls(solve, G, platforms=("cpu",)) == {"matching_solve"}
    stepped = {"matching_init", "matching_step"}
    assert _custom_calls(solve, G, platforms=("cuda",)) == stepped


@pytest.mark.gpu
def test_cpu_placed_solves_on_a_gpu_host_run_the_cpu_kernels():
    cpu = jax.devices("cpu")[0]
    rng = np.random.default_rng(0)
    C = jax.device_put(rng.random((1100, 1100)).astype(np.float32), cpu)
    solve = jax.jit(jaxmatch.solve_lap)
    text = solve.lower(C).as_text()
    assert "jaxmatch_lap_solve" in text and "jaxmatch_lap_step" not in text
    res = solve(C)
    assert res.cost.devices() == {cpu}
    assert jaxmatch.verify_lap(np.asarray(C), jax.device_get(res)).optimal
    n = jaxmatch.MatchingTuning().fused_max_vertices + 1
    rows, cols = rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n)
    G = jax.device_put(jaxmatch.BipartiteGraph.from_edges(rows, cols, n, n), cpu)
    match = jax.jit(jaxmatch.max_cardinality_matching)
    text = match.lower(G).as_text()
    assert "jaxmatch_matching_solve" in text and "jaxmatch_matching_step" not in text
    m = match(G)
    assert m.cardinality.devices() == {cpu}
    assert jaxmatch.verify_matching(G, jax.device_get(m)).maximum
