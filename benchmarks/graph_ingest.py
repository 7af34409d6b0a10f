"""Graph ingestion: each graph constructor beside the scipy conversion of
the same input, and (``--device-edges``) the device constructor feeding the
weighted matching.

One process. The input is a symmetric random matrix (``--degree`` stored
entries per row on average, no diagonal, float32 values in (0, 1]) of about
each ``--entries`` stored entries, given to every constructor in two forms:

- ``canonical``: a CSR with sorted indices and no repeats (for the edge
  constructors: its entries in CSR order, both ends of every edge); the
  reference is scipy's ``A.tocsc()``. ``Graph.from_edges`` also gets the
  upper triangle, sorted (each edge once).
- ``non-canonical``: the same entries shuffled, with the pairs ``(u, v)``
  where ``(u + v) % 20 == 0`` stored twice, half the value each (a COO
  matrix, or edge arrays); the reference is scipy's ``tocsr()`` of that COO
  input (``coo_matrix((w, (u, v))).tocsr()`` for edge arrays: the
  counting sort, the sort within rows and the merge of repeats).
- ``Graph.from_networkx``: a networkx graph of the same edges (up to
  ``--networkx-max`` entries); the reference is networkx's own
  ``to_scipy_sparse_array``.

Timing: per size, ``--repeats`` rounds; in each round every row calls its
reference, then its constructor, so a busy host slows both alike; the
medians are reported, and the median of the rounds' ratios (constructor
over reference, each from two calls made one after the other). A
constructor call is timed to ``jax.block_until_ready`` of the graph's
arrays (on the default device). Every result is checked untimed: its
stored entries count, and the canonical rows' graphs equal to
``from_scipy``'s.

``--device-edges M`` (a GPU): a random graph of ``M`` undirected edges on
``--device-n`` vertices generated on the device, then under ``jax.jit``
``Graph.from_edges_device`` alone, ``approximate_weighted_matching`` alone
and both in one program, timed (median of ``--device-repeats`` after a compiling
call); the device graph is compared with the host constructor's and its
matching certified by ``verify_weighted_matching`` on a graph of
``--verify-edges`` edges. Run:

    python -m benchmarks.graph_ingest [--entries 4194304 16777216] [--repeats 5]
    python -m benchmarks.graph_ingest --entries --device-edges 33554432 --device-n 4194304
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

# (constructor, input form, reference)
ROWS = (
    ("Graph.from_scipy", "canonical", "A.tocsc()"),
    ("Graph.from_scipy", "non-canonical", "coo.tocsr()"),
    ("Graph.from_edges", "canonical", "A.tocsc()"),
    ("Graph.from_edges", "upper, sorted", "A.tocsc()"),
    ("Graph.from_edges", "non-canonical", "coo.tocsr()"),
    ("Graph.from_networkx", "nx.Graph", "nx.to_scipy_sparse_array"),
    ("BipartiteGraph.from_scipy", "canonical", "A.tocsc()"),
    ("BipartiteGraph.from_scipy", "non-canonical", "coo.tocsr()"),
    ("BipartiteGraph.from_edges", "canonical", "A.tocsc()"),
    ("BipartiteGraph.from_edges", "non-canonical", "coo.tocsr()"),
    ("SparseCosts.from_scipy", "canonical", "A.tocsc()"),
    ("SparseCosts.from_scipy", "non-canonical", "coo.tocsr()"),
)
GOALS = {"canonical": 1.5, "upper, sorted": 1.5, "non-canonical": 3.0, "nx.Graph": 1.5}


def symmetric_matrix(entries: int, degree: int, seed: int = 0) -> Any:
    """A symmetric canonical CSR of about ``entries`` stored entries,
    ``entries / degree`` rows, no diagonal, float32 values in (0, 1]."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    n = max(2, entries // degree)
    m = entries // 2
    u = rng.integers(0, n, m, dtype=np.int32)
    v = rng.integers(0, n, m, dtype=np.int32)
    keep = u != v
    lo, hi = np.minimum(u, v)[keep], np.maximum(u, v)[keep]
    w = (1.0 - rng.random(lo.size, np.float32)).astype(np.float32)
    U = sp.csr_matrix((w, (lo, hi)), shape=(n, n))
    U.data = np.minimum(U.data, 1.0).astype(np.float32)  # repeated pairs summed: back in (0, 1]
    A = (U + U.T).tocsr()
    A.sort_indices()
    return A


