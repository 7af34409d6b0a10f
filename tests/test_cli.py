"""The command line (``jaxmatch.cli``): every subcommand, every user error,
output formats, that nothing is written when a command fails, and that the
package's modules import one another without a cycle."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment
from scipy.sparse.csgraph import maximum_bipartite_matching

import jaxmatch
from jaxmatch import cli
from jaxmatch._ffi import JaxmatchLibraryError
from jaxmatch.cli import console, devices, outputs

REPO = Path(__file__).resolve().parent.parent


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    """Runs ``main(argv)`` in-process; returns ``(exit code, stdout, stderr)``."""
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_user_error(err: str, *fragments: str) -> None:
    """``err`` is one ``jaxmatch: error:`` line naming ``fragments``, no traceback."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("jaxmatch: error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, err)


def files_in(folder: Path) -> set[str]:
    """The names in ``folder`` (temporary files included)."""
    return {p.name for p in folder.iterdir()}


@pytest.fixture
def costs() -> np.ndarray:
    return np.random.default_rng(0).random((6, 6))


@pytest.fixture
def bipartite() -> sp.csr_array:
    return sp.random_array((300, 250), density=0.01, format="csr", rng=np.random.default_rng(1))


@pytest.fixture
def symmetric() -> sp.csr_array:
    A = sp.random_array((200, 200), density=0.02, format="csr", rng=np.random.default_rng(2))
    return sp.csr_array(A + A.T)


# ---------------------------------------------------------------------- lap


def test_lap_npy_prints_cost_and_writes_npy(capsys, tmp_path, costs):
    np.save(tmp_path / "c.npy", costs)
    code, out, err = run(capsys, "lap", tmp_path / "c.npy", "-o", tmp_path / "a.npy")
    assert code == 0, err
    rows, cols = linear_sum_assignment(costs)
    assert f"cost {costs[rows, cols].sum():.10g}" in out
    assert "certified optimal" in out and "status OPTIMAL" in out and "time:" in out
    written = np.load(tmp_path / "a.npy")
    assert written.dtype.kind == "i"
    np.testing.assert_allclose(costs[rows, written].sum(), costs[rows, cols].sum())


def test_lap_batch_npy_to_csv(capsys, tmp_path):
    C = np.random.default_rng(3).random((4, 5, 5))
    np.save(tmp_path / "b.npy", C)
    code, out, _ = run(capsys, "lap", tmp_path / "b.npy", "-o", tmp_path / "a.csv")
    assert code == 0
    assert "4 x 5x5" in out and "certified optimal 4/4" in out
    written = np.loadtxt(tmp_path / "a.csv", delimiter=",", dtype=int)
    assert written.shape == (4, 5)
    for c, cols in zip(C, written):
        assert np.isclose(c[np.arange(5), cols].sum(), c[linear_sum_assignment(c)].sum())


def test_lap_large_batch_prints_a_summary(capsys, tmp_path):
    np.save(tmp_path / "b.npy", np.random.default_rng(4).random((20, 3, 3)))
    code, out, _ = run(capsys, "lap", tmp_path / "b.npy")
    assert code == 0 and "costs over 20 problems: sum" in out


def test_lap_csv_input_maximize_and_txt_output(capsys, tmp_path):
    C = np.array([[1, 5, 3], [4, 2, 6]])
    np.savetxt(tmp_path / "c.csv", C, delimiter=",", fmt="%d")
    code, out, _ = run(capsys, "lap", tmp_path / "c.csv", "--maximize", "-o", tmp_path / "a.txt")
    assert code == 0
    assert "maximize" in out and "cost 11" in out  # 5 + 6
    assert np.loadtxt(tmp_path / "a.txt", dtype=int).tolist() == [1, 2]


def test_lap_whitespace_txt_input(capsys, tmp_path):
    (tmp_path / "c.txt").write_text("# costs\n4 1 3\n2 0 5\n3 2 2\n")
    code, out, _ = run(capsys, "lap", tmp_path / "c.txt")
    assert code == 0 and "cost 5" in out and "col_for_row [1 0 2]" in out


