"""Warm starts of the LAP on a drifting sequence: ``solve_lap(C_t)`` from
scratch against ``solve_lap(C_t, init=result_{t-1})``.

``C_t[i, j]`` is the squared distance between point ``i`` of a moving set
and point ``j`` of a fixed one (both uniform in the unit square, ``--n``
each, float32); every frame each moving point takes a Gaussian step of
``--step``. Both solves of a frame get the same ``C_t`` (eager calls, the
compilation done before the clock); their optimal costs must agree. Reports
the mean time per frame and the mean ``iterations`` (JV's augmenting searches
on the CPU, the tree variant's main-loop iterations on a GPU). Run:

    python -m benchmarks.lap_warm_start [--n 1000] [--frames 10] [--step 0.002]
        [--device cpu|gpu]
"""

from __future__ import annotations

import argparse
import time

import jax
import numpy as np


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--frames", type=int, default=10)
    p.add_argument("--step", type=float, default=0.002)
    p.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    import jaxmatch

    rng = np.random.default_rng(args.seed)
    moving, fixed = rng.random((args.n, 2)), rng.random((args.n, 2))

    def costs(points: np.ndarray) -> np.ndarray:
        return ((points[:, None] - fixed[None]) ** 2).sum(-1).astype(np.float32)

    with jax.default_device(jax.devices(args.device)[0]):
        previous = jaxmatch.solve_lap(costs(moving))
        jaxmatch.solve_lap(costs(moving), init=previous)  # compiles the warm path
        cold_s = warm_s = 0.0
        cold_searches = warm_searches = 0
        for _ in range(args.frames):
            moving = moving + args.step * rng.standard_normal(moving.shape)
            C = costs(moving)
            t0 = time.perf_counter()
            cold = jaxmatch.solve_lap(C)
            t1 = time.perf_counter()
            warm = jaxmatch.solve_lap(C, init=previous)
            t2 = time.perf_counter()
            if not np.isclose(float(cold.cost), float(warm.cost), rtol=1e-6):
                raise SystemExit(f"costs differ: {float(cold.cost)} != {float(warm.cost)}")
            cold_s, warm_s = cold_s + t1 - t0, warm_s + t2 - t1
            cold_searches += int(cold.iterations)
            warm_searches += int(warm.iterations)
            previous = warm
    f = args.frames
    print(
        f"n = {args.n}, {f} frames, step {args.step}, {jax.devices(args.device)[0].device_kind}: "
        f"from scratch {cold_s / f * 1e3:.1f} ms/frame ({cold_searches / f:.0f} iterations), "
        f"warm {warm_s / f * 1e3:.1f} ms/frame ({warm_searches / f:.0f} iterations), "
        f"{cold_s / warm_s:.1f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
