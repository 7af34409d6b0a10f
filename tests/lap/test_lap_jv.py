"""The Jonker-Volgenant solver (method "jv"; "auto" on the CPU) against
scipy on the CPU and on the GPU (a warp or a block per problem; both in
``cuda_ffi/lap/jv/``): every member certified by LP duality."""

from __future__ import annotations

import functools
import itertools
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from lap_cases import DISTRIBUTIONS, check_against_scipy, make_costs, member

import jaxmatch
from jaxmatch import _ffi

SHAPES = [(1, 1), (1, 5), (5, 1), (2, 2), (3, 3), (4, 7), (7, 4), (13, 13), (16, 31), (50, 50)]
SHAPES += [(64, 100), (100, 64), (128, 128), (200, 200), (150, 300)]
SHAPES += [(256, 256), (30, 700), (300, 257)]  # a block per problem on a GPU
DTYPES = [np.float32, np.float64, np.int32]
PER_SHAPE = 15  # three of each distribution


@pytest.mark.parametrize(
    "device, method",
    [("cpu", "jv"), ("cpu", "auto"), pytest.param("gpu", "jv", marks=pytest.mark.gpu)],
    indirect=["device"],
)
def test_sweep_against_scipy(device, method):
    rng = np.random.default_rng(17)
    for (n, m), dtype, maximize in itertools.product(SHAPES, DTYPES, (False, True)):
        mats = [make_costs(rng, DISTRIBUTIONS[k % 5], n, m, dtype) for k in range(PER_SHAPE)]
        C = np.stack(mats)
        if maximize and not np.issubdtype(dtype, np.integer):
            C = np.where(np.isinf(C), -np.inf, C)
        solve = jax.jit(functools.partial(jaxmatch.solve_lap, maximize=maximize, method=method))
        res = jax.device_get(solve(C))
        for b in range(C.shape[0]):
            check_against_scipy(C[b], member(res, b), maximize)


@pytest.mark.parametrize(
    "name, make",
    [
        ("zeros", lambda rng, n: np.zeros((n, n))),
        ("two_values", lambda rng, n: rng.integers(0, 2, (n, n)).astype(float)),
        ("few_values", lambda rng, n: rng.integers(0, 4, (n, n)).astype(float)),
        ("machol_wien", lambda rng, n: np.outer(np.arange(n), np.arange(n)).astype(float)),
        ("rank_one", lambda rng, n: np.outer(rng.random(n), rng.random(n))),
        ("wide_range", lambda rng, n: 10.0 ** rng.uniform(-6, 6, (n, n))),
    ],
)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hard_classes_certified(name, make, dtype, device):
    """Tied, structured and wide-ranged costs at 400 x 400: optimal and
    certified (the duals are kept in float64, so float32 ones hold too)."""
    C = make(np.random.default_rng(1), 400).astype(dtype)
    res = jax.device_get(jaxmatch.solve_lap(C, method="jv"))
    check_against_scipy(C, res, False)


def test_float32_distances_certified_at_2000():
    """Squared distances of random points: float32 duals from float64
    arithmetic pass the default tolerance."""
    rng = np.random.default_rng(2)
    a, b = rng.random((2000, 2)), rng.random((2000, 2))
    C = ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1).astype(np.float32)
    res = jax.device_get(jaxmatch.solve_lap(C))
    assert jaxmatch.verify_lap(C, res).optimal


def test_large_batch_spread_over_threads(device):
    """A batch large enough to be spread over the host's cores (over the
    GPU's SMs); every member certified, and the result equals one member
    solved alone."""
    rng = np.random.default_rng(3)
    C = rng.random((64, 48, 48)).astype(np.float32)
    res = jax.device_get(jaxmatch.solve_lap(C, method="jv"))
    for b in range(C.shape[0]):
        check_against_scipy(C[b], member(res, b), False)
    alone = jaxmatch.solve_lap(C[5], method="jv")
    np.testing.assert_array_equal(np.asarray(alone.col_for_row), res.col_for_row[5])


def test_vmap_and_traced_maximize(device):
    rng = np.random.default_rng(4)
    C = rng.random((6, 9, 7))
    flags = np.array([True, False] * 3)
    res = jax.jit(jax.vmap(lambda c, f: jaxmatch.solve_lap(c, maximize=f, method="jv")))(C, flags)
    res = jax.device_get(res)
    for b in range(6):
        check_against_scipy(C[b], member(res, b), bool(flags[b]))