def test_lap_forbidden_pairs_and_tall_matrix(capsys, tmp_path):
    C = np.array([[1.0, np.inf], [np.inf, 2.0], [3.0, 0.5]])  # 3 rows, 2 columns
    np.save(tmp_path / "c.npy", C)
    code, out, _ = run(capsys, "lap", tmp_path / "c.npy", "-o", tmp_path / "a.npy")
    assert code == 0 and "cost 1.5" in out and "assigned 2 of 3 rows" in out
    assert np.load(tmp_path / "a.npy").tolist() == [0, -1, 1]


def test_lap_npz_first_array_and_key(capsys, tmp_path, costs):
    np.savez(tmp_path / "c.npz", first=costs, second=costs.T * 2)
    code, out, _ = run(capsys, "lap", tmp_path / "c.npz")
    assert code == 0 and f"cost {costs[linear_sum_assignment(costs)].sum():.10g}" in out
    code, out, _ = run(capsys, "lap", tmp_path / "c.npz", "--key", "second")
    assert code == 0 and f"cost {2 * costs[linear_sum_assignment(costs)].sum():.10g}" in out


@pytest.mark.parametrize("method", ["tree", "classical", "jv"])
def test_lap_methods(capsys, tmp_path, costs, method):
    np.save(tmp_path / "c.npy", costs)
    code, out, _ = run(capsys, "lap", tmp_path / "c.npy", "--method", method, "--device", "cpu")
    assert code == 0 and f"method {method} on cpu" in out and "certified optimal" in out


def test_lap_progress_on_stderr(capsys, tmp_path, costs, monkeypatch):
    monkeypatch.setattr(console, "PROGRESS_AFTER_S", 0.0)
    np.save(tmp_path / "c.npy", costs)
    code, _, err = run(capsys, "lap", tmp_path / "c.npy")
    assert code == 0
    assert "solving 1 x 6x6 ..." in err and "done in" in err


# --------------------------------------------------------------- lap errors


def test_lap_infeasible_exits_1_and_writes_nothing(capsys, tmp_path):
    C = np.array([[1.0, np.inf], [2.0, np.inf]])
    np.save(tmp_path / "c.npy", C)
    before = files_in(tmp_path)
    code, _, err = run(capsys, "lap", tmp_path / "c.npy", "-o", tmp_path / "a.npy")
    assert code == 1
    assert_user_error(err, "infeasible", "+inf")
    assert files_in(tmp_path) == before


def test_lap_infeasible_member_of_a_batch(capsys, tmp_path):
    C = np.random.default_rng(5).random((3, 2, 2))
    C[1] = -np.inf
    np.save(tmp_path / "c.npy", C)
    code, _, err = run(capsys, "lap", tmp_path / "c.npy", "--maximize", "-o", tmp_path / "a.csv")
    assert code == 1
    assert_user_error(err, "problem 1 of 3", "infeasible", "-inf")
    assert not (tmp_path / "a.csv").exists()


def test_lap_failure_keeps_an_existing_output(capsys, tmp_path):
    np.save(tmp_path / "c.npy", np.full((2, 2), np.inf))
    (tmp_path / "a.npy").write_bytes(b"previous result")
    code, _, _ = run(capsys, "lap", tmp_path / "c.npy", "-o", tmp_path / "a.npy")
    assert code == 1
    assert (tmp_path / "a.npy").read_bytes() == b"previous result"
    assert files_in(tmp_path) == {"c.npy", "a.npy"}


@pytest.mark.parametrize(
    ("entry", "maximize", "fragment"),
    [(np.nan, False, "NaN"), (-np.inf, False, "-inf"), (np.inf, True, "+inf")],
)
def test_lap_invalid_entries_exit_2(capsys, tmp_path, entry, maximize, fragment):
    C = np.ones((3, 3))
    C[1, 2] = entry
    np.save(tmp_path / "c.npy", C)
    argv = ["lap", tmp_path / "c.npy", "-o", tmp_path / "a.npy"] + ["--maximize"] * maximize
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert_user_error(err, fragment, "(1, 2)")
    assert not (tmp_path / "a.npy").exists()


def test_lap_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "lap", tmp_path / "nope.npy")
    assert code == 2
    assert_user_error(err, "no such file", "nope.npy")


