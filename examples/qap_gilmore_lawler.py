"""The Gilmore–Lawler lower bound of a quadratic assignment problem, with jaxmatch.

The quadratic assignment problem (QAP, Koopmans–Beckmann form) places ``n``
facilities on ``n`` locations: given a flow matrix ``F`` and a distance matrix
``D``, find the permutation ``p`` (facility ``i`` goes to location ``p(i)``)
minimizing

    z(p) = sum_{i,j} F[i, j] * D[p(i), p(j)].

It is NP-hard; the Gilmore–Lawler bound (Gilmore 1962, Lawler 1963) is the
classical lower bound. Split ``z(p)`` by facility: facility ``i`` on location
``k = p(i)`` pays ``F[i, i] * D[k, k]`` plus ``sum_{j != i} F[i, j] * D[k, p(j)]``,
a scalar product of row ``i`` of ``F`` (without ``F[i, i]``) with row ``k`` of
``D`` (without ``D[k, k]``) in *some* order. Whatever ``p`` is, that is at
least the *minimum* over all orders,

    gl[i, k] = min_{bijections q} sum_{j != i} F[i, j] * D[k, q(j)],

a size-(n-1) linear assignment problem with costs ``c[j, l] = F[i, j] * D[k, l]``
(``j != i``, ``l != k``). Because these costs are a product ``a_j * b_l``, the
minimum has a closed form (the rearrangement inequality): sort ``a`` ascending
and ``b`` descending and pair them in order. With

    L[i, k] = F[i, i] * D[k, k] + gl[i, k],

``z(p) >= sum_i L[i, p(i)] >= min_p sum_i L[i, p(i)] = GLB``: one more LAP, of
size ``n``, gives the bound. The permutation solving that last LAP is also a
feasible QAP solution, so its ``z`` is an upper bound; the two bracket the
optimum. (The diagonal terms make the bound valid for matrices with nonzero
diagonals too; the random instances here have zero diagonals.)

This script

* computes all ``n^2`` values ``gl[i, k]`` at once with the sorted-product
  formula (one sort per matrix and one matrix product);
* also builds the ``n^2`` cost matrices ``c[j, l] = F[i, j] * D[k, l]`` of
  size ``(n-1) x (n-1)`` and solves them in ONE batched ``jaxmatch.solve_lap``
  call (leading dimensions ``[n, n]``), checks every solve with
  ``jaxmatch.verify_lap`` and checks that the optimal costs equal the
  sorted-product values exactly (integer costs are solved in int32);
* times that call against a Python loop of ``scipy.optimize.linear_sum_assignment``
  over the same matrices;
* solves the ``n x n`` LAP on ``L`` and reports the bound, the upper bound from
  its permutation and the gap;
* brute-forces the optimum (all ``n!`` permutations) of instances with
  ``n <= 8`` and checks ``GLB <= optimum <= upper bound``. A random ``n = 7``
  instance is always checked this way, after the main instance.

Instances are random Taillard-style: symmetric flows and distances with zero
diagonals and integer entries drawn uniformly from ``[0, --max-entry]``
(Taillard's ``tai*a`` instances, 1991). Real benchmark instances come from
QAPLIB (https://qaplib.mgi.polymtl.ca/, formerly
https://www.opt.math.tugraz.at/qaplib/): download a ``.dat`` file (``n``,
then the two ``n x n`` matrices, whitespace separated) and pass it with
``--qaplib PATH``; the first matrix plays ``F`` and the second ``D``, as in
QAPLIB's ``min sum a_ij b_p(i)p(j)``. Two QAPLIB instances ship in
``examples/data/`` (see its README) and run by default, each checked against
its published optimum (``GLB <= optimum``): ``had12`` (Hadley, Rendl and
Wolkowicz; optimum 1652, which the published optimal permutation is checked
to reach) and ``rou15`` (Roucairol; optimum 354210). The
batched LAP formulation holds ``n^2 (n-1)^2`` costs; above ``--lap-max-n`` it
is skipped and only the sorted-product formula is used.

Run: ``python examples/qap_gilmore_lawler.py [--n 12] [--qaplib nug12.dat]``
(``--no-classic`` skips the bundled instances).
Exits non-zero if a check fails.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import scipy.optimize

import jaxmatch

# Large QAPLIB entries overflow int32 products; those instances are solved in
# float64, which JAX only keeps with x64 on (exact for integers below 2**53).
jax.config.update("jax_enable_x64", True)

BRUTE_FORCE_MAX_N = 8  # 8! = 40320 permutations


def taillard_instance(rng: np.random.Generator, n: int, max_entry: int):
    """Random symmetric integer flow and distance matrices with zero diagonals."""

    def sym():
        A = np.triu(rng.integers(0, max_entry + 1, (n, n)), 1)
        return A + A.T

    return sym(), sym()


def read_qaplib(path: Path):
    """Reads a QAPLIB ``.dat`` file: ``n``, then the ``n x n`` matrices A and B."""
    tokens = path.read_text().split()
    n = int(tokens[0])
    if len(tokens) != 1 + 2 * n * n:
        raise SystemExit(
            f"{path}: expected n and two {n}x{n} matrices ({1 + 2 * n * n} numbers), "
            f"found {len(tokens)} numbers"
        )
    values = np.array(tokens[1:], dtype=np.int64).reshape(2, n, n)
    return values[0], values[1]


def off_diagonal_rows(A: np.ndarray) -> np.ndarray:
    """``[n, n-1]``: row ``i`` of ``A`` without ``A[i, i]``."""
    n = A.shape[0]
    return A[~np.eye(n, dtype=bool)].reshape(n, n - 1)


def gl_sorted(F: np.ndarray, D: np.ndarray) -> np.ndarray:
    """All ``gl[i, k]`` by the rearrangement inequality: F's rows ascending,
    D's rows descending, one matrix product for the ``n^2`` scalar products."""
    f = np.sort(off_diagonal_rows(F), axis=1)
    d = -np.sort(-off_diagonal_rows(D), axis=1)
    return f @ d.T


