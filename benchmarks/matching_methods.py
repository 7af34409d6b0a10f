"""Maximum matching, whole solve as a user calls it: every jaxmatch method x
initialisation against ECL-MM (and optionally igraph), one process.

Per graph (the matching benchmark's generators, ``benchmarks/matching/
graphs.py``, original and RCP-permuted): ``jax.jit(lambda G:
jaxmatch.max_cardinality_matching(G, method=M, init=I))`` on ``--device``,
one untimed call (the compilation), then ``--repeats`` timed calls to
``jax.block_until_ready`` (the graph is on the device before timing); the
median is reported with the solve's phases. ECL-MM (``--ecl-mm BINARY``,
built from ``../shared/anchors/ecl-mm``) reads the graph from a binary
``.egr`` file (rows 0..n-1, columns n..2n-1, every edge both ways) and
prints its own ``totalRunTime`` (its initial matching plus the augmenting
phase, after the graph is on the GPU); the median of ``--repeats`` runs is
reported. igraph's ``maximum_bipartite_matching`` (``--igraph``) is timed
like a jaxmatch cell, without the untimed first call: the median of
``--repeats`` calls, one where the first takes longer than
``--max-seconds`` (its ``Graph`` is built untimed). ``--ecl-mm-timeout T``
stops an ECL-MM run, ``--igraph-timeout T`` igraph's calls (then in a child
process), after T seconds and reports ``timeout_s``: a lower bound on the
peer's time. Every cardinality is compared with the first jaxmatch result,
which ``verify_matching`` certifies (a Konig cover of the same size). Run:

    python -m benchmarks.matching_methods [--sizes 20] [--families delaunay,rgg,kron]
        [--device gpu] [--ecl-mm ./ecl-mm] [--igraph] [--json out.json]
        [--methods auto,pr] [--inits cheap] [--max-seconds 5] [--igraph-max-nnz N]
        [--init-alone] [--ecl-mm-timeout 600] [--igraph-timeout 300]
        [--inits cheap,cheap-keep-trees]

``--methods`` and ``--inits`` restrict the jaxmatch cells (large sizes:
the default alone). The init ``cheap-no-restart`` is ``cheap`` with
``tuning=jaxmatch.MatchingTuning(greedy_restart_levels=0)`` (the stepped GPU
solver's restart from the ordered greedy switched off), ``cheap-keep-trees``
``cheap`` with ``MatchingTuning(keep_trees_divisor=4)`` (trees kept across
phases). ``--init-alone`` adds a cell
``init/I`` per init: the initial matching alone (``cheap_matching``,
``greedy_matching``, ``karp_sipser_matching``), timed the same way. A
cell whose first timed call takes longer than ``--max-seconds`` is reported
from that one call (``repeats`` 1 in its JSON cell). ``--igraph-max-nnz``
skips igraph on larger graphs.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from benchmarks.matching import graphs
from benchmarks.matching.cases import build_graph
from benchmarks.matching.peers import igraph_bipartite

METHODS = ("auto", "apfb", "apsb", "pr")
INITS = ("cheap", "greedy", "karp-sipser")
NO_RESTART = "cheap-no-restart"
KEEP_TREES = "cheap-keep-trees"
# Inits that are ``cheap`` with a tuning of their own (MatchingTuning fields).
CHEAP_VARIANTS = {NO_RESTART: {"greedy_restart_levels": 0}, KEEP_TREES: {"keep_trees_divisor": 4}}


def write_egr(A: sp.csr_matrix, path: Path) -> None:
    """``A`` (rows x columns) as ECL-MM's symmetric graph of 2 * max(shape)
    vertices: rows first, then columns, each edge in both directions."""
    n = max(A.shape)
    square = sp.csr_matrix((A.data, A.indices, A.indptr), shape=A.shape)
    square.resize(n, n)
    B = sp.bmat([[None, square], [square.T, None]], format="csr")
    B.sort_indices()
    with open(path, "wb") as f:
        np.array([B.shape[0], B.nnz], np.int32).tofile(f)
        np.asarray(B.indptr, np.int32).tofile(f)
        np.asarray(B.indices, np.int32).tofile(f)


def run_ecl_mm(binary: str, egr: Path, repeats: int, timeout: float = 600.0) -> dict:
    """ECL-MM's ``totalRunTime``: the median of ``repeats`` runs, or
    ``{"timeout_s": timeout}`` where a run (whole process) took longer."""
    times, sizes = [], set()
    for _ in range(repeats):
        try:
            out = subprocess.run(
                [binary, str(egr)], capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return {"timeout_s": timeout}
        total = re.search(r"totalRunTime: ([0-9.eE+-]+) s", out.stdout)
        size = re.search(r"sizeof_finalMatching: (\d+)", out.stdout)
        if out.returncode or not total or not size:
            return {"error": (out.stdout + out.stderr)[-500:]}
        times.append(float(total.group(1)) * 1e3)
        sizes.add(int(size.group(1)))
    return {"ms": statistics.median(times), "cardinality": sizes.pop() if len(sizes) == 1 else -1}


def run_igraph_bounded(
    A: sp.csr_matrix, repeats: int, max_seconds: float, timeout: float | None
) -> dict:
    """``run_igraph``, stopped once its calls have taken ``timeout`` seconds
    (``call_bounded``; its ``Graph`` is built first, untimed)."""
    if timeout is None:
        return run_igraph(A, repeats, max_seconds)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "graph.npz"
        sp.save_npz(path, A.tocsr(), compressed=False)
        return call_bounded(_igraph_from_file, (str(path), repeats, max_seconds), timeout)


def _igraph_from_file(path: str, repeats: int, max_seconds: float, built) -> dict:
    return run_igraph(sp.load_npz(path), repeats, max_seconds, built)


def call_bounded(fn, args: tuple, timeout: float) -> dict:
    """``fn(*args, built)`` in a spawned child process (``fn`` a module's
    function that returns a dict and calls ``built()`` before the part it
    times), stopped ``timeout`` seconds after ``built()``: its result, or
    ``{"timeout_s": timeout}``, a lower bound on the time it measures."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_bounded_child, args=(fn, args, child))
    proc.start()
    child.close()
    try:
        first = parent.recv()
        if first != "built":
            return first
        return parent.recv() if parent.poll(timeout) else {"timeout_s": timeout}
    except EOFError:
        proc.join()
        return {"error": f"the child process ended with code {proc.exitcode}"}
    finally:
        proc.kill()
        proc.join()


