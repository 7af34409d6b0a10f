"""Float32 LAP classes at scale: ``solve_lap(C)`` as a user calls it, each
result checked by ``verify_lap`` with its default tolerance.

Cases are ``CLASS:N`` (an ``N x N`` float32 matrix): ``f32`` U[0, 1);
``sqdist`` / ``dist`` squared / plain Euclidean distances between two sets
of ``N`` uniform points of the unit square; ``dist5`` Euclidean distances in
five dimensions; ``rank1`` ``a_i * b_j`` with ``a, b`` in U[0, 1); ``wide``
``10 ** U(-3, 6)``; ``machol`` Machol-Wien ``i * j``; ``few`` integers in
[0, 3] as floats. One JSON line per case: the first call (compilation
included), the median of ``--repeats`` calls after it, the main-loop
iterations, and the certificate (``verify_lap``: its largest violation,
and which condition held). With ``--peers``, scipy's
``linear_sum_assignment`` and ``lap.lapjv`` (when installed) solve the
float64 copy on the host once each (``scipy_ms``, ``lapjv_ms``), their
objectives checked against jaxmatch's; peers are skipped once
``--peer-seconds`` have passed. Run:

    python -m benchmarks.lap_float32 dist:4096 sqdist:4096 [--repeats 3]
        [--method auto] [--seconds 520] [--peers] [--peer-seconds 300]

Cases after ``--seconds`` have passed are skipped.
"""

from __future__ import annotations

import argparse
import functools
import json
import time

import jax
import numpy as np

CLASSES = ("f32", "sqdist", "dist", "dist5", "rank1", "wide", "machol", "few")


def costs(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """The float32 ``[n, n]`` matrix of class ``kind``."""
    if kind == "f32":
        return rng.random((n, n), dtype=np.float32)
    if kind in ("sqdist", "dist", "dist5"):
        dim = 5 if kind == "dist5" else 2
        p, q = rng.random((n, dim)), rng.random((n, dim))
        s = ((p[:, None, :] - q[None, :, :]) ** 2).sum(-1)
        return (s if kind == "sqdist" else np.sqrt(s)).astype(np.float32)
    if kind == "rank1":
        return (rng.random((n, 1)) * rng.random((1, n))).astype(np.float32)
    if kind == "wide":
        return (10.0 ** rng.uniform(-3, 6, (n, n))).astype(np.float32)
    if kind == "machol":
        i = np.arange(n, dtype=np.float64)
        return np.outer(i, i).astype(np.float32)
    if kind == "few":
        return rng.integers(0, 4, (n, n)).astype(np.float32)
    raise ValueError(f"unknown class {kind!r}; one of {', '.join(CLASSES)}")


def peer_times(C: np.ndarray, cost: float) -> dict[str, object]:
    """One call each of scipy's ``linear_sum_assignment`` and ``lap.lapjv``
    (when installed) on the float64 copy of ``C``, in ms, and whether their
    objectives equal ``cost`` (float32 rounding)."""
    import scipy.optimize

    C64 = C.astype(np.float64)
    t0 = time.perf_counter()
    rows, cols = scipy.optimize.linear_sum_assignment(C64)
    out: dict[str, object] = {"scipy_ms": round(1e3 * (time.perf_counter() - t0), 1)}
    best = float(C64[rows, cols].sum())
    objectives = [best]
    try:
        import lap
    except ImportError:
        lap = None
    if lap is not None:
        t0 = time.perf_counter()
        objectives.append(float(lap.lapjv(C64)[0]))
        out["lapjv_ms"] = round(1e3 * (time.perf_counter() - t0), 1)
    out["objective_matches"] = all(abs(o - cost) <= 1e-5 * max(1.0, abs(o)) for o in objectives)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="+", help="CLASS:N")
    p.add_argument("--repeats", type=int, default=0)
    p.add_argument("--method", default="auto")
    p.add_argument("--seconds", type=float, default=520.0)
    p.add_argument("--peers", action="store_true", help="also scipy and lap.lapjv on the host")
    p.add_argument("--peer-seconds", type=float, default=300.0)
    args = p.parse_args(argv)

    import jaxmatch

    solve = jax.jit(functools.partial(jaxmatch.solve_lap, method=args.method))
    deadline = time.time() + args.seconds
    peer_deadline = time.time() + args.peer_seconds
    for case in args.cases:
        kind, n = case.split(":")
        if time.time() > deadline:
            print(json.dumps({"case": case, "skipped": "time"}), flush=True)
            continue
        C = costs(kind, int(n), np.random.default_rng(int(n) + len(kind)))
        Cd = jax.device_put(C)
        t0 = time.perf_counter()
        res = jax.block_until_ready(solve(Cd))
        first = time.perf_counter() - t0
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            res = jax.block_until_ready(solve(Cd))
            times.append(time.perf_counter() - t0)
        res = jax.device_get(res)
        cert = jaxmatch.verify_lap(C, res)
        row = {
            "case": case,
            "first_s": round(first, 3),
            "ms": round(1e3 * float(np.median(times)), 1) if times else None,
            "iterations": int(res.iterations),
            "certified": bool(cert.optimal),
            "max_violation": cert.max_violation,
            "dual_feasible": cert.dual_feasible,
            "complementary_slackness": cert.complementary_slackness,
            "reason": cert.reason,
        }
        if args.peers and time.time() < peer_deadline:
            row.update(peer_times(C, float(res.cost)))
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
