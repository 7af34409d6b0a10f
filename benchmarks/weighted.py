"""Approximate weighted matching: jaxmatch's Suitor and LD against networkit's
SuitorMatcher and a compiled sequential greedy matching.

One process. Per graph and weighting: networkit's Suitor on one thread and
on all cores, networkit's SortSuitor (adjacency lists sorted by weight
first, the sort not timed), the sequential greedy algorithm in C++
(``greedy_matching.cc``, built with the host's compiler: sort the edges
heaviest first and scan, both timed; with jaxmatch's tie order it returns
jaxmatch's matching), and jaxmatch's ``approximate_weighted_matching``
with ``method="suitor"`` and ``"ld"`` under ``jax.jit`` on each of
``--device`` (``gpu,cpu`` times both in one run).
Every solver gets one untimed warm-up call (for jaxmatch: the compilation),
then ``--repeats`` timed calls; the median is reported. jaxmatch's graph is
on the device before timing (``jax.device_put``) and a call is timed to
``jax.block_until_ready``; a networkit call is ``SuitorMatcher.run()`` (the
matcher is built untimed).

Graphs (2^K vertices, K per family and ``--sizes``): ``delaunay``, ``rgg``
and ``kron`` are the matching benchmark's generators
(``benchmarks/matching/graphs.py``: a Delaunay triangulation and a random
geometric graph of uniform points in the unit square, vertices in Z-order;
Graph500 R-MAT, A, B, C = 0.57, 0.19, 0.19, edge factor 16, labels
permuted), cached under ``--cache``; ``powerlaw`` is a web-like Chung-Lu
graph made here (expected degrees a power law of exponent 2.3, average 16
before duplicate edges are merged, labels permuted). Each graph gets two
weightings, both float32:

* ``uniform``: U(0, 1] on the 2^-24 grid, a hash of the edge's endpoints
  (so it is the same from both ends and for every solver);
* ``measure``: for the geometric graphs the inverse Euclidean length
  ``1 / (1e-9 + |p_u - p_v|)`` (short edges are similar vertices); for kron
  and powerlaw ``1 / (deg(u) * deg(v))`` (the normalised adjacency of
  coarsening ratings: edges between low-degree vertices first; it has many
  ties).

Both libraries compute the greedy (locally dominant) matching, so they agree
where no two competing edges tie. They break ties differently: jaxmatch by
the larger endpoint (then the smaller one), networkit's Suitor by the
smaller one, so tied weights give two different locally dominant matchings.
The table reports each weight relative to jaxmatch Suitor's and how many
vertices' mates differ from it, rather than asserting equality.

Checks, untimed, for graphs of at most ``--verify-max-edges`` undirected
edges (``verify_weighted_matching`` is NumPy and single-threaded, about a
second per million edges): ``Graph.validate()``, and the certificate of
every distinct matching (``locally_dominant``, and ``ratio``: the weight
over the certificate's upper bound on the optimum, a proven lower bound on
the fraction of the optimum reached). Larger graphs show ``-`` there. The
LD matching is compared with Suitor's (they must be equal).

Quality against the optimum (``--exact-k K``): on every family at 2^K
vertices, networkx's exact ``max_weight_matching`` (pure Python, O(n^3):
K <= 12) and jaxmatch's Suitor; the table reports the weight over the
optimum next to the certificate's proven bound. Run:

    python -m benchmarks.weighted [--sizes small|medium|large|none] [--device cpu|gpu|gpu,cpu]
        [--repeats 5] [--exact-k K] [--json out.json]
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from benchmarks.harness import environment
from benchmarks.matching import graphs as mgraphs

FAMILIES = ("delaunay", "rgg", "kron", "powerlaw")
WEIGHTINGS = ("uniform", "measure")
GEOMETRIC = ("delaunay", "rgg")

#: K (2^K vertices) per family; undirected edges roughly 0.3-0.9M (small),
#: 3-8M (medium), 30-65M (large).
SIZES: dict[str, dict[str, int]] = {
    "small": {"delaunay": 17, "rgg": 16, "kron": 16, "powerlaw": 16},
    "medium": {"delaunay": 20, "rgg": 19, "kron": 19, "powerlaw": 19},
    "large": {"delaunay": 24, "rgg": 23, "kron": 22, "powerlaw": 22},
}

SEED = 20140519  # IPDPS 2014 (Manne and Halappanavar's Suitor)
POWERLAW_EXPONENT = 2.3
POWERLAW_AVG_DEGREE = 16

#: networkit's "no mate" (``networkit.none``, the largest uint64).
NK_NONE = np.iinfo(np.uint64).max


# --------------------------------------------------------------------------
# Graphs and weights
# --------------------------------------------------------------------------


def powerlaw(K: int) -> sp.csr_matrix:
    """A Chung-Lu graph on 2^K vertices: ``POWERLAW_AVG_DEGREE * n / 2``
    edges whose endpoints are drawn independently with probability
    proportional to ``(i + 1) ** (-1 / (POWERLAW_EXPONENT - 1))`` (expected
    degrees a power law of that exponent), labels randomly permuted;
    self-loops and duplicate edges dropped.

    Args:
      K: log2 of the number of vertices.

    Returns:
      The symmetric 0/1 adjacency matrix (CSR, int32 indices, sorted).
    """
    n = 1 << K
    rng = np.random.default_rng([SEED, K])
    cdf = np.cumsum(np.arange(1, n + 1, dtype=np.float64) ** (-1 / (POWERLAW_EXPONENT - 1)))
    cdf /= cdf[-1]
    m = POWERLAW_AVG_DEGREE * n // 2
    ends = np.minimum(np.searchsorted(cdf, rng.random(2 * m), side="right"), n - 1)
    perm = rng.permutation(n)
    return mgraphs._sym_from_pairs(perm[ends[:m]], perm[ends[m:]], n)


def load_structure(family: str, K: int, cache: str | None) -> tuple[str, sp.csr_matrix, bool]:
    """The graph of ``family`` at 2^K vertices: its name, symmetric CSR
    adjacency matrix (sorted indices, no self-loops or duplicates) and
    whether it came from the cache."""
    if family == "powerlaw":
        return f"powerlaw_n{K}", powerlaw(K), False
    A, meta = mgraphs.load_graph(mgraphs.graph_params(family, K), cache=cache)
    return meta["name"], A, bool(meta["cached"])


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser of uint64 ``x`` (wrapping arithmetic)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def edge_weights(
    family: str, K: int, weighting: str, A: sp.csr_matrix, rows: np.ndarray
) -> np.ndarray:
    """float32 weights of every stored entry of ``A`` (equal from both ends).

    Args:
      family: the graph family (the ``measure`` weighting depends on it).
      K: log2 of the number of vertices (geometric graphs: their points).
      weighting: ``"uniform"`` or ``"measure"`` (see the module docstring).
      A: the symmetric CSR adjacency matrix.
      rows: the row of each stored entry (``A.indices`` are the columns).

    Returns:
      float32 ``[A.nnz]``, all > 0.
    """
    cols = A.indices
    if weighting == "uniform":
        n = np.uint64(A.shape[0])
        lo = np.minimum(rows, cols).astype(np.uint64)
        hi = np.maximum(rows, cols).astype(np.uint64)
        h = _splitmix64(lo * n + hi + np.uint64(SEED))
        return ((h >> np.uint64(40)) + np.uint64(1)).astype(np.float32) * np.float32(2.0**-24)
    if family in GEOMETRIC:
        # The generators' own points: vertex i of the graph is point i.
        P = mgraphs._points(family, K, "spatial")
        dist = np.hypot(P[rows, 0] - P[cols, 0], P[rows, 1] - P[cols, 1])
        return (1.0 / (1e-9 + dist)).astype(np.float32)
    deg = np.diff(A.indptr).astype(np.float64)
    return (1.0 / (deg[rows] * deg[cols])).astype(np.float32)


def networkit_graph(A: sp.csr_matrix, rows: np.ndarray, w: np.ndarray) -> Any:
    """A weighted undirected ``networkit.Graph`` of the edges of ``A`` (each
    once, from its strict upper-triangle entry: ``GraphFromCsr`` adds each
    stored entry as an edge) with weights ``w`` (per stored entry)."""
    import networkit as nk

    n = A.shape[0]
    upper = A.indices > rows
    if hasattr(nk, "GraphFromCsr"):
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(rows[upper], minlength=n), out=indptr[1:])
        U = sp.csr_matrix((w[upper].astype(np.float64), A.indices[upper], indptr), shape=(n, n))
        return nk.GraphFromCsr(U, directed=False, weighted=True)
    ij = (rows[upper].astype(np.uint64), A.indices[upper].astype(np.uint64))
    return nk.GraphFromCoo((w[upper].astype(np.float64), ij), n=n, weighted=True)


# --------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------


def time_calls(call: Callable[[], tuple[float, Any]], repeats: int) -> dict[str, Any]:
    """One warm-up call, then ``repeats`` timed calls.

    Args:
      call: runs the solver once and returns (seconds, answer).
      repeats: the number of timed calls.

    Returns:
      ``warmup_s``, ``times_s`` (every timed call), ``median_s`` and
      ``answer`` (the last call's).
    """
    warmup_s, answer = call()
    times = []
    for _ in range(repeats):
        dt, answer = call()
        times.append(dt)
    return {
        "warmup_s": warmup_s,
        "times_s": times,
        "median_s": float(np.median(times)),
        "answer": answer,
    }


def networkit_rows(g: Any, repeats: int) -> list[dict[str, Any]]:
    """networkit's Suitor (1 thread, all cores) and SortSuitor (all cores).

    networkit's proposal phase (``findSuitor``) is a sequential loop over
    the vertices; only the final pairing runs in parallel, so the thread
    count changes little. SortSuitor reads adjacency lists sorted by
    non-increasing weight: ``graphtools.sortEdgesByWeight`` sorts ``g`` in
    place first (not timed, its time in ``sort_s``).

    Args:
      g: the weighted undirected networkit graph (sorted in place).
      repeats: timed calls per row.

    Returns:
      One record per row: ``solver``, ``threads``, timings and ``mate``
      (int64 ``[n]``, -1 unmatched).
    """
    import networkit as nk

    def call(sort: bool) -> tuple[float, np.ndarray]:
        matcher = nk.matching.SuitorMatcher(g, sortSuitor=sort, checkSortedEdges=sort)
        t0 = time.perf_counter()
        matcher.run()
        dt = time.perf_counter() - t0
        mate = np.asarray(matcher.getMatching().getVector(), dtype=np.uint64)
        return dt, np.where(mate == NK_NONE, -1, mate.astype(np.int64))

    cores = os.cpu_count() or 1
    out = []
    for threads in (1, cores):
        nk.setNumberOfThreads(threads)
        rec = time_calls(functools.partial(call, False), repeats)
        rec["mate"] = rec.pop("answer")
        out.append({"solver": f"networkit Suitor, {threads} thread(s)", "threads": threads, **rec})
    t0 = time.perf_counter()
    nk.graphtools.sortEdgesByWeight(g, True)
    sort_s = time.perf_counter() - t0
    rec = time_calls(functools.partial(call, True), repeats)
    rec["mate"] = rec.pop("answer")
    out.append(
        {"solver": f"networkit SortSuitor, {cores} thread(s)", "threads": cores, **rec,
         "sort_s": sort_s, "note": f"+ sort {sort_s * 1e3:.0f} ms untimed"}
    )  # fmt: skip
    return out


GREEDY_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "greedy_matching.cc")


@functools.cache
def greedy_library() -> Any:
    """``greedy_matching.cc`` compiled with the host's C++ compiler (``$CXX``
    or ``c++``, ``-O3``) into a temporary directory keyed by the source's
    hash, and loaded with ctypes."""
    with open(GREEDY_SOURCE, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    lib = os.path.join(tempfile.gettempdir(), f"jaxmatch_bench_greedy_{digest}.so")
    if not os.path.exists(lib):
        cxx = os.environ.get("CXX", "c++")
        tmp = f"{lib}.{os.getpid()}"
        subprocess.run(
            [cxx, "-O3", "-std=c++17", "-shared", "-fPIC", GREEDY_SOURCE, "-o", tmp], check=True
        )
        os.replace(tmp, lib)
    so = ctypes.CDLL(lib)
    ptr = np.ctypeslib.ndpointer
    so.greedy_matching.restype = ctypes.c_int64
    so.greedy_matching.argtypes = [
        ctypes.c_int64,
        ptr(np.int32, flags="C"),
        ptr(np.int32, flags="C"),
        ptr(np.float32, flags="C"),
        ctypes.c_int32,
        ptr(np.int32, flags="C"),
    ]
    return so


def greedy_rows(
    A: sp.csr_matrix, rows: np.ndarray, w: np.ndarray, repeats: int
) -> list[dict[str, Any]]:
    """The compiled sequential greedy matching (sort the edges heaviest
    first, scan; both steps timed), one thread.

    Args:
      A: the symmetric CSR adjacency matrix.
      rows: the row of each stored entry.
      w: float32 weight of each stored entry.
      repeats: timed calls.

    Returns:
      One record: ``solver``, timings and ``mate`` (int64 ``[n]``).
    """
    so = greedy_library()
    upper = A.indices > rows
    u = np.ascontiguousarray(rows[upper], np.int32)
    v = np.ascontiguousarray(A.indices[upper], np.int32)
    wu = np.ascontiguousarray(w[upper], np.float32)
    n = A.shape[0]

    def call() -> tuple[float, np.ndarray]:
        mate = np.empty(n, np.int32)
        t0 = time.perf_counter()
        so.greedy_matching(u.size, u, v, wu, n, mate)
        return time.perf_counter() - t0, mate.astype(np.int64)

    rec = time_calls(call, repeats)
    rec["mate"] = rec.pop("answer")
    return [{"solver": "sequential greedy (C++, sort + scan)", "threads": 1, **rec}]


def jaxmatch_rows(G: Any, device: Any, repeats: int) -> list[dict[str, Any]]:
    """jaxmatch's Suitor and LD under ``jax.jit`` on ``device``.

    Args:
      G: the graph (host arrays; put on ``device`` untimed).
      device: a JAX device.
      repeats: timed calls per method.

    Returns:
      One record per method: ``solver``, timings, ``mate`` (int64 ``[n]``),
      ``iterations``, ``status``.
    """
    import jax

    import jaxmatch

    Gd = jax.device_put(G, device)
    jax.block_until_ready(Gd)
    out = []
    for method in ("suitor", "ld"):
        fn = jax.jit(functools.partial(jaxmatch.approximate_weighted_matching, method=method))

        def call(fn=fn) -> tuple[float, Any]:
            t0 = time.perf_counter()
            res = jax.block_until_ready(fn(Gd))
            return time.perf_counter() - t0, res

        rec = time_calls(call, repeats)
        res = jax.device_get(rec.pop("answer"))
        out.append(
            {"solver": f"jaxmatch {method} ({device.platform})", **rec,
             "mate": np.asarray(res.mate, np.int64),
             "iterations": int(res.iterations), "status": res.status_name,
             "note": f"{int(res.iterations)} round(s)"}
        )  # fmt: skip
    return out


# --------------------------------------------------------------------------
# One case
# --------------------------------------------------------------------------


def matching_weight(rows: np.ndarray, cols: np.ndarray, w: np.ndarray, mate: np.ndarray) -> float:
    """float64 weight of ``mate`` on the graph of entries (rows, cols, w)."""
    picked = (mate[rows] == cols) & (rows < cols)
    return float(w[picked].sum(dtype=np.float64))


def run_case(
    name: str,
    family: str,
    K: int,
    weighting: str,
    A: sp.csr_matrix,
    args: argparse.Namespace,
    devices: list[Any],
) -> list[dict[str, Any]]:
    """Every solver on one graph and weighting: timed, compared, checked.

    Args:
      name: the graph's name.
      family: its family (for the weights).
      K: log2 of its number of vertices.
      weighting: ``"uniform"`` or ``"measure"``.
      A: its symmetric CSR adjacency matrix.
      args: the parsed options (``repeats``, ``verify_max_edges``).
      devices: jaxmatch's JAX devices (its rows on each; the first one's
        Suitor is the reference the others are compared with).

    Returns:
      One JSON-able record per solver (the table's rows).
    """
    import jaxmatch

    n, m = A.shape[0], A.nnz // 2
    rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(A.indptr))
    w = edge_weights(family, K, weighting, A, rows)
    # The generators' CSR is canonical (sorted, symmetric, no loops or
    # duplicates), which is what Graph.from_edges would build (minutes at
    # 1e8 edges): wrap it; validate() below checks it.
    G = jaxmatch.Graph(A.indptr.astype(np.int32), A.indices.astype(np.int32), w, (n, n))
    recs = networkit_rows(networkit_graph(A, rows, w), args.repeats)
    recs += greedy_rows(A, rows, w, args.repeats)
    for device in devices:
        recs += jaxmatch_rows(G, device, args.repeats)

    check = m <= args.verify_max_edges
    if check:
        G.validate()
    certs: list[tuple[np.ndarray, Any]] = []  # one certificate per distinct mate

    def certify(mate: np.ndarray) -> Any:
        for seen, cert in certs:
            if np.array_equal(seen, mate):
                return cert
        cert = jaxmatch.verify_weighted_matching(G, mate)
        certs.append((mate, cert))
        return cert

    ref_mate = next(r["mate"] for r in recs if r["solver"].startswith("jaxmatch suitor"))
    ref_weight = matching_weight(rows, A.indices, w, ref_mate)
    out = []
    for r in recs:
        mate = r.pop("mate")
        weight = matching_weight(rows, A.indices, w, mate)
        r.update(
            graph=name, family=family, K=K, weighting=weighting, n=n, m=m,
            edges_per_s=m / r["median_s"], weight=weight,
            rel_diff=(weight - ref_weight) / ref_weight if ref_weight else 0.0,
            mates_differ=int(np.count_nonzero(mate != ref_mate)),
            cardinality=int(np.count_nonzero(mate >= 0) // 2),
        )  # fmt: skip
        if check:
            cert = certify(mate)
            r.update(
                valid=bool(cert.valid), locally_dominant=bool(cert.locally_dominant),
                upper_bound=float(cert.upper_bound), ratio=float(cert.ratio),
                reason=cert.reason,
            )  # fmt: skip
        out.append(r)
    return out


def exact_row(
    name: str, family: str, K: int, weighting: str, A: sp.csr_matrix, device: Any
) -> dict[str, Any]:
    """Quality against the optimum: networkx's exact ``max_weight_matching``
    (Edmonds' blossoms, O(n^3), one untimed-for-the-table call whose time is
    reported) and jaxmatch's Suitor on the same graph and weights.

    Args:
      name, family, K, weighting: the graph and weighting (as ``run_case``).
      A: the symmetric CSR adjacency matrix (small: networkx is pure Python).
      device: jaxmatch's JAX device.

    Returns:
      One record: ``optimum``, ``weight``, ``of_optimum`` (weight /
      optimum), ``ratio`` (the certificate's proven bound), ``networkx_s``.
    """
    import jax
    import networkx as nx

    import jaxmatch

    n = A.shape[0]
    rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(A.indptr))
    w = edge_weights(family, K, weighting, A, rows)
    upper = A.indices > rows
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from(
        zip(rows[upper].tolist(), A.indices[upper].tolist(), w[upper].astype(np.float64).tolist())
    )
    t0 = time.perf_counter()
    M = nx.max_weight_matching(g)
    networkx_s = time.perf_counter() - t0
    optimum = float(sum(g[a][b]["weight"] for a, b in M))
    G = jaxmatch.Graph(A.indptr.astype(np.int32), A.indices.astype(np.int32), w, (n, n))
    res = jax.device_get(
        jaxmatch.approximate_weighted_matching(jax.device_put(G, device), method="suitor")
    )
    mate = np.asarray(res.mate, np.int64)
    cert = jaxmatch.verify_weighted_matching(G, mate)
    weight = matching_weight(rows, A.indices, w, mate)
    return {
        "graph": name, "weighting": weighting, "n": n, "m": int(upper.sum()),
        "optimum": optimum, "optimum_cardinality": len(M), "weight": weight,
        "cardinality": int(np.count_nonzero(mate >= 0) // 2),
        "of_optimum": weight / optimum if optimum else 1.0, "ratio": float(cert.ratio),
        "locally_dominant": bool(cert.locally_dominant), "networkx_s": networkx_s,
    }  # fmt: skip


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def header(
    argv: list[str], devices: list[Any], module: str = "benchmarks.weighted"
) -> tuple[list[str], dict[str, Any]]:
    """The report's header lines (``module``'s command line) and the
    environment they describe."""
    import jax

    import jaxmatch

    env = environment()
    try:
        import networkit

        env["networkit"] = networkit.__version__
    except ImportError:
        env["networkit"] = "not installed"
    env.update(
        jaxmatch_path=os.path.dirname(jaxmatch.__file__),
        jax_devices=[str(d) for d in jax.devices()],
        device=", ".join(map(str, devices)),
    )
    cmd = f"python -m {module} " + shlex.join(argv)
    lines = [
        f"command: `{cmd.strip()}`",
        f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"machine: {env['platform']}; {env.get('cpu', 'cpu ?')} x{env['cpu_count']}"
        + (f"; {env['gpu']}" if "gpu" in env else ""),
        f"jax devices: {', '.join(env['jax_devices'])}; timed on {env['device']}",
        f"versions: python {env['python']}, jax {env.get('jax')}, jaxlib {env.get('jaxlib')}, "
        f"jaxmatch {env.get('jaxmatch')} ({env['jaxmatch_path']}), networkit {env['networkit']}, "
        f"numpy {env.get('numpy')}, scipy {env.get('scipy')}",
    ]
    return lines, env


def graphs_table(graphs: list[dict[str, Any]]) -> list[str]:
    """Markdown table of the graphs."""
    lines = [
        "| graph | n | m (undirected edges) | avg degree | max degree | made in (s) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for g in graphs:
        lines.append(
            f"| {g['graph']} | {g['n']:,} | {g['m']:,} | {2 * g['m'] / max(g['n'], 1):.1f} | "
            f"{g['max_degree']:,} | {g['load_s']:.1f}{' (cached)' if g['cached'] else ''} |"
        )
    return lines


def results_table(results: list[dict[str, Any]], verify_max_edges: int) -> list[str]:
    """Markdown table of the results, one row per (graph, weighting, solver)."""
    lines = [
        "| graph | weights | solver | ms | Medges/s | weight | ratio | rel. Δw | "
        "Δ mates | LD | notes |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in results:
        if "ratio" in r:
            ratio, ld = f"{r['ratio']:.4f}", "yes" if r["locally_dominant"] else "**no**"
        else:
            ratio, ld = "-", f"- (m > {verify_max_edges:.0e})"
        lines.append(
            f"| {r['graph']} | {r['weighting']} | {r['solver']} | {r['median_s'] * 1e3:.1f} | "
            f"{r['edges_per_s'] / 1e6:.1f} | {r['weight']:.6g} | {ratio} | "
            f"{r['rel_diff']:+.1e} | {r['mates_differ']:,} | {ld} | {r.get('note', '')} |"
        )
    return lines


def exact_table(rows: list[dict[str, Any]]) -> list[str]:
    """Markdown table of the quality rows against networkx's optimum."""
    lines = [
        "| graph | weights | n | m | optimum (networkx) | jaxmatch Suitor | of optimum | "
        "certified bound | cardinality / optimum's | networkx s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['graph']} | {r['weighting']} | {r['n']:,} | {r['m']:,} | {r['optimum']:.6g} | "
            f"{r['weight']:.6g} | {r['of_optimum']:.4f} | {r['ratio']:.4f} | "
            f"{r['cardinality']:,} / {r['optimum_cardinality']:,} | {r['networkx_s']:.1f} |"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    """Parses the options, runs every case and prints the report."""
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--sizes",
        choices=(*SIZES, "none"),
        default="small",
        help="graph sizes to time ('none': only the --exact-k comparison)",
    )
    p.add_argument(
        "--device",
        help="jaxmatch's platforms, comma-separated: cpu, gpu or gpu,cpu (default: JAX's default)",
    )
    p.add_argument("--repeats", type=int, default=5, help="timed calls per solver")
    p.add_argument("--families", default=",".join(FAMILIES), help="comma-separated")
    p.add_argument("--json", help="write every number to this file")
    p.add_argument(
        "--cache", default=mgraphs.DEFAULT_CACHE, help="graph cache directory ('' for none)"
    )
    p.add_argument(
        "--verify-max-edges",
        type=float,
        default=2e7,
        help="certify (and validate) only graphs of at most this many undirected edges",
    )
    p.add_argument(
        "--exact-k",
        type=int,
        help="also compare with networkx's exact matching on every family at 2^K vertices "
        "(networkx is O(n^3) pure Python: K <= 10)",
    )
    args = p.parse_args(argv)
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        p.error(f"unknown families {unknown}; known: {FAMILIES}")

    import jax

    platforms = [d.strip() for d in (args.device or "").split(",") if d.strip()]
    if not set(platforms) <= {"cpu", "gpu"}:
        p.error(f"--device: unknown platforms in {args.device!r}; known: cpu, gpu")
    devices = [jax.devices(pl)[0] for pl in platforms] or [jax.devices()[0]]
    head, env = header(argv, devices)
    graphs, results = [], []
    for family in families if args.sizes != "none" else []:
        K = SIZES[args.sizes][family]
        t0 = time.perf_counter()
        name, A, cached = load_structure(family, K, args.cache or None)
        load_s = time.perf_counter() - t0
        graphs.append(
            {"graph": name, "n": A.shape[0], "m": A.nnz // 2, "load_s": load_s,
             "cached": cached, "max_degree": int(np.diff(A.indptr).max())}
        )  # fmt: skip
        for weighting in WEIGHTINGS:
            print(f"{name} ({A.nnz // 2:,} edges), {weighting} weights", file=sys.stderr)
            for r in run_case(name, family, K, weighting, A, args, devices):
                print(f"  {r['solver']:40s} {r['median_s'] * 1e3:10.1f} ms", file=sys.stderr)
                results.append(r)
        del A
    exact: list[dict[str, Any]] = []
    if args.exact_k is not None:
        for family in families:
            name, A, _ = load_structure(family, args.exact_k, args.cache or None)
            for weighting in WEIGHTINGS:
                row = exact_row(name, family, args.exact_k, weighting, A, devices[0])
                exact.append(row)
                print(f"{name} {weighting}: exact in {row['networkx_s']:.1f} s", file=sys.stderr)

    print("\n".join(head))
    print()
    print("\n".join(graphs_table(graphs)))
    print()
    print("\n".join(results_table(results, int(args.verify_max_edges))))
    if exact:
        print()
        print("\n".join(exact_table(exact)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"header": head, "environment": env, "options": vars(args), "graphs": graphs,
                 "results": results, "exact": exact},
                f, indent=1,
            )  # fmt: skip


if __name__ == "__main__":
    main()
