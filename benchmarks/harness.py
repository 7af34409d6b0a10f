"""The benchmark harness: the parent that drives a family's workers.

Families and their peers (``benchmarks.family``) say what to run. The
parent (``Runner``) goes case by case: it has the case prepared, skips
solvers predicted to exceed the per-call limit, sends the rest to their
group's worker, enforces each stage's time limit by killing the worker
(a fresh one continues with what is left), checks the answers, and keeps a
JSON document of everything up to date.
"""

from __future__ import annotations

import datetime
import fnmatch
import importlib
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.family import Family
from benchmarks.report import fmt_time
from benchmarks.worker import PREP, WorkerProcess


def select(patterns: str | None, names: list[str], groups: dict[str, str], what: str) -> list[str]:
    """The names a ``--solvers`` / ``--cases`` option selects.

    Args:
        patterns: comma-separated names, group names or shell patterns; None
            or empty selects every name.
        names: the candidates, in the order to keep.
        groups: name -> its group name (a group name selects its members).
        what: the option's name, for the error message.

    Returns:
        The selected names in ``names`` order.

    Raises:
        SystemExit: a pattern matches nothing.
    """
    if not patterns:
        return list(names)
    chosen: set[str] = set()
    for pat in filter(None, (s.strip() for s in patterns.split(","))):
        hit = [n for n in names if groups.get(n) == pat or fnmatch.fnmatchcase(n, pat)]
        if not hit:
            raise SystemExit(f"--{what}: {pat!r} matches nothing; known: {', '.join(names)}")
        chosen.update(hit)
    return [n for n in names if n in chosen]


def environment() -> dict:
    """Python, platform, package versions, XLA flags, and the GPU and CPU."""
    env = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "XLA_FLAGS": os.environ.get("XLA_FLAGS", ""),
        "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", ""),
    }
    for mod in ("numpy", "scipy", "jax", "jaxlib", "jaxmatch"):
        try:
            env[mod] = importlib.import_module(mod).__version__
        except Exception:
            pass
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        )
        if out.returncode == 0:
            env["gpu"] = out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        with open("/proc/cpuinfo") as f:
            env["cpu"] = next(
                ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")
            )
    except (OSError, StopIteration):
        pass
    return env


def log_result(r: dict) -> None:
    """One progress line per result."""
    msg = f"  {r['solver']:36s} {r.get('status', '?'):9s}"
    if r.get("status") == "ok":
        msg += f" median {fmt_time(r['median_s'])} ({r['n_runs']} calls"
        if r.get("warmup_s") is not None:
            msg += f", warm-up {fmt_time(r['warmup_s'])}"
        msg += ")"
    for key in ("note", "error"):
        if r.get(key):
            msg += f"  [{r[key].splitlines()[0][:300]}]"
    print(msg, flush=True)


