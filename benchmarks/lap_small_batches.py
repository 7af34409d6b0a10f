"""Batches of small LAPs on one device: every jaxmatch method side by side,
and torch-linear-assignment when it is installed.

Cases: square, rectangular, maximised, integer and DETR-like (Euclidean
distances between two sets of 2-D points) batches, sizes 16-1024. Each
solver gets the same matrices on the device; one jitted call per solve,
the median of ``--repeats`` timed calls after a warm-up (compile + one
call). Every answer's objective is checked against scipy's on every batch
member. Prints a Markdown table (medians, and best jaxmatch / the
reference column) and, with ``--json``, writes the raw timings. Run:

    python -m benchmarks.lap_small_batches [--cases 1024x32x32-f32,...]
        [--methods auto,jv,tree,eager] [--repeats 10] [--json out.json]

The reference column is torch-linear-assignment's own run when
``torch_linear_assignment`` imports, else its figure measured on an H100
beside the seed table (issue 13; ``--reference published``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import scipy.optimize

#: name -> (batch, n, m, kind, maximize). kind: "f32" U[0, 1) float32,
#: "int" integers in [0, n] (int32), "euclid" Euclidean distances of random
#: points in the unit square (float32).
CASES: dict[str, tuple[int, int, int, str, bool]] = {
    "4096x16x16-f32": (4096, 16, 16, "f32", False),
    "1024x32x32-f32": (1024, 32, 32, "f32", False),
    "1024x32x32-f32-max": (1024, 32, 32, "f32", True),
    "512x64x64-f32": (512, 64, 64, "f32", False),
    "256x100x100-euclid": (256, 100, 100, "euclid", False),
    "256x100x300-euclid": (256, 100, 300, "euclid", False),
    "256x128x128-f32": (256, 128, 128, "f32", False),
    "256x128x128-int": (256, 128, 128, "int", False),
    "256x96x128-f32": (256, 96, 128, "f32", False),
    "64x200x200-f32": (64, 200, 200, "f32", False),
    "128x256x256-f32": (128, 256, 256, "f32", False),
    "64x512x512-f32": (64, 512, 512, "f32", False),
    "16x1024x1024-f32": (16, 1024, 1024, "f32", False),
}

#: torch-linear-assignment on an H100 (issue 13's table and docs/benchmarks.md
#: run 5), seconds.
PUBLISHED_TLA = {
    "1024x32x32-f32": 398e-6,
    "256x128x128-f32": 1.19e-3,
    "128x256x256-f32": 4.69e-3,
    "16x1024x1024-f32": 105e-3,
    "256x100x100-euclid": 1.29e-3,
}


def make_costs(name: str, seed: int) -> np.ndarray:
    batch, n, m, kind, _ = CASES[name]
    rng = np.random.default_rng(seed)
    if kind == "f32":
        return rng.random((batch, n, m), dtype=np.float32)
    if kind == "int":
        return rng.integers(0, n, (batch, n, m), dtype=np.int32, endpoint=True)
    p, q = rng.random((batch, n, 2)), rng.random((batch, m, 2))
    return np.sqrt(((p[:, :, None] - q[:, None]) ** 2).sum(-1)).astype(np.float32)


def scipy_objectives(C: np.ndarray, maximize: bool) -> np.ndarray:
    out = []
    for c in C:
        r, k = scipy.optimize.linear_sum_assignment(c, maximize=maximize)
        out.append(c.astype(np.float64)[r, k].sum())
    return np.asarray(out)


def timed(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Median seconds of ``repeats`` calls after a warm-up; the last result."""
    out = fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def jaxmatch_solver(method: str, C: jax.Array, maximize: bool) -> Callable[[], object]:
    import jaxmatch

    solve = jax.jit(lambda c: jaxmatch.solve_lap(c, method=method, maximize=maximize))

    def run():
        res = solve(C)
        jax.block_until_ready(res)
        return res

    return run


def jaxmatch_eager(C: jax.Array, maximize: bool) -> Callable[[], object]:
    """``solve_lap(C)`` called eagerly, as torch-linear-assignment is: it
    returns once the result is ready."""
    import jaxmatch

    return lambda: jaxmatch.solve_lap(C, maximize=maximize)


def torch_solver(C: np.ndarray, maximize: bool) -> Callable[[], object] | None:
    try:
        import torch
        from torch_linear_assignment import batch_linear_assignment
    except ImportError:
        return None
    Ct = torch.as_tensor(-C if maximize else C, device="cuda")

    def run():
        out = batch_linear_assignment(Ct)
        torch.cuda.synchronize()
        return out

    return run


def objectives_of_assignment(C: np.ndarray, col_for_row: np.ndarray) -> np.ndarray:
    rows = np.arange(C.shape[1])
    picked = np.where(col_for_row >= 0, C[np.arange(C.shape[0])[:, None], rows, col_for_row], 0)
    return picked.astype(np.float64).sum(-1)


def fmt(s: float | None) -> str:
    if s is None:
        return "-"
    return f"{s * 1e6:.0f} us" if s < 1e-3 else f"{s * 1e3:.3g} ms"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument(
        "--methods",
        default="auto,jv,tree",
        help="jaxmatch columns: methods of a jitted call waited for, and 'eager' "
        "(solve_lap(C) called eagerly, method 'auto')",
    )
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--reference", choices=("auto", "published"), default="auto")
    p.add_argument("--json", default="")
    args = p.parse_args(argv)
    methods = args.methods.split(",")
    dev = jax.devices()[0]
    print(f"device: {dev.device_kind} ({dev.platform}), jax {jax.__version__}")
    rows, raw = [], {}
    for k, name in enumerate(args.cases.split(",")):
        maximize = CASES[name][4]
        C = make_costs(name, seed=1000 + k)
        ref = scipy_objectives(C, maximize)
        tol = 1e-5 * np.maximum(1.0, np.abs(ref))
        Cd = jax.device_put(jnp.asarray(C), dev)
        cells: dict[str, float | None] = {}
        for method in methods:
            if method == "eager":
                solver = jaxmatch_eager(Cd, maximize)
            else:
                solver = jaxmatch_solver(method, Cd, maximize)
            t, res = timed(solver, args.repeats)
            got = objectives_of_assignment(C, np.asarray(res.col_for_row))
            if not np.all(np.abs(got - ref) <= tol):
                raise SystemExit(f"{name} {method}: objective differs from scipy's")
            cells[method] = t
        tla = None if args.reference == "published" else torch_solver(C, maximize)
        if tla is not None:
            t, out = timed(tla, args.repeats)
            got = objectives_of_assignment(C, np.asarray(out.cpu()))
            if not np.all(np.abs(got - ref) <= tol):
                raise SystemExit(f"{name} torch-linear-assignment: objective differs")
            reference, ref_label = t, "torch-linear-assignment"
        else:
            reference, ref_label = PUBLISHED_TLA.get(name), "published"
        best = min(cells.values())
        ratio = f"{best / reference:.2f}" if reference else "-"
        rows.append([name, *(fmt(cells[mt]) for mt in methods), fmt(reference), ratio])
        raw[name] = dict(cells, reference=reference, reference_kind=ref_label)
        print(f"{name}: " + ", ".join(f"{mt} {fmt(cells[mt])}" for mt in methods), flush=True)
    header = ["case", *(f"jaxmatch {mt}" for mt in methods)]
    header += ["torch-linear-assignment", "best / tla"]
    print("\n| " + " | ".join(header) + " |")
    print("|" + "---|" + "---:|" * (len(header) - 1))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(raw, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