def test_int32_duals_shifted_to_fit(device):
    """The optimum and the duals fit int32 once shifted; nothing overflows."""
    big = np.iinfo(np.int32).max // 2
    C = np.array([[big, -big], [-big, big]], dtype=np.int32)
    res = jaxmatch.solve_lap(C, method="jv")
    assert int(res.status) == jaxmatch.LAPStatus.OPTIMAL and int(res.cost) == -2 * big
    assert jaxmatch.verify_lap(C, jax.device_get(res)).optimal


def test_infeasible_and_empty(device):
    C = np.random.default_rng(5).random((5, 5))
    C[:, 2] = np.inf
    res = jaxmatch.solve_lap(C, method="jv")
    assert int(res.status) == jaxmatch.LAPStatus.INFEASIBLE
    for shape in ((0, 0), (0, 4), (4, 0)):
        res = jaxmatch.solve_lap(np.zeros(shape), method="jv")
        assert int(res.status) == jaxmatch.LAPStatus.OPTIMAL


def test_stepped_jv_is_refused():
    with pytest.raises(ValueError, match="fused"):
        jaxmatch.solve_lap(np.zeros((3, 3)), method="jv", execution="stepped")


def test_auto_on_the_cpu_runs_jv():
    """The iteration count tells the solvers apart: JV's augmentations after
    its initialisation, far fewer than the tree variant's passes."""
    C = np.random.default_rng(6).random((100, 100))
    auto = jaxmatch.solve_lap(C)
    jv = jaxmatch.solve_lap(C, method="jv")
    tree = jaxmatch.solve_lap(C, method="tree")
    assert int(auto.iterations) == int(jv.iterations) != int(tree.iterations)


def _cpu_has_avx2() -> bool:
    if platform.machine() not in ("x86_64", "AMD64"):
        return False
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return re.search(r"^flags\s*:.*\bavx2\b", cpuinfo, re.MULTILINE) is not None


def test_cpu_lanes_follow_the_machine_and_the_environment():
    """The CPU JV's passes run in four lanes where the CPU has AVX2, and in
    the baseline's lanes otherwise or with JAXMATCH_CPU_LANES=baseline: two
    on AArch64 (NEON), one elsewhere."""
    baseline = os.environ.get("JAXMATCH_CPU_LANES") == "baseline"
    baseline_lanes = 2 if platform.machine() in ("aarch64", "arm64") else 1
    expected = 4 if _cpu_has_avx2() and not baseline else baseline_lanes
    assert _ffi.cpu_library().jaxmatch_lap_jv_lanes() == expected


