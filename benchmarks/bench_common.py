"""Helpers shared by the benchmark scripts (lap.py, matching.py, report.py).

report.py loads it by path (lap.py keeps the benchmarks folder off
``sys.path``: its name would shadow the ``lap`` package); matching.py imports
it.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys


def fmt_time(t) -> str:
    """Seconds as a short human string (us / ms / s); ``-`` for None."""
    if t is None:
        return "-"
    if t < 1e-3:
        return f"{t * 1e6:.0f} us"
    if t < 1:
        return f"{t * 1e3:.3g} ms"
    return f"{t:.3g} s"


def machine_environment() -> dict:
    """Python, platform, XLA flags, and the GPU and CPU as the OS names them."""
    env = {"python": sys.version.split()[0], "platform": platform.platform(),
           "machine": platform.machine(), "cpu_count": os.cpu_count(),
           "XLA_FLAGS": os.environ.get("XLA_FLAGS", ""),
           "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "")}
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        if out.returncode == 0:
            env["gpu"] = out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    env["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return env