class Runner:
    """Drives the workers over the cases; the results end in ``self.results``."""

    def __init__(self, family: Family, opts: dict, labels: list[str], cases: list[dict], workdir):
        self.family, self.opts, self.labels, self.cases = family, opts, labels, cases
        self.workdir = Path(workdir)
        self.spec_path = self.workdir / "spec.json"
        self.spec_path.write_text(json.dumps(dict(family=family.name, options=opts)))
        self.workers: dict[str, WorkerProcess] = {}
        self.results: dict[tuple[str, str], dict] = {}  # (case, label) -> result
        self.prepared: dict[str, dict] = {}
        self.history: dict[str, list[tuple[dict, dict]]] = {}
        self.task_id = 0

    def worker(self, group: str) -> WorkerProcess:
        if group not in self.workers:
            env = dict(os.environ)
            env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
            # Several GPU workers live side by side: none may take 75 % of memory.
            env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
            if self.opts.get("cpu") or group == PREP:
                env["JAX_PLATFORMS"] = "cpu"
            env.update(self.family.group_env(group, self.opts))
            self.workers[group] = WorkerProcess(group, env, self.spec_path, self.workdir)
        return self.workers[group]

    def next_id(self) -> int:
        self.task_id += 1
        return self.task_id

    def record(self, case: dict, r: dict) -> None:
        self.results[(case["name"], r["solver"])] = r
        self.history.setdefault(r["solver"], []).append((case, r))
        log_result(r)

    def fail(self, case: dict, labels: list[str], status: str, why: str) -> None:
        for label in labels:
            key = "note" if status in ("deadline", "skipped") else "error"
            self.record(case, {"solver": label, "case": case["name"], "status": status, key: why})

    # -- preparation (prep worker)
    def submit_prep(self, case: dict) -> None:
        if "_prep_task" not in case:
            case["_prep_task"] = self.next_id()
            self.worker(PREP).send(dict(task=case["_prep_task"], case=_public(case)))

    def wait_prep(self, case: dict) -> dict | str:
        """The case's prepared dict, or why there is none."""
        w = self.worker(PREP)
        self.submit_prep(case)
        stage_t, limit = time.time(), self.opts["prep_timeout"]
        while True:
            for ev in w.events():
                if ev["event"] == "stage":
                    stage_t, limit = time.time(), ev["limit_s"]
                elif ev["event"] == "prepared" and ev["task"] == case["_prep_task"]:
                    return ev["prepared"]
                elif ev["event"] == "task_error" and ev["task"] == case["_prep_task"]:
                    return f"preparation failed: {ev['error']}"
                elif ev["event"] == "setup_error":
                    return f"prep worker setup failed: {ev['error']}"
            if not w.alive():
                return f"prep worker died (code {w.proc.returncode}): {w.log_tail(600)}"
            if time.time() > self.opts["deadline_abs"]:
                w.kill()
                return "deadline"
            if time.time() - stage_t > limit:
                w.kill()
                return f"preparation ran past its limit of {limit:g} s"
            time.sleep(0.05)

    # -- solvers (one group's worker)
    def run_group(self, group: str, case: dict, labels: list[str]) -> None:
        w = self.worker(group)
        if w.setup_error:
            return self.fail(case, labels, "error", f"worker setup: {w.setup_error['error']}")
        remaining = list(labels)
        while remaining:
            if time.time() > self.opts["deadline_abs"]:
                return self.fail(case, remaining, "deadline", "the run's deadline came first")
            tid = self.next_id()
            w.send(
                dict(
                    task=tid,
                    case=_public(case),
                    prepared=self.prepared[case["name"]],
                    labels=remaining,
                )
            )
            current, stage, stage_t, limit, on_limit = None, "start", time.time(), None, "timeout"
            killed, exited = None, False
            while not killed:
                done = False
                for ev in w.events():
                    e = ev["event"]
                    if e == "start":
                        current = ev["label"]
                    elif e == "stage":
                        stage, stage_t = ev["stage"], time.time()
                        limit, on_limit = ev["limit_s"], ev["on_limit"]
                    elif e == "result":
                        self.record(case, ev["result"])
                        remaining.remove(ev["result"]["solver"])
                        current, limit = None, None
                    elif e in ("task_done", "task_error") and ev.get("task") == tid:
                        if remaining:
                            self.fail(case, remaining, "error", ev.get("error", "no result"))
                            remaining = []
                        done = True
                    elif e == "setup_error":
                        self.fail(case, remaining, "error", f"worker setup: {ev['error']}")
                        return
                if done:
                    break
                now = time.time()
                if not w.alive() and not exited:
                    exited = True  # read what it wrote before it exited, then decide
                elif exited:
                    killed = ("error", f"worker exited with code {w.proc.returncode} in {stage}")
                elif limit is not None and now - stage_t > limit:
                    killed = (on_limit, f"{stage} ran past its limit of {limit:g} s")
                elif now > self.opts["deadline_abs"]:
                    killed = ("deadline", f"the run's deadline came during {stage}")
                else:
                    time.sleep(0.02)
            if killed and remaining:
                w.kill()
                status, why = killed
                victim = current if current in remaining else remaining[0]
                r = dict(
                    solver=victim, case=case["name"], status=status, worker_log_tail=w.log_tail()
                )
                if status == "too-slow":
                    r.update(warmup_s=time.time() - stage_t, note=f"worker killed: {why}")
                else:
                    r["error"] = f"worker killed: {why}" if status != "error" else why
                self.record(case, r)
                remaining.remove(victim)
                if current is None:  # died loading the case: no label would get further
                    self.fail(case, remaining, status, r.get("error") or r["note"])
                    return

    def run_case(self, case: dict, next_case: dict | None) -> None:
        print(f"[{case['name']}]", flush=True)
        if time.time() > self.opts["deadline_abs"]:
            return self.fail(case, self.labels, "deadline", "the run's deadline came first")
        prepared = self.wait_prep(case)
        if isinstance(prepared, str):
            status = "deadline" if prepared == "deadline" else "error"
            case["error"] = prepared
            return self.fail(case, self.labels, status, prepared)
        self.prepared[case["name"]] = case["_prepared"] = prepared
        if next_case is not None and self.opts["prefetch"]:
            self.submit_prep(next_case)
        by_group: dict[str, list[str]] = {}
        for label in self.labels:
            why = self.family.skip_reason(label, case, self.history.get(label, []), self.opts)
            if why:
                self.record(case, dict(solver=label, case=case["name"], status="skipped", note=why))
            else:
                by_group.setdefault(self.family.solvers[label]["group"], []).append(label)
        for group, labels in by_group.items():
            self.run_group(group, case, labels)
        rows = [r for (c, _), r in self.results.items() if c == case["name"]]
        self.family.check(case, prepared, rows)

    def run(self, on_case_done) -> None:
        try:
            for i, case in enumerate(self.cases):
                nxt = self.cases[i + 1] if i + 1 < len(self.cases) else None
                self.run_case(case, nxt)
                on_case_done()
        finally:
            for w in self.workers.values():
                w.quit()


