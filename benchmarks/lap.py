#!/usr/bin/env python3
"""Side-by-side LAP benchmark: jaxmatch against scipy, lap.lapjv,
torch-linear-assignment, torch-lap-cuda (HyLAC) and optax.

Every (solver, case) is timed in a worker subprocess (one per solver), so a
crash, a hang or a GPU-memory-hungry framework cannot take the others down:
the parent kills a worker that runs past its case timeout or the run's
deadline, records that, and starts a fresh worker for the remaining cases.

    python3 benchmarks/lap.py --peers --tag plain --out /tmp/lap_plain.json
    XLA_FLAGS="--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL,WHILE,CONDITIONAL \
      --xla_gpu_graph_min_graph_size=1" \
      python3 benchmarks/lap.py --tag cmdbuf --out /tmp/lap_cmdbuf.json
    JAX_PLATFORMS=cpu python3 benchmarks/lap.py --cpu --peers --out /tmp/lap_cpu.json
    python3 benchmarks/report.py /tmp/lap_plain.json /tmp/lap_cmdbuf.json

Timing: inputs are generated with numpy (fixed seeds, identical for every
solver) and moved to the solver's device before timing. One warm-up run (for
jitted / Triton solvers it includes compilation; CPU solvers, which compile
nothing, warm up on a tiny matrix instead), then up to ``--repeats`` timed runs,
stopping early once ``--budget`` seconds of timed runs are spent (at least one
timed run). Each run is wall-clock time of the call plus device
synchronization (``block_until_ready`` / ``torch.cuda.synchronize``). A solver
is skipped for a case when a single run is predicted (from its largest case so
far, if its n is at least a quarter of this one; scaling as n^2.5 and, for
CPU loops, linearly in the batch) to exceed
``--max-seconds-per-run``; a warm-up that itself exceeds that bound ends the
case with status ``too-slow`` and the warm-up time (the parent kills a
warm-up still running 1 s past the bound, so a hopeless case costs no more).

Checking: every solver's assignment must be a permutation; its objective,
recomputed in float64 from the original matrix, is compared with scipy's
(relative tolerance 1e-6 for float costs, exact for integer costs). The result
is stored per (solver, case) and shown in the table; mismatches are never
dropped.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# This file is named lap.py: keep its folder off sys.path so that `import lap`
# finds the lap package (lap.lapjv), not this script.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
# An installed jaxmatch (PYTHONPATH) wins; otherwise the source checkout.
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

import numpy as np  # noqa: E402

# --------------------------------------------------------------------------
# Cases and solvers
# --------------------------------------------------------------------------

BASE_SEED = 20240611

# (batch, n, dist): dist "f32" = U[0,1) float32, "int" = integers in [0, n].
GPU_CASES = [
    (1024, 32, "f32"),
    (256, 128, "f32"),
    (128, 256, "f32"),
    (16, 1024, "f32"),
    (1, 2000, "int"),
    (1, 5000, "int"),
    (1, 5000, "f32"),
]
CPU_CASES = [
    (64, 32, "f32"),
    (16, 128, "f32"),
    (4, 256, "f32"),
    (1, 1000, "int"),
    (1, 2000, "int"),
]

JAXMATCH_VARIANTS = [
    ("tree", "fused"),
    ("tree", "stepped"),
    ("classical", "fused"),
    ("classical", "stepped"),
]

# name -> spec. "cpu_loop": a Python loop over the batch on the host (the
# batch scales the predicted time linearly). "gpu_only": needs CUDA (torch).
SOLVERS: dict[str, dict] = {}
for _m, _e in JAXMATCH_VARIANTS:
    SOLVERS[f"jaxmatch/{_m}/{_e}"] = dict(kind="jaxmatch", method=_m, execution=_e,
                                          family="jaxmatch")
SOLVERS["scipy"] = dict(kind="scipy", cpu_loop=True, family="peer")
SOLVERS["lap.lapjv"] = dict(kind="lapjv", cpu_loop=True, family="peer")
SOLVERS["torch-linear-assignment"] = dict(kind="tla", gpu_only=True, family="peer")
# HyLAC block LAP: measured > 400 s at 2000x2000, so not above --tlc-max-n.
SOLVERS["torch-lap-cuda"] = dict(kind="tlc", gpu_only=True, family="peer")
SOLVERS["optax"] = dict(kind="optax", family="peer")

PEERS = [k for k, v in SOLVERS.items() if v["family"] == "peer"]
JAXMATCH = [k for k, v in SOLVERS.items() if v["family"] == "jaxmatch"]


def case_name(batch: int, n: int, dist: str) -> str:
    return f"{batch}x{n}x{n}-{dist}"


def case_list(cpu: bool) -> list[dict]:
    out = []
    for i, (b, n, d) in enumerate(CPU_CASES if cpu else GPU_CASES):
        out.append(dict(name=case_name(b, n, d), batch=b, n=n, dist=d,
                        seed=BASE_SEED + 1000 * i + n + (7 if d == "int" else 0)))
    return out


def make_costs(case: dict) -> np.ndarray:
    """The case's matrices [batch, n, n]: same seed, same data for every solver."""
    rng = np.random.default_rng(case["seed"])
    b, n = case["batch"], case["n"]
    if case["dist"] == "f32":
        return rng.random((b, n, n), dtype=np.float32)
    if case["dist"] == "int":
        return rng.integers(0, n, size=(b, n, n), dtype=np.int32, endpoint=True)
    raise ValueError(case["dist"])