def test_baseline_lanes_against_scipy():
    """The passes' baseline build (one lane: CPUs without AVX2) on the CPU
    sweep, the hard classes, the warm starts and equal costs (column
    reduction's tie order), in a process started with
    JAXMATCH_CPU_LANES=baseline; the lanes test there proves the switch."""
    here = Path(__file__).resolve().parent
    selection = "(sweep and cpu-jv) or (hard_classes and cpu) or lanes_follow or warm"
    selection += " or (equal_costs and cpu-jv)"
    env = dict(os.environ, JAXMATCH_CPU_LANES="baseline", JAX_PLATFORMS="cpu")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", selection]
        + [str(here / name) for name in ("test_lap_jv.py", "test_lap_warm.py", "test_lap_ties.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert passed is not None and int(passed.group(1)) >= 40, proc.stdout[-2000:]


@pytest.mark.gpu
def test_gpu_jv_agrees_with_the_cpu_up_to_its_limit():
    """The largest square problem a warp could hold (1536 columns) and
    larger ones, each solved by a block: certified, the CPU's optimum; a
    problem wider than a block's 65536 columns is refused with a message
    naming the limit and the way out."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(8)
    for C in (
        rng.integers(0, 10**6, (1536, 1536)).astype(np.int32),
        rng.random((2100, 2100)).astype(np.float32),
        rng.integers(-50, 50, (3, 20000)).astype(np.int32),
    ):
        on_gpu = jax.device_get(jaxmatch.solve_lap(jax.device_put(C, gpu), method="jv"))
        on_cpu = jax.device_get(jaxmatch.solve_lap(C, method="jv"))
        assert int(on_gpu.status) == jaxmatch.LAPStatus.OPTIMAL
        np.testing.assert_allclose(float(on_gpu.cost), float(on_cpu.cost), rtol=1e-6)
        assert jaxmatch.verify_lap(C, on_gpu).optimal
    assert jaxmatch.lap._plan.library_limits().jv_max_columns == 65536
    too_wide = jax.device_put(np.zeros((1, 65537), np.float32), gpu)
    with pytest.raises(Exception, match="up to 65536 columns"):
        jax.block_until_ready(jaxmatch.solve_lap(too_wide, method="jv"))


def _check_gpu_against_cpu(C: np.ndarray, gpu) -> None:
    """JV on the GPU solves C (a matrix or a batch) optimally: certified,
    with the CPU JV's objective."""
    on_gpu = jax.device_get(jaxmatch.solve_lap(jax.device_put(C, gpu), method="jv"))
    on_cpu = jax.device_get(jaxmatch.solve_lap(C, method="jv"))
    np.testing.assert_array_equal(on_gpu.status, jaxmatch.LAPStatus.OPTIMAL)
    np.testing.assert_allclose(
        np.asarray(on_gpu.cost, np.float64), np.asarray(on_cpu.cost, np.float64), rtol=1e-6
    )
    certs = jaxmatch.verify_lap(C, on_gpu)
    for cert in certs if C.ndim == 3 else [certs]:
        assert cert.optimal, (C.dtype, C.shape, cert.reason)


@pytest.mark.gpu
def test_gpu_block_jv_hard_classes():
    """Blocks of 1024 threads on tied, structured, negative and forbidden
    (+inf) costs, single and batched: certified, the CPU's optimum."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(12)
    n = 1024
    forbidden = rng.random((n, n)).astype(np.float32)
    forbidden[rng.random((n, n)) < 0.3] = np.inf
    cases = [
        np.zeros((n, n), np.float32),
        rng.integers(0, 2, (n, n)).astype(np.float32),
        np.outer(np.arange(n), np.arange(n)).astype(np.float32),
        (rng.random((n, n)) - 0.5).astype(np.float32),
        np.where(rng.random((n, n)) < 0.5, -0.0, 0.0).astype(np.float32),  # -0 ties +0
        forbidden,
        rng.integers(-3, 3, (n, n)).astype(np.int32),
        rng.integers(-(10**6), 10**6, (2, 1100, 1100)).astype(np.int32),
    ]
    for C in cases:
        _check_gpu_against_cpu(C, gpu)


@pytest.mark.gpu
@pytest.mark.parametrize(
    "shape", [(1024, 1024), (1100, 1800), (2048, 5000), (2100, 9000), (2048, 20000)]
)
def test_gpu_cluster_jv_hard_classes(shape):
    """A cluster of blocks per problem (from 1024 rows, on GPUs with
    clusters; 1, 2, 4 and 8 columns a thread): tied, negative, -0 beside
    +0, forbidden (+inf) and infeasible costs, int32 and float64, single,
    a pair, and transposed: certified, the CPU's optimum. A member without
    the auction start (a +inf entry) solved in a batch wider than the
    clusters that run at once (a block per problem) has the same
    assignment, duals and search count as alone."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(21 + shape[1])
    n, m = shape
    forbidden = rng.random(shape).astype(np.float32)
    forbidden[rng.random(shape) < 0.3] = np.inf
    infeasible = forbidden.copy()
    infeasible[n // 2] = np.inf
    cases = [
        rng.random(shape).astype(np.float32),
        np.zeros(shape, np.float32),
        rng.integers(0, 2, shape).astype(np.float32),
        (rng.random(shape) - 0.5).astype(np.float32),
        np.where(rng.random(shape) < 0.5, -0.0, 0.0).astype(np.float32),
        forbidden,
        infeasible,
        rng.integers(-(10**6), 10**6, shape).astype(np.int32),
        rng.random((2, *shape)).astype(np.float32),
    ]
    if n == m:
        cases.append(np.ascontiguousarray(rng.random((m + 300, n)).astype(np.float32)))
    if jax.config.read("jax_enable_x64"):
        cases.append(rng.random(shape))
    for C in cases:
        if C is infeasible:
            on_gpu = jaxmatch.solve_lap(jax.device_put(C, gpu), method="jv")
            assert int(on_gpu.status) == jaxmatch.LAPStatus.INFEASIBLE
            assert int(jaxmatch.solve_lap(C, method="jv").status) == jaxmatch.LAPStatus.INFEASIBLE
        else:
            _check_gpu_against_cpu(C, gpu)
    if shape == (1024, 1024):
        C = cases[0].copy()
        C[3, 5] = np.inf  # JV's own start on the cluster, as in a block
        alone = jax.device_get(jaxmatch.solve_lap(jax.device_put(C, gpu), method="jv"))
        batch = np.stack([C] + [rng.random(shape).astype(np.float32) for _ in range(23)])
        in_batch = jax.device_get(jaxmatch.solve_lap(jax.device_put(batch, gpu), method="jv"))
        for field in ("col_for_row", "row_for_col", "u", "v", "iterations", "status"):
            np.testing.assert_array_equal(getattr(in_batch, field)[0], getattr(alone, field))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [20, 64, 100, 200])
def test_gpu_warp_jv_hard_float_classes(n):
    """A warp per problem (1, 2, 4 and 8 columns a lane) on float costs
    whose reduction keys tie or order unusually: zeros, two values,
    negative, -0 beside +0, magnitudes from 1e-30 to 1e30 of either sign,
    float64 subnormals, +inf entries: certified, the CPU's optimum."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(13 + n)
    shape = (6, n, n)
    magnitudes = 10.0 ** rng.uniform(-30, 30, shape) * rng.choice([-1.0, 1.0], shape)
    forbidden = rng.random(shape)
    forbidden[rng.random(shape) < 0.3] = np.inf
    cases = [
        np.zeros(shape, np.float32),
        rng.integers(0, 2, shape).astype(np.float32),
        (rng.random(shape) - 0.5).astype(np.float32),
        np.where(rng.random(shape) < 0.5, -0.0, 0.0).astype(np.float32),
        magnitudes.astype(np.float32),
        magnitudes,
        rng.integers(-3, 3, shape) * 1e-310,  # float64 subnormals and zeros
        forbidden.astype(np.float32),
    ]
    for C in cases:
        on_gpu = jax.device_get(jaxmatch.solve_lap(jax.device_put(C, gpu), method="jv"))
        on_cpu = jax.device_get(jaxmatch.solve_lap(C, method="jv"))
        np.testing.assert_array_equal(on_gpu.status, jaxmatch.LAPStatus.OPTIMAL)
        # atol: XLA on the CPU flushes subnormals to zero, a GPU keeps them.
        np.testing.assert_allclose(
            np.asarray(on_gpu.cost, np.float64),
            np.asarray(on_cpu.cost, np.float64),
            rtol=1e-6,
            atol=1e-300,
        )
        for cert in jaxmatch.verify_lap(C, on_gpu):
            assert cert.optimal, (C.dtype, n, cert.reason)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(300, 300), (200, 450)])
def test_gpu_block_jv_warm_start(shape):
    """A block's JV from the previous solve's duals and pairs (square, and
    rectangular, whose unassigned prices are raised to 0 first): the cold
    solve's optimum, certified."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(11)
    C0 = rng.random(shape).astype(np.float32)
    C1 = (C0 + 0.01 * rng.random(shape)).astype(np.float32)
    solve = functools.partial(jaxmatch.solve_lap, method="jv")
    first = solve(jax.device_put(C0, gpu))
    warm = jax.device_get(solve(jax.device_put(C1, gpu), init=first))
    check_against_scipy(C1, warm, False)


@pytest.mark.gpu
def test_gpu_jv_cost_matrix_in_global_memory():
    """Problems too large to stage their costs in shared memory (float32
    beyond 152 x 152) read them from global memory: certified."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(9)
    for shape in ((4, 128, 128), (4, 160, 160), (3, 100, 700), (2, 600, 600)):
        C = rng.random(shape).astype(np.float32)
        res = jax.device_get(jaxmatch.solve_lap(jax.device_put(C, gpu), method="jv"))
        for b in range(shape[0]):
            check_against_scipy(C[b], member(res, b), False)


@pytest.mark.gpu
def test_auto_on_a_gpu_runs_jv_up_to_its_row_limit():
    """Up to LAPTuning.jv_max_rows rows, on float costs of up to
    jv_float_warp_max_columns columns or from jv_float_min_columns, on
    integer costs of up to jv_int_warp_max_columns columns, and on integer
    costs from jv_float_min_columns whose rows' two least costs rarely
    tie. iterations tells the solvers apart: JV's searches against the
    tree variant's main-loop iterations."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(10)
    cases = (
        ((6, 64, 90), np.float32, 1000, "jv"),
        ((6, 64, 90), np.int32, 1000, "jv"),
        ((2, 65, 65), np.int32, 1000, "jv"),  # integer costs: a warp up to 128 columns
        ((2, 100, 128), np.int32, 30, "jv"),  # also with many ties
        ((2, 129, 129), np.int32, 1000, "tree"),
        ((2, 200, 200), np.float32, 1000, "jv"),  # float costs: a warp up to 255 columns
        ((2, 200, 200), np.int32, 1000, "tree"),
        ((2, 300, 300), np.float32, 1000, "jv"),  # float costs from 256 columns
        ((2, 300, 300), np.int32, 1000, "jv"),  # integers whose rows rarely tie
        ((2, 300, 300), np.int32, 30, "tree"),  # and those that often do
    )
    for shape, dtype, scale, expected in cases:
        C = jax.device_put((scale * rng.random(shape)).astype(dtype), gpu)
        iters = {
            m: np.asarray(jaxmatch.solve_lap(C, method=m).iterations)
            for m in ("auto", "jv", "tree")
        }
        assert not np.array_equal(iters["jv"], iters["tree"])
        np.testing.assert_array_equal(iters["auto"], iters[expected])


def test_library_refuses_jv_in_stepped_handlers():
    """The stepped handlers (init, step) refuse the JV variant with a message
    naming the fix, should a caller reach them directly."""
    from jaxmatch.lap import _ffi as lap_ffi

    C = np.zeros((3, 3), np.float32)
    with pytest.raises(Exception, match="runs as one fused call"):
        jax.block_until_ready(lap_ffi.lap_init(C, variant=lap_ffi.variant_code("jv")))
    with pytest.raises(Exception, match="max_iterations must be >= 0"):
        tree = lap_ffi.variant_code("tree")
        jax.block_until_ready(lap_ffi.lap_solve(C, variant=tree, max_iterations=-1))


def _check_auto_on_gpu(C: np.ndarray, gpu) -> None:
    """``method="auto"`` on the GPU solves integer costs C (a matrix or a
    batch) optimally: certified, with the CPU JV's objective."""
    res = jax.device_get(jaxmatch.solve_lap(jax.device_put(C, gpu)))
    on_cpu = jax.device_get(jaxmatch.solve_lap(C, method="jv"))
    np.testing.assert_array_equal(res.status, jaxmatch.LAPStatus.OPTIMAL)
    np.testing.assert_array_equal(res.cost, on_cpu.cost)
    certs = jaxmatch.verify_lap(C, res)
    for cert in certs if C.ndim == 3 else [certs]:
        assert cert.optimal, (C.shape, cert.reason)


def _integer_costs(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Integer costs whose rows' two least costs rarely tie (Machol-Wien,
    distinct values) and often tie (a third of Machol-Wien's rows zero, its
    costs divided by n, small integers)."""
    machol = np.outer(np.arange(n), np.arange(n)).astype(np.int32)
    return {
        "machol": machol,
        "distinct": rng.integers(0, n * n, (n, n)).astype(np.int32),
        "zero_third": np.where(np.arange(n)[:, None] % 3 == 0, 0, machol).astype(np.int32),
        "divided": machol // n,
        "tied": rng.integers(0, 10, (n, n)).astype(np.int32),
    }


def test_integer_auto_takes_one_branch_for_the_batch():
    """The GPU's integer ``auto`` (run here with the CPU's kernels): JV alone
    when every problem's rows rarely tie, else the tree variant then JV;
    under ``vmap`` (nested too) each choice stays a branch taken for the
    whole batch, never both sides, and every member reaches the optimum."""
    from jaxmatch.lap import _ffi as lap_ffi
    from jaxmatch.lap.jv import integer_auto, tied_rows

    tuning = jaxmatch.LAPTuning()
    costs = _integer_costs(120, np.random.default_rng(5))
    assert float(tied_rows(costs["machol"])) <= tuning.jv_int_max_tied_rows
    assert float(tied_rows(costs["zero_third"])) > tuning.jv_int_max_tied_rows
    np.testing.assert_allclose(tied_rows(np.stack([costs["distinct"], costs["tied"]])), [0, 1])
    jv = functools.partial(
        lap_ffi.solve_fused, variant=lap_ffi.variant_code("jv"), max_iterations=0
    )
    tree = functools.partial(lap_ffi.solve_fused, variant=lap_ffi.variant_code("tree"))
    auto = functools.partial(
        integer_auto,
        jv=jv,
        tree=tree,
        max_tied_rows=tuning.jv_int_max_tied_rows,
        tree_iterations_per_row=tuning.jv_int_tree_iterations_per_row,
        auction=True,
    )

    def iters(sol):
        return np.asarray(lap_ffi.info_field(sol.info, "ITERS"))

    def check(C, sol):
        cols = np.asarray(sol.col_for_row)
        want = jaxmatch.solve_lap(C, method="jv").cost
        got = np.take_along_axis(C, cols[..., None], -1)[..., 0].sum(-1)
        np.testing.assert_array_equal(got, want)

    for C in (costs["machol"], costs["distinct"], np.stack([costs["machol"], costs["distinct"]])):
        sol = jax.jit(auto)(C)
        np.testing.assert_array_equal(iters(sol), iters(jv(C)))  # JV alone
        check(C, sol)
    sol = jax.jit(auto)(costs["tied"])
    np.testing.assert_array_equal(iters(sol), iters(tree(costs["tied"], max_iterations=0)))
    cap = tuning.jv_int_tree_iterations_per_row * 120
    for C in (costs["zero_third"], costs["divided"], np.stack([costs["machol"], costs["tied"]])):
        sol = jax.jit(auto)(C)
        assert iters(sol).max() > cap  # the tree variant, then JV
        check(C, sol)
    batch = np.stack([costs["machol"], costs["distinct"], costs["zero_third"]])
    for f, C in ((jax.vmap(auto), batch), (jax.vmap(jax.vmap(auto)), batch[None])):
        distinct = C[..., :2, :, :]
        ops = [e.primitive.name for e in jax.make_jaxpr(f)(distinct).jaxpr.eqns]
        assert "cond" in ops and "select_n" not in ops
        np.testing.assert_array_equal(iters(f(distinct)), iters(jv(distinct)))
        check(C, f(C))


@pytest.mark.gpu
def test_gpu_auto_integer_costs_jv_or_the_tree_variant_then_jv():
    """``method="auto"`` on integer costs from 256 columns: JV alone where
    the rows' two least costs rarely tie (Machol-Wien, distinct values: its
    result, bit for bit); the tree variant where they often tie, alone when
    it finishes within its cap (its result, bit for bit), followed by JV
    from its duals when it does not (a third of Machol-Wien's rows zero,
    Machol-Wien divided by n), in batches (a single problem whose rows tie
    often runs the forest: ``test_lap_forest_route.py``). Single, batched,
    vmapped and maximised, square and rectangular: certified, the CPU's
    optimum."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(31)
    cap = jaxmatch.LAPTuning().jv_int_tree_iterations_per_row
    n = 300
    costs = _integer_costs(n, rng)
    wide = rng.integers(0, n * n, (n, 2 * n)).astype(np.int32)
    wide_tied = rng.integers(0, 3, (n, 2 * n)).astype(np.int32)
    singles = [*costs.values(), wide, wide_tied]
    pairs = [np.stack([costs["machol"], costs["tied"]]), np.stack([wide, wide[::-1]])]
    for C in singles + pairs:
        _check_auto_on_gpu(C, gpu)

    def on_gpu(C, method="auto"):
        return jax.device_get(jaxmatch.solve_lap(jax.device_put(C, gpu), method=method))

    def pair(name):
        return np.stack([costs[name], costs[name][::-1]])

    for C, method in ((costs["machol"], "jv"), (costs["distinct"], "jv"), (pair("tied"), "tree")):
        for a, b in zip(on_gpu(C), on_gpu(C, method), strict=True):
            np.testing.assert_array_equal(a, b)
    # Past the tree variant's cap, the iterations count both stages.
    for name in ("zero_third", "divided"):
        assert np.all(on_gpu(pair(name)).iterations > cap * n)
    # vmap and a maximised batch.
    machol = costs["machol"]
    batch = jax.device_put(np.stack([machol, costs["zero_third"], machol[::-1]]), gpu)
    for members in (batch, batch[::2]):
        res = jax.device_get(jax.vmap(jaxmatch.solve_lap)(members))
        np.testing.assert_array_equal(res.status, jaxmatch.LAPStatus.OPTIMAL)
        for cert in jaxmatch.verify_lap(np.asarray(members), res):
            assert cert.optimal, cert.reason
    res = jax.device_get(jaxmatch.solve_lap(batch, maximize=True))
    on_cpu = jax.device_get(jaxmatch.solve_lap(np.asarray(batch), maximize=True, method="jv"))
    np.testing.assert_array_equal(res.cost, on_cpu.cost)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [300, 600, 1100])
