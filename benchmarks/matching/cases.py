"""Matching cases: the papers' graph families at 2^K vertices, original and
row/column permuted (RCP), their cheap matching and certified maximum.

``prepare`` runs once per graph in the prep worker (CPU): it generates the
graph or reads it from the cache, computes the cheap (greedy) matching that
warm-starts every jaxmatch variant, and the reference maximum: a jaxmatch
CPU solve certified by ``jaxmatch.verify_matching`` (a Koenig vertex cover),
up to ``--certify-max-nnz``. ``load`` reads both back in a solver worker.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from benchmarks.matching import graphs


def case_list(opts: dict) -> list[dict]:
    """Every (size, family, original/RCP) graph, sizes ascending."""
    perms = {"both": (False, True), "orig": (False,), "rcp": (True,)}[opts["permuted"]]
    families = [f.strip() for f in opts["families"].split(",") if f.strip()]
    unknown = [f for f in families if f not in graphs.FAMILIES]
    if unknown:
        raise SystemExit(f"unknown graph families {unknown}; known: {graphs.FAMILIES}")
    out = []
    for K in sorted(set(opts["sizes"])):
        for fam in families:
            params = graphs.graph_params(
                fam,
                K,
                rgg_radius=opts["rgg_radius"],
                kron_edge_factor=opts["kron_edge_factor"],
                order=opts["order"],
            )
            for perm in perms:
                name = graphs.graph_name(fam, K, perm)
                out.append(dict(name=name, family=fam, K=K, permuted=perm, params=params))
    return out


def check_matching(A, rm, cm) -> tuple[str, int]:
    """Checks that col_for_row / row_for_col is a matching of A.

    Args:
        A: the graph as a CSR matrix with sorted indices (rows x columns).
        rm: the column of each row, -1 if unmatched.
        cm: the row of each column, -1 if unmatched.

    Returns:
        ('' or the first problem found, the number of matched pairs): mates
        must agree and every pair must be an edge (a binary search per pair).
    """
    n, m = A.shape
    rm = np.asarray(rm).astype(np.int64).ravel()
    cm = np.asarray(cm).astype(np.int64).ravel()
    if rm.shape != (n,) or cm.shape != (m,):
        return f"shapes {rm.shape}, {cm.shape} do not fit {n} x {m}", 0
    if np.any((rm < -1) | (rm >= m)) or np.any((cm < -1) | (cm >= n)):
        return "a mate index is out of range", 0
    rows = np.flatnonzero(rm >= 0)
    if np.any(cm[rm[rows]] != rows):
        return "col_for_row and row_for_col disagree", int(rows.size)
    if np.count_nonzero(cm >= 0) != rows.size:
        return "row_for_col has pairs col_for_row lacks", int(rows.size)
    if rows.size:
        vals = np.asarray(A[rows, rm[rows]]).ravel()  # a binary search per pair
        if not np.all(vals != 0):
            i = rows[np.flatnonzero(vals == 0)[0]]
            return f"matched pair ({i}, {rm[i]}) is not an edge", int(rows.size)
    return "", int(rows.size)


def build_graph(A):
    """A ``jaxmatch.BipartiteGraph`` with numpy leaves from the canonical CSR
    matrix A: the column CSR is ``A.tocsc()``, the row CSR is A itself. This
    is what ``BipartiteGraph.from_scipy`` computes, without its ``np.unique``
    and ``lexsort``, which take minutes at 10^8 nonzeros."""
    import jaxmatch

    csc = A.tocsc()
    csc.sort_indices()
    G = jaxmatch.BipartiteGraph(
        indptr=np.asarray(A.indptr, np.int32),
        indices=np.asarray(A.indices, np.int32),
        data=None,
        shape=A.shape,
        col_indptr=np.asarray(csc.indptr, np.int32),
        col_indices=np.asarray(csc.indices, np.int32),
    )
    G.validate()
    return G


def _cheap(A, path: Path) -> dict:
    """The cheap matching (cached next to the graph) and its time."""
    if path.exists():
        with np.load(path) as z:
            if "col_for_row" in z:  # else a cache of an older checkout: recomputed
                rm, cm = z["col_for_row"], z["row_for_col"]
                return dict(rm=rm, cm=cm, s=float(z["cheap_s"]), cached=True)
    import jax

    import jaxmatch

    G = build_graph(A)
    f = jax.jit(jaxmatch.cheap_matching)
    jax.block_until_ready(f(G))  # compiles
    t0 = time.perf_counter()
    r = jax.block_until_ready(f(G))
    s = time.perf_counter() - t0
    rm, cm = np.asarray(r.col_for_row, np.int32), np.asarray(r.row_for_col, np.int32)
    why, _ = check_matching(A, rm, cm)
    if why:
        raise RuntimeError(f"jaxmatch.cheap_matching is invalid: {why}")
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}.npz")
    np.savez(tmp, col_for_row=rm, row_for_col=cm, cheap_s=s)
    os.replace(tmp, path)
    return dict(rm=rm, cm=cm, s=s, cached=False)


def _certified_maximum(A, rm, cm) -> dict:
    """A jaxmatch CPU solve from the cheap matching, certified by verify_matching."""
    import jax

    import jaxmatch

    G = build_graph(A)
    t0 = time.perf_counter()
    res = jax.device_get(jaxmatch.max_cardinality_matching(G, init=(rm, cm)))
    t1 = time.perf_counter()
    cert = jaxmatch.verify_matching(G, res)
    return dict(
        maximum=int(cert.cardinality),
        certified=bool(cert.maximum and cert.valid),
        reason=str(cert.reason),
        solve_s=t1 - t0,
        verify_s=time.perf_counter() - t1,
    )


def prepare(case: dict, opts: dict) -> dict:
    """Graph (cached), cheap matching (cached) and reference maximum."""
    A, meta = graphs.load_graph(case["params"], case["permuted"], opts["cache"])
    cheap = _cheap(A, Path(meta["path"]).with_suffix(".cheap.npz"))
    out = dict(
        path=meta["path"],
        n=meta["n"],
        nnz=meta["nnz"],
        gen_s=meta["gen_s"],
        cached=meta["cached"],
        cheap_cardinality=int((cheap["cm"] >= 0).sum()),
        cheap_s=cheap["s"],
    )
    if A.nnz > opts["certify_max_nnz"]:
        out["reference_note"] = f"not certified: nnz > --certify-max-nnz {opts['certify_max_nnz']}"
    else:
        try:
            out["reference"] = _certified_maximum(A, cheap["rm"], cheap["cm"])
        except Exception as err:  # the solvers' agreement is the reference then
            out["reference_note"] = f"certification failed: {type(err).__name__}: {err}"[:500]
    return out


def load(case: dict, prepared: dict) -> dict:
    """The graph (CSR) and the cheap matching, in a solver worker."""
    A, _ = graphs.load_npz(Path(prepared["path"]))
    with np.load(Path(prepared["path"]).with_suffix(".cheap.npz")) as z:
        rm, cm = z["col_for_row"].astype(np.int32), z["row_for_col"].astype(np.int32)
    return dict(A=A, rm=rm, cm=cm)


def check(case: dict, prepared: dict, results: list[dict]) -> None:
    """Every answer must be a valid matching of the certified maximum
    cardinality; uncertified, of the largest valid answer (the peers' agreement)."""
    ref = prepared.get("reference") or {}
    valid = [r["cardinality"] for r in results if r.get("valid") and "cardinality" in r]
    if ref.get("certified"):
        maximum, source = ref["maximum"], "certified by verify_matching"
    elif valid:
        maximum = max(valid)
        source = "uncertified: the largest valid answer"
        if len(set(valid)) > 1:
            source += f" (answers differ: {sorted(set(valid))})"
    else:
        maximum, source = None, "no reference"
    prepared["max_cardinality"], prepared["max_source"] = maximum, source
    for r in results:
        if "cardinality" not in r:
            continue
        if not r.get("valid"):
            r["check"] = dict(ok=False, note=f"invalid matching: {r.get('invalid_reason')}")
        elif maximum is None:
            r["check"] = dict(ok=None, note=source)
        elif r["cardinality"] == maximum:
            r["check"] = dict(ok=True, certified=bool(ref.get("certified")))
        else:
            r["check"] = dict(
                ok=False, note=f"cardinality {r['cardinality']} != {maximum} ({source})"
            )
