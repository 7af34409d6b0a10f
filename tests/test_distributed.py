"""Sharded batches of every family under ``jax.distributed``: two
processes on localhost (gloo), two forced CPU devices each
(``distributed_check.py``)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).with_name("distributed_check.py")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_two_processes_solve_a_sharded_batch():
    env = dict(os.environ)
    env.pop("XLA_FLAGS", None)
    root = str(SCRIPT.parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    port = str(_free_port())
    procs = [
        subprocess.Popen(
            [sys.executable, str(SCRIPT), str(pid), port],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for pid in (0, 1)
    ]
    outputs = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=600)
            outputs.append((proc.returncode, out, err))
    finally:
        for proc in procs:
            proc.kill()
    for pid, (code, out, err) in enumerate(outputs):
        assert code == 0, f"process {pid}:\n{out[-2000:]}\n{err[-4000:]}"
        assert f"process {pid}: distributed: OK" in out