def objectives(C: np.ndarray, cols: np.ndarray) -> tuple[list[float], bool]:
    """Per-problem float64 objective of col_for_row ``cols`` and whether every
    row of ``cols`` is a permutation."""
    b, n, _ = C.shape
    cols = np.asarray(cols).reshape(b, n).astype(np.int64)
    valid = bool(((cols >= 0) & (cols < n)).all())
    if valid:
        valid = all(np.unique(cols[i]).size == n for i in range(b))
    safe = np.clip(cols, 0, n - 1)
    obj = np.take_along_axis(C, safe[:, :, None], axis=2)[:, :, 0].astype(np.float64).sum(1)
    return [float(x) for x in obj], valid


# --------------------------------------------------------------------------
# Solver adapters (run inside the worker)
# --------------------------------------------------------------------------


class Adapter:
    """setup() imports; prepare(C) moves inputs; run(h) solves + syncs;
    cols(out) -> np [B, n] col_for_row."""

    real_warmup = True  # False: warm up on a tiny matrix (no compile to amortize)

    def __init__(self, spec: dict, mode: str):
        self.spec, self.mode = spec, mode
        self.info: dict = {}

    def setup(self) -> None: ...
    def prepare(self, C: np.ndarray): return C
    def run(self, h): raise NotImplementedError
    def cols(self, out) -> np.ndarray: return np.asarray(out)
    def extra(self, out) -> dict: return {}
    def release(self) -> None: ...


class ScipyAdapter(Adapter):
    real_warmup = False

    def setup(self):
        import scipy
        from scipy.optimize import linear_sum_assignment
        self.lsa = linear_sum_assignment
        self.info = {"version": scipy.__version__}

    def prepare(self, C):
        return [np.ascontiguousarray(C[i]) for i in range(C.shape[0])]

    def run(self, h):
        return np.stack([self.lsa(c)[1] for c in h])


class LapjvAdapter(Adapter):
    real_warmup = False

    def setup(self):
        import lap
        self.lap = lap
        self.info = {"version": getattr(lap, "__version__", "?"), "file": lap.__file__}

    def prepare(self, C):
        # lapjv needs float64 (C-contiguous); converted outside the timed region.
        return [np.ascontiguousarray(C[i], dtype=np.float64) for i in range(C.shape[0])]

    def run(self, h):
        return np.stack([self.lap.lapjv(c, extend_cost=False, return_cost=False)[0] for c in h])


class _TorchAdapter(Adapter):
    def _torch_setup(self):
        import torch
        if not torch.cuda.is_available():
            raise RuntimeError("torch sees no CUDA device")
        self.torch = torch
        self.info.update(torch=torch.__version__, device=torch.cuda.get_device_name(0))

    def prepare(self, C):
        t = self.torch.from_numpy(C).cuda()
        self.torch.cuda.synchronize()
        return t

    def cols(self, out):
        return out.cpu().numpy()

    def release(self):
        self.torch.cuda.empty_cache()


