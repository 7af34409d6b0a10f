"""``jax.export``: a program serialized in one process runs in a fresh one
after ``import jaxmatch`` alone, for every family, its pytree types in and
out; its targets carry the ABI version (issue "everywhere a JAX program
goes")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxmatch
from jaxmatch import _ffi

SCRIPT = Path(__file__).with_name("export_check.py")


def _fresh(*args: str) -> str:
    env = dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")
    root = str(SCRIPT.parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return proc.stdout


@pytest.mark.parametrize("platform", ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_round_trip_in_a_fresh_process(tmp_path, platform):
    assert "exported: solve_lap, hungarian, sparse, matching, weighted, b_matching" in _fresh(
        "export", str(tmp_path), platform
    )
    assert "ran: solve_lap" in _fresh("run", str(tmp_path), platform)


def test_a_program_of_another_abi_fails_naming_its_target(tmp_path):
    _fresh("export", str(tmp_path), "cpu", "stale")
    assert "ran:" in _fresh("run", str(tmp_path), "cpu", "stale")


def test_targets_are_public_and_versioned():
    targets = jaxmatch.ffi_targets()
    assert set(targets) == {"cpu", "cuda"}
    suffix = f"_abi{_ffi.ABI_VERSION}"
    assert targets["cpu"] and all(n.endswith(suffix) for n in targets["cpu"])
    assert {n.removesuffix(suffix) for n in targets["cpu"]} == set(_ffi.registrations()["cpu"])
    checks = jaxmatch.export_disabled_checks()
    assert all(isinstance(c, jax.export.DisabledSafetyCheck) for c in checks)
    assert len(checks) == len(set(targets["cpu"]) | set(targets["cuda"]))


def test_export_needs_the_disabled_checks():
    C = jax.ShapeDtypeStruct((4, 4), jnp.float32)
    with pytest.raises(ValueError, match="custom call"):
        jax.export.export(jax.jit(jaxmatch.solve_lap))(C)
    exp = jax.export.export(
        jax.jit(jaxmatch.solve_lap), disabled_checks=jaxmatch.export_disabled_checks()
    )(C)
    assert f"_abi{_ffi.ABI_VERSION}" in exp.mlir_module()


def _examples() -> list:
    rng = np.random.default_rng(1)
    C = rng.random((4, 5), dtype=np.float32)
    A = np.eye(3, dtype=np.float32)
    import scipy.sparse as sp

    u, v = np.triu_indices(4, 1)
    graph = jaxmatch.Graph.from_edges(u, v, np.ones(u.size, np.float32), 4)
    bipartite = jaxmatch.BipartiteGraph.from_scipy(sp.csr_array(A))
    return [
        jaxmatch.solve_lap(C),
        jaxmatch.max_cardinality_matching(bipartite),
        jaxmatch.approximate_weighted_matching(graph),
        jaxmatch.approximate_b_matching(graph, 2),
        jaxmatch.SparseCosts.from_scipy(sp.csr_array(A)),
        bipartite,
        graph,
    ]


@pytest.mark.parametrize("value", _examples(), ids=lambda x: type(x).__name__)
def test_public_pytrees_serialize(value):
    """Each result, graph and costs type crosses serialize() as the input
    and the output of an exported function."""
    leaves = [jnp.asarray(x) for x in jax.tree.leaves(value)]
    value = jax.tree.unflatten(jax.tree.structure(value), leaves)
    exp = jax.export.export(jax.jit(lambda x: x))(value)
    back = jax.export.deserialize(exp.serialize())
    assert back.in_tree == exp.in_tree and back.out_tree == exp.out_tree
    got = back.call(value)
    assert type(got) is type(value)
    for a, b in zip(jax.tree.leaves(got), leaves, strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_documented_round_trip_runs_in_a_fresh_process(tmp_path):
    """docs/export.md's example, as a new user would paste it."""
    page = (SCRIPT.parents[1] / "docs" / "export.md").read_text()
    code = page.split("```python\n", 1)[1].split("```", 1)[0]
    script = tmp_path / "example.py"
    script.write_text(code)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(SCRIPT.parents[1]), env.get("PYTHONPATH")) if p
    )
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