def inputs(A: Any, seed: int = 1) -> dict[str, Any]:
    """The forms of ``A`` the rows take (see the module docstring)."""
    import scipy.sparse as sp

    coo = A.tocoo()
    r, c, d = coo.row, coo.col, coo.data
    twice = (r + c) % 20 == 0
    r2 = np.concatenate([r, r[twice]])
    c2 = np.concatenate([c, c[twice]])
    d2 = np.concatenate([np.where(twice, d / 2, d), d[twice] / 2]).astype(d.dtype)
    p = np.random.default_rng(seed).permutation(r2.size)
    up = r < c
    return {
        "csr": A,
        "edges": (r, c, d),
        "upper": (r[up], c[up], d[up]),
        "shuffled": (r2[p], c2[p], d2[p]),
        "coo": sp.coo_matrix((d2[p], (r2[p], c2[p])), shape=A.shape),
    }


def calls(
    row: tuple[str, str, str], A: Any, forms: dict[str, Any], g: Any
) -> tuple[Callable, Callable]:
    """(reference, constructor) of one row, as calls without arguments."""
    import scipy.sparse as sp

    import jaxmatch

    name, form, _ = row
    n = A.shape[0]
    cls = getattr(jaxmatch, name.split(".")[0])
    method = getattr(cls, name.split(".")[1])
    if form == "nx.Graph":
        import networkx as nx

        return (lambda: nx.to_scipy_sparse_array(g, format="csr")), (lambda: method(g))
    if form in ("canonical", "upper, sorted"):
        ref = A.tocsc
    else:
        r, c, d = forms["shuffled"]
        coo = forms["coo"]
        ref = (
            coo.tocsr
            if name.endswith("from_scipy")
            else (lambda: sp.coo_matrix((d, (r, c)), shape=A.shape).tocsr())
        )
    if name.endswith("from_scipy"):
        M = A if form == "canonical" else forms["coo"]
        return ref, (lambda: method(M))
    r, c, d = forms[{"canonical": "edges", "upper, sorted": "upper"}.get(form, "shuffled")]
    if name.startswith("Graph"):
        return ref, (lambda: method(r, c, d, n))
    return ref, (lambda: method(r, c, n, n))


def _timed(f: Callable) -> tuple[float, Any]:
    import jax

    t0 = time.perf_counter()
    out = f()
    jax.block_until_ready(jax.tree.leaves(out))
    return time.perf_counter() - t0, out


def _check(row: tuple[str, str, str], out: Any, A: Any, base: Any) -> str:
    """'' when the result holds A's entries (and equals ``base``, the
    canonical from_scipy graph of the same family, where one exists)."""
    nnz = int(np.asarray(out.indptr)[-1])
    if nnz != A.nnz:
        return f"{nnz} entries, expected {A.nnz}"
    if base is not None and row[1] != "non-canonical":
        for a, b in zip(
            (out.indptr, out.indices, getattr(out, "data", None)),
            (base.indptr, base.indices, getattr(base, "data", None)),
        ):
            if a is not None and not np.array_equal(np.asarray(a), np.asarray(b)):
                return "differs from the canonical from_scipy graph"
    return ""


def ingest_table(args: argparse.Namespace) -> int:
    import jaxmatch

    jaxmatch.Graph.from_edges([0], [1], [1.0], 2)  # JAX's first call outside the timing
    print(
        "| entries | constructor | input | jaxmatch s | scipy reference | scipy s | ratio | goal |"
    )
    print("|---:|---|---|---:|---|---:|---:|---:|")
    failures = 0
    for entries in args.entries:
        A = symmetric_matrix(entries, args.degree)
        forms = inputs(A)
        g = None
        rows = [r for r in ROWS if r[1] != "nx.Graph" or entries <= args.networkx_max]
        if any(r[1] == "nx.Graph" for r in rows):
            import networkx as nx

            g = nx.Graph()
            g.add_nodes_from(range(A.shape[0]))
            up = forms["upper"]
            g.add_weighted_edges_from(zip(up[0].tolist(), up[1].tolist(), up[2].tolist()))
        pairs = [calls(r, A, forms, g) for r in rows]
        times: list[tuple[list[float], list[float]]] = [([], []) for _ in rows]
        bases: dict[str, Any] = {}
        errors = [""] * len(rows)
        for _ in range(args.repeats):
            for k, (row, (ref, ours)) in enumerate(zip(rows, pairs)):
                times[k][0].append(_timed(ref)[0])
                t, out = _timed(ours)
                times[k][1].append(t)
                family = row[0].split(".")[0]
                if row[0].endswith("from_scipy") and row[1] == "canonical":
                    bases[family] = out
                errors[k] = errors[k] or _check(row, out, A, bases.get(family))
                del out
        for row, (t_ref, t_ours), err in zip(rows, times, errors):
            ref_s, ours_s = statistics.median(t_ref), statistics.median(t_ours)
            ratio = statistics.median(o / r for o, r in zip(t_ours, t_ref))
            note = f" ({err})" if err else ""
            failures += bool(err)
            print(
                f"| {entries:,} | `{row[0]}` | {row[1]}{note} | {ours_s:.3f} | `{row[2]}` | "
                f"{ref_s:.3f} | {ratio:.2f} | {GOALS[row[1]]} |"
            )
    return failures


