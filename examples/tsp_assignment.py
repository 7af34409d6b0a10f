"""The assignment relaxation of the asymmetric TSP and Karp's patching heuristic.

An asymmetric travelling salesman problem (ATSP) on ``n`` cities with costs
``c[i, j]`` (``c[i, j] != c[j, i]`` in general) asks for the cheapest
Hamiltonian cycle. A tour is a successor permutation ``s`` (city ``i`` is
followed by ``s(i)``) with one cycle. Dropping the "one cycle" requirement
leaves the linear assignment problem

    AP = min over permutations s of sum_i c[i, s(i)],   with c[i, i] = +inf,

(the diagonal is forbidden, so no city is its own successor). Every tour is
such a permutation, hence ``AP <= optimal tour``: the assignment relaxation,
the classical lower bound behind branch-and-bound ATSP solvers (often
within a few percent of the optimum on strongly asymmetric instances). An
optimal ``s`` is a *cycle cover*: a set of vertex-disjoint subtours covering
all cities.

Karp's patching heuristic (Karp 1979) turns the cycle cover into one tour.
Two cycles ``A`` and ``B`` merge by exchanging the successors of one city
``a`` in ``A`` and one city ``b`` in ``B``: the arcs ``a -> a'`` and
``b -> b'`` (``a' = s(a)``, ``b' = s(b)``) become ``a -> b'`` and
``b -> a'``, at the patching cost

    c[a, b'] + c[b, a'] - c[a, a'] - c[b, b'].

The patched successors are again an assignment, so no sequence of patches
brings the total below ``AP``.

Here the heuristic repeatedly merges the two cycles whose cheapest patch is
least over all pairs of cities in different cycles, until one cycle remains:
a tour, so an upper bound. ``gap = (tour - AP) / AP`` bounds how far the tour
is from optimal.

Everything runs inside one ``jax.jit``: the LAPs are solved by a single
``jaxmatch.solve_lap`` call over a leading batch dimension, the cycles are
labelled by pointer doubling (``ceil(log2 n)`` gathers), and the patching is a
``lax.while_loop`` over ``n x n`` patching-cost matrices, ``jax.vmap``-ed
over the batch (under ``vmap`` the loop runs until the instance with the most
subtours is done, so on one CPU core the patching, not the LAPs, dominates
the time; the LAPs alone are timed against a loop of scipy).

Instances: cities uniform in a 1000 x 1000 square; ``c[i, j]`` is the
Euclidean distance plus uniform noise in ``[0, --noise)``, drawn for each
ordered pair (so the costs are asymmetric; more noise gives fewer subtours
and a tighter bound), rounded to integers and stored as float32 (exact: the
sums stay far below 2**24); the diagonal is ``+inf``.
The script solves one instance of ``--n`` cities (certified with
``jaxmatch.verify_lap``), a small one of ``--small-n`` cities whose optimum
it brute-forces (checking ``AP <= optimum <= tour``), and a batch of
``--batch`` instances of ``--batch-n`` cities in one call, whose LAP values
it checks against scipy's ``linear_sum_assignment`` and summarizes.

Run: ``python examples/tsp_assignment.py [--n 200 --batch 64 --batch-n 50]``.
Exits non-zero if a check fails.
"""

from __future__ import annotations

import argparse
import itertools
import time

import jax
import jax.numpy as jnp
import numpy as np
import scipy.optimize
from jax import lax

import jaxmatch

BRUTE_FORCE_MAX_N = 10  # (n-1)! tours: 362880 for n = 10


def random_atsp(rng: np.random.Generator, batch: int, n: int, noise: float) -> np.ndarray:
    """``[batch, n, n]`` float32 costs: rounded Euclidean distance plus asymmetric noise."""
    xy = rng.uniform(0, 1000, (batch, n, 2))
    dist = np.linalg.norm(xy[:, :, None, :] - xy[:, None, :, :], axis=-1)
    C = np.round(dist + rng.uniform(0, noise, (batch, n, n))).astype(np.float32)
    C[:, np.arange(n), np.arange(n)] = np.inf
    return C