def lap_dtype(max_abs_cost: int, n: int):
    """int32 (exact) when a solve's costs and totals leave int32 headroom, else float64."""
    return jnp.int32 if max_abs_cost * max(n, 1) < 2**30 else jnp.float64


def gl_cost_matrices(F: np.ndarray, D: np.ndarray) -> np.ndarray:
    """``[n, n, n-1, n-1]``: ``c[i, k, j, l] = F[i, j'] * D[k, l']`` over the
    off-diagonal entries of row ``i`` of F and row ``k`` of D."""
    f, d = off_diagonal_rows(F), off_diagonal_rows(D)
    return f[:, None, :, None] * d[None, :, None, :]


def qap_objective(F: np.ndarray, D: np.ndarray, perms: np.ndarray) -> np.ndarray:
    """``z(p)`` for each row ``p`` of ``perms`` (``[..., n]``)."""
    return np.einsum("ij,...ij->...", F, D[perms[..., :, None], perms[..., None, :]])


def brute_force(F: np.ndarray, D: np.ndarray) -> int:
    """The QAP optimum over all ``n!`` permutations (vectorized)."""
    perms = np.array(list(itertools.permutations(range(F.shape[0]))))
    return int(qap_objective(F, D, perms).min())


def best_time(fn, repeats: int) -> float:
    """The least wall time of ``repeats`` calls of ``fn``, in seconds."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def batched_gl_lap(F: np.ndarray, D: np.ndarray, gl: np.ndarray, repeats: int) -> None:
    """Solves the ``n^2`` GL subproblems as LAPs in one batched call, checks them
    against the sorted products, and times them against a loop of scipy."""
    n = F.shape[0]
    C_np = gl_cost_matrices(F, D)
    C = jnp.asarray(C_np, dtype=lap_dtype(int(np.abs(C_np).max(initial=0)), n - 1))
    solve = jax.jit(jaxmatch.solve_lap)
    res = jax.block_until_ready(solve(C))  # compiles; the timing below excludes it

    if not bool(res.feasible.all()):
        raise SystemExit("FAIL: a GL subproblem LAP is not feasible")
    if not all(cert.optimal for cert in jaxmatch.verify_lap(C, res)):
        raise SystemExit("FAIL: a GL subproblem LAP is not certified optimal")
    lap_values = np.asarray(res.cost)
    if not np.array_equal(lap_values, gl.astype(lap_values.dtype)):
        worst = np.abs(lap_values - gl).max()
        raise SystemExit(f"FAIL: LAP values differ from the sorted products (max {worst})")
    print(
        f"  LAP formulation: {n * n} LAPs of {n - 1}x{n - 1} ({C.dtype}) in one call, "
        "all certified optimal and equal to the sorted-product values"
    )

    t_jax = best_time(lambda: jax.block_until_ready(solve(C)), repeats)
    flat = C_np.reshape(n * n, n - 1, n - 1)

    def scipy_loop():
        return [M[scipy.optimize.linear_sum_assignment(M)].sum() for M in flat]

    t_scipy = best_time(scipy_loop, repeats)
    if not np.array_equal(np.array(scipy_loop()), gl.reshape(-1)):
        raise SystemExit("FAIL: scipy's values differ from the sorted products")
    print(
        f"  time ({jax.default_backend()}, best of {repeats}): jaxmatch batched "
        f"{t_jax * 1e3:.3f} ms, scipy loop {t_scipy * 1e3:.3f} ms "
        f"({t_scipy / t_jax:.1f}x)"
    )


#: The bundled QAPLIB instances (examples/data/<name>.dat) and their
#: published optima; for had12 also the published optimal permutation
#: (1-based: facility i goes to location p[i]).
DATA_DIR = Path(__file__).resolve().parent / "data"
CLASSIC = {"had12": 1652, "rou15": 354210}
HAD12_OPTIMAL_PERMUTATION = (3, 10, 11, 2, 12, 5, 6, 7, 8, 1, 4, 9)


def classic_instances(args) -> None:
    """The GL bound of each bundled QAPLIB instance against its published
    optimum."""
    for name, optimum in CLASSIC.items():
        F, D = read_qaplib(DATA_DIR / f"{name}.dat")
        if name == "had12":
            perm = np.array(HAD12_OPTIMAL_PERMUTATION) - 1
            if qap_objective(F, D, perm) != optimum:
                raise SystemExit("FAIL: had12's published optimal permutation misses 1652")
        gilmore_lawler(f"QAPLIB {name}", F, D, args, optimum=optimum)


def gilmore_lawler(
    name: str, F: np.ndarray, D: np.ndarray, args, optimum: int | None = None
) -> None:
    """Computes, checks and reports the GL bound of one instance (against a
    published ``optimum`` when given)."""
    n = F.shape[0]
    print(f"{name}: n = {n}")
    t0 = time.perf_counter()
    gl = gl_sorted(F, D)
    L = np.outer(np.diag(F), np.diag(D)) + gl
    t_sorted = time.perf_counter() - t0
    print(f"  sorted-product formula: {n * n} GL terms in {t_sorted * 1e3:.3f} ms")
    if n <= args.lap_max_n:
        batched_gl_lap(F, D, gl, args.repeats)
    else:
        print(f"  LAP formulation skipped: n > --lap-max-n = {args.lap_max_n}")

    L_j = jnp.asarray(L, dtype=lap_dtype(int(np.abs(L).max(initial=0)), n))
    res = jaxmatch.solve_lap(L_j)
    if not (bool(res.feasible) and jaxmatch.verify_lap(L_j, res).optimal):
        raise SystemExit(f"FAIL: the {n}x{n} bound LAP is not certified optimal")
    perm = np.asarray(res.col_for_row)
    bound = int(L[np.arange(n), perm].sum())
    if float(res.cost) != bound:
        raise SystemExit("FAIL: the LAP cost differs from the sum over its assignment")
    upper = int(qap_objective(F, D, perm))
    if not bound <= upper:
        raise SystemExit(f"FAIL: bound {bound} > objective {upper} of its own permutation")
    print(
        f"  Gilmore-Lawler bound {bound}; its permutation costs {upper}, an upper bound "
        f"(gap {100 * (upper - bound) / max(upper, 1):.1f} %)"
    )
    if optimum is not None:
        if not bound <= optimum <= upper:
            raise SystemExit(f"FAIL: expected bound {bound} <= optimum {optimum} <= {upper}")
        print(
            f"  published optimum {optimum}: bound/optimum {bound / optimum:.3f}; "
            "bound <= optimum <= upper bound holds"
        )
    if n <= BRUTE_FORCE_MAX_N:
        t0 = time.perf_counter()
        opt = brute_force(F, D)
        elapsed = time.perf_counter() - t0
        if not bound <= opt <= upper:
            raise SystemExit(f"FAIL: expected bound {bound} <= optimum {opt} <= {upper}")
        print(
            f"  brute force over {math.factorial(n)} permutations ({elapsed:.2f} s): "
            f"optimum {opt}, bound/optimum {bound / max(opt, 1):.3f}; "
            "bound <= optimum <= upper bound holds"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=12, help="size of the random instance")
    p.add_argument("--max-entry", type=int, default=99, help="flows and distances in [0, this]")
    p.add_argument("--qaplib", type=Path, help="a QAPLIB .dat file instead of a random instance")
    p.add_argument(
        "--lap-max-n", type=int, default=40, help="largest n for the batched LAP formulation"
    )
    p.add_argument("--repeats", type=int, default=10, help="timing repeats (best is reported)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-classic", action="store_true", help="skip the bundled QAPLIB instances")
    args = p.parse_args()
    if args.n < 2:
        p.error("--n must be at least 2")

    print(f"jaxmatch {jaxmatch.__version__} on {jax.default_backend()}")
    rng = np.random.default_rng(args.seed)
    if args.qaplib is not None:
        gilmore_lawler(args.qaplib.name, *read_qaplib(args.qaplib), args)
    else:
        gilmore_lawler(
            "random Taillard-style", *taillard_instance(rng, args.n, args.max_entry), args
        )
    if not args.no_classic:
        classic_instances(args)
    gilmore_lawler(
        "small random (brute-force check)", *taillard_instance(rng, 7, args.max_entry), args
    )
    print("all checks passed")


if __name__ == "__main__":
    main()
