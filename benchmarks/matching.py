#!/usr/bin/env python3
"""Maximum-cardinality bipartite matching benchmark: jaxmatch (GPU and CPU)
side by side with igraph and scipy on the GPU matching papers' graph
families (Delaunay, random geometric, Graph500 Kronecker), original and
randomly row/column permuted (RCP).

    python3 benchmarks/matching.py --sizes 20 21 --out /tmp/mcm.json
    python3 benchmarks/matching.py --sizes 12 14 --fake-jaxmatch --test-gpu-on-cpu
    python3 benchmarks/matching.py --report /tmp/mcm.json -o /tmp/mcm.md

Graphs (benchmarks/matching_graphs.py): ``delaunay_nK``, ``rgg_n_2_K``,
``kron_g500-lognK`` at 2^K vertices, each as the n x n symmetric adjacency
matrix read as a bipartite graph (rows and columns are the vertices), and
its RCP version ``A[p][:, q]`` (name suffix ``-rcp``). A helper process
generates them (or reads them from ``--cache``) and computes the cheap
(greedy) matching once per graph on the CPU; with ``--prefetch`` (default)
it makes the next graph while the solvers run on the current one.

Solvers, each group in its own worker process (one process per group,
kept across graphs; a crash, a hang or the run's ``--deadline`` kills only
that worker, and a fresh one continues with what is left):

* ``jaxmatch-gpu/{apfb,apsb,hybrid}/{wr,plain}/{ct,mt}``: ``jax.jit(lambda G, rm, cm:
  jaxmatch.max_cardinality_matching(G, method, bfs, mapping, init=(rm, cm)))``
  on the GPU, warm-started from the cheap matching;
* ``jaxmatch-gpu-cmdbuf/...``: the same, in a worker started with
  ``XLA_FLAGS=--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL,WHILE,CONDITIONAL
  --xla_gpu_graph_min_graph_size=1``;
* ``jaxmatch-cpu/{apfb,apsb,hybrid}/wr``: the same on the CPU;
* ``igraph``: ``Graph.maximum_bipartite_matching`` (push-relabel, no warm
  start: the whole call is timed, building the igraph Graph is not);
* ``scipy``: ``scipy.sparse.csgraph.maximum_bipartite_matching(A,
  perm_type='column')`` (Hopcroft-Karp, no warm start), each call killed
  after ``--scipy-timeout`` seconds.

Timing: inputs on the solver's device first; one warm-up call (compiles the
jitted solvers; igraph and scipy, which compile nothing, warm up on a tiny
graph when their worker starts), then up to ``--repeats`` timed calls,
fewer once ``--budget`` seconds are spent; the median is reported, the JSON
keeps every time. A solver is skipped on a graph where one call is
predicted (from its time on a smaller graph of the same family and
permutation, ~ nnz^1.25) above ``--max-seconds-per-run`` (scipy: above
``--scipy-timeout``), and on larger graphs of a family where it timed out.

Checking (never timed): every answer is checked as a matching (mates agree,
every pair is an edge); the first jaxmatch answer per graph is certified
maximum with ``jaxmatch.verify_matching`` (Koenig vertex cover; in a process
of its own while the other solvers run; skipped above
``--certify-max-nnz``); every solver's cardinality must equal the certified
maximum (or, uncertified, the largest valid answer). ``--serial`` runs
nothing alongside the solvers (no prefetch, verification waited for).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# benchmarks/ holds lap.py (would shadow the lap package) - keep matching_graphs
# importable but put this folder last; an installed jaxmatch (PYTHONPATH) wins
# over the source checkout.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.append(str(HERE))
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

import argparse  # noqa: E402
import datetime  # noqa: E402
import fnmatch  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

import numpy as np  # noqa: E402

import bench_common  # noqa: E402
import matching_graphs as mg  # noqa: E402

# --------------------------------------------------------------------------
# The papers' numbers and the goals
# --------------------------------------------------------------------------

#: Best GPU code of the papers on a Tesla C2050, seconds after the cheap
#: matching, on the UF (DIMACS10) graphs of these names.
PAPER_C2050_S = {
    "delaunay_n20": 0.04,
    "delaunay_n23": 0.90,
    "delaunay_n23-rcp": 0.90,
    "delaunay_n24": 1.86,
    "kron_g500-logn21": 0.99,
    "kron_g500-logn21-rcp": 3.71,
    "rgg_n_2_24": 3.68,
    "rgg_n_2_24-rcp": 2.20,
}
#: The UF graphs the paper rows were measured on (nonzeros), to flag a
#: regenerated graph of another density.
UF_NNZ = {
    "delaunay_n20": 6_291_372, "delaunay_n23": 50_331_568, "delaunay_n24": 100_663_202,
    "kron_g500-logn21": 182_082_942, "rgg_n_2_24": 265_114_400,
}
GOAL_VS_PAPER = 10.0      # at least 10x faster than the paper's row
GOAL_VS_IGRAPH = 20.0     # at least 20x faster than igraph ...
GOAL_IGRAPH_MIN_N = 1 << 20  # ... on graphs of a million vertices or more
GOAL_RCP_RATIO = 2.0      # permuted no more than 2x slower than original

CMDBUF_FLAGS = ("--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL,WHILE,CONDITIONAL "
                "--xla_gpu_graph_min_graph_size=1")

# --------------------------------------------------------------------------
# Solvers and worker groups
# --------------------------------------------------------------------------

GROUPS = ["jaxmatch-gpu", "jaxmatch-gpu-cmdbuf", "jaxmatch-cpu", "igraph", "scipy"]

SOLVERS: dict[str, dict] = {}
for _g in ("jaxmatch-gpu", "jaxmatch-gpu-cmdbuf"):
    for _m in ("apfb", "apsb", "hybrid"):
        for _b in ("wr", "plain"):
            for _mp in ("ct", "mt"):
                SOLVERS[f"{_g}/{_m}/{_b}/{_mp}"] = dict(group=_g, kind="jaxmatch", device="gpu",
                                                        method=_m, bfs=_b, mapping=_mp)
for _m in ("apfb", "apsb", "hybrid"):
    SOLVERS[f"jaxmatch-cpu/{_m}/wr"] = dict(group="jaxmatch-cpu", kind="jaxmatch", device="cpu",
                                            method=_m, bfs="wr", mapping=None)
SOLVERS["igraph"] = dict(group="igraph", kind="igraph", device="cpu")
SOLVERS["scipy"] = dict(group="scipy", kind="scipy", device="cpu")


def group_env(group: str, opts: dict) -> dict:
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    gpu_group = group.startswith("jaxmatch-gpu")
    if group in ("jaxmatch-cpu", "prep", "verify") or (gpu_group and opts.get("gpu_on_cpu")):
        env["JAX_PLATFORMS"] = "cpu"
    if group.startswith("jaxmatch-gpu"):
        # Two GPU workers live side by side (plain and cmdbuf): no 75 % grab each.
        env["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    if group == "jaxmatch-gpu-cmdbuf":
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " " + CMDBUF_FLAGS).strip()
    return env


# --------------------------------------------------------------------------
# Checks (numpy; never timed)
# --------------------------------------------------------------------------


def check_matching(A, rm: np.ndarray, cm: np.ndarray) -> tuple[str, int]:
    """('' or the first problem, cardinality) for row_match/col_match on the
    CSR matrix A (sorted indices): mates agree and every pair is an edge."""
    n, m = A.shape
    rm = np.asarray(rm).astype(np.int64).ravel()
    cm = np.asarray(cm).astype(np.int64).ravel()
    if rm.shape != (n,) or cm.shape != (m,):
        return f"shapes {rm.shape}, {cm.shape} do not fit {n} x {m}", 0
    if np.any((rm < -1) | (rm >= m)) or np.any((cm < -1) | (cm >= n)):
        return "a mate index is out of range", 0
    rows = np.flatnonzero(rm >= 0)
    if np.any(cm[rm[rows]] != rows):
        return "row_match and col_match disagree", int(rows.size)
    if np.count_nonzero(cm >= 0) != rows.size:
        return "col_match has pairs row_match lacks", int(rows.size)
    if rows.size:
        vals = np.asarray(A[rows, rm[rows]]).ravel()  # csr_sample_values: binary search per pair
        if not np.all(vals != 0):
            i = rows[np.flatnonzero(vals == 0)[0]]
            return f"matched pair ({i}, {rm[i]}) is not an edge", int(rows.size)
    return "", int(rows.size)


def mates_from_rows(rm: np.ndarray, n_cols: int) -> tuple[np.ndarray, np.ndarray, str]:
    """col_match from a row -> column array (scipy's answer); '' or a problem."""
    rm = np.asarray(rm).astype(np.int64)
    rows = np.flatnonzero(rm >= 0)
    cm = np.full(n_cols, -1, np.int64)
    if rows.size and (rm[rows].max() >= n_cols):
        return rm, cm, "column index out of range"
    if rows.size and np.bincount(rm[rows], minlength=n_cols).max() > 1:
        return rm, cm, "a column is matched twice"
    cm[rm[rows]] = rows
    return rm, cm, ""


def greedy_rounds(cxadj: np.ndarray, cadj: np.ndarray, n_rows: int, n_cols: int):
    """A maximal matching by rounds of proposals (numpy): each unmatched
    column proposes to its first neighbouring row not known to be taken; a
    row takes its smallest proposer. Stand-in for the papers' sequential
    greedy (each column in order takes its first free row) when
    jaxmatch.cheap_matching is not available; not identical to it."""
    ptr = np.asarray(cxadj[:-1], np.int64).copy()
    end = np.asarray(cxadj[1:], np.int64)
    cadj = np.asarray(cadj)
    rm = np.full(n_rows, -1, np.int32)
    cm = np.full(n_cols, -1, np.int32)
    active = np.flatnonzero(end > ptr)
    while active.size:
        r = cadj[ptr[active]]
        free = rm[r] < 0
        ptr[active[~free]] += 1
        pc, pr = active[free], r[free]
        if pc.size:
            order = np.lexsort((pc, pr))
            pr, pc = pr[order], pc[order]
            first = np.ones(pr.size, bool)
            first[1:] = pr[1:] != pr[:-1]
            rm[pr[first]] = pc[first]
            cm[pc[first]] = pr[first]
        active = active[(cm[active] < 0) & (ptr[active] < end[active])]
    return rm, cm


# --------------------------------------------------------------------------
# A stand-in for jaxmatch (--fake-jaxmatch): tests the harness before the
# solver exists. scipy's Hopcroft-Karp on the host, results put on the device.
# --------------------------------------------------------------------------


def make_fake_jaxmatch():
    import types
    from typing import NamedTuple

    import jax
    import jax.numpy as jnp
    import scipy.sparse as sp
    from scipy.sparse.csgraph import maximum_bipartite_matching

    class MatchingResult(NamedTuple):
        row_match: object
        col_match: object
        cardinality: object
        n_phases: object
        n_levels: object
        status: object

    class BipartiteGraph:
        def __init__(self, cxadj, cadj, rxadj, radj, n_rows, n_cols):
            self.cxadj, self.cadj, self.rxadj, self.radj = cxadj, cadj, rxadj, radj
            self.n_rows, self.n_cols = int(n_rows), int(n_cols)

        @classmethod
        def from_scipy(cls, A):
            A = sp.csr_matrix(A)
            A.sum_duplicates()
            c = A.tocsc()
            return cls(c.indptr.astype(np.int32), c.indices.astype(np.int32),
                       A.indptr.astype(np.int32), A.indices.astype(np.int32), *A.shape)

        def validate(self):
            return self

    jax.tree_util.register_pytree_node(
        BipartiteGraph, lambda g: ((g.cxadj, g.cadj, g.rxadj, g.radj), (g.n_rows, g.n_cols)),
        lambda aux, ch: BipartiteGraph(*ch, *aux))

    def _result(rm, cm, dev=None):
        card = int((np.asarray(cm) >= 0).sum())
        put = (lambda x: jax.device_put(x, dev)) if dev is not None else jnp.asarray
        return MatchingResult(put(np.asarray(rm, np.int32)), put(np.asarray(cm, np.int32)),
                              put(np.int32(card)), put(np.int32(0)), put(np.int32(0)), put(np.int32(1)))

    def cheap_matching(G):
        rm, cm = greedy_rounds(np.asarray(G.cxadj), np.asarray(G.cadj), G.n_rows, G.n_cols)
        return _result(rm, cm)

    def max_cardinality_matching(G, *, method="auto", bfs="wr", init="cheap", mapping="auto", **kw):
        dev = next(iter(G.cadj.devices())) if hasattr(G.cadj, "devices") else None
        A = sp.csr_matrix((np.ones(np.asarray(G.radj).shape[0], np.int8), np.asarray(G.radj),
                           np.asarray(G.rxadj)), shape=(G.n_rows, G.n_cols))
        rm = maximum_bipartite_matching(A, perm_type="column")
        _, cm, _ = mates_from_rows(rm, G.n_cols)
        return _result(rm, cm, dev)

    def verify_matching(G, res):
        A = sp.csr_matrix((np.ones(np.asarray(G.radj).shape[0], np.int8), np.asarray(G.radj),
                           np.asarray(G.rxadj)), shape=(G.n_rows, G.n_cols))
        rm, cm = np.asarray(res[0]), np.asarray(res[1])
        why, card = check_matching(A, rm, cm)
        best = int((maximum_bipartite_matching(A, perm_type="column") >= 0).sum())
        ok = not why and card == best
        return types.SimpleNamespace(valid=not why, cardinality=card, maximum=ok,
                                     cover_size=best, is_cover=ok,
                                     reason=why or ("" if ok else f"scipy finds {best}"))

    return types.SimpleNamespace(
        __version__="fake", __file__=__file__, BipartiteGraph=BipartiteGraph,
        MatchingResult=MatchingResult, cheap_matching=cheap_matching,
        max_cardinality_matching=max_cardinality_matching, verify_matching=verify_matching,
        fake=True)


def import_jaxmatch(fake: bool):
    if fake:
        return make_fake_jaxmatch()
    import jaxmatch
    return jaxmatch


def build_graph(jm, A):
    """A BipartiteGraph with numpy leaves from the canonical CSR matrix A:
    the column CSR is A.tocsc() and the row CSR is A itself (what
    ``BipartiteGraph.from_scipy`` computes, without its np.unique/lexsort,
    which take minutes at 10^8 nonzeros), then ``validate()``. Falls back to
    ``from_scipy``. Returns (G, how)."""
    n, m = A.shape
    try:
        csc = A.tocsc()
        csc.sort_indices()
        G = jm.BipartiteGraph(np.asarray(csc.indptr, np.int32), np.asarray(csc.indices, np.int32),
                              np.asarray(A.indptr, np.int32), np.asarray(A.indices, np.int32), n, m)
        G.validate()
        return G, "direct"
    except Exception as err:  # noqa: BLE001
        how = f"from_scipy (direct failed: {type(err).__name__}: {str(err)[:200]})"
    return jm.BipartiteGraph.from_scipy(A), how


# --------------------------------------------------------------------------
# Worker side
# --------------------------------------------------------------------------


def _emit(fh, obj: dict) -> None:
    fh.write(json.dumps(obj) + "\n")
    fh.flush()
    os.fsync(fh.fileno())


def _tiny_graph():
    import scipy.sparse as sp
    rng = np.random.default_rng(0)
    A = sp.random(64, 64, density=0.08, format="csr", random_state=rng, dtype=np.float32)
    A.data[:] = 1
    return A.astype(np.int8)


def _cheap_path(graph_path: str, how: str) -> Path:
    return Path(graph_path).with_suffix(f".cheap-{how}.npz")


class PrepGroup:
    """Generates / loads graphs, computes the cheap matching, caches both."""

    def __init__(self, opts):
        self.opts = opts
        self.info = {"numpy": np.__version__}
        self.jm = None
        self.original = None  # (key, A) of the last original graph, for its RCP

    def setup(self):
        import scipy
        self.info["scipy"] = scipy.__version__
        try:
            import jax
            self.jax = jax
            self.jm = import_jaxmatch(self.opts.get("fake", False))
            if not hasattr(self.jm, "cheap_matching"):
                raise ImportError("jaxmatch has no cheap_matching")
            fake = self.opts.get("fake")
            self.cheap_fn = self.jm.cheap_matching if fake else jax.jit(self.jm.cheap_matching)
            self.info["cheap"] = "greedy rounds (fake)" if fake else "jaxmatch.cheap_matching (CPU)"
        except Exception as err:  # noqa: BLE001
            self.jm = None
            self.info["cheap"] = (f"numpy greedy rounds (jaxmatch unavailable: "
                                  f"{type(err).__name__}: {err})")[:300]

    def handle(self, fh, task):
        g = task["graph"]
        params, permuted = g["params"], g["permuted"]
        key = json.dumps(params, sort_keys=True)
        orig = self.original[1] if (self.original and self.original[0] == key) else None
        _emit(fh, dict(event="stage", stage="generate", t=time.time()))
        A, meta = mg.load_graph(params, permuted, self.opts["cache"], original=orig)
        if not permuted:
            self.original = (key, A)
        elif self.original and self.original[0] != key:
            self.original = None
        meta = {k: v for k, v in meta.items()}
        # cheap matching, cached next to the graph
        _emit(fh, dict(event="stage", stage="cheap", t=time.time()))
        t0 = time.perf_counter()
        method = self.info["cheap"]
        how = "jaxmatch" if (self.jm is not None and not self.opts.get("fake")) else "rounds"
        cpath = _cheap_path(meta["path"], how)
        cached = cpath.exists()
        if not cached and how == "jaxmatch":
            try:
                G, _ = build_graph(self.jm, A)
                self.jax.block_until_ready(self.cheap_fn(G))  # compiles
                t1 = time.perf_counter()
                r = self.jax.block_until_ready(self.cheap_fn(G))
                rm, cm = np.asarray(r.row_match, np.int32), np.asarray(r.col_match, np.int32)
                cheap_s = time.perf_counter() - t1
                why, _ = check_matching(A, rm, cm)
                if why:
                    raise RuntimeError(f"jaxmatch.cheap_matching is invalid: {why}")
                self._save_cheap(cpath, rm, cm, cheap_s)
            except Exception as err:  # noqa: BLE001
                how = "rounds"
                method = (f"numpy greedy rounds (jaxmatch.cheap_matching failed: "
                          f"{type(err).__name__}: {err})")[:300]
                cpath = _cheap_path(meta["path"], how)
                cached = cpath.exists()
        if cached:
            with np.load(cpath) as z:
                rm, cm = z["row_match"], z["col_match"]
                cheap_s = float(z["cheap_s"])
            if how == "rounds" and "rounds" not in method:
                method = "numpy greedy rounds"
        elif how == "rounds":
            csc = A.tocsc()
            csc.sort_indices()
            t1 = time.perf_counter()
            rm, cm = greedy_rounds(csc.indptr, csc.indices, *A.shape)
            cheap_s = time.perf_counter() - t1
            why, _ = check_matching(A, rm, cm)
            if why:
                raise RuntimeError(f"cheap matching (rounds) is invalid: {why}")
            self._save_cheap(cpath, rm, cm, cheap_s)
        meta.update(cheap_path=str(cpath), cheap_cardinality=int((cm >= 0).sum()),
                    cheap_s=cheap_s, cheap_cached=cached, cheap_method=method,
                    prep_s=time.perf_counter() - t0 + meta.get("load_s", 0.0))
        _emit(fh, dict(event="prep_done", task=task["task"], meta=meta))

    @staticmethod
    def _save_cheap(cpath: Path, rm, cm, cheap_s: float) -> None:
        tmp = cpath.with_name(cpath.name + f".tmp{os.getpid()}.npz")
        np.savez(tmp, row_match=rm, col_match=cm, cheap_s=cheap_s)
        os.replace(tmp, cpath)


class SolverGroup:
    """Runs the labels of one group on one graph at a time."""

    real_warmup = True

    def __init__(self, group, opts):
        self.group, self.opts = group, opts
        self.info: dict = {}
        self.graph_path = None

    def load(self, fh, task):
        """(Re)loads the task's graph unless it is the current one."""
        g = task["graph"]
        if self.graph_path == g["path"]:
            return
        self.unload()
        _emit(fh, dict(event="stage", stage="load", t=time.time()))
        t0 = time.perf_counter()
        self.A, _ = mg.load_npz(Path(g["path"]))
        with np.load(g["cheap_path"]) as z:
            self.rm0, self.cm0 = z["row_match"].astype(np.int32), z["col_match"].astype(np.int32)
        self.prepare(fh)
        self.graph_path = g["path"]
        self.load_s = time.perf_counter() - t0

    def prepare(self, fh):
        pass

    def unload(self):
        self.graph_path = None
        self.A = None

    def handle(self, fh, task):
        self.load(fh, task)
        for label in task["labels"]:
            res = dict(event="result", solver=label, graph=task["graph"]["name"])
            _emit(fh, dict(event="stage", stage="start", solver=label, t=time.time()))
            try:
                self.run_label(fh, label, task, res)
            except Exception as err:  # noqa: BLE001
                res.update(status="error", error=f"{type(err).__name__}: {err}"[:2000],
                           traceback=traceback.format_exc()[-3000:])
            _emit(fh, res)
        _emit(fh, dict(event="task_done", task=task["task"]))

    def time_calls(self, fh, label, run, res, call_limit_kind="call"):
        """Warm-up (if real_warmup) + repeats; fills res; returns the last output."""
        opts = self.opts
        deadline = opts["deadline_abs"]
        out = None
        if self.real_warmup:
            _emit(fh, dict(event="stage", stage="warmup", solver=label, t=time.time(), limit=call_limit_kind))
            _test_fault(label)
            t0 = time.perf_counter()
            out = run()
            res["warmup_s"] = time.perf_counter() - t0
            if res["warmup_s"] > opts["max_seconds_per_run"]:
                res.update(status="too-slow", note=f"warm-up took {res['warmup_s']:.1f} s "
                           f"> --max-seconds-per-run {opts['max_seconds_per_run']:g}; no timed runs")
                return out
        times: list[float] = []
        while len(times) < opts["repeats"]:
            if times and time.time() > deadline:
                res["note"] = "run deadline reached during repeats"
                break
            _emit(fh, dict(event="stage", stage="call", solver=label, t=time.time(), limit=call_limit_kind))
            _test_fault(label)
            t0 = time.perf_counter()
            out = run()
            times.append(time.perf_counter() - t0)
            if sum(times) >= opts["budget"]:
                break
        res.update(status="ok", times_s=times, n_runs=len(times),
                   median_s=float(np.median(times)), min_s=float(np.min(times)))
        if len(times) < opts["repeats"] and "note" not in res:
            res["note"] = f"{len(times)} run(s): --budget {opts['budget']:g} s spent"
        return out


def _test_fault(label: str) -> None:
    """Harness testing: MCMBENCH_TEST_FAULT='LABEL:crash' (or ':hang', ':raise')
    makes that solver's worker die, hang or raise on every graph."""
    spec = os.environ.get("MCMBENCH_TEST_FAULT", "")
    for item in filter(None, spec.split(",")):
        lab, _, what = item.rpartition(":")
        if lab == label:
            if what == "crash":
                os._exit(3)
            if what == "hang":
                time.sleep(10**6)
            raise RuntimeError(f"test fault for {label}")


class ScipyGroup(SolverGroup):
    real_warmup = False

    def setup(self):
        import scipy
        from scipy.sparse.csgraph import maximum_bipartite_matching
        self.f = maximum_bipartite_matching
        self.f(_tiny_graph(), perm_type="column")  # warm-up: nothing to compile
        self.info = {"version": scipy.__version__}

    def run_label(self, fh, label, task, res):
        A = self.A
        out = self.time_calls(fh, label, lambda: self.f(A, perm_type="column"), res)
        if out is not None:
            rm, cm, why = mates_from_rows(out, A.shape[1])
            if not why:
                why, card = check_matching(A, rm, cm)
            res.update(cardinality=int((np.asarray(out) >= 0).sum()), valid=not why)
            if why:
                res["invalid_reason"] = why


class IgraphGroup(SolverGroup):
    real_warmup = False

    def setup(self):
        import igraph
        self.ig = igraph
        self.info = {"version": igraph.__version__}
        A = _tiny_graph()
        g, types = self._graph(A)
        g.maximum_bipartite_matching(types=types)

    def _graph(self, A):
        n, m = A.shape
        coo = A.tocoo()
        E = np.empty((coo.nnz, 2), dtype=np.int64)
        E[:, 0] = coo.row
        E[:, 1] = coo.col
        E[:, 1] += n
        del coo
        g = self.ig.Graph(n=n + m, directed=False)
        g.add_edges(E)
        types = [False] * n + [True] * m
        return g, types

    def prepare(self, fh):
        _emit(fh, dict(event="stage", stage="build", t=time.time()))
        t0 = time.perf_counter()
        self.g, self.types = self._graph(self.A)
        self.build_s = time.perf_counter() - t0

    def unload(self):
        super().unload()
        self.g = self.types = None

    def run_label(self, fh, label, task, res):
        n, m = self.A.shape
        out = self.time_calls(fh, label, lambda: self.g.maximum_bipartite_matching(types=self.types), res)
        res["build_s"] = self.build_s
        if out is not None:
            mate = np.asarray(out.matching, dtype=np.int64)
            rm = np.where(mate[:n] >= 0, mate[:n] - n, -1)
            cm = mate[n:].copy()
            why, card = check_matching(self.A, rm, cm)
            res.update(cardinality=int(len(out)), valid=not why)
            if why:
                res["invalid_reason"] = why
            elif card != len(out):
                res.update(valid=False, invalid_reason=f"len(Matching) {len(out)} != {card} pairs")


class JaxmatchGroup(SolverGroup):
    def setup(self):
        import jax
        self.jax = jax
        opts = self.opts
        want_gpu = self.group.startswith("jaxmatch-gpu")
        backend = jax.default_backend()
        if want_gpu and backend not in ("gpu", "cuda") and not opts.get("gpu_on_cpu"):
            raise RuntimeError(f"JAX backend is {backend!r}, not the GPU: not timing it "
                               "(--test-gpu-on-cpu runs the GPU labels on the CPU, for testing)")
        self.dev = jax.devices()[0] if want_gpu else jax.devices("cpu")[0]
        self.jm = import_jaxmatch(opts.get("fake", False))
        if not hasattr(self.jm, "max_cardinality_matching"):
            raise ImportError(f"jaxmatch ({self.jm.__file__}) has no max_cardinality_matching yet")
        self.info = {"jax": jax.__version__, "backend": backend, "device": str(self.dev.device_kind),
                     "jaxmatch": getattr(self.jm, "__version__", "?"), "file": self.jm.__file__,
                     "XLA_FLAGS": os.environ.get("XLA_FLAGS", "")}
        if opts.get("fake"):
            self.info["fake"] = True
        try:
            from jaxmatch import _lib
            self.info["cuda_library"] = bool(_lib.has_cuda())
        except Exception as err:  # noqa: BLE001
            self.info["cuda_library"] = f"unknown ({type(err).__name__})"
        self.fns: dict[str, object] = {}

    def fn(self, label):
        if label not in self.fns:
            s = SOLVERS[label]
            kw = dict(method=s["method"], bfs=s["bfs"])
            if s["mapping"]:
                kw["mapping"] = s["mapping"]
            if self.opts.get("execution"):
                kw["execution"] = self.opts["execution"]
            mcm = self.jm.max_cardinality_matching

            def f(G, rm, cm):
                return mcm(G, init=(rm, cm), **kw)

            self.fns[label] = f if self.opts.get("fake") else self.jax.jit(f)
        return self.fns[label]

    def prepare(self, fh):
        jax = self.jax
        _emit(fh, dict(event="stage", stage="build", t=time.time()))
        t0 = time.perf_counter()
        self.G, self.build_how = build_graph(self.jm, self.A)
        self.build_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        self.Gd = jax.device_put(self.G, self.dev)
        self.rmd = jax.device_put(self.rm0, self.dev)
        self.cmd = jax.device_put(self.cm0, self.dev)
        jax.block_until_ready((self.Gd, self.rmd, self.cmd))
        self.put_s = time.perf_counter() - t0

    def unload(self):
        super().unload()
        self.G = self.Gd = self.rmd = self.cmd = None
        self.fns = {}
        if hasattr(self, "jax"):
            self.jax.clear_caches()

    def run_label(self, fh, label, task, res):
        jax = self.jax
        f = self.fn(label)
        Gd, rmd, cmd = self.Gd, self.rmd, self.cmd
        out = self.time_calls(fh, label, lambda: jax.block_until_ready(f(Gd, rmd, cmd)), res)
        res.update(build=self.build_how, build_s=self.build_s, put_s=self.put_s)
        if out is None:
            return
        rm, cm = np.asarray(out.row_match), np.asarray(out.col_match)
        res.update(cardinality=int(out.cardinality), n_phases=int(out.n_phases),
                   n_levels=int(out.n_levels), mstatus=int(out.status))
        if res["mstatus"] != 1:  # MatchingStatus.MAXIMUM
            res["note"] = (res.get("note", "") + f" status {res['mstatus']} (not MAXIMUM)").strip()
        why, card = check_matching(self.A, rm, cm)
        res["valid"] = not why
        if why:
            res["invalid_reason"] = why
        elif card != res["cardinality"]:
            res.update(valid=False, invalid_reason=f"cardinality field {res['cardinality']} != {card} pairs")
        if task.get("certify_path") and res["valid"] and not task.get("_certified"):
            # certified by the verify worker, alongside the other solvers
            np.savez(task["certify_path"], row_match=rm, col_match=cm)
            res["certify_saved"] = task["certify_path"]
            task["_certified"] = True


class VerifyGroup:
    """Certifies answers with jaxmatch.verify_matching (numpy, ~1 s per 10^6
    nonzeros) in its own process, while the solvers go on."""

    def __init__(self, opts):
        self.opts = opts
        self.info: dict = {}

    def setup(self):
        self.jm = import_jaxmatch(self.opts.get("fake", False))
        if not hasattr(self.jm, "verify_matching"):
            raise ImportError("jaxmatch has no verify_matching")
        self.info = {"jaxmatch": getattr(self.jm, "__version__", "?")}

    def handle(self, fh, task):
        _emit(fh, dict(event="stage", stage="verify", task=task["task"], t=time.time()))
        A, _ = mg.load_npz(Path(task["path"]))
        G, _ = build_graph(self.jm, A)
        with np.load(task["matching"]) as z:
            rm, cm = z["row_match"], z["col_match"]
        t0 = time.perf_counter()
        cert = self.jm.verify_matching(G, (rm, cm))
        _emit(fh, dict(event="verified", task=task["task"], certificate=dict(
            maximum=bool(cert.maximum), valid=bool(cert.valid), cardinality=int(cert.cardinality),
            cover_size=int(cert.cover_size), reason=str(cert.reason),
            verify_s=time.perf_counter() - t0)))
        try:
            os.unlink(task["matching"])
        except OSError:
            pass


WORKER_CLASSES = {"prep": PrepGroup, "verify": VerifyGroup, "scipy": ScipyGroup, "igraph": IgraphGroup,
                  "jaxmatch-gpu": JaxmatchGroup, "jaxmatch-gpu-cmdbuf": JaxmatchGroup,
                  "jaxmatch-cpu": JaxmatchGroup}


def worker_main(args) -> int:
    opts = json.loads(Path(args.spec).read_text())
    group = args.worker
    with open(args.results, "a") as fh:
        cls = WORKER_CLASSES[group]
        w = cls(opts) if group in ("prep", "verify") else cls(group, opts)
        try:
            w.setup()
        except Exception as err:  # noqa: BLE001
            _emit(fh, dict(event="setup_error", error=f"{type(err).__name__}: {err}"[:2000],
                           traceback=traceback.format_exc()[-3000:]))
            return 0
        _emit(fh, dict(event="ready", info=w.info))
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            task = json.loads(line)
            if task.get("op") == "quit":
                break
            try:
                w.handle(fh, task)
            except Exception as err:  # noqa: BLE001
                _emit(fh, dict(event="task_error", task=task.get("task"),
                               error=f"{type(err).__name__}: {err}"[:2000],
                               traceback=traceback.format_exc()[-3000:]))
    return 0


# --------------------------------------------------------------------------
# Parent side
# --------------------------------------------------------------------------


class Worker:
    """A worker process of one group, fed tasks on stdin, answering in a
    JSON-lines file (fsync'ed: survives the worker's death)."""

    def __init__(self, group: str, opts: dict, workdir: Path, spec_path: Path):
        self.group, self.opts, self.workdir, self.spec_path = group, opts, workdir, spec_path
        self.proc = None
        self.n_started = 0
        self.info: dict = {}
        self.setup_error = None

    def start(self):
        self.n_started += 1
        tag = f"{self.group.replace('/', '_')}_{self.n_started}"
        self.res_path = self.workdir / f"res_{tag}.jsonl"
        self.log_path = self.workdir / f"log_{tag}.txt"
        self.pos = 0
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", self.group,
               "--spec", str(self.spec_path), "--results", str(self.res_path)]
        self.logf = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=self.logf,
                                     stderr=subprocess.STDOUT, env=group_env(self.group, self.opts),
                                     start_new_session=True, cwd=str(ROOT), text=True)
        self.ready = False

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send(self, task: dict) -> None:
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
        if self.proc is None or not self.res_path.exists():
            return []
        with open(self.res_path) as fh:
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
            if ev.get("event") == "ready":
                self.ready, self.info = True, ev.get("info", {})
            elif ev.get("event") == "setup_error":
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
        try:
            self.logf.close()
        except Exception:  # noqa: BLE001
            pass

    def quit(self) -> None:
        if self.alive():
            try:
                self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=20)
            except Exception:  # noqa: BLE001
                pass
        self.kill()