def _bounded_child(fn, args: tuple, conn) -> None:
    conn.send(fn(*args, built=lambda: conn.send("built")))


def run_igraph(
    A: sp.csr_matrix,
    repeats: int = 1,
    max_seconds: float = float("inf"),
    built=lambda: None,
) -> dict:
    """igraph's matching of A: the median of ``repeats`` calls, or one call
    where it took longer than ``max_seconds``; ``built()`` is called once
    its ``Graph`` is built, before the first timed call."""
    import igraph

    g, types = igraph_bipartite(igraph, A)
    built()
    times: list[float] = []
    while len(times) < max(1, repeats):
        t0 = time.perf_counter()
        m = g.maximum_bipartite_matching(types=types)
        times.append((time.perf_counter() - t0) * 1e3)
        if times[0] > max_seconds * 1e3:
            break
    return {"ms": statistics.median(times), "repeats": len(times), "cardinality": len(m)}


def time_cell(fn, Gd, repeats: int, max_seconds: float) -> tuple[dict, object]:
    """Compiles ``fn`` (one untimed call), then times up to ``repeats`` calls;
    the median and the last result's counters."""
    import jax

    res = jax.block_until_ready(fn(Gd))
    times: list[float] = []
    while len(times) < repeats:
        t0 = time.perf_counter()
        res = jax.block_until_ready(fn(Gd))
        times.append((time.perf_counter() - t0) * 1e3)
        if times[0] > max_seconds * 1e3:
            break
    res = jax.device_get(res)
    cell = {
        "ms": statistics.median(times),
        "repeats": len(times),
        "cardinality": int(res.cardinality),
        "iterations": int(res.iterations),
        "levels": int(res.levels),
        "status": int(res.status),
    }
    return cell, res


def solver(method: str, init: str):
    """The jitted whole solve; the variants of ``cheap`` (CHEAP_VARIANTS)
    are ``cheap`` with their tuning."""
    import functools

    import jax

    import jaxmatch

    kwargs: dict = {"method": method, "init": init}
    if init in CHEAP_VARIANTS:
        kwargs.update(init="cheap", tuning=jaxmatch.MatchingTuning(**CHEAP_VARIANTS[init]))
    return jax.jit(functools.partial(jaxmatch.max_cardinality_matching, **kwargs))


def initial_matching(init: str):
    """The jitted initial matching alone."""
    import jax

    import jaxmatch

    fns = {
        "cheap": jaxmatch.cheap_matching,
        "greedy": jaxmatch.greedy_matching,
        "karp-sipser": jaxmatch.karp_sipser_matching,
    }
    return jax.jit(fns["cheap" if init in CHEAP_VARIANTS else init])


