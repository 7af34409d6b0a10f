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


def result_cell(r: dict | None) -> str:
    """One solver's table cell from its result record: the median (with the
    number of runs when fewer than ``_repeats``, and MISMATCH / unchecked),
    or why there is none (too slow, timeout, skip, error, not run)."""
    if r is None:
        return ""
    st = r.get("status")
    chk = (r.get("check") or {}).get("ok")
    if st == "ok":
        s = fmt_time(r.get("median_s"))
        if r.get("n_runs", 0) < r.get("_repeats", 0):
            s += f" ({r['n_runs']}x)"
        if chk is False:
            s += " MISMATCH"
        elif chk is None:
            s += " (unchecked)"
        return s
    if st == "too-slow":
        return f">{fmt_time(r.get('warmup_s'))}"
    if st == "timeout":
        t = r.get("timeout_s")
        return f"timeout (>{t:.0f} s)" if t else "timeout"
    return {"skipped": "skip", "error": "error", "deadline": "not run"}.get(st, str(st))


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

