"""How JV starts on a problem: the rounds of the GPU's auction start (0 when
JV starts on its own), JV's searches after it, and the time of the whole
fused JV call (``lap_solve`` with the JV variant: no wrapper around it).

Cases are ``CLASS:N`` with ``benchmarks.lap_float32``'s classes (an
``N x N`` float32 matrix drawn with seed 0). One JSON line per case: the
median of ``--repeats`` calls after a first, the status, the auction's
rounds (the info's ``N_DUAL``), the searches (``ITERS``) and the
objective in float64. Run with each build (``JAXMATCH_LIB_DIR``) on the
same machine to compare them:

    python -m benchmarks.lap_jv_start machol:1024 rank1:4096 f32:4096 [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import time

import jax
import numpy as np

from benchmarks.lap_float32 import costs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="+", help="CLASS:N")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)

    from jaxmatch.lap import _ffi as lap_ffi

    solve = jax.jit(lambda C: lap_ffi.lap_solve(C, variant=lap_ffi.variant_code("jv")))
    for case in args.cases:
        kind, n = case.split(":")
        C = costs(kind, int(n), np.random.default_rng(0))
        Cd = jax.device_put(C)
        state = jax.block_until_ready(solve(Cd))
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            state = jax.block_until_ready(solve(Cd))
            times.append(time.perf_counter() - t0)
        info = np.asarray(state.info)
        cols = np.asarray(state.col_for_row)
        assigned = cols >= 0
        row = {
            "case": case,
            "ms": round(1e3 * float(np.median(times)), 2) if times else None,
            "status": int(lap_ffi.info_field(info, "STATUS")),
            "rounds": int(lap_ffi.info_field(info, "N_DUAL")),
            "searches": int(lap_ffi.info_field(info, "ITERS")),
            "cost": float(C.astype(np.float64)[assigned.nonzero()[0], cols[assigned]].sum()),
        }
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
