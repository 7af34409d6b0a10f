"""A concrete matrix sharded by rows (``solve_lap``'s row-sharded rule of
the planner, ``jaxmatch/lap/_plan.py``), on Explicit and Auto meshes of
forced CPU devices: gathered onto one device where it fits, the split
solver where the plan says so; ``solve_lap_split`` reshards its input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_row_sharded_matrices_on_forced_cpu_devices():
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    env["JAX_PLATFORMS"] = "cpu"
    script = Path(__file__).with_name("row_sharded_check.py")
    root = str(script.parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "row-sharded: OK" in proc.stdout