class TlaAdapter(_TorchAdapter):
    def setup(self):
        self._torch_setup()
        import torch_linear_assignment as tla
        from torch_linear_assignment import assignment as tla_assignment
        self.f = tla.batch_linear_assignment
        probe = self.torch.rand(1, 4, 4, device="cuda")
        if not tla_assignment._cuda_uses_triton(probe):
            raise RuntimeError("torch-linear-assignment would use its SciPy CPU fallback "
                               "(Triton backend unavailable): not timing a GPU path")
        self.info.update(version=getattr(tla, "__version__", "0.1.0"), backend="triton",
                         file=tla.__file__)

    def run(self, h):
        out = self.f(h)  # int costs are cast to float32 inside (the package's path)
        self.torch.cuda.synchronize()
        return out


class TlcAdapter(_TorchAdapter):
    def setup(self):
        self._torch_setup()
        import torch_lap_cuda
        self.f = torch_lap_cuda.solve_lap  # (B, N, N) CUDA tensor -> (B, N) int64
        self.info.update(version=getattr(torch_lap_cuda, "__version__", "?"),
                         file=torch_lap_cuda.__file__)

    def run(self, h):
        out = self.f(h)
        self.torch.cuda.synchronize()
        return out


class _JaxAdapter(Adapter):
    def _jax_setup(self):
        import jax
        self.jax = jax
        backend = jax.default_backend()
        if self.mode == "gpu" and backend not in ("gpu", "cuda"):
            raise RuntimeError(f"JAX backend is {backend!r}, not the GPU: not timing it "
                               "(use --cpu for the CPU comparison)")
        self.info.update(jax=jax.__version__, backend=backend,
                         device=str(jax.devices()[0].device_kind))

    def prepare(self, C):
        x = self.jax.device_put(C)
        x.block_until_ready()
        return x


class OptaxAdapter(_JaxAdapter):
    def setup(self):
        self._jax_setup()
        import optax
        self.info["version"] = optax.__version__
        self.f = self.jax.jit(self.jax.vmap(optax.assignment.hungarian_algorithm))

    def run(self, h):
        return self.jax.block_until_ready(self.f(h))

    def cols(self, out):
        i, j = (np.asarray(a) for a in out)
        cols = np.full(i.shape, -1, dtype=np.int64)
        np.put_along_axis(cols, i, j, axis=1)
        return cols


class JaxmatchAdapter(_JaxAdapter):
    def setup(self):
        self._jax_setup()
        import jaxmatch
        m, e = self.spec["method"], self.spec["execution"]
        self.info.update(version=getattr(jaxmatch, "__version__", "?"),
                         file=jaxmatch.__file__, method=m, execution=e)
        try:
            from jaxmatch import _lib
            self.info["cuda_library"] = bool(_lib.has_cuda())
        except Exception as err:  # noqa: BLE001
            self.info["cuda_library"] = f"unknown ({err})"
        self.f = self.jax.jit(lambda C: jaxmatch.solve_lap(C, method=m, execution=e))

    def run(self, h):
        return self.jax.block_until_ready(self.f(h))

    def cols(self, out):
        return np.asarray(out.col_for_row)

    def extra(self, out):
        d = {"all_feasible": bool(np.asarray(out.feasible).all())}
        try:
            d["max_n_iters"] = int(np.asarray(out.n_iters).max())
            st = np.asarray(out.status)
            d["status_counts"] = {str(int(k)): int(v) for k, v in zip(*np.unique(st, return_counts=True))}
        except Exception:  # noqa: BLE001
            pass
        return d


ADAPTERS = {"scipy": ScipyAdapter, "lapjv": LapjvAdapter, "tla": TlaAdapter,
            "tlc": TlcAdapter, "optax": OptaxAdapter, "jaxmatch": JaxmatchAdapter}


# --------------------------------------------------------------------------
# Worker: one solver, the remaining cases, JSON lines to a file
# --------------------------------------------------------------------------