def device_table(args: argparse.Namespace) -> int:
    import jax
    import jax.numpy as jnp

    import jaxmatch
    from jaxmatch import Graph

    def random_edges(key: Any, m: int, n: int) -> tuple[Any, Any, Any]:
        ku, kv, kw = jax.random.split(key, 3)
        u = jax.random.randint(ku, (m,), 0, n, jnp.int32)
        v = jax.random.randint(kv, (m,), 0, n, jnp.int32)
        w = 1.0 - jax.random.uniform(kw, (m,), jnp.float32)
        return u, v, w

    def median_ms(f: Callable, *xs: Any) -> float:
        jax.block_until_ready(f(*xs))  # compiles
        ts = []
        for _ in range(args.device_repeats):
            t0 = time.perf_counter()
            jax.block_until_ready(f(*xs))
            ts.append(time.perf_counter() - t0)
        return 1e3 * statistics.median(ts)

    failures = 0
    # Certified on a smaller graph, against the host constructor.
    m, n = args.verify_edges, max(2, args.verify_edges // 8)
    u, v, w = random_edges(jax.random.key(1), m, n)
    G = jax.jit(lambda u, v, w: Graph.from_edges_device(u, v, w, n))(u, v, w)
    H = Graph.from_edges(np.asarray(u), np.asarray(v), np.asarray(w), n)
    k = int(np.asarray(H.indptr)[-1])
    same = (
        int(G.status) == 0
        and np.array_equal(np.asarray(G.indptr), np.asarray(H.indptr))
        and np.array_equal(np.asarray(G.indices)[:k], np.asarray(H.indices))
        and np.array_equal(np.asarray(G.data)[:k], np.asarray(H.data))
    )
    res = jax.jit(jaxmatch.approximate_weighted_matching)(G)
    cert = jaxmatch.verify_weighted_matching(H, res)
    ok = same and cert.valid and cert.locally_dominant
    failures += not ok
    print(
        f"\ncheck: {m:,} edges on {n:,} vertices: device graph equal to the host's: {same}; "
        f"matching valid and locally dominant: {cert.valid and cert.locally_dominant} "
        f"(ratio >= {cert.ratio:.3f})\n"
    )
    m, n = args.device_edges, args.device_n
    u, v, w = jax.block_until_ready(random_edges(jax.random.key(0), m, n))
    build = jax.jit(lambda u, v, w: Graph.from_edges_device(u, v, w, n))
    match = jax.jit(jaxmatch.approximate_weighted_matching)
    both = jax.jit(
        lambda u, v, w: jaxmatch.approximate_weighted_matching(Graph.from_edges_device(u, v, w, n))
    )
    G = jax.block_until_ready(build(u, v, w))
    res = both(u, v, w)
    status = int(res.status)
    failures += status != 1 or int(G.status) != 0
    print(
        f"device: {jax.devices()[0].device_kind}; {m:,} undirected edges, {n:,} vertices, "
        f"{int(np.asarray(G.indptr)[-1]):,} stored entries; matching status {status}, "
        f"cardinality {int(res.cardinality):,}"
    )
    print("| step | ms (median) |")
    print("|---|---:|")
    print(f"| `from_edges_device` (jit) | {median_ms(build, u, v, w):.2f} |")
    print(f"| `approximate_weighted_matching` (jit) | {median_ms(match, G):.2f} |")
    print(f"| both in one jit | {median_ms(both, u, v, w):.2f} |")
    return failures


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--entries", nargs="*", type=int, default=[4_194_304, 16_777_216])
    p.add_argument("--degree", type=int, default=16, help="stored entries per row, on average")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument(
        "--networkx-max",
        type=int,
        default=4_194_304,
        help="the networkx row only up to this many entries",
    )
    p.add_argument(
        "--device-edges", type=int, default=0, help="undirected edges of the device run (0: none)"
    )
    p.add_argument("--device-n", type=int, default=4_194_304)
    p.add_argument("--device-repeats", type=int, default=10, help="timed calls of the device run")
    p.add_argument("--verify-edges", type=int, default=1_000_000)
    args = p.parse_args(argv)
    failures = ingest_table(args) if args.entries else 0
    if args.device_edges:
        failures += device_table(args)
    return int(failures > 0)


if __name__ == "__main__":
    raise SystemExit(main())
