"""Worker processes: the child's task loop and the parent's handle on it.

A worker runs one *group* of solvers of one family (a group shares a
process, an environment and the inputs loaded on its device), or the
family's ``prep`` step. The parent sends tasks as JSON lines on the child's
stdin; the child answers with events appended to a JSON-lines file, flushed
and fsync'ed after each line so that they survive the child's death.

Before each stage that may run long (loading a case, a warm-up, a timed
call) the child announces it with a ``stage`` event carrying its time limit
and the status to record if the limit passes (``timeout`` or
``too-slow``); the parent enforces it by killing the child's process group.

    python -m benchmarks.worker SPEC.json EVENTS.jsonl GROUP   # started by the parent
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

from benchmarks.family import get_family

#: The group name of the step that prepares cases (``Family.prepare``).
PREP = "prep"
#: A warm-up (compile + one call) running this long past
#: ``max_seconds_per_run`` is ended and recorded as ``too-slow``.
WARMUP_GRACE_S = 1.0


# --------------------------------------------------------------------------
# Child side
# --------------------------------------------------------------------------


class EventLog:
    """Appends one JSON object per line to the events file, durably."""

    def __init__(self, path: str):
        self.fh = open(path, "a")  # noqa: SIM115  (open for the worker's lifetime)

    def emit(self, event: str, **fields) -> None:
        self.fh.write(json.dumps(dict(event=event, **fields)) + "\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def stage(self, stage: str, limit_s: float, on_limit: str, label: str | None = None) -> None:
        """Announces a stage; the parent kills the worker ``limit_s`` after it."""
        self.emit("stage", stage=stage, label=label, limit_s=limit_s, on_limit=on_limit)


def _error_fields(err: BaseException) -> dict:
    return dict(
        error=f"{type(err).__name__}: {err}"[:2000], traceback=traceback.format_exc()[-3000:]
    )


def time_label(log: EventLog, peer, label: str, opts: dict, limit_s: float) -> tuple[dict, object]:
    """Times one solver on the loaded case.

    One warm-up call (if the peer has a real warm-up), then up to
    ``repeats`` timed calls, fewer once ``budget`` seconds of timed calls
    are spent or the run's deadline passed (at least one).

    Args:
        log: the worker's event log (announces each stage and its limit).
        peer: the group's peer, with the case loaded.
        label: the solver label.
        opts: the run's options (repeats, budget, max_seconds_per_run, deadline_abs).
        limit_s: seconds one timed call may take before the parent kills the worker.

    Returns:
        (result fields: status, times_s, median_s, ...; the last output or None).
    """
    call = peer.call(label)
    res: dict = {}
    out = None
    max_run = opts["max_seconds_per_run"]
    if peer.real_warmup:
        log.stage("warm-up", max_run + WARMUP_GRACE_S, "too-slow", label)
        t0 = time.perf_counter()
        out = call()
        res["warmup_s"] = time.perf_counter() - t0
        if res["warmup_s"] > max_run:
            res.update(
                status="too-slow",
                note=f"warm-up (compile + one call) took {res['warmup_s']:.1f} s "
                f"> max-seconds-per-run {max_run:g}; no timed calls",
            )
            return res, out
    times: list[float] = []
    while len(times) < opts["repeats"]:
        if times and time.time() > opts["deadline_abs"]:
            res["note"] = "run deadline reached during the repeats"
            break
        log.stage("call", limit_s, "timeout", label)
        t0 = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - t0)
        if sum(times) >= opts["budget"]:
            break
    res.update(
        status="ok",
        times_s=times,
        n_runs=len(times),
        median_s=float(np.median(times)),
        min_s=float(np.min(times)),
    )
    if len(times) < opts["repeats"] and "note" not in res:
        res["note"] = f"{len(times)} call(s): the budget of {opts['budget']:g} s was spent"
    return res, out


class SolverWorker:
    """Runs the labels of one group on one case at a time; keeps the case's
    inputs loaded until a task names another case."""

    def __init__(self, family, group: str, opts: dict):
        self.family, self.group, self.opts = family, group, opts
        self.peer = family.peer(group, opts)
        self.case_name: str | None = None
        self.data = None

    def setup(self) -> dict:
        self.peer.setup()
        if not self.peer.real_warmup:
            self.peer.tiny_warmup()  # nothing to compile: warm caches on a tiny input
        return self.peer.info

    def handle(self, log: EventLog, task: dict) -> None:
        case = task["case"]
        if self.case_name != case["name"]:
            self.peer.unload()
            self.data = self.case_name = None
            log.stage("load", self.opts["case_timeout"], "timeout")
            self.data = self.family.load(case, task["prepared"], self.opts)
            self.peer.load(self.data)
            self.case_name = case["name"]
        for label in task["labels"]:
            res: dict = dict(solver=label, case=case["name"])
            log.emit("start", label=label)
            try:
                limit = self.family.call_limit(label, self.opts)
                fields, out = time_label(log, self.peer, label, self.opts, limit)
                res.update(fields)
                if out is not None:  # summarizing the answer is not a timed call
                    log.stage("answer", self.opts["case_timeout"], "timeout", label)
                    res.update(self.peer.answer(label, out, self.data))
            except Exception as err:
                res.update(status="error", **_error_fields(err))
            log.emit("result", result=res)
        log.emit("task_done", task=task["task"])


class PrepWorker:
    """Runs ``Family.prepare`` (generation, caches, reference answers)."""

    def __init__(self, family, opts: dict):
        self.family, self.opts = family, opts

    def setup(self) -> dict:
        return {}

    def handle(self, log: EventLog, task: dict) -> None:
        log.stage("prepare", self.opts["prep_timeout"], "timeout")
        t0 = time.perf_counter()
        prepared = self.family.prepare(task["case"], self.opts)
        prepared.setdefault("prep_s", time.perf_counter() - t0)
        log.emit("prepared", task=task["task"], prepared=prepared)


def worker_main(spec_path: str, events_path: str, group: str) -> int:
    """The child's entry point: set up, then serve tasks until stdin closes."""
    spec = json.loads(Path(spec_path).read_text())
    log = EventLog(events_path)
    family = get_family(spec["family"])
    opts = spec["options"]
    try:
        w = PrepWorker(family, opts) if group == PREP else SolverWorker(family, group, opts)
        log.emit("ready", info=w.setup())
    except Exception as err:
        log.emit("setup_error", **_error_fields(err))
        return 0
    for line in sys.stdin:
        if not line.strip():
            continue
        task = json.loads(line)
        try:
            w.handle(log, task)
        except Exception as err:
            log.emit("task_error", task=task.get("task"), **_error_fields(err))
    return 0