def _emit(fh, obj: dict) -> None:
    fh.write(json.dumps(obj) + "\n")
    fh.flush()
    os.fsync(fh.fileno())


def predicted_seconds(last: dict | None, case: dict, cpu_loop: bool) -> float | None:
    if not last or case["n"] > 4 * last["n"]:
        return None  # too far to extrapolate (small cases are overhead-bound)
    t = last["t"] * (case["n"] / last["n"]) ** 2.5
    if cpu_loop:
        t *= case["batch"] / last["batch"]
    return t


def worker_main(args) -> int:
    spec_all = json.loads(Path(args.spec).read_text())
    solver = args.worker
    spec = SOLVERS[solver]
    cases = [c for c in spec_all["cases"] if c["name"] in set(args.worker_cases.split(","))]
    opts = spec_all["options"]
    deadline = opts["deadline_abs"]
    last = spec_all.get("last", {}).get(solver)  # carried over from a killed worker
    with open(args.results, "a") as fh:
        adapter = ADAPTERS[spec["kind"]](spec, opts["mode"])
        try:
            adapter.setup()
        except Exception as err:  # noqa: BLE001
            msg = f"{type(err).__name__}: {err}"
            for c in cases:
                _emit(fh, dict(event="result", solver=solver, case=c["name"], status="error",
                               error=f"setup/import failed: {msg}",
                               traceback=traceback.format_exc()[-2000:]))
            return 0
        _emit(fh, dict(event="info", solver=solver, info=adapter.info))

        for c in cases:
            res = dict(event="result", solver=solver, case=c["name"], n=c["n"], batch=c["batch"])
            _emit(fh, dict(event="start", solver=solver, case=c["name"], t=time.time()))
            if time.time() > deadline:
                _emit(fh, {**res, "status": "deadline", "note": "run deadline reached"})
                continue
            max_n = opts.get("max_n", {}).get(solver)
            if max_n is not None and c["n"] > max_n:
                _emit(fh, {**res, "status": "skipped",
                           "note": f"n > {max_n} (one run is known to exceed the budget)"})
                continue
            pred = predicted_seconds(last, c, spec.get("cpu_loop", False))
            if pred is not None and pred > opts["max_seconds_per_run"]:
                _emit(fh, {**res, "status": "skipped", "predicted_s": pred,
                           "note": f"predicted {pred:.3g} s per run (from {last['case']}) "
                                   f"> --max-seconds-per-run {opts['max_seconds_per_run']:g}"})
                continue
            try:
                C = make_costs(c)
                h = adapter.prepare(C)
                # warm-up
                if adapter.real_warmup:
                    # The parent ends a warm-up that outruns --max-seconds-per-run
                    # (the case would be 'too-slow' anyway) instead of waiting.
                    _emit(fh, dict(event="warmup", solver=solver, case=c["name"], t=time.time()))
                    t0 = time.perf_counter()
                    out = adapter.run(h)
                    warm = time.perf_counter() - t0
                else:
                    tiny = make_costs(dict(c, batch=1, n=8, seed=c["seed"] + 1))
                    th = adapter.prepare(tiny)
                    t0 = time.perf_counter()
                    adapter.run(th)
                    warm = time.perf_counter() - t0
                    out = None
                res["warmup_s"] = warm
                res["warmup_is_real"] = adapter.real_warmup
                times: list[float] = []
                if adapter.real_warmup and warm > opts["max_seconds_per_run"]:
                    res["status"] = "too-slow"
                    res["note"] = (f"warm-up (incl. compile) took {warm:.1f} s "
                                   f"> --max-seconds-per-run; no timed runs")
                    last = dict(t=warm, n=c["n"], batch=c["batch"], case=c["name"])
                else:
                    while len(times) < opts["repeats"]:
                        if times and time.time() > deadline:
                            res["note"] = "run deadline reached during repeats"
                            break
                        t0 = time.perf_counter()
                        out = adapter.run(h)
                        times.append(time.perf_counter() - t0)
                        if sum(times) >= opts["budget"]:
                            break
                    res["status"] = "ok"
                    res["times_s"] = times
                    res["n_runs"] = len(times)
                    res["median_s"] = float(np.median(times))
                    res["min_s"] = float(np.min(times))
                    if len(times) < opts["repeats"] and "note" not in res:
                        res["note"] = f"{len(times)} run(s): --budget {opts['budget']:g} s spent"
                    last = dict(t=res["median_s"], n=c["n"], batch=c["batch"], case=c["name"])
                if out is not None:
                    cols = adapter.cols(out)
                    res["objs"], res["valid"] = objectives(C, cols)
                    res.update(adapter.extra(out))
                _emit(fh, res)
            except Exception as err:  # noqa: BLE001
                _emit(fh, {**res, "status": "error", "error": f"{type(err).__name__}: {err}"[:2000],
                           "traceback": traceback.format_exc()[-3000:]})
            finally:
                out = h = C = None  # noqa: F841
                try:
                    adapter.release()
                except Exception:  # noqa: BLE001
                    pass
    return 0


