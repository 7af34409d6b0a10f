"""The graphs, weights, timing and report header shared by the weighted
matching benchmarks (``benchmarks/weighted.py``, ``benchmarks/b_matching.py``).

Graphs (2^K vertices): ``delaunay``, ``rgg`` and ``kron`` from the matching
benchmark's generators (``benchmarks/matching/graphs.py``), cached under a
cache folder; ``powerlaw``, a web-like Chung-Lu graph made here. Weightings,
float32: ``uniform`` (a hash of the edge's endpoints, U(0, 1] on the 2^-24
grid) and ``measure`` (inverse Euclidean length for the geometric graphs,
``1 / (deg(u) * deg(v))`` for kron and powerlaw); ``benchmarks/weighted.py``'s
docstring says why.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp

from benchmarks.harness import environment
from benchmarks.matching import graphs as mgraphs

WEIGHTINGS = ("uniform", "measure")
GEOMETRIC = ("delaunay", "rgg")

SEED = 20140519  # IPDPS 2014 (Manne and Halappanavar's Suitor)
POWERLAW_EXPONENT = 2.3
POWERLAW_AVG_DEGREE = 16


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
    ends = np.minimum(draw_from_cdf(cdf, rng.random(2 * m), K + 2), n - 1)
    perm = rng.permutation(n)
    return mgraphs._sym_from_pairs(perm[ends[:m]], perm[ends[m:]], n)


def draw_from_cdf(cdf: np.ndarray, u: np.ndarray, buckets_log2: int) -> np.ndarray:
    """``np.searchsorted(cdf, u, side="right")``, through a table over
    ``2**buckets_log2`` equal buckets of [0, 1): a key's bucket bounds its
    answer to a few indices, which a few vectorised comparisons settle, where
    a binary search takes about log2(len(cdf)) random reads per key.

    Args:
      cdf: float64 ``[n]``, nondecreasing.
      u: float64 keys in [0, 1).
      buckets_log2: the table's size; a power of two makes ``u * buckets``
        exact, so each key's bucket holds it.

    Returns:
      int64 ``[len(u)]``, the searchsorted indices.
    """
    buckets = 1 << buckets_log2
    # table[j]: the answer for key j / buckets, a lower bound for every key
    # of bucket j, whose table[j + 1] is an upper bound.
    table = np.searchsorted(cdf, np.arange(buckets + 1, dtype=np.float64) / buckets, side="right")
    j = (u * buckets).astype(np.int64)
    lo, hi = table[j], table[j + 1]
    width = hi - lo
    # The answer is lo plus the number of entries of [lo, hi) at most the key.
    wide = np.flatnonzero(width)
    first, key, span = lo[wide], u[wide], width[wide]
    extra = np.zeros(wide.size, np.int64)
    last = cdf.size - 1
    for step in range(int(width.max(initial=0))):
        extra += (step < span) & (cdf[np.minimum(first + step, last)] <= key)
    lo[wide] += extra
    return lo


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


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def header(argv: list[str], devices: list[Any], module: str) -> tuple[list[str], dict[str, Any]]:
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