_fmt_t = bench_common.fmt_time
_cell = bench_common.result_cell


def _log_result(r: dict) -> None:
    s = r.get("status")
    msg = f"  {r.get('solver', '?'):36s} {s:9s}"
    if s == "ok":
        msg += (f" median {_fmt_t(r.get('median_s'))} ({r.get('n_runs')} runs"
                + (f", warm-up {_fmt_t(r['warmup_s'])}" if r.get("warmup_s") is not None else "")
                + f") card {r.get('cardinality')}"
                + ("" if r.get("valid", True) else f" INVALID: {r.get('invalid_reason')}"))
        if r.get("n_levels") is not None:
            msg += f" phases {r.get('n_phases')} levels {r.get('n_levels')}"
        if r.get("certify_saved"):
            msg += " [to verify_matching]"
    if r.get("note"):
        msg += f"  [{r['note']}]"
    if r.get("error"):
        msg += f"  ERROR {r['error'][:300]}"
    print(msg, flush=True)


class Runner:
    def __init__(self, args, labels: list[str], graphs: list[dict], opts: dict, workdir: Path):
        self.args, self.labels, self.graphs, self.opts = args, labels, graphs, opts
        self.workdir = workdir
        self.spec_path = workdir / "spec.json"
        self.spec_path.write_text(json.dumps(opts))
        self.workers: dict[str, Worker] = {}
        self.results: dict[tuple[str, str], dict] = {}  # (graph name, label) -> result
        self.graph_meta: dict[str, dict] = {}
        self.history: dict[tuple, list] = {}  # (label, family, permuted) -> [(nnz, t)]
        self.timed_out: dict[tuple, int] = {}  # (label, family, permuted) -> K
        self.pending_verify: dict[int, tuple] = {}
        self.failed_originals: dict[tuple, str] = {}
        self.current = None
        self.task_id = 0

    def worker(self, group: str) -> Worker:
        if group not in self.workers:
            self.workers[group] = Worker(group, self.opts, self.workdir, self.spec_path)
        return self.workers[group]

    def next_id(self) -> int:
        self.task_id += 1
        return self.task_id

    # -- prep
    def submit_prep(self, g: dict) -> None:
        w = self.worker("prep")
        g["prep_task"] = self.next_id()
        g["prep_submitted"] = time.time()
        w.send(dict(task=g["prep_task"], graph=dict(params=g["params"], permuted=g["permuted"])))

    def wait_prep(self, g: dict) -> dict | None:
        """The graph's metadata once prepared, else None (error recorded)."""
        w = self.worker("prep")
        limit = self.opts["gen_timeout"]
        started = g.get("prep_submitted", time.time())
        while True:
            for ev in w.events():
                if ev["event"] == "prep_done" and ev["task"] == g["prep_task"]:
                    return ev["meta"]
                if ev["event"] == "task_error" and ev.get("task") == g["prep_task"]:
                    g["error"] = f"generation failed: {ev['error']}"
                    return None
                if ev["event"] == "setup_error":
                    g["error"] = f"prep worker setup failed: {ev['error']}"
                    return None
                if ev["event"] == "stage":
                    started = max(started, ev["t"]) if ev.get("stage") == "generate" else started
            now = time.time()
            if not w.alive():
                g["error"] = f"prep worker died (code {w.proc.returncode}): {w.log_tail(600)}"
                return None
            if now > self.opts["deadline_abs"]:
                w.kill()
                g["error"] = "run deadline reached while generating"
                g["status"] = "deadline"
                return None
            if now - started > limit:
                w.kill()
                g["error"] = f"generation took over --gen-timeout {limit:g} s"
                return None
            time.sleep(0.1)

    # -- solvers
    def skip_reason(self, label: str, g: dict) -> tuple[str, str] | None:
        key = (label, g["family"], g["permuted"])
        if key in self.timed_out and g["K"] > self.timed_out[key]:
            return "skipped", f"timed out at K={self.timed_out[key]} of this family"
        hist = self.history.get(key)
        if hist:
            nnz0, t0 = hist[-1]
            nnz = g["meta"]["nnz"]
            if nnz <= 16 * nnz0:
                pred = t0 * (nnz / max(nnz0, 1)) ** 1.25
                limit = self.opts["scipy_timeout"] if label == "scipy" else self.opts["max_seconds_per_run"]
                if pred > limit:
                    return "skipped", (f"predicted {pred:.3g} s per call (from {_fmt_t(t0)} at "
                                       f"{nnz0:,} nonzeros) > {limit:g} s")
        return None

    def run_group(self, group: str, g: dict, labels: list[str]) -> None:
        w = self.worker(group)
        if w.setup_error:
            for lab in labels:
                self.record(g, dict(solver=lab, graph=g["name"], status="error",
                                    error=f"worker setup failed: {w.setup_error['error']}",
                                    traceback=w.setup_error.get("traceback", "")))
            return
        remaining = list(labels)
        while remaining:
            if time.time() > self.opts["deadline_abs"]:
                for lab in remaining:
                    self.record(g, dict(solver=lab, graph=g["name"], status="deadline",
                                        note="run deadline reached before this solver"))
                return
            tid = self.next_id()
            certify = (not g.get("certified_attempted") and SOLVERS[remaining[0]]["kind"] == "jaxmatch"
                       and g["meta"]["nnz"] <= self.opts["certify_max_nnz"])
            if certify:
                g["certified_attempted"] = True
            w.send(dict(task=tid, labels=remaining,
                        certify_path=str(self.workdir / f"match_{tid}.npz") if certify else None,
                        graph=dict(name=g["name"], path=g["meta"]["path"],
                                   cheap_path=g["meta"]["cheap_path"])))
            current, stage, stage_t, limit_kind = None, "load", time.time(), None
            killed = None
            while True:
                done = False
                for ev in w.events():
                    e = ev.get("event")
                    if e == "stage":
                        stage, stage_t, limit_kind = ev["stage"], time.time(), ev.get("limit")
                        if ev.get("solver"):
                            current = ev["solver"]
                    elif e == "result":
                        ev.pop("event")
                        self.record(g, ev)
                        if ev["solver"] in remaining:
                            remaining.remove(ev["solver"])
                        current = None
                    elif e == "task_done" and ev.get("task") == tid:
                        done = True
                    elif e == "task_error" and ev.get("task") == tid:
                        for lab in remaining:
                            self.record(g, dict(solver=lab, graph=g["name"], status="error",
                                                error=ev["error"], traceback=ev.get("traceback")))
                        remaining = []
                        done = True
                    elif e == "setup_error":
                        for lab in remaining:
                            self.record(g, dict(solver=lab, graph=g["name"], status="error",
                                                error=f"worker setup failed: {ev['error']}",
                                                traceback=ev.get("traceback", "")))
                        remaining = []
                        done = True
                if done:
                    if remaining:  # a worker that answered nothing for these
                        for lab in remaining:
                            self.record(g, dict(solver=lab, graph=g["name"], status="error",
                                                error="the worker finished the task without a result"))
                        remaining = []
                    break
                if not w.alive():
                    killed = ("error", f"worker exited with code {w.proc.returncode} during {stage}")
                    # late lines
                    for ev in w.events():
                        if ev.get("event") == "result":
                            ev.pop("event")
                            self.record(g, ev)
                            if ev["solver"] in remaining:
                                remaining.remove(ev["solver"])
                    break
                now = time.time()
                if limit_kind == "call" and current == "scipy" and now - stage_t > self.opts["scipy_timeout"]:
                    killed = ("timeout",
                              f"one call ran past --scipy-timeout {self.opts['scipy_timeout']:g} s")
                elif now - stage_t > self.opts["case_timeout"]:
                    killed = ("timeout", f"{stage} ran past --case-timeout {self.opts['case_timeout']:g} s")
                elif now > self.opts["deadline_abs"]:
                    killed = ("deadline", f"run deadline reached during {stage}")
                if killed:
                    w.kill()
                    break
                time.sleep(0.05)
            if certify and not g.get("verify_task"):
                g["certified_attempted"] = False  # nothing to certify: the next answer may be
            if killed and remaining:
                status, note = killed
                victim = current if current in remaining else remaining[0]
                r = dict(solver=victim, graph=g["name"], status=status, error=f"worker killed: {note}"
                         if status != "error" else note, worker_log_tail=w.log_tail())
                if status == "timeout":
                    r["timeout_s"] = time.time() - stage_t
                self.record(g, r)
                remaining.remove(victim)
                if status == "deadline":
                    for lab in remaining:
                        self.record(g, dict(solver=lab, graph=g["name"], status="deadline",
                                            note="run deadline reached"))
                    return
                if w.setup_error:
                    continue

    def record(self, g: dict, r: dict, quiet: bool = False) -> None:
        r.setdefault("graph", g["name"])
        self.results[(g["name"], r["solver"])] = r
        if r.get("status") == "ok" and r.get("median_s") is not None:
            self.history.setdefault((r["solver"], g["family"], g["permuted"]), []).append(
                (g["meta"]["nnz"], r["median_s"]))
        if r.get("status") in ("timeout", "too-slow"):
            self.timed_out[(r["solver"], g["family"], g["permuted"])] = g["K"]
        if not quiet:
            _log_result(r)
        if r.get("certify_saved"):
            self.submit_verify(g, r)

    # -- certification (verify worker)
    def submit_verify(self, g: dict, r: dict) -> None:
        vid = self.next_id()
        g["verify_task"] = vid
        self.pending_verify[vid] = (g, r["solver"])
        try:
            self.worker("verify").send(dict(task=vid, path=g["meta"]["path"], matching=r["certify_saved"]))
        except Exception as err:  # noqa: BLE001
            self._verified(vid, error=f"cannot start the verify worker: {err}")

    def _verified(self, vid: int, cert: dict | None = None, error: str | None = None) -> None:
        g, solver = self.pending_verify.pop(vid)
        if cert is not None:
            if not (g.get("certificate") or {}).get("maximum"):
                g["certificate"] = dict(cert, solver=solver)
            print(f"  [{g['name']}] verify_matching({solver}): maximum={cert['maximum']} "
                  f"(cover {cert['cover_size']:,}, {cert['verify_s']:.1f} s)"
                  + (f" {cert['reason']}" if cert.get("reason") else ""), flush=True)
            if not cert["maximum"] and g is self.current:
                g["certified_attempted"] = False  # let another answer of this graph be certified
        else:
            g["verify_error"] = error
            print(f"  [{g['name']}] verification failed: {error}", flush=True)

    def collect_verify(self, block: bool) -> None:
        if not self.pending_verify:
            return
        w = self.worker("verify")
        stage_t = time.time()
        while self.pending_verify:
            for ev in w.events():
                e = ev.get("event")
                if e == "stage":
                    stage_t = time.time()
                elif e == "verified" and ev["task"] in self.pending_verify:
                    self._verified(ev["task"], cert=ev["certificate"])
                elif e == "task_error" and ev.get("task") in self.pending_verify:
                    self._verified(ev["task"], error=ev["error"])
                elif e == "setup_error":
                    for vid in list(self.pending_verify):
                        self._verified(vid, error=f"verify worker setup failed: {ev['error']}")
            if not self.pending_verify:
                return
            if not w.alive():
                tail = w.log_tail(500)
                for vid in list(self.pending_verify):
                    self._verified(vid, error=f"verify worker exited (code {w.proc.returncode}): {tail}")
                return
            now = time.time()
            if now > self.opts["deadline_abs"] or now - stage_t > self.opts["verify_timeout"]:
                w.kill()
                why = ("run deadline reached" if now > self.opts["deadline_abs"]
                       else f"over --verify-timeout {self.opts['verify_timeout']:g} s")
                for vid in list(self.pending_verify):
                    self._verified(vid, error=f"not certified: {why}")
                return
            if not block:
                return
            time.sleep(0.1)

    def finish_graph(self, g: dict) -> None:
        """Maximum cardinality and every solver's check."""
        rs = [r for (gn, _), r in self.results.items() if gn == g["name"]]
        valid = [r for r in rs if r.get("status") in ("ok", "too-slow") and r.get("valid")
                 and r.get("cardinality") is not None]
        cert = g.get("certificate")
        if not cert and g.get("verify_error"):
            cert = dict(maximum=False, reason=g["verify_error"])
        if cert and cert.get("maximum"):
            g["max_cardinality"], g["max_source"] = cert["cardinality"], f"certified ({cert['solver']})"
        elif valid:
            cards = sorted({r["cardinality"] for r in valid})
            g["max_cardinality"] = cards[-1]
            g["max_source"] = ("uncertified: largest valid answer"
                               + ("" if len(cards) == 1 else f" (answers differ: {cards})")
                               + (f"; certificate failed: {cert['reason']}" if cert else ""))
        else:
            g["max_cardinality"], g["max_source"] = None, "no valid answer"
        for r in rs:
            if r.get("cardinality") is None:
                continue
            if not r.get("valid"):
                r["check"] = dict(ok=False, note=f"invalid matching: {r.get('invalid_reason')}")
            elif g["max_cardinality"] is None:
                r["check"] = dict(ok=None, note="no reference")
            elif r["cardinality"] == g["max_cardinality"]:
                r["check"] = dict(ok=True, certified=bool(cert and cert.get("maximum")))
            else:
                r["check"] = dict(ok=False, note=f"cardinality {r['cardinality']} != maximum "
                                  f"{g['max_cardinality']} ({g['max_source']})")

    def run(self, on_graph_done) -> None:
        graphs = self.graphs
        if graphs:
            self.submit_prep(graphs[0])
        for i, g in enumerate(graphs):
            if time.time() > self.opts["deadline_abs"]:
                g["status"], g["error"] = "deadline", "run deadline reached before this graph"
                print(f"[{g['name']}] not run: the run's deadline came first", flush=True)
                for lab in self.labels:
                    self.record(g, dict(solver=lab, graph=g["name"], status="deadline",
                                        note="run deadline reached before this graph"), quiet=True)
                continue
            print(f"[{g['name']}] preparing", flush=True)
            base = (g["family"], g["K"])
            if g["permuted"] and base in self.failed_originals:
                g["status"], g["error"] = "error", f"not generated: {self.failed_originals[base]}"
                print(f"[{g['name']}] {g['error']}", flush=True)
                for lab in self.labels:
                    self.record(g, dict(solver=lab, graph=g["name"], status="error",
                                        error=g["error"]), quiet=True)
                on_graph_done()
                continue
            if "prep_task" not in g:
                self.submit_prep(g)
            meta = self.wait_prep(g)
            if meta is None:
                print(f"  graph failed: {g.get('error')}", flush=True)
                g.setdefault("status", "error")
                if not g["permuted"] and g["status"] != "deadline":
                    self.failed_originals[base] = f"{g['name']} failed ({g.get('error')})"[:300]
                for lab in self.labels:
                    self.record(g, dict(solver=lab, graph=g["name"], status=g["status"],
                                        error=g.get("error")))
                on_graph_done()
                continue
            g["meta"] = meta
            g["status"] = "ok"
            self.current = g
            print(f"  n={meta['n']:,} nnz={meta['nnz']:,} gen {meta['gen_s']:.2f} s"
                  f"{' (cached)' if meta.get('cached') else ''}; cheap {meta['cheap_cardinality']:,}"
                  f" in {meta['cheap_s']:.2f} s{' (cached)' if meta.get('cheap_cached') else ''}",
                  flush=True)
            if (self.opts["prefetch"] and not self.opts["serial"] and i + 1 < len(graphs)
                    and time.time() < self.opts["deadline_abs"]):
                self.submit_prep(graphs[i + 1])  # a fresh prep worker starts if this one died
            for group in GROUPS:
                labels = []
                for lab in self.labels:
                    if SOLVERS[lab]["group"] != group:
                        continue
                    why = self.skip_reason(lab, g)
                    if why:
                        self.record(g, dict(solver=lab, graph=g["name"], status=why[0], note=why[1]))
                    else:
                        labels.append(lab)
                if labels:
                    self.run_group(group, g, labels)
                self.collect_verify(block=self.opts["serial"])
            self.current = None
            on_graph_done()
        if self.pending_verify:
            print(f"waiting for {len(self.pending_verify)} verification(s)", flush=True)
        self.collect_verify(block=True)
        self.finish_all()
        for w in self.workers.values():
            w.quit()

    def finish_all(self) -> None:
        for g in self.graphs:
            if g.get("meta"):
                self.finish_graph(g)


