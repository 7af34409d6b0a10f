"""The standalone benchmark scripts on tiny inputs (``benchmarks/``; the
harness has its own self-test, ``python -m benchmarks selftest``)."""

from __future__ import annotations

import json
import sys
import time
import types
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import jaxmatch  # noqa: E402
from benchmarks import matching_methods  # noqa: E402
from jaxmatch import Graph, MatchingStatus  # noqa: E402


def test_egr_file_is_ecl_mm_symmetric_bipartite_graph(tmp_path):
    A = sp.csr_matrix(np.array([[1, 0, 1], [0, 1, 0]], np.int8))  # 2 rows, 3 columns
    path = tmp_path / "g.egr"
    matching_methods.write_egr(A, path)
    raw = np.fromfile(path, np.int32)
    nodes, edges = raw[:2]
    assert (nodes, edges) == (6, 6)  # 2 * max(shape) vertices, each edge twice
    indptr, indices = raw[2 : 2 + nodes + 1], raw[2 + nodes + 1 :]
    assert indices.size == edges
    neighbours = [sorted(indices[indptr[v] : indptr[v + 1]].tolist()) for v in range(nodes)]
    # rows 0..2 (row 2 is padding), then columns 3..5
    assert neighbours == [[3, 5], [4], [], [0], [1], [0]]


def _sleeps(seconds: float, built) -> dict:
    """A peer for ``call_bounded``: ``seconds`` of timed work."""
    built()
    time.sleep(seconds)
    return {"ms": 1e3 * seconds}


def _fails(built) -> dict:
    raise RuntimeError("the peer failed")


def test_a_bounded_peer_returns_its_result_or_a_lower_bound():
    """--igraph-timeout: the peer's own result within the bound; past it,
    the bound (the child stopped, not waited for); a failed peer an error."""
    assert matching_methods.call_bounded(_sleeps, (0.0,), 60) == {"ms": 0.0}
    t0 = time.perf_counter()
    assert matching_methods.call_bounded(_sleeps, (120.0,), 0.5) == {"timeout_s": 0.5}
    assert time.perf_counter() - t0 < 60
    assert "error" in matching_methods.call_bounded(_fails, (), 60)


def test_ecl_mm_runs_past_their_timeout_give_a_lower_bound(tmp_path):
    """--ecl-mm-timeout: a run that ends in time reports its totalRunTime, one
    that does not the bound (stand-ins for the binary)."""
    quick, slow = tmp_path / "quick", tmp_path / "slow"
    quick.write_text("#!/bin/sh\necho 'totalRunTime: 0.002 s'; echo 'sizeof_finalMatching: 7'\n")
    slow.write_text("#!/bin/sh\nexec sleep 120\n")
    for path in (quick, slow):
        path.chmod(0o755)
    assert matching_methods.run_ecl_mm(str(quick), tmp_path / "g.egr", 3, timeout=60) == {
        "ms": 2.0,
        "cardinality": 7,
    }
    t0 = time.perf_counter()
    assert matching_methods.run_ecl_mm(str(slow), tmp_path / "g.egr", 3, timeout=0.5) == {
        "timeout_s": 0.5
    }
    assert time.perf_counter() - t0 < 60


def test_igraph_is_timed_like_a_jaxmatch_cell(monkeypatch):
    """The median of --repeats calls, one where the first is over
    --max-seconds (a stand-in for igraph records the calls)."""
    calls, graphs = [], []

    class StandIn:
        def __init__(self, n, directed):
            self.n, self.directed, self.edges = n, directed, []
            graphs.append(self)

        def add_edges(self, edges):
            self.edges.extend(map(tuple, edges))

        def maximum_bipartite_matching(self, types):
            calls.append(types)
            return [0, 1]

    monkeypatch.setitem(sys.modules, "igraph", types.SimpleNamespace(Graph=StandIn))
    A = sp.csr_matrix(np.eye(2))
    cell = matching_methods.run_igraph(A, 3)
    assert (cell["repeats"], cell["cardinality"], len(calls)) == (3, 2, 3)
    assert calls[0] == [False, False, True, True]
    # rows 0, 1 and columns 2, 3, undirected
    assert (graphs[0].n, graphs[0].directed, graphs[0].edges) == (4, False, [(0, 2), (1, 3)])
    calls.clear()
    cell = matching_methods.run_igraph(A, 5, max_seconds=0)
    assert (cell["repeats"], len(calls)) == (1, 1)


