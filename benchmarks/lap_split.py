"""One LAP split over devices by rows: ``solve_lap_split`` on 1, 2, ... devices.

Cases are ``CLASS:N`` (``N x N``, generated on the devices, already
sharded by rows): ``int`` (integers in [0, N], the seed paper's class),
``int10`` (integers in [0, N/10]), ``int10n`` (integers in [0, 10 N], the
seed paper's scaling class), ``intxK`` (integers in [0, K N], e.g.
``intx100``), ``f32int`` (float32 copies of integers in [0, N]), ``f32``
(U[0, 1) float32) and
``sqdist`` (squared distances between two sets of N random points of the
unit square, float32). For each case and each device count in
``--devices``: the first call (compilation included) and the median of
``--repeats`` further calls, the forest iterations and the time per
iteration, the cost and status; ``--single`` adds ``jaxmatch.solve_lap`` on
the first device for the same matrix (the one-GPU solver; its ``method``
``--single-method``, default ``auto``), and cases up to
``--verify-max`` are certified with ``verify_lap``; ``--per-trip`` runs each
case with each of these numbers of forest iterations per trip of the
solver's loop (``jaxmatch.LAPTuning(split_iterations_per_trip=...)``;
default: the library's). One JSON line per run;
weak and strong scaling efficiencies are computed from these lines (see
``docs/benchmarks.md``). Run:

    python -m benchmarks.lap_split int:20000 int:28284 f32:20000 --devices 1 2
        [--repeats 3] [--single] [--single-method jv] [--verify-max 20000]
        [--max-iterations N]
        [--seconds 520] [--per-trip 1 4]

On a machine without several accelerators, ``XLA_FLAGS=
--xla_force_host_platform_device_count=2 JAX_PLATFORMS=cpu`` runs it on
forced CPU devices (a check of the script, not a measurement).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import re
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

CLASSES = ("int", "int10", "int10n", "intxK", "f32int", "f32", "sqdist")


def costs(kind: str, n: int, mesh: Mesh) -> jax.Array:
    """The ``n x n`` cost matrix of class ``kind``, sharded by rows."""
    spread = int(kind[4:]) if re.fullmatch(r"intx[1-9][0-9]*", kind) else None
    if kind not in CLASSES and spread is None:
        raise ValueError(f"unknown class {kind!r}; expected one of {CLASSES}")
    key = jax.random.key(n)
    sharding = NamedSharding(mesh, PartitionSpec("rows", None))

    @jax.jit
    def make(key):
        if kind == "int":
            c = jax.random.randint(key, (n, n), 0, n + 1, jnp.int32)
        elif kind == "int10":
            c = jax.random.randint(key, (n, n), 0, n // 10 + 1, jnp.int32)
        elif kind == "int10n":
            c = jax.random.randint(key, (n, n), 0, 10 * n + 1, jnp.int32)
        elif spread is not None:
            c = jax.random.randint(key, (n, n), 0, spread * n + 1, jnp.int32)
        elif kind == "f32int":
            c = jax.random.randint(key, (n, n), 0, n + 1, jnp.int32).astype(jnp.float32)
        elif kind == "f32":
            c = jax.random.uniform(key, (n, n), jnp.float32)
        else:
            kx, ky = jax.random.split(key)
            x = jax.random.uniform(kx, (n, 2), jnp.float32)
            y = jax.random.uniform(ky, (n, 2), jnp.float32)
            c = jnp.sum((x[:, None, :] - y[None, :, :]) ** 2, axis=-1)
        return jax.lax.with_sharding_constraint(c, sharding)

    return jax.block_until_ready(make(key))


def timed(fn, repeats: int) -> tuple[float, list[float], object]:
    t0 = time.perf_counter()
    out = jax.block_until_ready(fn())
    first = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = jax.block_until_ready(fn())
        times.append(time.perf_counter() - t0)
    return first, times, out


def run(kind: str, n: int, devices: int, args, per_trip: int | None = None) -> dict:
    import jaxmatch

    tuning = jaxmatch.LAPTuning()
    if per_trip is not None:
        tuning = dataclasses.replace(tuning, split_iterations_per_trip=per_trip)
    mesh = Mesh(np.array(jax.devices()[:devices]), ("rows",))
    C = costs(kind, n, mesh)
    limit = args.max_iterations
    first, times, res = timed(
        lambda: jaxmatch.solve_lap_split(
            C, mesh=mesh, axis_name="rows", max_iterations=limit, tuning=tuning
        ),
        args.repeats,
    )
    sec = statistics.median(times)
    iters = int(res.iterations)
    row = {
        "case": f"{kind}:{n}",
        "device": str(jax.devices()[0].device_kind),
        "devices": devices,
        "per_trip": tuning.split_iterations_per_trip,
        "first_s": round(first, 3),
        "seconds": round(sec, 4),
        "iterations": iters,
        "us_per_iteration": round(1e6 * sec / max(iters, 1), 1),
        "status": res.status_name,
        "cost": float(res.cost),
    }
    if args.single and devices == 1:
        C1 = jax.device_put(C, jax.devices()[0])
        solve = jax.jit(functools.partial(jaxmatch.solve_lap, method=args.single_method))
        first1, times1, res1 = timed(lambda: solve(C1), args.repeats)
        row.update(
            single_method=args.single_method,
            single_first_s=round(first1, 3),
            single_s=round(statistics.median(times1), 4),
            single_iterations=int(res1.iterations),
            single_cost=float(res1.cost),
        )
        del C1
    if n <= args.verify_max and res.status_name == "OPTIMAL":
        t0 = time.perf_counter()
        cert = jaxmatch.verify_lap(np.asarray(C), jax.tree.map(np.asarray, res))
        row.update(certified=cert.optimal, verify_s=round(time.perf_counter() - t0, 2))
        if not cert.optimal:
            row["reason"] = cert.reason
    return row


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="+", help="CLASS:N, CLASS one of " + ", ".join(CLASSES))
    p.add_argument("--devices", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--single", action="store_true")
    p.add_argument("--single-method", default="auto", choices=("auto", "tree", "classical", "jv"))
    p.add_argument("--verify-max", type=int, default=20000)
    p.add_argument("--max-iterations", type=int, default=None)
    p.add_argument("--seconds", type=float, default=520.0)
    p.add_argument("--per-trip", type=int, nargs="+", default=[None])
    args = p.parse_args(argv)
    deadline = time.time() + args.seconds
    for case in args.cases:
        kind, _, size = case.partition(":")
        for devices in args.devices:
            if devices > jax.device_count():
                continue
            for per_trip in args.per_trip:
                if time.time() > deadline:
                    skipped = {"case": case, "devices": devices, "skipped": "time"}
                    print(json.dumps(skipped), flush=True)
                    continue
                print(json.dumps(run(kind, int(size), devices, args, per_trip)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
