"""b-matching: jaxmatch's ``approximate_b_matching`` against networkit's
``BSuitorMatcher``.

One process. Per graph, weighting and capacity ``b`` (every vertex the
same): networkit's b-Suitor (Khan et al., SISC 2016) on one thread and on
all cores (``--nk-threads``), and jaxmatch's ``approximate_b_matching``
under ``jax.jit`` on each of ``--device`` (``gpu,cpu`` times both in one
run). A jaxmatch solver gets one untimed warm-up call (the compilation),
then ``--repeats`` timed calls (``--cpu-repeats`` on the CPU); the median is
reported. The graph is on the device before timing (``jax.device_put``) and
a call is timed to ``jax.block_until_ready``; ``b`` is a traced argument, so
one compilation serves every ``b``. A networkit call is
``BSuitorMatcher.run()`` (the matcher is built untimed, ``getBMatching()``
is read untimed); networkit is compiled C++ with nothing to warm up, so it
gets ``--nk-repeats`` timed calls (default 1: one call at b = 20 on 10^8
edges takes minutes) and no warm-up.

Graphs (2^K vertices, K per family and ``--sizes``): ``kron`` and ``rgg`` as
in ``benchmarks/weighted.py`` (the matching benchmark's generators: Graph500
R-MAT with edge factor 16, labels permuted; the random geometric graph of
uniform points in the unit square, vertices in Z-order) and its web-like
Chung-Lu ``powerlaw`` graph; weightings ``uniform`` (a hash of the
endpoints, U(0, 1] on the 2^-24 grid) and ``measure`` (inverse length for
rgg, ``1 / (deg(u) deg(v))`` for kron and powerlaw: many ties), float32,
all from ``benchmarks.weighted_graphs`` (the same graphs and weights as
the weighted matching benchmark).

Columns: ``Medges/s`` is undirected edges over the median time; ``x nk`` is
networkit's all-cores median over the solver's (> 1: faster than
networkit). Both libraries compute a b-greedy b-matching (each is the
sequential b-greedy of some total order on the edges); jaxmatch orders tied
weights by the larger endpoint, then the smaller one, networkit otherwise,
so on tied weights the two b-matchings may differ with equal or nearly
equal weights: the table reports each weight relative to jaxmatch's first
device's (``rel. dw``) and the number of edges in one b-matching and not the
other (``d edges``), rather than asserting equality. jaxmatch's devices must
agree exactly (``notes`` says ``DIFFERS`` otherwise).

Checks, untimed: for graphs of at most ``--verify-max-edges`` undirected
edges and ``b`` in ``--verify-b``, ``Graph.validate()`` and
``verify_b_matching`` (NumPy; about 1.5 s per million edges with
``--refine 0``, 5 s with 4) of every distinct b-matching, while
``--verify-until`` seconds have not passed: ``LD`` (b-locally dominant in jaxmatch's order: exactly
the b-greedy's; a networkit result with other ties is dominant by weight,
which still proves 1/2, and shows ``by w``) and ``ratio`` (weight over the
certificate's upper bound on the optimum: a proven lower bound on the
fraction of the optimum reached). ``--deadline`` stops starting new cases
after that many seconds (the JSON and the table hold what ran).

    python -m benchmarks.b_matching [--sizes tiny|small|medium|large] [--device gpu,cpu]
        [--b 1,2,5,20] [--families kron,powerlaw,rgg] [--json out.json] [--deadline S]
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import sys
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

FAMILIES = ("kron", "powerlaw", "rgg")

#: K (2^K vertices) per family; undirected edges about 5-6e4 (tiny),
#: 0.7-1.0e6 (small), 1.4-1.7e7 (medium), 1.2-1.3e8 (large).
SIZES: dict[str, dict[str, int]] = {
    "tiny": {"kron": 12, "powerlaw": 13, "rgg": 13},
    "small": {"kron": 16, "powerlaw": 17, "rgg": 17},
    "medium": {"kron": 20, "powerlaw": 21, "rgg": 21},
    "large": {"kron": 23, "powerlaw": 24, "rgg": 24},
}


# --------------------------------------------------------------------------
# networkit
# --------------------------------------------------------------------------


def matches_mask(matches: list, A: sp.csr_matrix, rows: np.ndarray) -> np.ndarray:
    """bool ``[nnz]``: the stored entries of ``A`` whose pair is in
    networkit's b-matching (``matches[u]``: the set of ``u``'s partners)."""
    n = A.shape[0]
    counts = np.fromiter(map(len, matches), np.int64, count=n)
    partners = np.fromiter(itertools.chain.from_iterable(matches), np.int64, count=counts.sum())
    keys = np.sort(np.repeat(np.arange(n, dtype=np.int64), counts) * n + partners)
    entries = rows.astype(np.int64) * n + A.indices
    pos = np.minimum(np.searchsorted(keys, entries), max(keys.size - 1, 0))
    return (keys[pos] == entries) if keys.size else np.zeros(entries.size, bool)


def networkit_rows(
    g: Any, A: sp.csr_matrix, rows: np.ndarray, b: int, threads: list[int], repeats: int
) -> list[dict[str, Any]]:
    """networkit's ``BSuitorMatcher`` at each thread count: timings and the
    b-matching as a mask over ``A``'s entries."""
    import networkit as nk

    out = []
    for t in threads:
        nk.setNumberOfThreads(t)
        times, matcher = [], None
        for _ in range(repeats):
            matcher = nk.matching.BSuitorMatcher(g, b)
            t0 = time.perf_counter()
            matcher.run()
            times.append(time.perf_counter() - t0)
        assert matcher is not None
        mask = matches_mask(matcher.getBMatching().getMatches(), A, rows)
        out.append(
            {"solver": f"networkit b-Suitor, {t} thread(s)", "threads": t, "times_s": times,
             "median_s": float(np.median(times)), "mask": mask}
        )  # fmt: skip
    return out