def test_every_method_and_init_agrees_on_a_small_graph(tmp_path):
    out = tmp_path / "rows.json"
    argv = ["--sizes", "8", "--families", "kron", "--permuted", "both", "--device", "cpu"]
    argv += ["--repeats", "1", "--cache", "", "--json", str(out)]
    assert matching_methods.main(argv) == 0
    rows = json.loads(out.read_text())
    assert [r["graph"] for r in rows] == ["kron_g500-logn8", "kron_g500-logn8-rcp"]
    for row in rows:
        cells = row["jaxmatch"]
        assert len(cells) == len(matching_methods.METHODS) * len(matching_methods.INITS)
        assert cells["auto/cheap"]["certified"]
        for label, cell in cells.items():
            assert cell["agrees"] and cell["status"] == MatchingStatus.MAXIMUM, (label, cell)


def test_methods_inits_and_time_limit_restrict_the_cells(tmp_path):
    out = tmp_path / "rows.json"
    argv = ["--sizes", "8", "--families", "delaunay", "--permuted", "orig", "--device", "cpu"]
    argv += ["--repeats", "3", "--cache", "", "--json", str(out)]
    argv += ["--methods", "auto,pr", "--inits", "cheap", "--max-seconds", "0"]
    assert matching_methods.main(argv) == 0
    (row,) = json.loads(out.read_text())
    assert sorted(row["jaxmatch"]) == ["auto/cheap", "pr/cheap"]
    for cell in row["jaxmatch"].values():
        assert cell["repeats"] == 1 and cell["status"] == MatchingStatus.MAXIMUM


def test_initial_matchings_alone_and_the_variants_of_the_cheap_start(tmp_path):
    out = tmp_path / "rows.json"
    argv = ["--sizes", "8", "--families", "delaunay", "--permuted", "orig", "--device", "cpu"]
    argv += ["--repeats", "1", "--cache", "", "--json", str(out), "--methods", "auto"]
    variants = ",".join(matching_methods.CHEAP_VARIANTS)
    argv += ["--inits", f"cheap,{variants},greedy", "--init-alone"]
    assert matching_methods.main(argv) == 0
    (row,) = json.loads(out.read_text())
    cells = row["jaxmatch"]
    assert sorted(cells) == [
        "auto/cheap",
        "auto/cheap-keep-trees",
        "auto/cheap-no-restart",
        "auto/greedy",
        "init/cheap",
        "init/greedy",
    ]
    maximum = cells["auto/cheap"]["cardinality"]
    for label in ("init/cheap", "init/greedy"):
        cell = cells[label]
        assert cell["status"] == MatchingStatus.INITIAL and cell["iterations"] == 0, (label, cell)
        assert 0 < cell["cardinality"] <= maximum
    # On the CPU the cheap matching is the sequential greedy.
    assert cells["init/cheap"]["cardinality"] == cells["init/greedy"]["cardinality"]
    for label in ("auto/cheap", "auto/cheap-keep-trees", "auto/cheap-no-restart", "auto/greedy"):
        assert cells[label]["agrees"] and cells[label]["status"] == MatchingStatus.MAXIMUM


def test_warm_start_benchmark_runs(capsys):
    from benchmarks import lap_warm_start

    assert lap_warm_start.main(["--n", "40", "--frames", "2"]) == 0
    assert "iterations" in capsys.readouterr().out


def test_points_benchmark_rows_agree_with_scipy_and_the_dense_solver(capsys):
    from benchmarks import lap_points

    argv = ["300", "120x200", "--shift", "0.3", "--dense-max", "300"]
    assert lap_points.main(argv) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["case"] for r in rows] == ["300", "120x200"]
    for r in rows:
        assert r["status"] == "OPTIMAL" and r["certified"]
        assert r["cost"] == pytest.approx(r["scipy_cost"], rel=2e-6)
        assert r["cost"] == pytest.approx(r["dense_cost"], rel=2e-6)
        assert r["solve_s"] + r["sweep_s"] == pytest.approx(r["seconds"], abs=2e-3)