def test_lap_directory_is_not_a_file(capsys, tmp_path):
    (tmp_path / "d.npy").mkdir()
    code, _, err = run(capsys, "lap", tmp_path / "d.npy")
    assert code == 2
    assert_user_error(err, "not a file")


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("c.npy", b"not a numpy file", "cannot read"),
        ("c.npz", b"not a zip", "cannot read"),
        ("c.csv", b"1,2\n3,x\n", "cannot read"),
        (
            "c.csv",
            b"1,2\n3\n",
            "row 2 has a different number of values (1) than the rows above it (2)",
        ),
        ("c.txt", b"1 2 3\n4 5 6\n7 8\n", "row 3 has a different number of values (2)"),
        ("c.json", b"[[1, 2]]", "unsupported file type"),
    ],
)
def test_lap_unreadable_or_wrong_format(capsys, tmp_path, name, content, fragment):
    (tmp_path / name).write_bytes(content)
    code, _, err = run(capsys, "lap", tmp_path / name, "-o", tmp_path / "a.npy")
    assert code == 2
    assert_user_error(err, fragment)
    assert "usecols" not in err  # NumPy's advice names no option of ours
    assert not (tmp_path / "a.npy").exists()


@pytest.mark.parametrize("shape", [(5,), (2, 2, 2, 2), ()])
def test_lap_wrong_dimensions(capsys, tmp_path, shape):
    np.save(tmp_path / "c.npy", np.ones(shape))
    code, _, err = run(capsys, "lap", tmp_path / "c.npy")
    assert code == 2
    assert_user_error(err, "2-D cost matrix or a 3-D batch", str(shape))


def test_lap_complex_costs(capsys, tmp_path):
    np.save(tmp_path / "c.npy", np.ones((2, 2), dtype=complex))
    code, _, err = run(capsys, "lap", tmp_path / "c.npy")
    assert code == 2
    assert_user_error(err, "real numbers", "complex")


def test_lap_npz_errors(capsys, tmp_path, costs):
    np.savez(tmp_path / "c.npz", first=costs)
    code, _, err = run(capsys, "lap", tmp_path / "c.npz", "--key", "other")
    assert code == 2
    assert_user_error(err, "no array 'other'", "first")
    sp.save_npz(tmp_path / "s.npz", sp.csr_array(costs))
    code, _, err = run(capsys, "lap", tmp_path / "s.npz")
    assert code == 2
    assert_user_error(err, "scipy.sparse", "jaxmatch match")
    np.save(tmp_path / "c.npy", costs)
    code, _, err = run(capsys, "lap", tmp_path / "c.npy", "--key", "first")
    assert code == 2
    assert_user_error(err, "--key")


@pytest.mark.parametrize(
    ("output", "fragment"),
    [("a.json", "unsupported output type"), ("missing/a.npy", "does not exist"), (".", "")],
)
def test_lap_bad_output_path_fails_before_solving(capsys, tmp_path, costs, output, fragment):
    np.save(tmp_path / "c.npy", costs)
    code, out, err = run(capsys, "lap", tmp_path / "c.npy", "-o", tmp_path / output)
    assert code == 2
    assert_user_error(err, fragment)
    assert out == ""  # nothing was solved
    assert files_in(tmp_path) == {"c.npy"}


def test_failed_write_leaves_no_file(capsys, tmp_path, costs, monkeypatch):
    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(outputs.os, "replace", refuse)
    np.save(tmp_path / "c.npy", costs)
    code, _, err = run(capsys, "lap", tmp_path / "c.npy", "-o", tmp_path / "a.npy")
    assert code == 1
    assert_user_error(err, "cannot write", "Permission denied")
    assert files_in(tmp_path) == {"c.npy"}


@pytest.mark.skipif(bool(devices.gpu_devices()), reason="a GPU is present")
def test_device_gpu_without_a_gpu(capsys, tmp_path, costs):
    np.save(tmp_path / "c.npy", costs)
    code, _, err = run(capsys, "lap", tmp_path / "c.npy", "--device", "gpu")
    assert code == 2
    assert_user_error(err, "--device gpu")


