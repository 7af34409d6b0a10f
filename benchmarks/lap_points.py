"""Assignment between point sets too large for a cost matrix:
``solve_lap_points(X, Y)`` as a user calls it.

Cases are ``N`` or ``NxM``: ``N`` (and ``M``) uniform random points of the
unit square (``--dim`` dimensions; ``Y`` moved by ``--shift`` along the
first axis), float32, cost ``--metric``. One JSON
line per case: the first call (compilation included), the second call's
time split into the host's sparse solves and the device sweeps, the
iterations (sparse solves) and candidate pairs, the total cost, and where the sizes
allow, the certificate of ``verify_lap_points`` (NumPy, all pairs), scipy's
``linear_sum_assignment`` on the materialised matrix and jaxmatch's dense
``solve_lap`` (the matrix in device memory). Run:

    python -m benchmarks.lap_points 10000 100000 250000 [--metric sqeuclidean]
        [--dim 2] [--shift 0] [--candidates 16] [--verify-max 20000] [--scipy-max 5000]
        [--dense-max 16384] [--seconds 520] [--once] [--progress] [--random-halves]
        [--check-rows 0] [--keep-autotuner]

Cases after ``--seconds`` have passed are skipped. ``--once`` makes one call
per case (for sizes where two do not fit the time): its time, split the
same way, includes the compilation (``first_s`` equals ``seconds``).
``--progress`` prints each sparse solve of the timed call to stderr as it
ends. ``--random-halves`` makes the multiscale start take random halves
of the point sets instead of stratified ones (``stratified_half``),
for comparison. ``--check-rows R`` checks, where the sizes exceed
``--verify-max``, what can be checked at any size: the assignment is a
full matching, every assigned pair has zero reduced cost, and ``R``
random rows have no negative reduced cost against all columns (float64,
the solution's own tolerance): a sampled certificate. ``first_compile_s``
is the first call's XLA compilation (JAX's ``backend_compile_duration``
events); ``--keep-autotuner`` compiles the built-in metrics' programs with
XLA's GPU autotuner on (``sweep.autotune_off``), for comparison. Both
swap a rule of ``jaxmatch.lap.points`` for the call and restore it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import jax
import numpy as np

#: The built-in metrics, all functions of ``x - y``, which ``--check-rows``
#: relies on (scipy's ``cdist`` names them alike).
DIFFERENCE_METRICS = ("sqeuclidean", "euclidean", "cityblock")


def _random_half(P: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random half of ``P``'s points (sorted indices): the multiscale
    start's halves before they were stratified."""
    n = P.shape[0]
    return np.sort(rng.permutation(n)[: n // 2])


_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
_compile_seconds = [0.0]


def _count_compilation(event: str, seconds: float, **kwargs) -> None:
    if event == _COMPILE_EVENT:
        _compile_seconds[0] += seconds


_listening = [False]


def _compilation_so_far() -> float:
    """XLA compilation seconds since the first call of this function."""
    if not _listening[0]:
        jax.monitoring.register_event_duration_secs_listener(_count_compilation)
        _listening[0] = True
    return _compile_seconds[0]


class _SolveClock:
    """Times the sparse solves of ``jaxmatch.lap.points.solve`` (its
    ``run_host``)."""

    def __init__(self, module, progress: bool = False):
        self.module, self.inner, self.progress = module, module.run_host, progress
        self.seconds: list[float] = []
        self.start = time.perf_counter()

    def __call__(self, *args, **kwargs):
        t0 = time.perf_counter()
        out = self.inner(*args, **kwargs)
        self.seconds.append(time.perf_counter() - t0)
        if self.progress:  # args: the solver, indptr, indices, costs, n, ...
            n, edges, now = args[4], args[2].size, time.perf_counter() - self.start
            print(f"{now:8.1f} s: sparse solve of {n} rows, {edges} pairs, "
                  f"{self.seconds[-1]:.2f} s", file=sys.stderr, flush=True)  # fmt: skip
        return out

    def __enter__(self):
        self.module.run_host = self
        return self

    def __exit__(self, *exc):
        self.module.run_host = self.inner


def _dense_costs(X: np.ndarray, Y: np.ndarray, metric: str) -> np.ndarray:
    from scipy.spatial.distance import cdist

    return cdist(X.astype(np.float64), Y.astype(np.float64), metric)


def _sampled_check(X: np.ndarray, Y: np.ndarray, sol, metric: str, rows: int) -> dict:
    """The checks of ``--check-rows`` (``n <= m``, minimization)."""
    n, m = X.shape[0], Y.shape[0]
    cfr, rfc = np.asarray(sol.col_for_row), np.asarray(sol.row_for_col)
    u, v = np.asarray(sol.u, np.float64), np.asarray(sol.v, np.float64)
    full = bool(np.all(cfr >= 0) and np.unique(cfr).size == n and np.all(rfc[cfr] == np.arange(n)))
    Xd, Yd = X.astype(np.float64), Y.astype(np.float64)
    partner = np.clip(cfr, 0, m - 1)
    # The built-in metrics depend on x - y only: each pair's cost is that of
    # its difference against the origin.
    matched = _dense_costs(Xd - Yd[partner], np.zeros((1, X.shape[1])), metric)[:, 0]
    slack = float(np.abs(matched - u - v[partner]).max(initial=0.0))
    sample = np.random.default_rng(0).choice(n, size=min(rows, n), replace=False)
    least, block = np.inf, max(1, (1 << 26) // max(m, 1))
    for s in range(0, sample.size, block):
        i = sample[s : s + block]
        reduced = _dense_costs(Xd[i], Yd, metric) - u[i, None] - v[None, :]
        least = min(least, float(reduced.min(initial=np.inf)))
    ok = full and slack <= sol.tol and least >= -sol.tol
    return {
        "check_rows": int(sample.size),
        "check_min_reduced": least,
        "check_slack": slack,
        "check_ok": bool(ok),
    }


def run_case(case: str, args) -> dict:
    import jaxmatch
    from jaxmatch.lap.points import solve as points_solve
    from jaxmatch.lap.points import sweep

    n, _, m = case.partition("x")
    n, m = int(n), int(m or n)
    rng = np.random.default_rng(n + 7 * m)
    X = rng.random((n, args.dim), dtype=np.float32)
    Y = rng.random((m, args.dim), dtype=np.float32)
    Y[:, 0] += np.float32(args.shift)
    solve = lambda: jaxmatch.solve_lap_points(  # noqa: E731
        X, Y, metric=args.metric, candidates=args.candidates
    )
    stratified, autotune_off = points_solve.stratified_half, sweep.autotune_off
    if args.random_halves:
        points_solve.stratified_half = _random_half
    if args.keep_autotuner:
        sweep.autotune_off = lambda metric, devices: False
    first = None
    compiled = _compilation_so_far()
    try:
        if not args.once:
            t0 = time.perf_counter()
            solve()
            first = time.perf_counter() - t0
        first_compile = _compilation_so_far() - compiled
        with _SolveClock(points_solve, args.progress) as clock:
            t0 = time.perf_counter()
            sol = solve()
            total = time.perf_counter() - t0
    finally:
        points_solve.stratified_half, sweep.autotune_off = stratified, autotune_off
    if first is None:
        first, first_compile = total, _compilation_so_far() - compiled
    row = {
        "case": case,
        "device": str(jax.devices()[0].device_kind),
        "devices": jax.device_count(),
        "metric": args.metric,
        "dim": args.dim,
        "shift": args.shift,
        "first_s": round(first, 3),
        "first_compile_s": round(first_compile, 3),
        "seconds": round(total, 3),
        "solve_s": round(sum(clock.seconds), 3),
        "sweep_s": round(total - sum(clock.seconds), 3),
        "iterations": sol.iterations,
        "edges": sol.edges,
        "edges_per_row": round(sol.edges / max(min(n, m), 1), 1),
        "status": sol.status_name,
        "cost": sol.cost,
        "max_violation": sol.max_violation,
        "tol": sol.tol,
    }
    if max(n, m) <= args.verify_max:
        t0 = time.perf_counter()
        cert = jaxmatch.verify_lap_points(X, Y, sol, metric=args.metric)
        row.update(certified=cert.optimal, verify_s=round(time.perf_counter() - t0, 3))
        if not cert.optimal:
            row["reason"] = cert.reason
    elif args.check_rows > 0 and n <= m and args.metric in DIFFERENCE_METRICS:
        t0 = time.perf_counter()
        row.update(_sampled_check(X, Y, sol, args.metric, args.check_rows))
        row["check_s"] = round(time.perf_counter() - t0, 3)
    if max(n, m) <= args.scipy_max:
        from scipy.optimize import linear_sum_assignment

        C = _dense_costs(X, Y, args.metric)
        t0 = time.perf_counter()
        r, c = linear_sum_assignment(C)
        row.update(scipy_s=round(time.perf_counter() - t0, 3), scipy_cost=float(C[r, c].sum()))
    if max(n, m) <= args.dense_max:
        C = jax.device_put(_dense_costs(X, Y, args.metric).astype(np.float32))
        solve_dense = jax.jit(jaxmatch.solve_lap)
        jax.block_until_ready(solve_dense(C))
        t0 = time.perf_counter()
        res = jax.block_until_ready(solve_dense(C))
        row.update(
            dense_s=round(time.perf_counter() - t0, 3),
            dense_cost=float(res.cost),
            dense_status=res.status_name,
        )
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="+", help="N or NxM")
    p.add_argument("--metric", default="sqeuclidean")
    p.add_argument("--dim", type=int, default=2)
    p.add_argument("--shift", type=float, default=0.0)
    p.add_argument("--candidates", type=int, default=16)
    p.add_argument("--verify-max", type=int, default=20000)
    p.add_argument("--scipy-max", type=int, default=5000)
    p.add_argument("--dense-max", type=int, default=0)
    p.add_argument("--seconds", type=float, default=520.0)
    p.add_argument("--once", action="store_true", help="one call per case (compilation included)")
    p.add_argument("--progress", action="store_true", help="print each sparse solve (stderr)")
    p.add_argument("--random-halves", action="store_true", help="random multiscale halves")
    p.add_argument("--check-rows", type=int, default=0, help="sampled certificate's rows")
    p.add_argument("--keep-autotuner", action="store_true", help="XLA's autotuner on (GPUs)")
    args = p.parse_args(argv)
    deadline = time.time() + args.seconds
    for case in args.cases:
        if time.time() > deadline:
            print(json.dumps({"case": case, "skipped": "time"}), flush=True)
            continue
        print(json.dumps(run_case(case, args)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
