"""The standalone benchmark scripts on tiny inputs (``benchmarks/``; the
harness has its own self-test, ``python -m benchmarks selftest``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import matching_methods  # noqa: E402
from jaxmatch import MatchingStatus  # noqa: E402


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


def test_warm_start_benchmark_runs(capsys):
    from benchmarks import lap_warm_start

    assert lap_warm_start.main(["--n", "40", "--frames", "2"]) == 0
    assert "searches" in capsys.readouterr().out


def test_dropin_benchmark_eager_rows_run(capsys):
    from benchmarks import dropin

    dropin.main(["--sizes", "5", "--count", "2", "--sparse-edges", "--eager-sizes", "4"])
    out = capsys.readouterr().out
    assert "| solve_lap | 4 |" in out and "linear_sum_assignment" in out