def run_jaxmatch(
    G,
    device,
    repeats: int,
    methods=METHODS,
    inits=INITS,
    max_seconds: float = float("inf"),
    init_alone: bool = False,
) -> dict:
    import jax

    import jaxmatch

    Gd = jax.device_put(G, device)
    out = {}
    if init_alone:
        for init in dict.fromkeys("cheap" if i in CHEAP_VARIANTS else i for i in inits):
            cell, _ = time_cell(initial_matching(init), Gd, repeats, max_seconds)
            out[f"init/{init}"] = cell
    reference = None
    for method in methods:
        for init in inits:
            cell, res = time_cell(solver(method, init), Gd, repeats, max_seconds)
            if reference is None:
                cert = jaxmatch.verify_matching(G, res)
                cell["certified"] = bool(cert.maximum)
                reference = cell["cardinality"]
            cell["agrees"] = cell["cardinality"] == reference
            out[f"{method}/{init}"] = cell
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", nargs="+", type=int, default=[20])
    p.add_argument("--families", default=",".join(graphs.FAMILIES))
    p.add_argument("--permuted", choices=("both", "orig", "rcp"), default="both")
    p.add_argument("--device", choices=("cpu", "gpu"), default="gpu")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--ecl-mm", help="ECL-MM binary")
    p.add_argument("--igraph", action="store_true", help="time igraph (CPU) too")
    p.add_argument("--igraph-max-nnz", type=int, help="skip igraph above this many edges")
    p.add_argument("--methods", default=",".join(METHODS))
    p.add_argument("--inits", default=",".join(INITS), help=f"also {', '.join(CHEAP_VARIANTS)}")
    p.add_argument("--init-alone", action="store_true", help="time each initial matching alone too")
    p.add_argument(
        "--max-seconds",
        type=float,
        default=float("inf"),
        help="one timed call for cells whose first call takes longer",
    )
    p.add_argument(
        "--ecl-mm-timeout",
        type=float,
        default=600.0,
        help="stop an ECL-MM run after this many seconds (a lower bound)",
    )
    p.add_argument(
        "--igraph-timeout",
        type=float,
        help="stop igraph's calls after this many seconds (a lower bound)",
    )
    p.add_argument("--cache", default=graphs.DEFAULT_CACHE)
    p.add_argument("--json")
    args = p.parse_args(argv)

    import jax

    device = jax.devices(args.device)[0]
    perms = {"both": (False, True), "orig": (False,), "rcp": (True,)}[args.permuted]
    rows = []
    print(f"command: python -m benchmarks.matching_methods {' '.join(argv or sys.argv[1:])}")
    print(f"device: {device.device_kind}; jax {jax.__version__}\n")
    with tempfile.TemporaryDirectory() as tmp:
        for K in args.sizes:
            for family in args.families.split(","):
                params = graphs.graph_params(family, K)
                original = None
                for permuted in perms:
                    A, meta = graphs.load_graph(
                        params, permuted=permuted, cache=args.cache or None, original=original
                    )
                    if not permuted:
                        original = A
                    row = {"graph": meta["name"], "n": A.shape[0], "nnz": int(A.nnz)}
                    row["jaxmatch"] = run_jaxmatch(
                        build_graph(A),
                        device,
                        args.repeats,
                        methods=args.methods.split(","),
                        inits=args.inits.split(","),
                        max_seconds=args.max_seconds,
                        init_alone=args.init_alone,
                    )
                    if args.ecl_mm:
                        egr = Path(tmp) / "graph.egr"
                        write_egr(A, egr)
                        row["ecl-mm"] = run_ecl_mm(
                            args.ecl_mm, egr, args.repeats, args.ecl_mm_timeout
                        )
                    igraph_cap = args.igraph_max_nnz
                    if args.igraph and (igraph_cap is None or A.nnz <= igraph_cap):
                        row["igraph"] = run_igraph_bounded(
                            A, args.repeats, args.max_seconds, args.igraph_timeout
                        )
                    rows.append(row)
                    print_row(row)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


def print_row(row: dict) -> None:
    ecl = row.get("ecl-mm", {}).get("ms")
    print(f"{row['graph']} (n={row['n']:,}, nnz={row['nnz']:,})")
    for name in ("ecl-mm", "igraph"):
        if name in row:
            cell = row[name]
            ms = cell.get("ms", 1e3 * cell.get("timeout_s", float("nan")))
            above = ">" if "timeout_s" in cell else " "
            print(f"  {name:24s}{above}{ms:9.2f} ms  {cell}")
    for label, cell in row["jaxmatch"].items():
        ratio = f"  x{cell['ms'] / ecl:.2f} of ECL-MM" if ecl else ""
        differs = "" if cell.get("agrees", True) else " DIFFERS"
        print(
            f"  {label:24s} {cell['ms']:9.2f} ms  iterations {cell['iterations']:4d}"
            f"  levels {cell['levels']:7d}  card {cell['cardinality']}{differs}{ratio}"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(main())
