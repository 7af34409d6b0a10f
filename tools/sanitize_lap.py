"""A representative LAP workload for compute-sanitizer (memcheck, racecheck).

Run under the sanitizer with XLA_PYTHON_CLIENT_ALLOCATOR=platform so every
XLA buffer is its own cudaMalloc and out-of-bounds accesses are caught.
Exits non-zero if any result fails its certificate.
"""

from __future__ import annotations

import sys

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)

import jaxmatch  # noqa: E402


def main() -> int:
    rng = np.random.default_rng(0)
    bad = 0
    cases = [((4, 7, 7), np.float32), ((3, 5, 9), np.float64), ((2, 9, 4), np.int32),
             ((2, 40, 40), np.float32), ((1, 1, 1), np.float32)]
    for shape, dtype in cases:
        C = (rng.integers(0, 6, shape) if dtype == np.int32 else rng.random(shape)).astype(dtype)
        C_inf = C.copy()
        if dtype != np.int32:
            C_inf[..., 0, :] = np.inf  # infeasible members
        for method in ("tree", "classical"):
            for execution in ("fused", "stepped"):
                for mat in (C, C_inf):
                    res = jax.device_get(jaxmatch.solve_lap(mat, method=method, execution=execution))
                    certs = jaxmatch.verify_lap(mat, res)
                    for b, cert in enumerate(certs):
                        if bool(res.feasible.reshape(-1)[b]) and not cert.optimal:
                            bad += 1
    print("sanitize workload done, failed certificates:", bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