# --------------------------------------------------------------------------
# Parent: drive the workers, check, write JSON, print the table
# --------------------------------------------------------------------------


# A real warm-up (compile + one run) running this much past --max-seconds-per-run
# is ended by the parent and recorded as 'too-slow'.
WARMUP_GRACE_S = 1.0


def _read_events(path: Path, pos: int) -> tuple[list[dict], int]:
    if not path.exists():
        return [], pos
    with open(path) as fh:
        fh.seek(pos)
        data = fh.read()
    # Only complete lines.
    cut = data.rfind("\n") + 1
    events = []
    for line in data[:cut].splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return events, pos + len(data[:cut].encode())


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def run_solver(solver: str, cases: list[dict], spec: dict, workdir: Path, opts: dict,
               log) -> tuple[dict, dict]:
    """Runs one solver's worker(s) over ``cases``; returns (results by case, info)."""
    results: dict[str, dict] = {}
    info: dict = {}
    remaining = [c["name"] for c in cases]
    by_name = {c["name"]: c for c in cases}
    attempt = 0
    last: dict | None = None
    while remaining:
        attempt += 1
        if time.time() > opts["deadline_abs"]:
            for name in remaining:
                results[name] = dict(solver=solver, case=name, status="deadline",
                                     note="run deadline reached before this case")
            break
        spec_i = dict(spec, last={solver: last} if last else {})
        spec_path = workdir / f"spec_{abs(hash(solver))}_{attempt}.json"
        spec_path.write_text(json.dumps(spec_i))
        res_path = workdir / f"res_{abs(hash(solver))}_{attempt}.jsonl"
        err_path = workdir / f"err_{abs(hash(solver))}_{attempt}.log"
        env = dict(os.environ)
        if opts["mode"] == "cpu":
            env["JAX_PLATFORMS"] = "cpu"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", solver,
               "--spec", str(spec_path), "--results", str(res_path),
               "--worker-cases", ",".join(remaining)]
        with open(err_path, "w") as errf:
            proc = subprocess.Popen(cmd, stdout=errf, stderr=subprocess.STDOUT, env=env,
                                    start_new_session=True, cwd=str(ROOT))
        pos, current, started = 0, None, time.time()
        warm_since = None  # parent clock when the current case's real warm-up began
        killed_reason = None
        while True:
            events, pos = _read_events(res_path, pos)
            for ev in events:
                if ev["event"] == "start":
                    current, started = ev["case"], time.time()
                    warm_since = None
                elif ev["event"] == "warmup":
                    warm_since = time.time()
                elif ev["event"] == "info":
                    info = ev["info"]
                elif ev["event"] == "result":
                    ev.pop("event")
                    results[ev["case"]] = ev
                    if ev["case"] in remaining:
                        remaining.remove(ev["case"])
                    if ev.get("status") in ("ok", "too-slow"):
                        t = ev.get("median_s") or ev.get("warmup_s")
                        last = dict(t=t, n=ev["n"], batch=ev["batch"], case=ev["case"])
                    _log_result(log, ev)
                    current = warm_since = None
            if proc.poll() is not None:
                events, pos = _read_events(res_path, pos)
                for ev in events:  # late lines
                    if ev["event"] == "result":
                        ev.pop("event")
                        results[ev["case"]] = ev
                        if ev["case"] in remaining:
                            remaining.remove(ev["case"])
                        _log_result(log, ev)
                        current = None
                break
            now = time.time()
            if current and warm_since is not None and \
                    now - warm_since > opts["max_seconds_per_run"] + WARMUP_GRACE_S:
                killed_reason = "warm-up too slow"
            elif current and now - started > opts["case_timeout"]:
                killed_reason = f"case timeout ({opts['case_timeout']:.0f} s) exceeded"
            elif now > opts["deadline_abs"]:
                killed_reason = "run deadline reached"
            if killed_reason:
                _kill(proc)
                break
            time.sleep(0.2)

        if not remaining:
            break
        tail = ""
        try:
            tail = err_path.read_text()[-1500:]
        except OSError:
            pass
        victim = current or remaining[0]
        if killed_reason == "warm-up too slow":
            # What the worker would have recorded had the warm-up finished: the
            # warm-up time (here a lower bound) says what larger cases can skip.
            waited = time.time() - warm_since
            results[victim] = dict(
                solver=solver, case=victim, status="too-slow", warmup_s=waited,
                warmup_is_real=True, warmup_killed=True,
                note=(f"warm-up (incl. compile) still running after {waited:.1f} s "
                      f"> --max-seconds-per-run {opts['max_seconds_per_run']:g}; worker killed, "
                      "no timed runs"),
                n=by_name[victim]["n"], batch=by_name[victim]["batch"])
            _log_result(log, results[victim])
            remaining.remove(victim)
            last = dict(t=waited, n=by_name[victim]["n"], batch=by_name[victim]["batch"],
                        case=victim)
            continue
        if killed_reason:
            status = "timeout" if "case timeout" in killed_reason else "deadline"
            note = f"worker killed: {killed_reason}"
        else:
            status, note = "error", f"worker exited with code {proc.returncode} during this case"
        results[victim] = dict(solver=solver, case=victim, status=status,
                               error=note, worker_log_tail=tail,
                               n=by_name[victim]["n"], batch=by_name[victim]["batch"])
        _log_result(log, results[victim])
        remaining.remove(victim)
        if status == "timeout":
            # Larger cases would be slower still.
            nv = by_name[victim]["n"]
            for name in list(remaining):
                if by_name[name]["n"] >= nv:
                    results[name] = dict(solver=solver, case=name, status="skipped",
                                         note=f"{victim} timed out; not larger cases")
                    remaining.remove(name)
            last = dict(t=opts["case_timeout"], n=nv, batch=by_name[victim]["batch"], case=victim)
    return results, info