def test_gpu_auto_integer_costs_auction_after_the_tree_variant(n):
    """``method="auto"`` on square integer costs from 256 rows: where the
    tree variant stops at its cap and the rows' least columns are few (a
    third of Machol-Wien's rows zero), JV starts with its auction instead of
    the tree variant's duals; on other costs (and on a user's warm start)
    from the given duals. JV alone (with its own start, the auction where
    it runs) on costs whose rows rarely tie (Machol-Wien, rank one,
    distinct values). Single and batched: certified, the CPU's optimum."""
    from jaxmatch.lap import _ffi as lap_ffi

    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(59 + n)
    machol = np.outer(np.arange(n), np.arange(n)).astype(np.int32)
    rank1 = np.round(1e6 * rng.random((n, 1)) * rng.random((1, n))).astype(np.int32)
    distinct = rng.integers(0, 1000 * n, (n, n)).astype(np.int32)
    zero_third = _integer_costs(n, rng)["zero_third"]
    for C in (machol, rank1, distinct, zero_third, np.stack([machol, distinct])):
        _check_auto_on_gpu(C, gpu)
    # A batch: a single such problem runs the forest (test_lap_forest_route.py).
    both = jax.device_put(np.stack([zero_third, zero_third[::-1]]), gpu)
    auto = jax.device_get(jaxmatch.solve_lap(both))
    cap = jaxmatch.LAPTuning().jv_int_tree_iterations_per_row * n
    assert np.all(auto.iterations > cap)  # the tree variant, then JV

    def rounds(C, auction):
        x0 = np.full(C.shape[:-1], -1, np.int32)
        v0 = np.zeros(C.shape[:-2] + C.shape[-1:], C.dtype)
        jv = lap_ffi.variant_code("jv")
        state = lap_ffi.lap_solve_warm(jax.device_put(C, gpu), x0, v0, variant=jv, auction=auction)
        cost = np.take_along_axis(C, np.asarray(state.col_for_row)[..., None], -1).sum()
        on_cpu = jaxmatch.solve_lap(C, method="jv").cost
        np.testing.assert_array_equal(cost, np.sum(on_cpu))
        return np.asarray(lap_ffi.info_field(state.info, "N_DUAL"))

    assert int(rounds(machol, True)) > 0
    assert int(rounds(machol, False)) == 0
    assert int(rounds(distinct, True)) == 0
    # Below the cluster's rows a batch runs in blocks, from them in clusters.
    pair = np.stack([machol, rank1])
    assert (rounds(pair, True) > 0).all() == (n >= 1024)


