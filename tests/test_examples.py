"""Runs every example script (``examples/*.py``) with no arguments.

Each example checks its own results and exits non-zero on a failure. It runs
in a subprocess with this interpreter (``sys.executable``), in a temporary
folder, with this process's environment, so it imports the same jaxmatch.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import jaxmatch

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.py"))
# Optional packages an example imports (jaxmatch does not need them): the
# example is skipped only when one of them is not importable here. CI
# installs them with tests/requirements.txt, so there it always runs.
OPTIONAL = {"detr_matching_loss.py": ("optax",)}
TIMEOUT_S = 240


def run(script: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # A source checkout imported through the current folder (not PYTHONPATH)
    # would be lost in the temporary folder: name it explicitly.
    root = Path(jaxmatch.__file__).resolve().parent.parent
    if (root / "pyproject.toml").exists():
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), env.get("PYTHONPATH")]))
    # This process may already hold most of a GPU's memory (JAX preallocates).
    env.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    return subprocess.run(
        [sys.executable, str(script), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )


def test_examples_found():
    assert EXAMPLES, f"no examples in {EXAMPLES_DIR}"


def test_readme_lists_every_example():
    readme = (EXAMPLES_DIR / "README.md").read_text()
    missing = [p.name for p in EXAMPLES if f"python examples/{p.name}" not in readme]
    assert not missing, f"examples/README.md has no run command for {missing}"


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example(script: Path, tmp_path: Path):
    for module in OPTIONAL.get(script.name, ()):
        pytest.importorskip(module)
    proc = run(script, cwd=tmp_path)
    assert proc.returncode == 0, (
        f"{script.name} exited with {proc.returncode}\n"
        f"--- stdout (tail)\n{proc.stdout[-4000:]}\n--- stderr (tail)\n{proc.stderr[-4000:]}"
    )


def test_max_transversal_plot(tmp_path: Path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "spy.png"
    proc = run(
        EXAMPLES_DIR / "max_transversal.py",
        *("--rows", "2000", "--cols", "1500", "--plot", str(out)),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert out.stat().st_size > 0


def load_example(name: str):
    """An example script imported as a module (its ``main`` not run)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, EXAMPLES_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TSPLIB_HEADER = "NAME: t\nTYPE: TSP\nDIMENSION: 3\n"


@pytest.mark.parametrize(
    "body",
    [
        "EDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: FULL_MATRIX\n"
        "EDGE_WEIGHT_SECTION\n0 3 4\n3 0 5\n4 5 0\nEOF\n",
        "EDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: LOWER_DIAG_ROW\n"
        "EDGE_WEIGHT_SECTION\n0\n3 0\n4 5 0\nEOF\n",
        "EDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: LOWER_ROW\nEDGE_WEIGHT_SECTION\n3\n4 5\n",
        "EDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n3 4\n5\n",
        "EDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_DIAG_ROW\n"
        "EDGE_WEIGHT_SECTION\n0 3 4\n0 5\n0\n",
        "EDGE_WEIGHT_TYPE: EUC_2D\nNODE_COORD_SECTION\n1 0 0\n2 3 0\n3 0 4\nEOF\n",
    ],
    ids=["full", "lower_diag_row", "lower_row", "upper_row", "upper_diag_row", "euc_2d"],
)
def test_tsplib_reader_formats(tmp_path: Path, body: str):
    """Every format the TSP example reads gives the same 3-city costs (the
    EUC_2D points are a 3-4-5 triangle)."""
    tsp = load_example("tsp_assignment")
    path = tmp_path / "t.tsp"
    path.write_text(TSPLIB_HEADER + body)
    C = tsp.read_tsplib(path)
    expected = np.array([[np.inf, 3, 4], [3, np.inf, 5], [4, 5, np.inf]], np.float32)
    np.testing.assert_array_equal(C, expected)