def _load_report():
    """report.py, loaded by path (this folder is off sys.path)."""
    import importlib.util

    spec_r = importlib.util.spec_from_file_location("lapbench_report", HERE / "report.py")
    module = importlib.util.module_from_spec(spec_r)
    spec_r.loader.exec_module(module)
    return module


def _fmt_t(t: float | None) -> str:
    return _load_report()._fmt_t(t)


def _log_result(log, r: dict) -> None:
    s = r.get("status")
    msg = f"  {r.get('solver', '?'):26s} {r.get('case', '?'):18s} {s:9s}"
    if s == "ok":
        msg += f" median {_fmt_t(r.get('median_s'))} ({r.get('n_runs')} runs, warm-up {_fmt_t(r.get('warmup_s'))})"
    if r.get("note"):
        msg += f"  [{r['note']}]"
    if r.get("error"):
        msg += f"  ERROR {r['error'][:300]}"
    print(msg, file=log, flush=True)


def reference_objectives(case: dict, scipy_res: dict | None) -> tuple[list[float], str]:
    if scipy_res and scipy_res.get("status") == "ok" and scipy_res.get("valid") and scipy_res.get("objs"):
        return scipy_res["objs"], "scipy (timed run)"
    from scipy.optimize import linear_sum_assignment
    C = make_costs(case)
    objs = []
    for i in range(C.shape[0]):
        r, c = linear_sum_assignment(C[i])
        objs.append(float(C[i][r, c].astype(np.float64).sum()))
    return objs, "scipy (computed for the check)"