def environment() -> dict:
    env = bench_common.machine_environment()
    env["numpy"] = np.__version__
    try:
        import scipy
        env["scipy"] = scipy.__version__
    except ImportError:
        pass
    try:
        with open("/proc/meminfo") as f:
            env["mem_total"] = f.readline().split(":", 1)[1].strip()
    except OSError:
        pass
    return env


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def _short(label: str) -> str:
    return (label.replace("jaxmatch-gpu-cmdbuf/", "gpu+cb ").replace("jaxmatch-gpu/", "gpu ")
            .replace("jaxmatch-cpu/", "cpu "))


def _ok(r: dict | None) -> bool:
    return bool(r and r.get("status") == "ok" and (r.get("check") or {}).get("ok") is True)


def best_of(doc: dict, gname: str, prefix: str) -> tuple[str, float, dict] | None:
    best = None
    for r in doc["results"]:
        if r["graph"] == gname and r["solver"].startswith(prefix) and _ok(r):
            if best is None or r["median_s"] < best[1]:
                best = (r["solver"], r["median_s"], r)
    return best


def _ratio(x: float | None, goal: float, higher_is_better: bool = True) -> str:
    if x is None:
        return "-"
    met = x >= goal if higher_is_better else x <= goal
    return f"{x:.3g}x {'✓' if met else '✗'}" if higher_is_better else f"{x:.3g} {'✓' if met else '✗'}"


