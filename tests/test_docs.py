"""The documentation: every page in the table of contents, the benchmark plot
script on tiny synthetic results, and (where Sphinx is installed:
``pip install -r docs/requirements.txt``) a build with warnings as errors.

The first two are fast and need no documentation tools (the plot test needs
matplotlib). The build test runs ``sphinx-build -W --keep-going`` into a
temporary folder, the same command as CI's docs step, so that a docstring
or page that breaks the build fails here too.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def toctree_entries(text: str) -> list[str]:
    """The documents named by the ``{toctree}`` blocks of a MyST page."""
    entries = []
    for block in re.findall(r"^```\{toctree\}\n(.*?)^```", text, flags=re.M | re.S):
        for line in block.splitlines():
            line = line.strip()
            if line and not line.startswith(":"):
                entries.append(line)
    return entries


def test_every_page_is_in_the_toctree():
    entries = toctree_entries((DOCS / "index.md").read_text())
    pages = {p.stem for p in DOCS.glob("*.md")} - {"index"}
    assert len(entries) == len(set(entries)), f"listed twice: {entries}"
    assert pages - set(entries) == set(), "pages missing from docs/index.md's toctree"
    # docs/conf.py drops "cli" from the toctree where docs/cli.md is absent;
    # every other entry must be a page.
    assert set(entries) - pages - {"cli"} == set(), "toctree entries without a page"


# -- tools/plot_benchmarks.py -------------------------------------------------


def _harness_doc(family: str, tag: str, cases: list[dict], times: dict) -> dict:
    """A document shaped like benchmarks/harness.py's; ``times[(case, solver)]``
    is a median in seconds, or a status string for a run without one."""
    solvers = list(dict.fromkeys(s for _, s in times))
    results = []
    for (case, solver), t in times.items():
        if isinstance(t, str):
            results.append(dict(solver=solver, case=case, status=t))
        else:
            results.append(
                dict(solver=solver, case=case, status="ok", median_s=t, check=dict(ok=True))
            )
    return dict(family=family, tag=tag, solvers=solvers, cases=cases, results=results)


LAP_CASES = [
    dict(name="64x32x32-f32", batch=64, n=32, dist="f32"),
    dict(name="16x128x128-f32", batch=16, n=128, dist="f32"),
    dict(name="1x1000x1000-int", batch=1, n=1000, dist="int"),
]
LAP_TIMES = {
    ("64x32x32-f32", "jaxmatch/tree/fused"): 1e-3,
    ("64x32x32-f32", "scipy"): 4e-3,
    ("16x128x128-f32", "jaxmatch/tree/fused"): 4e-3,
    ("16x128x128-f32", "scipy"): 2e-3,
    ("1x1000x1000-int", "jaxmatch/tree/fused"): 5e-2,
    ("1x1000x1000-int", "scipy"): "too-slow",
}


@pytest.fixture
def plot_benchmarks():
    pytest.importorskip("matplotlib", reason="the plot script needs matplotlib")
    return _load("jaxmatch_plot_benchmarks", ROOT / "tools" / "plot_benchmarks.py")


def test_performance_profile_ratios(plot_benchmarks):
    (table,) = plot_benchmarks.tables([_harness_doc("lap", "", LAP_CASES, LAP_TIMES)])
    cases, ratios = plot_benchmarks.profile(table)
    assert cases == [c["name"] for c in LAP_CASES]
    assert ratios["jaxmatch/tree/fused"] == [1.0, 2.0, 1.0]
    assert ratios["scipy"][:2] == [4.0, 1.0] and ratios["scipy"][2] == float("inf")
    rho = plot_benchmarks.rho
    assert rho(ratios["jaxmatch/tree/fused"], 1.0) == pytest.approx(2 / 3)
    assert rho(ratios["jaxmatch/tree/fused"], 2.0) == 1.0
    assert rho(ratios["scipy"], 1e9) == pytest.approx(2 / 3)  # never the unsolved case


def test_plot_script_writes_pngs(plot_benchmarks, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    # Two tags of one family (a column per tag), as `benchmarks report` combines them.
    for tag in ("plain", "cb"):
        doc = _harness_doc("lap", tag, LAP_CASES, LAP_TIMES)
        (results / f"lap_{tag}.json").write_text(json.dumps(doc))
    matching_cases = [
        dict(name=f"delaunay_n{k}", family="delaunay", K=k, permuted=False, prepared=dict(nnz=k))
        for k in (10, 12)
    ]
    matching = _harness_doc(
        "matching",
        "",
        matching_cases,
        {
            ("delaunay_n10", "igraph"): 1e-3,
            ("delaunay_n10", "jaxmatch-cpu/apfb/wr"): 2e-3,
            ("delaunay_n12", "igraph"): 5e-3,
            ("delaunay_n12", "jaxmatch-cpu/apfb/wr"): "error",
        },
    )
    (results / "matching.json").write_text(json.dumps(matching))
    weighted = dict(  # benchmarks/weighted.py --json
        header=[],
        graphs=[],
        results=[
            dict(graph=f"kron_{k}", family="kron", weighting="uniform", solver=s, m=m, median_s=t)
            for k, m in ((10, 8000), (12, 32000))
            for s, t in (("jaxmatch suitor", 1e-3 * k), ("networkit suitor", 2e-3 * k))
        ],
    )
    single = tmp_path / "weighted.json"
    single.write_text(json.dumps(weighted))

    out = tmp_path / "plots"
    assert plot_benchmarks.main([str(results), str(single), "-o", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        f"{f}-{k}.png" for f in ("lap", "matching", "weighted") for k in ("profile", "time")
    ]
    for p in out.iterdir():
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", p


def test_plot_script_refuses_other_json(plot_benchmarks, tmp_path):
    bad = tmp_path / "other.json"
    bad.write_text(json.dumps({"hello": 1}))
    with pytest.raises(ValueError, match="not a benchmark result"):
        plot_benchmarks.plot_files([bad], tmp_path / "plots")


# -- the Sphinx build -----------------------------------------------------------


def _need_docs_tools():
    for module in ("sphinx", "myst_parser", "furo"):
        pytest.importorskip(module, reason="docs tools: pip install -r docs/requirements.txt")


def test_conf_drops_a_missing_cli_page(tmp_path, monkeypatch):
    _need_docs_tools()
    monkeypatch.setattr(sys, "path", list(sys.path))  # conf.py prepends the checkout
    conf = _load("jaxmatch_docs_conf", DOCS / "conf.py")
    source = [(DOCS / "index.md").read_text()]
    monkeypatch.setattr(conf, "DOCS", tmp_path)  # no cli.md there
    conf.source_read(None, "index", source)
    assert "cli" not in toctree_entries(source[0])
    assert "lap" in toctree_entries(source[0])


def test_example_docstrings_never_warn(monkeypatch):
    """An example's docstring is shown parsed where it is clean, and as a
    literal block where it would make docutils report anything."""
    _need_docs_tools()
    from docutils import nodes

    monkeypatch.setattr(sys, "path", list(sys.path))
    conf = _load("jaxmatch_docs_conf", DOCS / "conf.py")
    clean = conf.docstring_nodes("Solves ``x``.\n\n* one\n* two\n")
    assert [type(n) for n in clean] == [nodes.paragraph, nodes.bullet_list]
    for bad in ("Bad *emphasis", "Uses :func:`solve_lap`.", "Title\n=====\n\ntext"):
        (block,) = conf.docstring_nodes(bad)
        assert isinstance(block, nodes.literal_block) and block.astext() == bad


def test_docs_build_without_warnings(tmp_path):
    _need_docs_tools()
    env = dict(os.environ)
    env.pop("JAXMATCH_BENCH_JSON", None)  # never write plots into the checkout
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    cmd += ["-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-5000:]
    html = tmp_path / "html"
    for page in ("index", "api", "examples", "benchmarks", "changelog", "installation"):
        assert (html / f"{page}.html").exists(), page
    api = (html / "api.html").read_text()
    import jaxmatch

    for name in jaxmatch.__all__:
        assert f'id="jaxmatch.{name}"' in api, f"jaxmatch.{name} is not in the API reference"