def test_usage_errors_exit_2(capsys):
    for argv in ([], ["lap"], ["lap", "c.npy", "--method", "fast"], ["nope"]):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        assert exc.value.code == 2
        assert re.search(r"^jaxmatch( lap)?: error: ", capsys.readouterr().err, re.M)


# -------------------------------------------------------------------- match


def test_match_mtx_certified_and_npy_output(capsys, tmp_path, bipartite):
    scipy.io.mmwrite(tmp_path / "a.mtx", bipartite)
    code, out, err = run(capsys, "match", tmp_path / "a.mtx", "-o", tmp_path / "m.npy")
    assert code == 0, err
    k = int((maximum_bipartite_matching(bipartite, perm_type="column") >= 0).sum())
    assert f"cardinality {k} (structural rank {k} of 250" in out
    assert "certified maximum" in out
    col_for_row = np.load(tmp_path / "m.npy")
    assert col_for_row.shape == (300,) and int((col_for_row >= 0).sum()) == k
    matched = np.flatnonzero(col_for_row >= 0)
    assert bipartite[matched, col_for_row[matched]].all()  # every pair is an edge
    assert len(set(col_for_row[matched].tolist())) == k


@pytest.mark.parametrize("method", ["auto", "apfb", "apsb", "hybrid", "pr"])
@pytest.mark.parametrize("init", ["cheap", "karp-sipser", "none"])
def test_match_npz_methods_and_inits(capsys, tmp_path, bipartite, method, init):
    sp.save_npz(tmp_path / "a.npz", bipartite)
    argv = ["match", tmp_path / "a.npz", "--method", method, "--init", init]
    code, out, _ = run(capsys, *argv, "-o", tmp_path / "m.csv")
    assert code == 0
    assert f"method {method}, init {init}" in out and "certified maximum" in out
    k = int((maximum_bipartite_matching(bipartite, perm_type="column") >= 0).sum())
    assert int((np.loadtxt(tmp_path / "m.csv", dtype=int) >= 0).sum()) == k


def test_match_full_structural_rank_prints_col_for_row(capsys, tmp_path):
    scipy.io.mmwrite(tmp_path / "p.mtx", sp.coo_array(np.eye(4)[[2, 0, 3, 1]]))
    code, out, _ = run(capsys, "match", tmp_path / "p.mtx")
    assert code == 0
    assert "structural rank 4 of 4: full" in out and "col_for_row [2 0 3 1]" in out


def test_match_weighted(capsys, tmp_path, symmetric):
    scipy.io.mmwrite(tmp_path / "s.mtx", symmetric)
    code, out, err = run(
        capsys, "match", tmp_path / "s.mtx", "--weighted", "-o", tmp_path / "w.npy"
    )
    assert code == 0, err
    assert "weight " in out and "cardinality" in out and "certified locally dominant" in out
    mate = np.load(tmp_path / "w.npy")
    assert mate.shape == (200,)
    matched = np.flatnonzero(mate >= 0)
    assert (mate[mate[matched]] == matched).all()


@pytest.mark.parametrize("method", ["suitor", "ld"])
def test_match_weighted_methods_agree(capsys, tmp_path, symmetric, method):
    sp.save_npz(tmp_path / "s.npz", symmetric)
    code, out, _ = run(
        capsys, "match", tmp_path / "s.npz", "--weighted", "--weighted-method", method
    )
    assert code == 0 and f"method {method}" in out
    weight = next(line for line in out.splitlines() if line.startswith("weight "))
    code, out, _ = run(capsys, "match", tmp_path / "s.npz", "--weighted")
    assert weight in out  # one locally dominant matching, whatever the method