# --------------------------------------------------------------------------
# Parent side
# --------------------------------------------------------------------------


class WorkerProcess:
    """The parent's handle on one group's worker; restarts it on demand."""

    def __init__(self, group: str, env: dict, spec_path: Path, workdir: Path):
        self.group, self.env, self.spec_path, self.workdir = group, env, spec_path, workdir
        self.proc: subprocess.Popen | None = None
        self.n_started = 0
        self.info: dict = {}
        #: The failed setup's event: kept, so that a group whose library does
        #: not import is not restarted for every case.
        self.setup_error: dict | None = None

    def start(self) -> None:
        from benchmarks import ROOT

        self.n_started += 1
        tag = f"{self.group.replace('/', '_')}_{self.n_started}"
        self.events_path = self.workdir / f"events_{tag}.jsonl"
        self.log_path = self.workdir / f"log_{tag}.txt"
        self.events_path.touch()
        self.pos = 0
        with open(self.log_path, "w") as logf:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "benchmarks.worker",
                    str(self.spec_path),
                    str(self.events_path),
                    self.group,
                ],
                stdin=subprocess.PIPE,
                stdout=logf,
                stderr=subprocess.STDOUT,
                env=self.env,
                start_new_session=True,  # its own process group: killed as one
                cwd=str(ROOT),
                text=True,
            )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send(self, task: dict) -> None:
        """Sends a task, starting a fresh worker if there is none alive."""
        for _ in range(2):
            if not self.alive():
                self.kill()
                self.start()
            try:
                self.proc.stdin.write(json.dumps(task) + "\n")
                self.proc.stdin.flush()
                return
            except (BrokenPipeError, OSError):
                continue
        raise RuntimeError(f"cannot send a task to the {self.group} worker")

    def events(self) -> list[dict]:
        """Complete event lines written since the last call."""
        if self.proc is None:
            return []
        with open(self.events_path) as fh:
            fh.seek(self.pos)
            data = fh.read()
        cut = data.rfind("\n") + 1
        self.pos += len(data[:cut].encode())
        out = []
        for line in data[:cut].splitlines():
            try:
                ev = json.loads(line)
            except json.JSONDecodeError:
                continue
            if ev["event"] == "ready":
                self.info = ev.get("info") or {}
            elif ev["event"] == "setup_error":
                self.setup_error = ev
            out.append(ev)
        return out

    def log_tail(self, n: int = 1500) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-n:]
        except (OSError, AttributeError):
            return ""

    def kill(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def quit(self) -> None:
        """Closes stdin (the worker's loop ends), then makes sure it is gone."""
        if self.alive():
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()


if __name__ == "__main__":
    sys.exit(worker_main(*sys.argv[1:4]))
