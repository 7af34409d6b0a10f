"""The CUDA kernels of each family without JAX (tests/<family>/
<family>_kernel_harness.cu, built with CMake): compared with the serial
solver, plainly and under compute-sanitizer's memcheck."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

#: harness, argument for the (slower) sanitizer run, success line
HARNESSES = [
    ("lap_kernel_harness", ["quick"], "lap_kernel_harness: OK (0 mismatches)"),
    ("matching_kernel_harness", [], "matching_kernel_harness: OK"),
    ("weighted_kernel_harness", ["quick"], "weighted_kernel_harness: OK"),
    ("b_matching_kernel_harness", ["quick"], "b_matching_kernel_harness: OK"),
    ("kbest_kernel_harness", ["quick"], "kbest_kernel_harness: OK (0 mismatches)"),
]


def test_every_harness_is_run():
    """Each harness source (built by the kernel_harnesses fixture) is run
    here."""
    tests = Path(__file__).resolve().parent
    sources = {path.stem for path in tests.glob("*/*_kernel_harness.cu")}
    assert sources == {name for name, _, _ in HARNESSES}


@pytest.mark.gpu
@pytest.mark.parametrize("name, _quick, ok_line", HARNESSES)
def test_kernels_match_the_serial_solver(kernel_harnesses, name, _quick, ok_line):
    run = subprocess.run([str(kernel_harnesses / name)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert ok_line in run.stdout


@pytest.mark.gpu
@pytest.mark.parametrize("name, quick, ok_line", HARNESSES)
def test_kernels_under_memcheck(kernel_harnesses, name, quick, ok_line):
    sanitizer = shutil.which("compute-sanitizer")
    if sanitizer is None:
        pytest.fail("compute-sanitizer is not on PATH")
    command = [sanitizer, "--tool", "memcheck", "--error-exitcode", "3"]
    run = subprocess.run(
        [*command, str(kernel_harnesses / name), *quick], capture_output=True, text=True
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output[-4000:]
    assert ok_line in run.stdout
    assert "ERROR SUMMARY: 0 errors" in output
