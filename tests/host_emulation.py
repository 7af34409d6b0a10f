"""Builds and runs a host emulation of CUDA steps: a ``*_emulation.cc`` next
to its tests compiles the steps' CUDA branches for the CPU (host atomics,
fences and threads standing in for the GPU's) and checks them against the
serial solve."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_host_emulation(source: Path, tmp_path: Path, *, timeout: float = 300) -> None:
    """Compiles ``source`` with the host C++ compiler against ``cuda_ffi/``
    (skips the calling test when there is none), runs it, and asserts that it
    exits 0 after printing ``"<name>: OK"``.

    Args:
      source: the emulation's C++ file; its stem names the program.
      tmp_path: a folder for the executable.
      timeout: seconds the program may run (its threads spin at barriers, so
        a busy host slows it most; a team whose workers diverge deadlocks).
    """
    cxx = shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    exe = tmp_path / source.stem
    subprocess.run(
        [cxx, "-std=c++17", "-O2", "-pthread", "-I", str(ROOT / "cuda_ffi"), str(source)]
        + ["-o", str(exe)],
        check=True,
        capture_output=True,
    )
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{source.stem}: OK" in proc.stdout, proc.stdout
