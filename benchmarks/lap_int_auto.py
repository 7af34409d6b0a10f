"""Integer LAP classes: ``solve_lap(C)`` (``method="auto"``) beside the tree
variant alone, each result certified by ``verify_lap``.

Cases are ``CLASS:BATCH:N[:scipy][:notree]``, an int32 ``[BATCH, N, N]``
batch (``BATCH`` 1: one matrix): ``machol`` Machol-Wien ``i * j``;
``n10``, ``n``, ``10n`` integers in [0, n/10], [0, n], [0, 10n] (the seed
paper's classes); ``n2`` integers in [0, n^2). Members after the first are
row permutations of it. ``scipy`` also times scipy's
``linear_sum_assignment`` on the host (``BATCH`` 1); ``notree`` skips the
tree variant. One line per case: the medians of 2 calls after a first
(1 for the tree variant on ``machol`` and ``n2`` from 1024), the largest
iteration count, and whether the objectives agree. Run:

    python -m benchmarks.lap_int_auto machol:1:1024:scipy n:1:5000 n:16:1024
"""

from __future__ import annotations

import argparse
import time

import jax
import numpy as np

CLASSES = ("machol", "n10", "n", "10n", "n2")


def costs(kind: str, batch: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """The int32 ``[batch, n, n]`` (``[n, n]`` when ``batch`` is 1) batch."""
    i = np.arange(n, dtype=np.int64)
    highs = {"n10": max(n // 10, 1), "n": n, "10n": 10 * n, "n2": n * n - 1}
    if kind == "machol":
        M = np.outer(i, i)
    elif kind in highs:
        M = rng.integers(0, highs[kind], (n, n), endpoint=True)
    else:
        raise ValueError(f"unknown class {kind!r}; one of {', '.join(CLASSES)}")
    if batch == 1:
        return M.astype(np.int32)
    return np.stack([M] + [rng.permutation(M) for _ in range(batch - 1)]).astype(np.int32)


def _timed(solve, C, repeats: int):
    res = jax.block_until_ready(solve(C))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = jax.block_until_ready(solve(C))
        times.append(time.perf_counter() - t0)
    return jax.device_get(res), 1e3 * float(np.median(times))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="+", help="CLASS:BATCH:N[:scipy][:notree]")
    args = p.parse_args(argv)

    import scipy.optimize

    import jaxmatch

    auto = jax.jit(jaxmatch.solve_lap)
    tree = jax.jit(lambda c: jaxmatch.solve_lap(c, method="tree"))
    for case in args.cases:
        kind, batch, n, *flags = case.split(":")
        b, size = int(batch), int(n)
        C = costs(kind, b, size, np.random.default_rng(size + b))
        Cd = jax.device_put(C)
        res, ms = _timed(auto, Cd, 2)
        certs = jaxmatch.verify_lap(C, res)
        certified = all(c.optimal for c in certs) if b > 1 else certs.optimal
        line = f"{kind} {b}x{size}^2 | auto {ms:.1f} ms, {int(np.max(res.iterations))} iterations"
        line += f", certified {certified}"
        if "notree" not in flags:
            once = size >= 1024 and kind in ("machol", "n2")
            other, tree_ms = _timed(tree, Cd, 1 if once else 2)
            same = np.array_equal(other.cost, res.cost)
            line += f" | tree {tree_ms:.1f} ms, {int(np.max(other.iterations))} iterations"
            line += f", same cost {same} | tree / auto {tree_ms / ms:.2f}"
        if "scipy" in flags and b == 1:
            t0 = time.perf_counter()
            rows, cols = scipy.optimize.linear_sum_assignment(C.astype(np.float64))
            scipy_ms = 1e3 * (time.perf_counter() - t0)
            same = int(C[rows, cols].astype(np.int64).sum()) == int(res.cost)
            line += f" | scipy {scipy_ms:.1f} ms, same cost {same}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