def test_match_weighted_needs_a_square_symmetric_matrix(capsys, tmp_path, bipartite):
    scipy.io.mmwrite(tmp_path / "a.mtx", bipartite)
    code, _, err = run(capsys, "match", tmp_path / "a.mtx", "--weighted", "-o", tmp_path / "w.npy")
    assert code == 2
    assert_user_error(err, "square symmetric", "300x250")
    A = sp.csr_array(np.triu(np.ones((4, 4)), 1))
    scipy.io.mmwrite(tmp_path / "u.mtx", A)
    code, _, err = run(capsys, "match", tmp_path / "u.mtx", "--weighted", "-o", tmp_path / "w.npy")
    assert code == 2
    assert_user_error(err, "symmetric")
    assert not (tmp_path / "w.npy").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["--weighted-method", "ld"],
        ["--weighted", "--method", "apfb"],
        ["--weighted", "--init", "none"],
    ],
)
def test_match_conflicting_options(capsys, tmp_path, bipartite, argv):
    scipy.io.mmwrite(tmp_path / "a.mtx", bipartite)
    code, _, err = run(capsys, "match", tmp_path / "a.mtx", *argv)
    assert code == 2
    assert_user_error(err, "--")


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        (
            "a.mtx",
            b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1.0\n",
            "cannot read",
        ),
        ("a.mtx", b"hello", "cannot read"),
        ("a.npz", b"not a zip", "cannot read"),
        ("a.npy", b"", "unsupported file type"),
    ],
)
def test_match_unreadable_or_wrong_format(capsys, tmp_path, name, content, fragment):
    (tmp_path / name).write_bytes(content)
    code, _, err = run(capsys, "match", tmp_path / name, "-o", tmp_path / "m.npy")
    assert code == 2
    assert_user_error(err, fragment)
    assert not (tmp_path / "m.npy").exists()


def test_match_dense_npz_is_not_a_sparse_matrix(capsys, tmp_path):
    np.savez(tmp_path / "d.npz", a=np.eye(3))
    code, _, err = run(capsys, "match", tmp_path / "d.npz")
    assert code == 2
    assert_user_error(err, "scipy.sparse")


def test_match_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "match", tmp_path / "nope.mtx")
    assert code == 2
    assert_user_error(err, "no such file")


# --------------------------------------------------------------------- info


def test_info(capsys):
    code, out, _ = run(capsys, "info")
    assert code == 0
    for fragment in ("jaxmatch ", "Python ", "JAX ", "devices:", "cpu:", "cuda:", "GPU solving:"):
        assert fragment in out


def test_info_reports_a_missing_cuda_library(capsys, monkeypatch):
    monkeypatch.setattr(
        jaxmatch, "backends", lambda: {"cpu": "/x/libjaxmatch_cpu.so", "cuda": None}
    )
    code, out, _ = run(capsys, "info")
    assert code == 0 and "cuda: not built" in out


def test_info_survives_a_broken_library(capsys, monkeypatch):
    def broken() -> dict[str, str | None]:
        raise JaxmatchLibraryError("libjaxmatch_cpu.so is stale")

    monkeypatch.setattr(jaxmatch, "backends", broken)
    code, out, _ = run(capsys, "info")
    assert code == 0 and "unavailable (JaxmatchLibraryError: libjaxmatch_cpu.so is stale)" in out


def test_python_dash_m_jaxmatch_info(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-m", "jaxmatch", "info"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("jaxmatch ") and "libraries:" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "jaxmatch", "lap", "missing.npy"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert_user_error(proc.stderr, "no such file")


def test_bench_is_gone(capsys):
    # Benchmarks live in the source checkout (python -m benchmarks), not in the wheel.
    with pytest.raises(SystemExit) as exc:
        cli.main(["bench"])
    assert exc.value.code == 2
    assert "invalid choice: 'bench'" in capsys.readouterr().err


# ------------------------------------------------------------------ modules


def test_cli_modules_import_without_a_cycle():
    folder = Path(cli.__file__).parent
    graph: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        name = "jaxmatch.cli" if path.stem == "__init__" else f"jaxmatch.cli.{path.stem}"
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                deps.add(node.module)
                deps.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names)
        graph[name] = deps
    graph = {name: {d for d in deps if d in graph and d != name} for name, deps in graph.items()}
    # The package imports its submodules; no submodule imports the package.
    assert all("jaxmatch.cli" not in deps for name, deps in graph.items() if name != "jaxmatch.cli")
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, " -> ".join((*path, name))
        if name not in done:
            for dep in graph[name]:
                visit(dep, (*path, name))
            done.add(name)

    for name in graph:
        visit(name, ())
    assert max(len(p.read_text().splitlines()) for p in folder.glob("*.py")) <= 300
