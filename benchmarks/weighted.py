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
import subprocess
import sys
import tempfile
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from benchmarks.matching import graphs as mgraphs
from benchmarks.weighted_graphs import (
    WEIGHTINGS,
    edge_weights,
    graphs_table,
    header,
    load_structure,
    networkit_graph,
    time_calls,
)

FAMILIES = ("delaunay", "rgg", "kron", "powerlaw")

#: K (2^K vertices) per family; undirected edges roughly 0.3-0.9M (small),
#: 3-8M (medium), 30-65M (large).
SIZES: dict[str, dict[str, int]] = {
    "small": {"delaunay": 17, "rgg": 16, "kron": 16, "powerlaw": 16},
    "medium": {"delaunay": 20, "rgg": 19, "kron": 19, "powerlaw": 19},
    "large": {"delaunay": 24, "rgg": 23, "kron": 22, "powerlaw": 22},
}

#: networkit's "no mate" (``networkit.none``, the largest uint64).
NK_NONE = np.iinfo(np.uint64).max


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
    head, env = header(argv, devices, "benchmarks.weighted")
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