def check(case: dict, res: dict, ref: list[float], ref_src: str) -> dict:
    if "objs" not in res:
        return {"ok": None, "note": "no result to check"}
    objs = np.asarray(res["objs"])
    refa = np.asarray(ref)
    if not res.get("valid", False):
        return {"ok": False, "ref": ref_src, "note": "assignment is not a permutation"}
    if case["dist"] == "int":
        bad = objs != refa
        gap = np.abs(objs - refa)
        out = {"ok": not bad.any(), "rule": "exact", "n_mismatch": int(bad.sum()),
               "max_abs_gap": float(gap.max()) if gap.size else 0.0}
    else:
        rel = np.abs(objs - refa) / np.maximum(np.abs(refa), 1e-30)
        bad = rel > 1e-6
        out = {"ok": not bad.any(), "rule": "rel 1e-6", "n_mismatch": int(bad.sum()),
               "max_rel_gap": float(rel.max()) if rel.size else 0.0}
    out["ref"] = ref_src
    out["n_problems"] = int(refa.size)
    out["mean_objective"] = float(objs.mean()) if objs.size else None
    out["n_worse"] = int((objs > refa + (0 if case["dist"] == "int" else 1e-6 * np.abs(refa))).sum())
    return out


def environment() -> dict:
    env = _load_report()._common().machine_environment()
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    return env


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tag", default="plain", help="label stored in the output (e.g. plain, cmdbuf)")
    p.add_argument("--out", default=None, help="JSON output path")
    p.add_argument("--cpu", action="store_true",
                   help="CPU comparison: JAX_PLATFORMS=cpu, smaller cases, CPU peers only")
    p.add_argument("--peers", action="store_true", help="also time the peer solvers")
    p.add_argument("--solvers", default=None,
                   help="comma-separated subset of solver names (overrides --peers); "
                        "'jaxmatch' stands for all four variants")
    p.add_argument("--jaxmatch-only", action="store_true",
                   help="drop every peer from the solver list (also from --solvers): the "
                        "command-buffer run of run_gpu.sh")
    p.add_argument("--cases", default=None, help="comma-separated subset of case names")
    p.add_argument("--repeats", type=int, default=5, help="timed runs per (solver, case)")
    p.add_argument("--budget", type=float, default=None,
                   help="stop repeating once this many seconds of timed runs are spent "
                        "(default 20; 10 with --cpu)")
    p.add_argument("--max-seconds-per-run", type=float, default=None,
                   help="skip a solver where one run is predicted above this, and end "
                        "a warm-up that runs past it as too-slow (default 60; 20 with --cpu)")
    p.add_argument("--case-timeout", type=float, default=None,
                   help="kill a worker stuck in one case this long (default "
                        "2*max-seconds-per-run + budget + 60)")
    p.add_argument("--deadline", type=float, default=None,
                   help="wall-clock seconds for the whole run; what is left is marked 'deadline'")
    p.add_argument("--tlc-max-n", type=int, default=1024,
                   help="largest n for torch-lap-cuda (measured > 400 s at 2000)")
    p.add_argument("--list", action="store_true", help="list cases and solvers, then exit")
    # worker-internal
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--spec", help=argparse.SUPPRESS)
    p.add_argument("--results", help=argparse.SUPPRESS)
    p.add_argument("--worker-cases", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.worker:
        return worker_main(args)

    mode = "cpu" if args.cpu else "gpu"
    cases = case_list(args.cpu)
    if args.list:
        print("cases (--cpu):" if args.cpu else "cases:")
        for c in cases:
            print(f"  {c['name']}")
        print("solvers:", ", ".join(SOLVERS))
        return 0
    if args.cases:
        want = [s.strip() for s in args.cases.split(",") if s.strip()]
        unknown = [w for w in want if w not in {c["name"] for c in cases}]
        if unknown:
            p.error(f"unknown case(s) {unknown}; known: {[c['name'] for c in cases]}")
        cases = [c for c in cases if c["name"] in want]

    if args.solvers:
        names: list[str] = []
        for s in args.solvers.split(","):
            s = s.strip()
            if s == "jaxmatch":
                names += JAXMATCH
            elif s in SOLVERS:
                names.append(s)
            elif s:
                p.error(f"unknown solver {s!r}; known: {list(SOLVERS)} or 'jaxmatch'")
    else:
        names = JAXMATCH + (PEERS if args.peers else [])
    if args.cpu:
        dropped = [s for s in names if SOLVERS[s].get("gpu_only")]
        names = [s for s in names if not SOLVERS[s].get("gpu_only")]
        if dropped:
            print(f"--cpu: not running GPU-only solvers {dropped}")
    if args.jaxmatch_only:
        names = [s for s in names if SOLVERS[s]["family"] == "jaxmatch"]
    names = list(dict.fromkeys(names))
    if not names:
        p.error("no solver left to run")

    budget = args.budget if args.budget is not None else (10.0 if args.cpu else 20.0)
    max_run = (args.max_seconds_per_run if args.max_seconds_per_run is not None
               else (20.0 if args.cpu else 60.0))
    case_timeout = args.case_timeout or (2 * max_run + budget + 60)
    t_start = time.time()
    deadline_abs = t_start + args.deadline if args.deadline else t_start + 10 * 24 * 3600
    opts = dict(mode=mode, repeats=args.repeats, budget=budget, max_seconds_per_run=max_run,
                case_timeout=case_timeout, deadline_abs=deadline_abs,
                max_n={"torch-lap-cuda": args.tlc_max_n})
    spec = dict(cases=cases, options=opts)

    log = sys.stdout
    print(f"LAP benchmark [{args.tag}] mode={mode} solvers={names}", flush=True)
    print(f"  cases={[c['name'] for c in cases]} repeats={args.repeats} budget={budget:g}s "
          f"max/run={max_run:g}s case-timeout={case_timeout:g}s"
          + (f" deadline={args.deadline:g}s" if args.deadline else ""), flush=True)
    if os.environ.get("XLA_FLAGS"):
        print(f"  XLA_FLAGS={os.environ['XLA_FLAGS']}", flush=True)

    all_results: dict[str, dict[str, dict]] = {}
    infos: dict[str, dict] = {}
    out_path = Path(args.out) if args.out else None

    # scipy first when it is timed: its objectives are the reference.
    order = (["scipy"] if "scipy" in names else []) + [s for s in names if s != "scipy"]

    def assemble(partial: bool) -> dict:
        scipy_by_case = all_results.get("scipy", {})
        rows = []
        for c in cases:
            ref = None
            for s in order:
                r = all_results.get(s, {}).get(c["name"])
                if r is None:
                    continue
                r = dict(r)
                if r.get("status") == "ok" and "objs" in r and not partial:
                    if ref is None:
                        try:
                            ref = reference_objectives(c, scipy_by_case.get(c["name"]))
                        except Exception as err:  # noqa: BLE001
                            ref = (None, f"reference failed: {err}")
                    if ref[0] is not None:
                        r["check"] = check(c, r, *ref)
                    else:
                        r["check"] = {"ok": None, "note": ref[1]}
                r.pop("objs", None)
                r.pop("event", None)
                r["family"] = SOLVERS[s]["family"]
                rows.append(r)
        return dict(
            tag=args.tag, mode=mode, partial=partial,
            created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            argv=sys.argv, options={k: v for k, v in opts.items() if k != "deadline_abs"},
            environment=environment() if not partial else {}, solver_info=infos,
            solvers=order, cases=cases, results=rows,
            wall_s=time.time() - t_start)

    with tempfile.TemporaryDirectory(prefix="lapbench_") as td:
        for s in order:
            print(f"[{s}]", flush=True)
            res, info = run_solver(s, cases, spec, Path(td), opts, log)
            all_results[s] = res
            infos[s] = info
            if info:
                print(f"  info: {json.dumps(info)}", flush=True)
            if out_path:  # keep a partial file in case the caller is killed
                out_path.parent.mkdir(parents=True, exist_ok=True)
                out_path.write_text(json.dumps(assemble(True), indent=1))

    doc = assemble(False)
    if out_path:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(json.dumps(doc, indent=1))
        print(f"wrote {out_path}")
    print()
    print(_load_report().render([doc]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