def test_interleaved_benchmark_checks_and_reports_each_case(capsys):
    from benchmarks import lap_interleaved

    assert lap_interleaved.main(["64x32x32-f32", "1x500x500-machol", "--rounds", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["64x32x32-f32", "1x500x500-machol"]
    assert all("jaxmatch min" in line and "scipy min" in line for line in lines)
    with pytest.raises(SystemExit):
        lap_interleaved.main(["no-such-case"])


def test_points_benchmark_once_times_the_single_call(capsys):
    from benchmarks import lap_points

    assert lap_points.main(["200", "--once", "--scipy-max", "200", "--progress"]) == 0
    out, err = capsys.readouterr()
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert err.count("sparse solve of 200 rows") == row["iterations"]
    assert row["status"] == "OPTIMAL" and row["certified"]
    assert row["cost"] == pytest.approx(row["scipy_cost"], rel=2e-6)
    assert row["first_s"] == row["seconds"]
    assert row["solve_s"] + row["sweep_s"] == pytest.approx(row["seconds"], abs=2e-3)


def test_points_benchmark_random_halves_reach_the_same_optimum(capsys):
    """``--random-halves`` (1100 points: the multiscale start runs) gives
    the stratified run's cost, and the library's halves are restored."""
    from benchmarks import lap_points
    from jaxmatch.lap.points import solve

    stratified = solve.stratified_half
    argv = ["1100", "--once", "--verify-max", "0", "--scipy-max", "0"]
    for extra in ([], ["--random-halves"]):
        assert lap_points.main(argv + extra) == 0
        assert solve.stratified_half is stratified
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["status"] for r in rows] == ["OPTIMAL", "OPTIMAL"]
    assert rows[0]["cost"] == pytest.approx(rows[1]["cost"], rel=1e-9)


def test_points_benchmark_counts_compilation_and_restores_the_autotuner_rule(capsys):
    """A size not compiled before in this process (1300 points) reports its
    compilation; ``--keep-autotuner`` asks for the tuned programs and the
    library's rule is restored."""
    from benchmarks import lap_points
    from jaxmatch.lap.points import sweep

    rule = sweep.autotune_off
    argv = ["1300", "--keep-autotuner", "--verify-max", "0", "--scipy-max", "0"]
    assert lap_points.main(argv) == 0
    assert sweep.autotune_off is rule
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["status"] == "OPTIMAL"
    assert 0 < row["first_compile_s"] < row["first_s"]


def test_points_benchmark_sampled_check_passes_optima_and_catches_bad_duals(capsys):
    """``--check-rows`` (sizes past ``--verify-max``) passes an optimal
    solution, and fails one whose duals or pairs were spoiled."""
    from benchmarks import lap_points

    argv = ["1100", "--once", "--verify-max", "0", "--scipy-max", "0", "--check-rows", "50"]
    assert lap_points.main(argv) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["check_ok"] and row["check_rows"] == 50
    assert row["check_min_reduced"] >= -row["tol"] and row["check_slack"] <= row["tol"]

    rng = np.random.default_rng(3)
    X, Y = rng.random((300, 2), dtype=np.float32), rng.random((300, 2), dtype=np.float32)
    sol = jaxmatch.solve_lap_points(X, Y)
    assert lap_points._sampled_check(X, Y, sol, "sqeuclidean", 300)["check_ok"]
    raised = sol._replace(v=np.asarray(sol.v) + 0.01)  # every reduced cost drops
    assert not lap_points._sampled_check(X, Y, raised, "sqeuclidean", 300)["check_ok"]
    swapped = np.asarray(sol.col_for_row).copy()
    swapped[[0, 1]] = swapped[[1, 0]]
    bad_pairs = sol._replace(col_for_row=swapped)
    assert not lap_points._sampled_check(X, Y, bad_pairs, "sqeuclidean", 300)["check_ok"]


def test_points_sweep_benchmark_times_both_paths_and_restores_the_rule(capsys):
    from benchmarks import lap_points_sweep
    from jaxmatch.lap.points import sweep

    rule = sweep.fused_sweep
    assert lap_points_sweep.main(["300", "--repeats", "1"]) == 0
    assert sweep.fused_sweep is rule
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r.get("path") for r in rows] == ["kernel", "xla", None]
    assert all(r["seconds"] > 0 for r in rows[:2])
    assert rows[2]["same_cols"] == 1.0 and rows[2]["max_reduced_diff"] < 1e-5