def _auction_rounds(C: np.ndarray, gpu) -> np.ndarray:
    """The auction rounds of JV's start on the GPU (the info's N_DUAL: 0
    when JV starts on its own)."""
    from jaxmatch.lap import _ffi as lap_ffi

    state = lap_ffi.lap_solve(jax.device_put(C, gpu), variant=lap_ffi.variant_code("jv"))
    return np.asarray(lap_ffi.info_field(state.info, "N_DUAL"))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1024, 1500])
def test_gpu_cluster_jv_auction_start(n):
    """Square float problems from 1024 rows (Machol-Wien float32 and int32,
    rank one, negated, rows and columns permuted, U[0, 1), a pair, float64)
    start with the auction on a cluster (its rounds counted) and end
    certified at the CPU JV's optimum; with one +inf entry or with most
    rows' two least costs tied, JV starts on its own (no rounds)."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(41 + n)
    i = np.arange(n, dtype=np.float64)
    machol = np.outer(i, i).astype(np.float32)
    rank1 = (rng.random((n, 1)) * rng.random((1, n))).astype(np.float32)
    permuted = machol[rng.permutation(n)][:, rng.permutation(n)]
    uniform = rng.random((n, n)).astype(np.float32)
    auctioned = [machol, rank1, -rank1, permuted, uniform, np.stack([rank1, machol])]
    if jax.config.read("jax_enable_x64"):
        auctioned.append(rank1.astype(np.float64) + 1e-9 * rng.random((n, n)))
    for C in auctioned:
        assert (_auction_rounds(C, gpu) > 0).all(), C.shape
        _check_gpu_against_cpu(C, gpu)
    forbidden = machol.copy()
    forbidden[n // 2, n // 3] = np.inf
    tied = np.ones((n, n), np.float32)
    tied[:, 0] = 0.0  # every row's least column is 0, its two least tie
    tied[np.arange(n), np.arange(n)] = 0.0
    for C in (forbidden, tied):
        assert (_auction_rounds(C, gpu) == 0).all()
        _check_gpu_against_cpu(C, gpu)
    # Integer costs (method "jv"; "auto" runs the tree variant first).
    assert int(_auction_rounds(machol.astype(np.int32), gpu)) > 0
    _check_gpu_against_cpu(machol.astype(np.int32), gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [256, 300, 512, 700])
def test_gpu_auction_start_below_cluster_rows(n):
    """From 256 rows to the cluster's 1024, a single square problem whose
    rows' least columns are few (Machol-Wien float32 and int32, rank one,
    integer costs of spread 3) starts with the auction and a cluster
    finishes it, while a block solves the others (U[0, 1): no rounds) and
    every problem of a batch and rectangular problems: certified, the CPU
    JV's optimum."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(53 + n)
    i = np.arange(n, dtype=np.float64)
    machol = np.outer(i, i).astype(np.float32)
    rank1 = (rng.random((n, 1)) * rng.random((1, n))).astype(np.float32)
    # Every row's least column is 0 and its cost spread 3: an integer
    # epsilon from the start (a quarter of the spread rounds to 0).
    spread3 = np.minimum(np.arange(n), 3)[None, :].repeat(n, 0).astype(np.int32)
    uniform = rng.random((n, n)).astype(np.float32)
    for C in (machol, machol.astype(np.int32), rank1, spread3):
        assert int(_auction_rounds(C, gpu)) > 0, C.dtype
        _check_gpu_against_cpu(C, gpu)
    assert int(_auction_rounds(uniform, gpu)) == 0
    _check_gpu_against_cpu(uniform, gpu)
    pair = np.stack([uniform, rank1[::-1].copy()])
    assert (_auction_rounds(pair, gpu) == 0).all()
    _check_gpu_against_cpu(pair, gpu)
    # Rectangular problems (both ways) have no start: a block solves them.
    for C in (np.outer(i, np.arange(n + 40)), np.outer(np.arange(n + 40), i), rank1[:-9]):
        C = C.astype(np.float32)
        assert int(_auction_rounds(C if C.shape[0] <= C.shape[1] else C.T, gpu)) == 0
        _check_gpu_against_cpu(C, gpu)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_gpu_cluster_jv_warm_start(dtype):
    """Square problems from 1024 rows warm-start on a cluster, every row's
    pair checked at once: from the previous solve on costs moved a little,
    from one column named by every row (the lowest tight row keeps it),
    from prices with +inf (float), and on a pair: scipy's optimum,
    certified."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(43)
    n = 1100
    if dtype == np.int32:
        C0 = rng.integers(0, 10**5, (n, n)).astype(np.int32)
        C1 = (C0 + rng.integers(0, 100, (n, n))).astype(np.int32)
    else:
        C0 = rng.random((n, n)).astype(np.float32)
        C1 = (C0 + 0.01 * rng.random((n, n))).astype(np.float32)
    solve = functools.partial(jaxmatch.solve_lap, method="jv")
    first = solve(jax.device_put(C0, gpu))
    inits = [first, first._replace(col_for_row=jax.numpy.zeros(n, jax.numpy.int32))]
    if dtype != np.int32:
        inits.append(first._replace(v=first.v.at[::7].set(np.inf)))
    for init in inits:
        warm = jax.device_get(solve(jax.device_put(C1, gpu), init=init))
        check_against_scipy(C1, warm, False)
    pair = np.stack([C0, C1])
    cold = solve(jax.device_put(pair, gpu))
    warm = jax.device_get(solve(jax.device_put(pair[::-1].copy(), gpu), init=cold))
    for b in range(2):
        check_against_scipy(pair[::-1][b], member(warm, b), False)


@pytest.mark.gpu
def test_gpu_cluster_jv_auction_start_many_seeds():
    """The auction's offers meet in atomics and its lists fill in any
    order: on 8 draws of rank-one costs with noise (1024 to 1100 rows) each
    solve is certified at the CPU JV's optimum and repeats bit for bit."""
    gpu = jax.devices("gpu")[0]
    for seed in range(8):
        rng = np.random.default_rng(100 + seed)
        n = int(rng.integers(1024, 1101))
        C = rng.random((n, 1)) * rng.random((1, n)) + 1e-4 * rng.random((n, n))
        C = C.astype(np.float32)
        assert int(_auction_rounds(C, gpu)) > 0
        _check_gpu_against_cpu(C, gpu)
        first, again = (
            jax.device_get(jaxmatch.solve_lap(jax.device_put(C, gpu), method="jv"))
            for _ in range(2)
        )
        for a, b in zip(first, again, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.gpu
def test_gpu_cluster_jv_auction_start_from_4096_rows():
    """At 4096 rows (as from 1024) the auction starts square float problems
    whatever their rows' least columns (U[0, 1) here: certified at the CPU
    JV's optimum; its phases end with 8 rows free), but not those whose
    rows' two least costs mostly tie, nor integer costs whose least columns
    are many."""
    gpu = jax.devices("gpu")[0]
    rng = np.random.default_rng(47)
    n = 4096
    C = rng.random((n, n)).astype(np.float32)
    assert int(_auction_rounds(C, gpu)) > 0
    _check_gpu_against_cpu(C, gpu)
    tied = rng.integers(0, 4, (n, n)).astype(np.float32)
    assert int(_auction_rounds(tied, gpu)) == 0
    # Integer costs get the auction only where their rows' least columns
    # are few (method "jv"), at any size.
    distinct = rng.integers(0, 10**6, (n, n)).astype(np.int32)
    assert int(_auction_rounds(distinct, gpu)) == 0
    _check_gpu_against_cpu(distinct, gpu)
