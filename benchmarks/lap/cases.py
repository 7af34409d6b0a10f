"""LAP cases: batches of random square cost matrices, and the objective check.

The case lists and seeds are those of every published LAP table (the "GPU"
list by default, the "CPU" list with ``--cpu``), so numbers stay comparable.
"""

from __future__ import annotations

import numpy as np

BASE_SEED = 20240611

#: (batch, n, dist): "f32" = U[0, 1) float32, "int" = integers in [0, n],
#: "int10" = integers in [0, n / 10], "int10n" = integers in [0, 10 n] (the
#: seed paper's classes), "machol" = Machol-Wien c_ij = i * j (int32),
#: "sqdist" = squared distances between two sets of n random points in the
#: unit square (float32), "euclid" = their distances (float32; DETR-like
#: matching costs), "rank1" = u_i * v_j with u, v in U[0, 1) (float32),
#: "zeros" = every cost 0 (int32: all ties), "few" = integers in [0, 3]
#: (int32: few distinct values). Cases are appended, never inserted: a
#: case's seed follows its position.
GPU_CASES = [
    (1024, 32, "f32"),
    (256, 128, "f32"),
    (128, 256, "f32"),
    (16, 1024, "f32"),
    (1, 2000, "int"),
    (1, 5000, "int"),
    (1, 5000, "f32"),
    (1, 2000, "zeros"),
    (1, 5000, "zeros"),
    (1, 5000, "few"),
    (1, 10000, "f32"),
    (1, 4096, "sqdist"),
    (256, 100, "euclid"),
    (1, 5000, "int10"),
    (1, 5000, "int10n"),
    (1, 10000, "int10"),
    (1, 10000, "int"),
    (1, 10000, "int10n"),
    (1, 20000, "int10"),
    (1, 20000, "int"),
    (1, 20000, "int10n"),
]
CPU_CASES = [
    (64, 32, "f32"),
    (16, 128, "f32"),
    (4, 256, "f32"),
    (1, 1000, "int"),
    (1, 2000, "int"),
    (1, 500, "machol"),
    (1, 1000, "sqdist"),
    (4, 256, "rank1"),
    (1, 1000, "zeros"),
    (1, 2000, "few"),
]
#: Distributions of integer costs (checked exactly).
INT_DISTS = ("int", "int10", "int10n", "machol", "zeros", "few")
#: From this many entries per problem the reference objective is
#: jaxmatch's own (the prep worker runs on the CPU), certified by
#: ``verify_lap``, not scipy's (scipy takes minutes there).
CERTIFIED_REFERENCE_ENTRIES = 8192**2
#: Relative objective tolerance for float costs (integer costs must match exactly).
FLOAT_RTOL = 1e-6


def case_list(cpu: bool) -> list[dict]:
    """The cases with their names ("1024x32x32-f32") and fixed seeds."""
    return [
        dict(
            name=f"{b}x{n}x{n}-{d}",
            batch=b,
            n=n,
            dist=d,
            seed=BASE_SEED + 1000 * i + n + (7 if d in INT_DISTS else 0),
        )
        for i, (b, n, d) in enumerate(CPU_CASES if cpu else GPU_CASES)
    ]


def make_costs(case: dict) -> np.ndarray:
    """The case's matrices ``[batch, n, n]``, the same for every solver."""
    rng = np.random.default_rng(case["seed"])
    b, n = case["batch"], case["n"]
    if case["dist"] == "f32":
        return rng.random((b, n, n), dtype=np.float32)
    if case["dist"] in ("int", "int10", "int10n"):
        high = {"int": n, "int10": max(n // 10, 1), "int10n": 10 * n}[case["dist"]]
        return rng.integers(0, high, size=(b, n, n), dtype=np.int32, endpoint=True)
    if case["dist"] == "zeros":
        return np.zeros((b, n, n), np.int32)
    if case["dist"] == "few":
        return rng.integers(0, 3, size=(b, n, n), dtype=np.int32, endpoint=True)
    if case["dist"] == "machol":
        i = np.arange(n, dtype=np.int32)
        return np.broadcast_to(np.outer(i, i), (b, n, n)).copy()
    if case["dist"] in ("sqdist", "euclid"):
        p, q = rng.random((b, n, 2)), rng.random((b, n, 2))
        sq = ((p[:, :, None, :] - q[:, None, :, :]) ** 2).sum(-1)
        return (sq if case["dist"] == "sqdist" else np.sqrt(sq)).astype(np.float32)
    if case["dist"] == "rank1":
        u, v = rng.random((b, n, 1)), rng.random((b, 1, n))
        return (u * v).astype(np.float32)
    raise ValueError(f"unknown cost distribution {case['dist']!r}")


def objectives(C: np.ndarray, col_for_row: np.ndarray) -> dict:
    """Per-problem float64 objectives of an assignment and whether every
    problem's assignment is a permutation."""
    b, n, _ = C.shape
    cols = np.asarray(col_for_row).reshape(b, n).astype(np.int64)
    valid = bool(((cols >= 0) & (cols < n)).all()) and all(
        np.unique(cols[i]).size == n for i in range(b)
    )
    safe = np.clip(cols, 0, n - 1)
    obj = np.take_along_axis(C, safe[:, :, None], axis=2)[:, :, 0].astype(np.float64).sum(1)
    return {"objs": [float(x) for x in obj], "valid": valid}


def reference_objectives(case: dict) -> list[float]:
    """scipy's optimal objective of every problem of the case, or, from
    ``CERTIFIED_REFERENCE_ENTRIES`` entries a problem, jaxmatch's, each
    certified optimal by ``verify_lap`` (raises if one is not)."""
    from scipy.optimize import linear_sum_assignment

    C = make_costs(case)
    if case["n"] ** 2 >= CERTIFIED_REFERENCE_ENTRIES:
        import jaxmatch

        res = jaxmatch.solve_lap(C)
        if not all(cert.optimal for cert in jaxmatch.verify_lap(C, res)):
            raise RuntimeError(f"{case['name']}: the reference solve is not certified")
        return objectives(C, np.asarray(res.col_for_row))["objs"]
    out = []
    for c in C:
        r, k = linear_sum_assignment(c)
        out.append(float(c[r, k].astype(np.float64).sum()))
    return out


def check(case: dict, ref: list[float], answer: dict) -> dict:
    """Checks a result's objectives against scipy's.

    Args:
        case: the case (its ``dist`` picks the rule).
        ref: scipy's objective per problem.
        answer: the result, with ``objs`` and ``valid`` from ``objectives``.

    Returns:
        The check: ``ok`` (exact for integer costs, relative ``FLOAT_RTOL``
        for float costs; an invalid assignment fails), the rule, the largest
        gap and the number of problems that differ.
    """
    if not answer.get("valid", False):
        return {"ok": False, "note": "an assignment is not a permutation"}
    objs, refa = np.asarray(answer["objs"]), np.asarray(ref)
    if case["dist"] in INT_DISTS:
        gap, tol = np.abs(objs - refa), 0.0
        out = {"rule": "exact", "max_abs_gap": float(gap.max())}
    else:
        gap = np.abs(objs - refa) / np.maximum(np.abs(refa), 1e-30)
        tol = FLOAT_RTOL
        out = {"rule": f"rel {FLOAT_RTOL:g}", "max_rel_gap": float(gap.max())}
    bad = int((gap > tol).sum())
    out.update(ok=bad == 0, n_mismatch=bad, n_problems=int(refa.size))
    if bad:
        out["note"] = f"objective differs from scipy's in {bad} of {refa.size} problems"
    return out