def test_split_benchmark_rows_are_certified_and_agree(capsys):
    from benchmarks import lap_split

    cases = ["int:60", "f32:50", "sqdist:40", "int10:70", "intx3:50", "f32int:40"]
    argv = [*cases, "--devices", "1", "--single", "--repeats", "1"]
    assert lap_split.main(argv + ["--single-method", "jv"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["case"] for r in rows] == cases
    assert {r["single_method"] for r in rows} == {"jv"}
    for r in rows:
        assert r["status"] == "OPTIMAL" and r["certified"], r
        assert r["cost"] == pytest.approx(r["single_cost"], rel=1e-6)


def test_dropin_benchmark_eager_rows_run(capsys):
    from benchmarks import dropin

    dropin.main(["--sizes", "5", "--count", "2", "--sparse-edges", "--eager-sizes", "4"])
    out = capsys.readouterr().out
    assert "| solve_lap | 4 |" in out and "linear_sum_assignment" in out


def test_weighted_benchmark_greedy_and_exact_rows():
    """The compiled greedy baseline returns jaxmatch's matching (same tie
    order), and the exact comparison finds the optimum at or above it."""
    import jax

    from benchmarks import weighted, weighted_graphs

    A = weighted_graphs.powerlaw(7)
    rows = np.repeat(np.arange(A.shape[0], dtype=np.int32), np.diff(A.indptr))
    dev = jax.devices("cpu")[0]
    for weighting in weighted_graphs.WEIGHTINGS:
        w = weighted_graphs.edge_weights("powerlaw", 7, weighting, A, rows)
        (greedy,) = weighted.greedy_rows(A, rows, w, 1)
        G = Graph(A.indptr.astype(np.int32), A.indices.astype(np.int32), w, A.shape)
        suitor, _ = weighted.jaxmatch_rows(G, dev, 1)
        np.testing.assert_array_equal(greedy["mate"], suitor["mate"])
        row = weighted.exact_row("powerlaw_n7", "powerlaw", 7, weighting, A, dev)
        assert row["locally_dominant"] and 0.5 <= row["of_optimum"] <= 1.0
        assert row["ratio"] <= row["of_optimum"] + 1e-9


def test_powerlaw_draws_equal_a_binary_search():
    """The power-law generator's bucketed inverse CDF returns what
    ``np.searchsorted(..., side="right")`` does, keys on bucket edges, 0 and
    just below 1 included, for tables coarser and finer than the CDF."""
    from benchmarks import weighted_graphs

    rng = np.random.default_rng(5)
    for n in (1, 2, 7, 1000, 4096):
        cdf = np.cumsum(rng.random(n) ** 4)
        cdf[rng.random(n) < 0.2] = 0.0  # ties: repeated values after the cumsum
        cdf = np.maximum.accumulate(cdf)
        cdf /= cdf[-1]
        for buckets_log2 in (0, 3, 12, 14):
            edges = np.arange(1 << buckets_log2) / (1 << buckets_log2)
            u = np.concatenate([rng.random(5000), edges, [0.0, np.nextafter(1.0, 0.0)], cdf])
            u = u[u < 1.0]  # the keys' range, as rng.random's
            np.testing.assert_array_equal(
                weighted_graphs.draw_from_cdf(cdf, u, buckets_log2),
                np.searchsorted(cdf, u, side="right"),
            )


def test_weighted_benchmark_device_list(monkeypatch):
    """--device takes platforms separated by commas: unknown ones are a
    usage error, and the list times jaxmatch once per platform (networkit,
    not a test dependency, is left out)."""
    import argparse

    from benchmarks import weighted, weighted_graphs

    monkeypatch.setattr(weighted, "networkit_graph", lambda *a: None)
    monkeypatch.setattr(weighted, "networkit_rows", lambda *a: [])

    with pytest.raises(SystemExit):
        weighted.main(["--sizes", "none", "--device", "cpu,tpu"])
    import jax

    A = weighted_graphs.powerlaw(6)
    args = argparse.Namespace(repeats=1, verify_max_edges=1e9)
    cpu = jax.devices("cpu")[0]
    recs = weighted.run_case("powerlaw_n6", "powerlaw", 6, "uniform", A, args, [cpu, cpu])
    ours = [r for r in recs if r["solver"].startswith("jaxmatch")]
    assert [r["solver"] for r in ours] == ["jaxmatch suitor (cpu)", "jaxmatch ld (cpu)"] * 2
    assert all(r["mates_differ"] == 0 and r["locally_dominant"] for r in ours)


def test_sparse_lap_benchmark_runs(capsys):
    """The sparse LAP benchmark on tiny problems: single and batched, both
    CPU solvers, every row optimal, equal to scipy and certified."""
    from benchmarks import sparse_lap

    for batch in ("1", "3"):
        sparse_lap.main(
            ["--edges", "300", "--batch", batch, "--repeats", "1",
             "--solvers", "cpu/jv/float64,cpu/tree/float32,cpu/tree/float64"]
        )  # fmt: skip
        rows = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| 30 |")]
        assert len(rows) == 3, rows
        assert all(ln.endswith("| True |") and "nan" not in ln for ln in rows), rows
    with pytest.raises(SystemExit):
        sparse_lap.main(["--edges", "300", "--solvers", "cpu/tree/int32"])


def test_sparse_lap_ties_benchmark_runs(capsys):
    """The tie-heavy sparse drop-in table: every row equal to scipy's
    optimum and certified."""
    from benchmarks import sparse_lap_ties

    argv = ["--classes", "ties", "--edges", "2000", "--degree", "10", "--repeats", "1"]
    assert sparse_lap_ties.main(argv) == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ties |")]
    assert len(rows) == 8 and all(ln.endswith("| True | True |") for ln in rows)


def test_mesh_road_random_and_rectangular_families():
    """The mesh, road, Erdos-Renyi and rectangular power-law generators: their
    shapes and degree bounds, canonical CSR, and jaxmatch's maximum equal to
    scipy's on the original and the permuted matrix."""
    from scipy.sparse.csgraph import maximum_bipartite_matching

    import jaxmatch
    from benchmarks.matching import graphs

    K = 10
    for family in ("honeycomb", "road", "er", "powerlaw-rect"):
        params = graphs.graph_params(family, K)
        A, meta = graphs.load_graph(params, cache=None)
        symmetric = family in graphs.SYMMETRIC_FAMILIES
        assert all(graphs.check_graph(A, symmetric).values()), family
        degree = np.diff(A.indptr)
        if family == "honeycomb":
            assert A.shape == (1024, 1024) and degree.max() == 3
            lattice_edges = 32 * 31 + 31 * 32 // 2  # rows, then every other rung
            assert 0.97 * lattice_edges < A.nnz / 2 < lattice_edges  # 1 % dropped
        elif family == "road":
            grid_edges = 2 * 32 * 31
            assert A.shape == (1024, 1024) and degree.max() == 4
            assert 0.6 * grid_edges < A.nnz / 2 < 0.8 * grid_edges
        elif family == "er":
            drawn = 2 * 1024  # average degree 4
            assert A.shape == (1024, 1024) and degree.max() < 20
            assert 0.99 * drawn < A.nnz / 2 <= drawn  # a few loops and repeats dropped
        else:
            assert A.shape == (1024, 768) and degree.max() > 10 * degree.mean()
        assert meta["name"] == graphs.graph_name(family, K)
        B, _ = graphs.load_graph(params, permuted=True, cache=None, original=A)
        assert B.shape == A.shape and B.nnz == A.nnz
        for M in (A, B):
            expected = int(np.sum(maximum_bipartite_matching(M, perm_type="column") >= 0))
            res = jaxmatch.max_cardinality_matching(jaxmatch.BipartiteGraph.from_scipy(M))
            assert int(res.cardinality) == expected, family


def test_float32_lap_classes_run_and_certify(capsys):
    from benchmarks import lap_float32

    cases = [f"{kind}:30" for kind in lap_float32.CLASSES]
    assert lap_float32.main([*cases, "--repeats", "1", "--method", "tree"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["case"] for r in rows] == cases
    assert all(r["certified"] and r["ms"] is not None for r in rows), rows
    with pytest.raises(ValueError, match="unknown class"):
        lap_float32.costs("normal", 3, np.random.default_rng(0))


def test_jv_start_reports_rounds_searches_and_the_optimum(capsys):
    import scipy.optimize

    from benchmarks import lap_float32, lap_jv_start

    cases = ["machol:40", "rank1:33", "f32:30"]
    assert lap_jv_start.main([*cases, "--repeats", "1"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["case"] for r in rows] == cases
    for r in rows:
        kind, n = r["case"].split(":")
        C = lap_float32.costs(kind, int(n), np.random.default_rng(0)).astype(np.float64)
        rows_, cols = scipy.optimize.linear_sum_assignment(C)
        assert r["status"] == 1 and r["searches"] > 0 and r["ms"] > 0, r
        assert r["rounds"] == 0, r  # the auction start is a GPU cluster's, from 1024 rows
        assert r["cost"] == pytest.approx(C[rows_, cols].sum(), rel=1e-5), r


def test_step_model_counts_both_strategies_and_reaches_the_optimum(capsys):
    from benchmarks import lap_step_model

    cases = ["f32:40", "sqdist:40", "machol:25", "few:30"]
    assert lap_step_model.main([*cases, "--final-rounds", "5"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["case"] for r in rows] == cases
    for r in rows:
        assert r["jv_optimal"] and r["auction_optimal"], r
        assert r["jv_steps"] >= r["jv_searches"] > 0
        assert r["auction_rounds"] >= r["auction_phases"] > 0
        assert r["finish_steps"] >= r["finish_searches"] >= 0


def test_step_model_jv_counts_one_step_per_scanned_column():
    from benchmarks import lap_step_model

    # Both columns choose row 0 in the column reduction (column 0 keeps it).
    # Row 1's search scans column 0, whose row 0 moves to column 1, free:
    # two steps, one search.
    C = np.array([[0.0, 0.0], [1.0, 5.0]])
    v, x = lap_step_model.column_reduction(C)
    assert x.tolist() == [0, -1] and v.tolist() == [0.0, 0.0]
    x, steps, searches = lap_step_model.jv_searches(C, v, x)
    assert x.tolist() == [1, 0] and (steps, searches) == (2, 1)


def test_int_lap_classes_run_and_certify(capsys):
    from benchmarks import lap_int_auto

    cases = [f"{kind}:1:20:scipy" for kind in lap_int_auto.CLASSES] + ["n:3:12"]
    assert lap_int_auto.main(cases) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(cases)
    for line in lines:
        assert "certified True" in line and "same cost False" not in line, line
    assert lap_int_auto.costs("n2", 2, 5, np.random.default_rng(0)).shape == (2, 5, 5)
    with pytest.raises(ValueError, match="unknown class"):
        lap_int_auto.costs("f32", 1, 3, np.random.default_rng(0))


# --------------------------------------------------- imports of benchmarks/

#: The jaxmatch names benchmark scripts use that are not public (in neither
#: ``jaxmatch.__all__`` nor a family package's ``__all__``), each a hook into
#: the solver that no public API offers: ``(file, name)``.
PRIVATE_USES = {
    # JV's fused call alone, and its info slots (auction rounds, searches).
    ("lap_jv_start.py", "jaxmatch.lap._ffi"),
    # The points solver's rules (jaxmatch.lap.points.sweep), its halves and
    # host solve (.solve), swapped to time or compare them.
    ("lap_points.py", "jaxmatch.lap.points"),
    ("lap_points_sweep.py", "jaxmatch.lap.points"),
    # The weighted inits' custom calls alone, on the keys the solvers make.
    ("weighted_init.py", "jaxmatch.weighted._ffi"),
    ("weighted_init.py", "jaxmatch.weighted.api"),
}


def _modules(folder: Path) -> dict[str, Path]:
    """Module name -> file of every module under ``folder`` (a package)."""
    out = {}
    for path in sorted(folder.rglob("*.py")):
        parts = list(path.relative_to(folder.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known) -> set[str]:
    """The modules ``name`` imports (every import statement, also inside
    functions), resolved to the closest module in ``known``."""
    import ast

    deps = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".")
                if path.name != "__init__.py":
                    package.pop()
                package = package[: len(package) - node.level + 1]
                base = ".".join([*package, base] if base else package)
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                deps.add(target)
    return deps


def test_benchmarks_have_no_import_cycle():
    modules = _modules(ROOT / "benchmarks")
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    done: set[str] = set()

    def visit(name: str, chain: tuple[str, ...]) -> None:
        assert name not in chain, "import cycle: " + " -> ".join((*chain, name))
        if name not in done:
            for dep in sorted(graph[name]):
                visit(dep, (*chain, name))
            done.add(name)

    for name in graph:
        visit(name, ())
    assert graph["benchmarks.family"] == set()  # the shared base imports no benchmarks module


def test_benchmarks_use_public_jaxmatch_names_only():
    import ast

    import jaxmatch.lap
    import jaxmatch.matching
    import jaxmatch.weighted

    public = {"jaxmatch": {*jaxmatch.__all__, "__version__", "__file__"}}
    for family in (jaxmatch.lap, jaxmatch.matching, jaxmatch.weighted):
        public[family.__name__] = set(family.__all__)
        public["jaxmatch"].add(family.__name__.rpartition(".")[2])

    def private(dotted: str) -> str | None:
        """The first non-public prefix of a dotted jaxmatch name, or None."""
        parts = dotted.split(".")
        for i in range(1, len(parts)):
            module = ".".join(parts[:i])
            if module in public and ".".join(parts[: i + 1]) not in public:
                return None if parts[i] in public[module] else ".".join(parts[: i + 1])
        return None

    found = set()
    for path in sorted((ROOT / "benchmarks").rglob("*.py")):
        tree = ast.parse(path.read_text())
        names: dict[str, str] = {}  # local name -> dotted jaxmatch name
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == "jaxmatch":
                        names[a.asname or "jaxmatch"] = a.name if a.asname else "jaxmatch"
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("jaxmatch"):
                for a in node.names:
                    names[a.asname or a.name] = f"{node.module}.{a.name}"
        uses = set(names.values())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                attrs = []
                while isinstance(node, ast.Attribute):
                    attrs.append(node.attr)
                    node = node.value
                if isinstance(node, ast.Name) and node.id in names:
                    uses.add(".".join([names[node.id], *reversed(attrs)]))
        rel = str(path.relative_to(ROOT / "benchmarks"))
        found |= {(rel, name) for name in map(private, uses) if name}
    assert found == PRIVATE_USES


def test_lap_unassigned_benchmark_runs_on_tiny_shapes():
    from benchmarks import lap_unassigned

    rows = lap_unassigned.main(["--shapes", "2x4x5", "1x6x3", "--repeats", "1"])
    assert [r["shape"] for r in rows] == ["2x4x5", "1x6x3"]
    assert all(r["unassigned"] > 0 and r["padded"] > 0 for r in rows)
    assert all(r["unassigned_pipelined"] > 0 and r["padded_pipelined"] > 0 for r in rows)


def test_lap_unassigned_benchmark_against_lapjv_cost_limit():
    """lapjv(cost_limit=p) solves the same problem (the script asserts equal
    objectives), tall and wide."""
    pytest.importorskip("lap")
    from benchmarks import lap_unassigned

    args = ["--shapes", "3x6x8", "2x7x4", "--repeats", "1", "--lapjv", "--lapjv-repeats", "1"]
    rows = lap_unassigned.main(args)
    assert all(r["lapjv"] > 0 for r in rows)


def test_lap_k_best_benchmark_runs_on_tiny_shapes():
    from benchmarks import lap_k_best

    rows = lap_k_best.main(["--shapes", "2x4x5", "1x6x3", "--k", "5", "--repeats", "1"])
    assert [r["shape"] for r in rows] == ["2x4x5", "1x6x3"]
    assert all(r["k_best"] > 0 and r["k_best_pipelined"] > 0 for r in rows)


def test_weighted_init_benchmark_runs(capsys):
    from benchmarks import weighted_init

    assert weighted_init.main(["--graphs", "kron:8,rgg:8", "--b", "2", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("DOMINANT, DOMINANT") == 2, out