# --------------------------------------------------------------------------
# jaxmatch
# --------------------------------------------------------------------------


@functools.cache
def _jitted() -> Any:
    import jax

    import jaxmatch

    return jax.jit(jaxmatch.approximate_b_matching)


def jaxmatch_row(Gd: Any, b: int, device: Any, repeats: int) -> dict[str, Any]:
    """jaxmatch's ``approximate_b_matching`` on ``device`` (``Gd`` already
    there): warm-up, ``repeats`` timed calls, the result's mask."""
    import jax
    import jax.numpy as jnp

    fn = _jitted()
    bd = jax.device_put(jnp.int32(b), device)

    def call() -> tuple[float, Any]:
        t0 = time.perf_counter()
        res = jax.block_until_ready(fn(Gd, bd))
        return time.perf_counter() - t0, res

    rec = time_calls(call, repeats)
    res = jax.device_get(rec.pop("answer"))
    return {
        "solver": f"jaxmatch ({device.platform})", **rec,
        "mask": np.asarray(res.matched)[: int(np.asarray(Gd.indptr)[-1])],
        "iterations": int(res.iterations), "status": res.status_name,
        "note": f"{int(res.iterations)} pass(es)",
    }  # fmt: skip


# --------------------------------------------------------------------------
# One case
# --------------------------------------------------------------------------


