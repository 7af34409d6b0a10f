"""Batches sharded over devices: ``sharded_batches_check.py`` in a fresh
process (JAX reads the device count once, at start) with forced CPU
devices, for meshes of Auto and of Explicit axes, and over the GPUs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("sharded_batches_check.py")


def run_check(mode: str, devices: int, platform: str) -> None:
    """Runs the check script in a fresh process on ``devices`` devices of
    ``platform`` (forced CPU devices, or the GPUs) and asserts it passed."""
    env = dict(os.environ, JAX_PLATFORMS=platform)
    env.pop("XLA_FLAGS", None)
    root = str(SCRIPT.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), mode, str(devices)],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    assert "sharded batches: OK" in proc.stdout


@pytest.mark.parametrize("mode", ["auto", "explicit"])
def test_sharded_batches_on_forced_cpu_devices(mode):
    run_check(mode, 4, "cpu")


def test_sharded_throughput_benchmark_runs():
    """benchmarks/sharded.py on four forced CPU devices at 1/64 of its batch
    sizes: every sharded answer equals the one-device answer."""
    root = SCRIPT.parent.parent
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), env.get("PYTHONPATH")) if p)
    argv = ["-m", "benchmarks.sharded", "--scale", str(1 / 64), "--repeats", "1"]
    proc = subprocess.run(
        [sys.executable, *argv], capture_output=True, text=True, env=env, timeout=900, cwd=root
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    assert proc.stdout.count("| yes |") == 5 * 3, proc.stdout  # 5 cases x devices 1, 2, 4


@pytest.mark.gpu
def test_sharded_batches_on_the_gpus():
    """The same checks over every GPU of the machine (a mesh of one on a
    one-GPU machine): results equal the unsharded solve's (the racy fields
    of a GPU matching certified instead), sharding kept, no gather."""
    import jax

    run_check("auto", len(jax.devices("gpu")), "cuda")


def test_any_sharding_on_forced_cpu_devices():
    """``any_sharding_check.py``: dense costs sharded by batch, rows,
    columns or both, sparse costs and graphs by batch or along their
    entries, on Auto and Explicit meshes: the unsharded answers, and one
    regather of a dense matrix in the compiled program."""
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    root = str(SCRIPT.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    script = SCRIPT.with_name("any_sharding_check.py")
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=900
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    assert "any sharding: OK" in proc.stdout