def cycle_labels(succ: jax.Array) -> jax.Array:
    """The least city on each city's cycle of the permutation ``succ``.

    Pointer doubling: after step ``k`` the label is the minimum over
    ``succ^t(i)`` for ``t < 2^k``, so ``ceil(log2 n)`` steps cover any cycle.
    """
    label, jump = jnp.arange(succ.shape[0], dtype=succ.dtype), succ
    for _ in range((succ.shape[0] - 1).bit_length()):
        label, jump = jnp.minimum(label, label[jump]), jump[jump]
    return label


def karp_patch(C: jax.Array, succ: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Merges the cycles of the cycle cover ``succ`` into one tour.

    Returns the tour's successor array and the number of subtours of ``succ``.
    """
    cities = jnp.arange(C.shape[0])
    label = cycle_labels(succ)
    subtours = jnp.sum(label == cities)

    def merge(state):
        succ, label, cycles = state
        # X[a, b] = c[a, s(b)]; patch[a, b] = c[a, b'] + c[b, a'] - c[a, a'] - c[b, b'].
        X = C[:, succ]
        own = jnp.diagonal(X)
        patch = X + X.T - own[:, None] - own[None, :]
        patch = jnp.where(label[:, None] == label[None, :], jnp.inf, patch)
        a, b = jnp.unravel_index(jnp.argmin(patch), patch.shape)
        succ = succ.at[a].set(succ[b]).at[b].set(succ[a])
        label = jnp.where(label == label[b], label[a], label)
        return succ, label, cycles - 1

    tour, _, _ = lax.while_loop(lambda s: s[2] > 1, merge, (succ, label, subtours))
    return tour, subtours


@jax.jit
def relax_and_patch(C: jax.Array):
    """``C [batch, n, n]``: the LAPs in one batched call, then patching per instance."""
    res = jaxmatch.solve_lap(C)
    tour, subtours = jax.vmap(karp_patch)(C, res.col_for_row)
    return res, tour, subtours


def is_hamiltonian_cycle(succ: np.ndarray) -> bool:
    """Whether following ``succ`` from city 0 visits every city once and returns."""
    seen, city = set(), 0
    for _ in range(len(succ)):
        seen.add(city)
        city = int(succ[city])
    return city == 0 and len(seen) == len(succ)


def successor_cost(C: np.ndarray, succ: np.ndarray) -> float:
    """``sum_i c[i, succ(i)]`` in float64."""
    return float(C[np.arange(len(succ)), succ].astype(np.float64).sum())


def brute_force(C: np.ndarray) -> float:
    """The optimal tour length over all ``(n-1)!`` tours starting at city 0."""
    n = C.shape[0]
    rest = np.array(list(itertools.permutations(range(1, n))))
    tours = np.concatenate([np.zeros((len(rest), 1), dtype=rest.dtype), rest], axis=1)
    return float(C[tours, np.roll(tours, -1, axis=1)].astype(np.float64).sum(axis=1).min())


def best_time(fn, repeats: int) -> float:
    """The least wall time of ``repeats`` calls of ``fn``, in seconds."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def check_instances(C: np.ndarray, res, tour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Checks every instance of a batch; returns the lower bounds and tour lengths."""
    if not bool(np.all(res.feasible)):
        raise SystemExit("FAIL: an assignment relaxation is not feasible")
    col = np.asarray(res.col_for_row)
    lbs = np.array([successor_cost(c, s) for c, s in zip(C, col)])
    if not np.array_equal(lbs, np.asarray(res.cost, dtype=np.float64)):
        raise SystemExit("FAIL: solve_lap's cost differs from the sum over its assignment")
    lengths = np.array([successor_cost(c, t) for c, t in zip(C, tour)])
    for b, t in enumerate(tour):
        if not is_hamiltonian_cycle(t):
            raise SystemExit(f"FAIL: instance {b}: the patched successors are not one tour")
    if not np.all(lbs <= lengths):
        raise SystemExit("FAIL: a tour is shorter than the assignment lower bound")
    return lbs, lengths


def solve_single(name: str, C: np.ndarray, repeats: int) -> None:
    """Solves, certifies, checks and reports one instance (``C [n, n]``)."""
    n = C.shape[0]
    C_j = jnp.asarray(C[None])
    res, tour, subtours = jax.block_until_ready(relax_and_patch(C_j))
    elapsed = best_time(lambda: jax.block_until_ready(relax_and_patch(C_j)), repeats)
    [lb], [length] = check_instances(C[None], res, np.asarray(tour))
    cert = jaxmatch.verify_lap(C, jax.tree.map(lambda x: x[0], res))
    if not cert.optimal:
        raise SystemExit(f"FAIL: {name}: the relaxation is not certified optimal ({cert.reason})")
    print(
        f"{name}: n = {n}: assignment lower bound {lb:.0f} (certified), "
        f"{int(subtours[0])} subtours, patched tour {length:.0f}, "
        f"gap {100 * (length - lb) / lb:.2f} % (relaxation + patching {elapsed * 1e3:.1f} ms)"
    )
    if n <= BRUTE_FORCE_MAX_N:
        opt = brute_force(C)
        if not lb <= opt <= length:
            raise SystemExit(f"FAIL: expected lower bound {lb} <= optimum {opt} <= tour {length}")
        print(f"  brute-force optimum {opt:.0f}: lower bound <= optimum <= tour holds")


def solve_batch(C: np.ndarray, repeats: int) -> None:
    """One call for the whole batch; LAP values checked against scipy; gaps summarized."""
    batch, n = C.shape[:2]
    C_j = jnp.asarray(C)
    res, tour, subtours = jax.block_until_ready(relax_and_patch(C_j))
    lbs, lengths = check_instances(C, res, np.asarray(tour))

    def scipy_loop():
        return [c[scipy.optimize.linear_sum_assignment(c)].astype(np.float64).sum() for c in C]

    if not np.array_equal(lbs, np.array(scipy_loop())):
        raise SystemExit("FAIL: jaxmatch's assignment bounds differ from scipy's")
    solve = jax.jit(jaxmatch.solve_lap)
    jax.block_until_ready(solve(C_j))  # compiles; the timings exclude it
    t_all = best_time(lambda: jax.block_until_ready(relax_and_patch(C_j)), repeats)
    t_lap = best_time(lambda: jax.block_until_ready(solve(C_j)), repeats)
    t_scipy = best_time(scipy_loop, repeats)

    gaps = 100 * (lengths - lbs) / lbs
    subtours = np.asarray(subtours)
    print(
        f"batch: {batch} instances of n = {n} in one call, bounds equal scipy's; "
        f"best of {repeats}: relaxations + patching {t_all * 1e3:.1f} ms; the LAPs alone: "
        f"jaxmatch batched {t_lap * 1e3:.2f} ms, scipy loop {t_scipy * 1e3:.2f} ms"
    )
    print(
        f"  subtours per instance: mean {subtours.mean():.1f}, min {subtours.min()}, "
        f"max {subtours.max()}; gap %: mean {gaps.mean():.2f}, median {np.median(gaps):.2f}, "
        f"min {gaps.min():.2f}, max {gaps.max():.2f}; "
        f"{int(np.sum(subtours == 1))} relaxations were already tours (gap 0)"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=200, help="cities of the main instance")
    p.add_argument(
        "--small-n",
        type=int,
        default=9,
        help=f"cities of the brute-forced instance (at most {BRUTE_FORCE_MAX_N})",
    )
    p.add_argument("--batch", type=int, default=64, help="instances of the batched solve")
    p.add_argument("--batch-n", type=int, default=50, help="cities per batched instance")
    p.add_argument("--noise", type=float, default=300.0, help="asymmetric noise in [0, this)")
    p.add_argument("--repeats", type=int, default=10, help="timing repeats (best is reported)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    if not 2 <= args.small_n <= BRUTE_FORCE_MAX_N:
        p.error(f"--small-n must be in [2, {BRUTE_FORCE_MAX_N}]")

    print(f"jaxmatch {jaxmatch.__version__} on {jax.default_backend()}")
    rng = np.random.default_rng(args.seed)
    solve_single("main instance", random_atsp(rng, 1, args.n, args.noise)[0], args.repeats)
    solve_single("small instance", random_atsp(rng, 1, args.small_n, args.noise)[0], args.repeats)
    solve_batch(random_atsp(rng, args.batch, args.batch_n, args.noise), args.repeats)
    print("all checks passed")


if __name__ == "__main__":
    main()