def render(doc: dict) -> str:
    graphs = doc["graphs"]
    labels = [s for s in doc["solvers"]]
    by = {(r["graph"], r["solver"]): r for r in doc["results"]}
    gnames = {g["name"]: g for g in graphs}
    head = (["graph", "n", "nnz", "max card.", "cheap card."] + [_short(s) for s in labels]
            + ["best jaxmatch GPU", "paper C2050", "vs paper (goal 10x)", "vs igraph (goal 20x)",
               "rcp / orig (goal <= 2)"])
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    shortfalls, notes, skips = [], {}, []
    for g in graphs:
        name = g["name"]
        meta = g.get("meta") or {}
        row = [name, f"{meta['n']:,}" if meta else "-", f"{meta['nnz']:,}" if meta else "-",
               (f"{g['max_cardinality']:,}" + ("" if "certified" in (g.get("max_source") or "")
                                               and not g["max_source"].startswith("uncert") else "*"))
               if g.get("max_cardinality") is not None else "-",
               f"{meta['cheap_cardinality']:,}" if meta else "-"]
        for s in labels:
            r = by.get((name, s))
            row.append(_cell(r))
            if r and (r.get("status") in ("error", "timeout") or (r.get("check") or {}).get("ok") is False):
                why = r.get("error") or (r.get("check") or {}).get("note") or ""
                key = (r.get("status") if (r.get("check") or {}).get("ok") is not False else "MISMATCH",
                       why.splitlines()[0][:300] if why else "")
                ent = notes.setdefault(key, ([], []))
                if s not in ent[0]:
                    ent[0].append(s)
                if name not in ent[1]:
                    ent[1].append(name)
            if r and r.get("status") in ("skipped", "too-slow") and r.get("note"):
                skips.append(f"- {name} / {s}: {r['note']}")
        bg = best_of(doc, name, "jaxmatch-gpu")
        row.append(f"{_fmt_t(bg[1])} ({_short(bg[0])})" if bg else "-")
        paper = PAPER_C2050_S.get(name)
        row.append(_fmt_t(paper) if paper else "")
        vs_paper = paper / bg[1] if (paper and bg) else None
        row.append(_ratio(vs_paper, GOAL_VS_PAPER) if paper else "")
        ig = by.get((name, "igraph"))
        vs_ig = ig["median_s"] / bg[1] if (bg and _ok(ig)) else None
        if vs_ig is not None and meta and meta["n"] >= GOAL_IGRAPH_MIN_N:
            row.append(_ratio(vs_ig, GOAL_VS_IGRAPH))
        else:
            row.append(f"{vs_ig:.3g}x" if vs_ig is not None else "-")
        rcp_ratio = None
        if g.get("permuted"):
            og = gnames.get(name[:-4])
            bo = best_of(doc, og["name"], "jaxmatch-gpu") if og else None
            if bo and bg:
                rcp_ratio = bg[1] / bo[1]
            row.append(_ratio(rcp_ratio, GOAL_RCP_RATIO, higher_is_better=False) if rcp_ratio else "-")
        else:
            row.append("")
        lines.append("| " + " | ".join(row) + " |")
        # shortfalls
        why = []
        if vs_paper is not None and vs_paper < GOAL_VS_PAPER:
            why.append(f"{vs_paper:.3g}x vs the paper's {_fmt_t(paper)} (goal {GOAL_VS_PAPER:g}x)")
        if vs_ig is not None and meta and meta["n"] >= GOAL_IGRAPH_MIN_N and vs_ig < GOAL_VS_IGRAPH:
            why.append(f"{vs_ig:.3g}x vs igraph (goal {GOAL_VS_IGRAPH:g}x)")
        if rcp_ratio is not None and rcp_ratio > GOAL_RCP_RATIO:
            why.append(f"permuted {rcp_ratio:.3g}x the original's time (goal <= {GOAL_RCP_RATIO:g})")
        if why:
            shortfalls.append((name, why, bg))

    out = [f"### Run `{doc.get('tag')}` ({doc.get('created', '?')}, {doc.get('wall_s', 0):.0f} s"
           + (", PARTIAL" if doc.get("partial") else "") + ")", ""]
    o = doc.get("options") or {}
    if o.get("fake"):
        out += ["**--fake-jaxmatch: the jaxmatch columns are a scipy stand-in, not jaxmatch.**", ""]
    if o.get("gpu_on_cpu"):
        out += ["**--test-gpu-on-cpu: the `gpu` columns ran on the CPU (harness test), not on a GPU.**", ""]
    out += ["\n".join(lines), ""]
    out.append(
        "Median wall time per call (inputs on the device, after the warm-up call that "
        "compiles). jaxmatch starts from the cheap matching (the `cheap card.` column, "
        "computed once on the CPU, not timed); igraph and scipy start from nothing and the "
        "whole call is timed (igraph's Graph construction is not). `max card.`: certified "
        "maximum (Koenig cover from `jaxmatch.verify_matching`); `*`: not certified (largest "
        "valid answer). `gpu`: `jaxmatch-gpu/method/bfs/mapping`; `gpu+cb`: the same with "
        "XLA command buffers; `cpu`: jaxmatch on the CPU. Ratios: paper (or igraph) time / best "
        "jaxmatch GPU time (higher is better); rcp / orig: best GPU time on the permuted graph / "
        "on the original. `skip`: predicted over the per-call limit, or timed out on a smaller "
        "graph of the family; `not run`: the run's deadline came first.")
    # details of the best GPU variant
    det = ["", "Best jaxmatch GPU variant per graph:", "",
           "| graph | solver | median | warm-up (compile) | phases | BFS levels | per level | "
           "augmentations after cheap |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for g in graphs:
        bg = best_of(doc, g["name"], "jaxmatch-gpu")
        if not bg:
            continue
        r = bg[2]
        lv = r.get("n_levels")
        aug = (g["max_cardinality"] - g["meta"]["cheap_cardinality"]
               if g.get("max_cardinality") is not None else None)
        det.append(f"| {g['name']} | {r['solver']} | {_fmt_t(r['median_s'])} | {_fmt_t(r.get('warmup_s'))} | "
                   f"{r.get('n_phases', '-')} | {lv if lv is not None else '-'} | "
                   f"{_fmt_t(r['median_s'] / lv) if lv else '-'} | {aug if aug is not None else '-'} |")
    if len(det) > 5:
        out += det
    if shortfalls:
        out += ["", "Goals not met (the run's numbers; the reasons are for the reader to add):"]
        for name, why, bg in shortfalls:
            extra = ""
            if bg:
                r = bg[2]
                if r.get("n_levels"):
                    extra = (f" [best: {r['solver']}, {r.get('n_phases')} phases, {r['n_levels']} "
                             f"BFS levels, {_fmt_t(r['median_s'] / r['n_levels'])} per level]")
            out.append(f"- {name}: " + "; ".join(why) + extra)
    flags = []
    for g in graphs:
        p = (g.get("meta") or {}).get("params") or g.get("params") or {}
        base = g["name"].replace("-rcp", "")
        if g["name"] in PAPER_C2050_S and base in UF_NNZ and g.get("meta"):
            nnz, uf = g["meta"]["nnz"], UF_NNZ[base]
            if abs(nnz - uf) > 0.02 * uf:
                flags.append(f"- {g['name']}: this graph has {nnz:,} nonzeros, the UF graph of the "
                             f"paper's row {uf:,} ({nnz / uf:.2f}x)"
                             + (f"; kron edge factor {p.get('edge_factor')} (UF density needs 48)"
                                if p.get("family") == "kron" else "")
                             + (f"; rgg radius '{p.get('rgg_radius')}'" if p.get("family") == "rgg" else ""))
    if flags:
        out += ["", "Paper rows on graphs of another density:"] + flags
    if notes:
        out += ["", "Problems:"]
        for (st, why), (labs, where) in notes.items():
            where_s = "every graph" if len(where) == len(graphs) else ", ".join(where)
            out.append(f"- {st} for {', '.join(labs)} in {where_s}: {why}")
    if skips:
        out += ["", "Skipped:"] + skips
    gl = ["", "Graphs:"]
    for g in graphs:
        m = g.get("meta")
        if not m:
            gl.append(f"- {g['name']}: {g.get('status')}: {g.get('error')}")
            continue
        c = g.get("certificate")
        gl.append(f"- {g['name']}: n {m['n']:,}, nnz {m['nnz']:,} (avg degree {m.get('avg_degree', 0):.2f}, "
                  f"max {m.get('max_degree', '?')}), generated in {m['gen_s']:.2f} s"
                  f"{' (cached)' if m.get('cached') else ''}; cheap {m['cheap_cardinality']:,} "
                  f"({m.get('cheap_method', '?')}, {m['cheap_s']:.2f} s); maximum: {g.get('max_source')}"
                  + (f", verify_matching {c['verify_s']:.1f} s"
                     if c and c.get("verify_s") is not None else "")
                  + (f"; verification: {g['verify_error']}" if g.get("verify_error") and not
                     (c and c.get("maximum")) else ""))
    out += gl
    env = doc.get("environment") or {}
    meta = ["", "Run:", f"- gpu={env.get('gpu', '-')}; cpu={env.get('cpu', '-')} "
            f"x{env.get('cpu_count', '?')}, "
            f"{env.get('mem_total', '?')}; python {env.get('python')}, numpy {env.get('numpy')}, "
            f"scipy {env.get('scipy')}",
            f"- options: {json.dumps(doc.get('options', {}))}"]
    for s, info in (doc.get("worker_info") or {}).items():
        if info:
            meta.append(f"- {s}: {json.dumps({k: v for k, v in info.items() if k != 'file'})}")
    out += meta
    return "\n".join(out)


def report_main(files: list[str], out: str | None) -> int:
    parts = []
    for f in files:
        try:
            parts.append(render(json.loads(Path(f).read_text())))
        except (OSError, json.JSONDecodeError, KeyError) as err:
            print(f"skipping {f}: {err}", file=sys.stderr)
    if not parts:
        return 1
    md = "\n\n".join(parts)
    print(md)
    if out:
        Path(out).write_text(md + "\n")
    return 0


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def select_labels(spec: str | None) -> list[str]:
    if not spec:
        return list(SOLVERS)
    out: list[str] = []
    for s in spec.split(","):
        s = s.strip()
        if not s:
            continue
        if s in GROUPS:
            out += [k for k, v in SOLVERS.items() if v["group"] == s]
            continue
        hit = [k for k in SOLVERS if fnmatch.fnmatchcase(k, s)]
        if not hit:
            raise SystemExit(f"--solvers: {s!r} matches nothing; groups {GROUPS}; labels {list(SOLVERS)}")
        out += hit
    chosen = set(out)
    return [k for k in SOLVERS if k in chosen]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--families", default="delaunay,rgg,kron", help="comma-separated: delaunay,rgg,kron")
    p.add_argument("--sizes", nargs="+", type=int, default=[20, 21, 22, 23],
                   help="K values, 2^K vertices (default 20 21 22 23)")
    p.add_argument("--permuted", choices=("both", "orig", "rcp"), default="both",
                   help="original graphs, their RCP versions, or both (default)")
    p.add_argument("--solvers", default=None,
                   help="comma-separated labels, group names (" + ", ".join(GROUPS) + ") or "
                        "shell patterns (e.g. 'jaxmatch-gpu/apfb/*'); default all")
    p.add_argument("--cache", default=mg.DEFAULT_CACHE, help="graph cache directory")
    p.add_argument("--out", default=None, help="JSON output path")
    p.add_argument("--report-out", default=None, help="also write the markdown report here")
    p.add_argument("--tag", default="mcm", help="label stored in the output")
    p.add_argument("--repeats", type=int, default=3, help="timed calls per (solver, graph)")
    p.add_argument("--budget", type=float, default=10.0,
                   help="stop repeating once this many seconds of timed calls are spent")
    p.add_argument("--max-seconds-per-run", type=float, default=60.0,
                   help="skip where one call is predicted above this; a warm-up above it ends the case")
    p.add_argument("--case-timeout", type=float, default=None,
                   help="kill a worker stuck this long in one stage (load, build, warm-up, call, "
                        "verify; default 2*max-seconds-per-run + 60)")
    p.add_argument("--scipy-timeout", type=float, default=60.0, help="kill one scipy call after this")
    p.add_argument("--gen-timeout", type=float, default=900.0, help="limit for generating one graph")
    p.add_argument("--deadline", type=float, default=None,
                   help="wall-clock seconds for the whole run; what is left is marked 'not run'")
    p.add_argument("--certify-max-nnz", type=int, default=300_000_000,
                   help="certify maximality (verify_matching, ~1 s per 10^6 nonzeros, in its own "
                        "process alongside the solvers) up to this many nonzeros")
    p.add_argument("--verify-timeout", type=float, default=900.0,
                   help="give up on one verify_matching call after this")
    p.add_argument("--no-prefetch", dest="prefetch", action="store_false",
                   help="do not generate the next graph while the solvers run")
    p.add_argument("--serial", action="store_true",
                   help="nothing alongside the solvers: no prefetch, and each verification "
                        "is waited for before the next solver group starts")
    p.add_argument("--rgg-radius", choices=("dimacs", "pi"), default="dimacs",
                   help="dimacs: 0.55*sqrt(ln n/n) (the UF graphs' density); pi: 0.55*sqrt(ln n/(pi n))")
    p.add_argument("--kron-edge-factor", type=int, default=16)
    p.add_argument("--order", choices=("spatial", "random"), default="spatial",
                   help="vertex order of the geometric graphs (spatial: Z-order, as the UF graphs)")
    p.add_argument("--execution", choices=("fused", "stepped", "auto"), default=None,
                   help="pass execution= to max_cardinality_matching (default: not passed)")
    p.add_argument("--fake-jaxmatch", action="store_true",
                   help="test the harness with a scipy stand-in for jaxmatch's solver")
    p.add_argument("--test-gpu-on-cpu", action="store_true",
                   help="run the jaxmatch-gpu labels on the CPU (harness testing only)")
    p.add_argument("--list", action="store_true", help="list graphs and solvers, then exit")
    p.add_argument("--report", nargs="+", metavar="JSON", help="render JSON results, then exit")
    p.add_argument("-o", dest="report_o", default=None, help="with --report: write markdown here")
    # worker-internal
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--spec", help=argparse.SUPPRESS)
    p.add_argument("--results", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.worker:
        return worker_main(args)
    if args.report:
        return report_main(args.report, args.report_o)

    families = [f.strip() for f in args.families.split(",") if f.strip()]
    bad = [f for f in families if f not in mg.FAMILIES]
    if bad:
        p.error(f"unknown families {bad}; known {list(mg.FAMILIES)}")
    labels = select_labels(args.solvers)
    graphs = []
    perms = {"both": (False, True), "orig": (False,), "rcp": (True,)}[args.permuted]
    for K in sorted(set(args.sizes)):
        for fam in families:
            params = mg.graph_params(fam, K, rgg_radius=args.rgg_radius,
                                     kron_edge_factor=args.kron_edge_factor, order=args.order)
            for perm in perms:
                graphs.append(dict(name=mg.graph_name(fam, K, perm), family=fam, K=K,
                                   permuted=perm, params=params))
    if args.list:
        print("graphs:", ", ".join(g["name"] for g in graphs))
        print("solvers:", ", ".join(labels))
        return 0

    max_run = args.max_seconds_per_run
    t_start = time.time()
    opts = dict(repeats=args.repeats, budget=args.budget, max_seconds_per_run=max_run,
                case_timeout=args.case_timeout or (2 * max_run + 60), scipy_timeout=args.scipy_timeout,
                gen_timeout=args.gen_timeout, certify_max_nnz=args.certify_max_nnz,
                verify_timeout=args.verify_timeout,
                prefetch=args.prefetch, serial=args.serial, cache=args.cache, fake=args.fake_jaxmatch,
                gpu_on_cpu=args.test_gpu_on_cpu, execution=args.execution,
                deadline_abs=t_start + (args.deadline if args.deadline else 10 * 24 * 3600))
    print(f"MCM benchmark [{args.tag}]: {len(graphs)} graphs, {len(labels)} solvers; "
          f"repeats={args.repeats} budget={args.budget:g}s max/run={max_run:g}s "
          f"case-timeout={opts['case_timeout']:g}s scipy-timeout={args.scipy_timeout:g}s"
          + (f" deadline={args.deadline:g}s" if args.deadline else "")
          + (" FAKE-JAXMATCH" if args.fake_jaxmatch else "")
          + (" GPU-LABELS-ON-CPU" if args.test_gpu_on_cpu else ""), flush=True)
    out_path = Path(args.out) if args.out else None

    with tempfile.TemporaryDirectory(prefix="mcmbench_") as td:
        runner = Runner(args, labels, graphs, opts, Path(td))

        def assemble(partial: bool) -> dict:
            gl = []
            for g in graphs:
                gl.append({k: v for k, v in g.items() if k not in ("prep_task", "prep_submitted")})
            return dict(
                tag=args.tag, partial=partial,
                created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                argv=sys.argv, options={k: v for k, v in opts.items() if k != "deadline_abs"},
                environment=environment() if not partial else {},
                worker_info={k: (w.info or ({"setup_error": w.setup_error["error"]} if w.setup_error else {}))
                             for k, w in runner.workers.items()},
                paper_c2050_s=PAPER_C2050_S, solvers=labels, graphs=gl,
                results=list(runner.results.values()), wall_s=time.time() - t_start)

        def on_graph_done():
            runner.finish_all()
            if out_path:
                out_path.parent.mkdir(parents=True, exist_ok=True)
                out_path.write_text(json.dumps(assemble(True), indent=1))

        try:
            runner.run(on_graph_done)
        finally:
            for w in runner.workers.values():
                w.kill()
        doc = assemble(False)
    if out_path:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(json.dumps(doc, indent=1))
        print(f"wrote {out_path}")
    md = render(doc)
    if args.report_out:
        Path(args.report_out).write_text(md + "\n")
    print()
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