def run_case(
    G: Any,
    Gds: list[tuple[Any, Any]],
    A: sp.csr_matrix,
    rows: np.ndarray,
    w: np.ndarray,
    nk_graph: Any,
    b: int,
    args: argparse.Namespace,
    info: dict[str, Any],
) -> list[dict[str, Any]]:
    """Every solver on one graph, weighting and ``b``: timed, compared and
    (small enough) certified; one JSON-able record per solver."""
    from jaxmatch import verify_b_matching

    recs = []
    for device, Gd in Gds:
        reps = args.cpu_repeats if device.platform == "cpu" else args.repeats
        recs.append(jaxmatch_row(Gd, b, device, reps))
    if nk_graph is not None:
        threads = [t for t in args.nk_thread_list if t != 1 or b in args.nk1_b_list]
        recs += networkit_rows(nk_graph, A, rows, b, threads, args.nk_repeats)
    w64 = w.astype(np.float64)
    upper = A.indices > rows
    ref = recs[0]["mask"]
    ref_weight = float(w64[ref & upper].sum())
    nk_all = next(
        (r["median_s"] for r in recs if r.get("threads") == max(args.nk_thread_list, default=0)),
        None,
    )
    check = (
        info["m"] <= args.verify_max_edges
        and b in args.verify_b_list
        and (args.verify_until is None or time.perf_counter() - args.t_start < args.verify_until)
    )
    certs: list[tuple[np.ndarray, Any]] = []
    out = []
    for r in recs:
        mask = r.pop("mask")
        weight = float(w64[mask & upper].sum())
        r.update(
            **info, b=b, edges_per_s=info["m"] / r["median_s"], weight=weight,
            rel_diff=(weight - ref_weight) / ref_weight if ref_weight else 0.0,
            edges_differ=int(np.count_nonzero(mask != ref) // 2),
            cardinality=int(np.count_nonzero(mask & upper)),
            speedup_vs_networkit=(nk_all / r["median_s"]) if nk_all else None,
        )  # fmt: skip
        if r["solver"].startswith("jaxmatch") and r["edges_differ"]:
            r["note"] = r.get("note", "") + f" DIFFERS from {recs[0]['solver']}"
        if check:
            cert = next((c for seen, c in certs if np.array_equal(seen, mask)), None)
            if cert is None:
                full = np.zeros(np.shape(G.indices)[-1], bool)
                full[: mask.size] = mask
                cert = verify_b_matching(G, b, full, refine=args.refine)
                certs.append((mask, cert))
            by_weight = "ratio 1/2 still holds" in cert.reason
            r.update(
                valid=bool(cert.valid), locally_dominant=bool(cert.locally_dominant),
                dominant_by_weight=bool(cert.locally_dominant or by_weight),
                upper_bound=float(cert.upper_bound), ratio=float(cert.ratio),
                reason=cert.reason,
            )  # fmt: skip
        out.append(r)
    return out


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def results_table(results: list[dict[str, Any]]) -> list[str]:
    """Markdown table of the results, one row per (graph, weighting, b,
    solver)."""
    lines = [
        "| graph | weights | b | solver | ms | Medges/s | x nk | weight | ratio | rel. dw | "
        "d edges | LD | notes |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in results:
        if "ratio" in r:
            ratio = f"{r['ratio']:.4f}" if r["valid"] else "**invalid**"
            ld = "yes" if r["locally_dominant"] else "by w" if r["dominant_by_weight"] else "**no**"
        else:
            ratio, ld = "-", "-"
        x = r.get("speedup_vs_networkit")
        lines.append(
            f"| {r['graph']} | {r['weighting']} | {r['b']} | {r['solver']} | "
            f"{r['median_s'] * 1e3:.1f} | {r['edges_per_s'] / 1e6:.1f} | "
            f"{'-' if x is None else f'{x:.1f}'} | {r['weight']:.6g} | {ratio} | "
            f"{r['rel_diff']:+.1e} | {r['edges_differ']:,} | {ld} | {r.get('note', '')} |"
        )
    return lines


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def main(argv: list[str] | None = None) -> None:
    """Parses the options, runs every case and prints the report."""
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", choices=tuple(SIZES), default="small")
    p.add_argument(
        "--device",
        help="jaxmatch's platforms, comma-separated: cpu, gpu or gpu,cpu (default: JAX's default)",
    )
    p.add_argument("--b", default="1,2,5,20", help="capacities, comma-separated")
    p.add_argument("--families", default=",".join(FAMILIES), help="comma-separated")
    p.add_argument("--weightings", default=",".join(WEIGHTINGS), help="comma-separated")
    p.add_argument("--repeats", type=int, default=5, help="timed jaxmatch calls (GPU)")
    p.add_argument("--cpu-repeats", type=int, default=3, help="timed jaxmatch calls (CPU)")
    p.add_argument("--nk-repeats", type=int, default=1, help="timed networkit calls")
    p.add_argument(
        "--nk-threads",
        default="1,all",
        help="networkit thread counts ('all': every core; '': none)",
    )
    p.add_argument(
        "--nk1-b", default="", help="run networkit's one thread only at these b (default: every b)"
    )
    p.add_argument("--json", help="write every number to this file (after every case)")
    p.add_argument("--cache", default=mgraphs.DEFAULT_CACHE, help="graph cache ('' for none)")
    p.add_argument(
        "--verify-max-edges", type=float, default=2e7, help="certify graphs up to this many edges"
    )
    p.add_argument("--verify-b", default="", help="certify only these b (default: every b)")
    p.add_argument("--refine", type=int, default=0, help="verify_b_matching's refine")
    p.add_argument(
        "--verify-until", type=float, help="certify only cases started before this many seconds"
    )
    p.add_argument("--deadline", type=float, help="start no new case after this many seconds")
    args = p.parse_args(argv)
    t_start = args.t_start = time.perf_counter()
    families = [f.strip() for f in args.families.split(",") if f.strip()]
    weightings = [w.strip() for w in args.weightings.split(",") if w.strip()]
    if set(families) - set(FAMILIES) or set(weightings) - set(WEIGHTINGS):
        p.error(f"known families {FAMILIES}, weightings {WEIGHTINGS}")
    bs = _ints(args.b)
    args.verify_b_list = _ints(args.verify_b) if args.verify_b else bs
    args.nk1_b_list = _ints(args.nk1_b) if args.nk1_b else bs
    cores = os.cpu_count() or 1
    args.nk_thread_list = [
        cores if t.strip() == "all" else int(t) for t in args.nk_threads.split(",") if t.strip()
    ]
    try:
        import networkit  # noqa: F401
    except ImportError:
        print("networkit is not installed: its rows are left out", file=sys.stderr)
        args.nk_thread_list = []

    import jax

    import jaxmatch

    platforms = [d.strip() for d in (args.device or "").split(",") if d.strip()]
    if not set(platforms) <= {"cpu", "gpu"}:
        p.error(f"--device: unknown platforms in {args.device!r}; known: cpu, gpu")
    devices = [jax.devices(pl)[0] for pl in platforms] or [jax.devices()[0]]
    head, env = header(argv, devices, "benchmarks.b_matching")
    graphs: list[dict[str, Any]] = []
    results: list[dict[str, Any]] = []
    skipped: list[str] = []

    def dump() -> None:
        if args.json:
            with open(args.json, "w") as f:
                json.dump(
                    {"header": head, "environment": env, "options": vars(args),
                     "graphs": graphs, "results": results, "skipped": skipped},
                    f, indent=1,
                )  # fmt: skip

    def late() -> bool:
        return args.deadline is not None and time.perf_counter() - t_start > args.deadline

    structures: dict[str, tuple[str, sp.csr_matrix, np.ndarray]] = {}
    # Weighting-major: under --deadline every graph gets its first weighting.
    for weighting, family in itertools.product(weightings, families):
        K = SIZES[args.sizes][family]
        if late():
            skipped.append(f"{family} K={K} {weighting}: deadline")
            continue
        if family not in structures:
            t0 = time.perf_counter()
            name, A, cached = load_structure(family, K, args.cache or None)
            graphs.append(
                {"graph": name, "n": A.shape[0], "m": A.nnz // 2,
                 "load_s": time.perf_counter() - t0, "cached": cached,
                 "max_degree": int(np.diff(A.indptr).max())}
            )  # fmt: skip
            rows = np.repeat(np.arange(A.shape[0], dtype=np.int32), np.diff(A.indptr))
            structures[family] = (name, A, rows)
        name, A, rows = structures[family]
        n, m = A.shape[0], A.nnz // 2
        w = edge_weights(family, K, weighting, A, rows)
        # The generators' CSR is canonical: wrap it (validate() below).
        G = jaxmatch.Graph(A.indptr.astype(np.int32), A.indices.astype(np.int32), w, (n, n))
        if m <= args.verify_max_edges:
            G.validate()
        Gds = [(d, jax.block_until_ready(jax.device_put(G, d))) for d in devices]
        nk_graph = networkit_graph(A, rows, w) if args.nk_thread_list else None
        info = {"graph": name, "family": family, "K": K, "weighting": weighting, "n": n, "m": m}
        for b in bs:
            if late():
                skipped.append(f"{name} {weighting} b={b}: deadline")
                continue
            print(f"{name} ({m:,} edges), {weighting} weights, b = {b}", file=sys.stderr)
            for r in run_case(G, Gds, A, rows, w, nk_graph, b, args, info):
                print(f"  {r['solver']:36s} {r['median_s'] * 1e3:10.1f} ms", file=sys.stderr)
                results.append(r)
            dump()
        del Gds, nk_graph

    print("\n".join(head))
    print()
    print("\n".join(graphs_table(graphs)))
    print()
    print("\n".join(results_table(results)))
    if skipped:
        print()
        print(f"Not run (--deadline {args.deadline:g} s): " + "; ".join(skipped))
    dump()


if __name__ == "__main__":
    main()
