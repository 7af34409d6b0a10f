"""The CPU LAP cases timed call by call in turn: ``solve_lap`` (jitted, on
the CPU), scipy's ``linear_sum_assignment`` and, when installed,
``lap.lapjv``, each round calling every solver once on the same matrices.

On a machine whose speed drifts (a shared host), timing one solver's calls
after another's lets the drift decide a close ratio; interleaving exposes
every solver to the same drift, and the minimum over rounds is the
machine's undisturbed speed. One line per case: minimum and median per
solver, and jaxmatch's minimum over the best peer's. Every answer's
objective is checked against scipy's. Run:

    python -m benchmarks.lap_interleaved [CASE ...] [--rounds 15]

CASE names one of ``benchmarks.lap.cases``' CPU cases (e.g.
``1x500x500-machol``); all of them by default.
"""

from __future__ import annotations

import argparse
import time

import jax
import numpy as np


def _solvers(C: np.ndarray) -> dict:
    import scipy.optimize

    import jaxmatch

    cpu = jax.devices("cpu")[0]
    x = jax.device_put(C, cpu)
    solve = jax.jit(jaxmatch.solve_lap)
    solvers = {
        "jaxmatch": lambda: np.asarray(jax.block_until_ready(solve(x)).col_for_row),
        "scipy": lambda: np.stack([scipy.optimize.linear_sum_assignment(c)[1] for c in C]),
    }
    try:  # ImportError too where ``lap`` is only a folder on the path
        from lap import lapjv
    except ImportError:
        return solvers
    C64 = C.astype(np.float64)
    solvers["lap.lapjv"] = lambda: np.stack([lapjv(c)[1] for c in C64])
    return solvers


def run_case(name: str, case: dict, rounds: int) -> str:
    from benchmarks.lap.cases import FLOAT_RTOL, make_costs, objectives

    C = make_costs(case)
    solvers = _solvers(C)
    objective = {}
    for label, fn in solvers.items():  # warm-up (compiles), and the answers
        answer = objectives(C, fn())
        if not answer["valid"]:
            raise RuntimeError(f"{name}: {label}'s answer is not an assignment")
        objective[label] = np.array(answer["objs"])
    for label, value in objective.items():
        if not np.allclose(value, objective["scipy"], rtol=FLOAT_RTOL, atol=FLOAT_RTOL):
            raise RuntimeError(f"{name}: {label}'s objectives {value} are not scipy's")
    times: dict[str, list[float]] = {label: [] for label in solvers}
    for _ in range(rounds):
        for label, fn in solvers.items():
            t0 = time.perf_counter()
            fn()
            times[label].append(time.perf_counter() - t0)
    cells = [
        f"{k} min {min(v) * 1e3:.3g} med {np.median(v) * 1e3:.3g} ms" for k, v in times.items()
    ]
    best_peer = min(min(v) for k, v in times.items() if k != "jaxmatch")
    ratio = min(times["jaxmatch"]) / best_peer
    return f"{name}: " + ", ".join(cells) + f"; jaxmatch / best peer (minima) {ratio:.3g}"


def main(argv: list[str] | None = None) -> int:
    from benchmarks.lap.cases import case_list

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*", help="case names (default: all CPU cases)")
    p.add_argument("--rounds", type=int, default=15)
    args = p.parse_args(argv)
    cases = {c["name"]: c for c in case_list(True)}
    unknown = [c for c in args.cases if c not in cases]
    if unknown:
        p.error(f"unknown cases {unknown}; known: {sorted(cases)}")
    for name in args.cases or list(cases):
        print(run_case(name, cases[name], args.rounds), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