def _public(case: dict) -> dict:
    return {k: v for k, v in case.items() if not k.startswith("_")}


def run(family: Family, opts: dict, labels: list[str], cases: list[dict], out: Path | None):
    """Runs a benchmark.

    Args:
        family: the family whose cases and peers run.
        opts: harness and family options, defaults filled (``__main__.resolve``).
        labels: the solver labels to run, in column order.
        cases: the cases to run, in order (sizes ascending: the skips
            extrapolate from smaller cases).
        out: where to keep the JSON document (rewritten after every case), or None.

    Returns:
        The JSON document: options, environment, worker info, cases with
        what their preparation returned, and one result per (case, solver).
    """
    import tempfile

    t_start = time.time()
    env = environment()
    opts = dict(opts, deadline_abs=t_start + (opts.get("deadline") or 10 * 24 * 3600))

    def document(runner: Runner, partial: bool) -> dict:
        return dict(
            family=family.name,
            tag=opts.get("tag", ""),
            partial=partial,
            created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            command=" ".join(["python -m benchmarks", *map(shlex.quote, sys.argv[1:])]),
            options={k: v for k, v in opts.items() if k != "deadline_abs"},
            environment=env,
            worker_info={
                g: w.info or ({"setup_error": w.setup_error["error"]} if w.setup_error else {})
                for g, w in runner.workers.items()
            },
            solvers=labels,
            cases=[dict(_public(c), prepared=runner.prepared.get(c["name"])) for c in cases],
            results=list(runner.results.values()),
            wall_s=time.time() - t_start,
        )

    with tempfile.TemporaryDirectory(prefix=f"bench_{family.name}_") as td:
        runner = Runner(family, opts, labels, cases, td)

        def save_partial() -> None:
            if out:
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_text(json.dumps(document(runner, True), indent=1))

        runner.run(save_partial)
        doc = document(runner, False)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(doc, indent=1))
        print(f"wrote {out}", flush=True)
    return doc
