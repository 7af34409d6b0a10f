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
it computes exactly (Held and Karp's dynamic program over subsets, checking
``AP <= optimum <= tour``), two classic TSPLIB instances shipped in
``examples/data/`` (see its README): ``br17`` (asymmetric, Repetto; optimum
39) and ``gr17`` (symmetric, Groetschel; optimum 2085), whose published
optima the dynamic program reproduces, and a batch of
``--batch`` instances of ``--batch-n`` cities in one call, whose LAP values
it checks against scipy's ``linear_sum_assignment`` and summarizes.

A TSPLIB file of your own runs with ``--tsplib PATH`` (explicit weights as
``FULL_MATRIX``, ``LOWER_DIAG_ROW``, ``UPPER_ROW``, ``UPPER_DIAG_ROW`` or
``LOWER_ROW``, or ``EUC_2D`` / ``CEIL_2D`` coordinates; TSPLIB's library is
at http://comopt.ifi.uni-heidelberg.de/software/TSPLIB95/).

Run: ``python examples/tsp_assignment.py [--n 200 --batch 64 --batch-n 50]
[--tsplib ftv33.atsp] [--no-classic]``.
Exits non-zero if a check fails.
"""

from __future__ import annotations

import argparse
import itertools
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import scipy.optimize
from jax import lax

import jaxmatch

EXACT_MAX_N = 17  # Held-Karp: 2^(n-1) subsets x (n-1)^2, about a second at 17
DATA_DIR = Path(__file__).resolve().parent / "data"
#: bundled TSPLIB instances (examples/data/) and their published optima
CLASSIC = {"br17.atsp": 39, "gr17.tsp": 2085}


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


def held_karp(C: np.ndarray) -> float:
    """The optimal tour length (Held and Karp's dynamic program):
    ``best[S, j]`` is the shortest path from city 0 through the cities of
    ``S`` (a subset of 1..n-1, as a bit mask) ending at ``j`` in ``S``."""
    n = C.shape[0]
    if n == 1:
        return 0.0
    m = n - 1
    D = C.astype(np.float64)
    best = np.full((1 << m, m), np.inf)
    best[1 << np.arange(m), np.arange(m)] = D[0, 1:]
    for size in range(1, m):  # extend every path through `size` cities by one
        masks = np.array([sum(1 << j for j in S) for S in itertools.combinations(range(m), size)])
        for k in range(m):
            ext = masks[(masks >> k) & 1 == 0]
            step = (best[ext] + D[1:, k + 1][None, :]).min(axis=1)
            target = ext | (1 << k)
            best[target, k] = np.minimum(best[target, k], step)
    return float((best[(1 << m) - 1] + D[1:, 0]).min())


def read_tsplib(path: Path) -> np.ndarray:
    """A TSPLIB ``.tsp``/``.atsp`` file as ``[n, n]`` float32 costs with a
    ``+inf`` diagonal."""
    header, numbers, section = {}, [], None
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line == "EOF":
            continue
        if line.endswith("SECTION"):
            section = line
        elif ":" in line and section is None:
            key, value = line.split(":", 1)
            header[key.strip()] = value.strip()
        elif section is not None:
            numbers.extend(float(x) for x in line.split())
    n = int(header["DIMENSION"])
    kind = header.get("EDGE_WEIGHT_TYPE")
    if kind in ("EUC_2D", "CEIL_2D"):
        xy = np.array(numbers).reshape(n, 3)[:, 1:]
        dist = np.linalg.norm(xy[:, None] - xy[None], axis=-1)
        C = np.ceil(dist) if kind == "CEIL_2D" else np.floor(dist + 0.5)
    elif kind == "EXPLICIT":
        fmt = header.get("EDGE_WEIGHT_FORMAT")
        w = np.array(numbers)
        C = np.zeros((n, n))
        if fmt == "FULL_MATRIX":
            C = w.reshape(n, n)
        elif fmt in ("LOWER_DIAG_ROW", "UPPER_ROW", "UPPER_DIAG_ROW", "LOWER_ROW"):
            lower = fmt.startswith("LOWER")
            diag = 0 if fmt.endswith("DIAG_ROW") else 1
            triangle = np.tril_indices(n, -diag) if lower else np.triu_indices(n, diag)
            rows, cols = triangle
            C[rows, cols] = w
            C = np.maximum(C, C.T)
        else:
            raise SystemExit(f"{path}: EDGE_WEIGHT_FORMAT {fmt} is not supported here")
    else:
        raise SystemExit(f"{path}: EDGE_WEIGHT_TYPE {kind} is not supported here")
    C = C.astype(np.float32)
    C[np.arange(n), np.arange(n)] = np.inf
    return C


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


def solve_single(name: str, C: np.ndarray, repeats: int, optimum: float | None = None) -> None:
    """Solves, certifies, checks and reports one instance (``C [n, n]``;
    ``optimum``: its published optimum, checked where it can be computed)."""
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
        f"{f'gap {100 * (length - lb) / lb:.2f} %' if lb > 0 else 'no relative gap (bound 0)'} "
        f"(relaxation + patching {elapsed * 1e3:.1f} ms)"
    )
    opt = held_karp(C) if n <= EXACT_MAX_N else optimum
    if opt is None:
        return
    if optimum is not None and opt != optimum:
        raise SystemExit(f"FAIL: {name}: optimum {opt} differs from the published {optimum}")
    if not lb <= opt <= length:
        raise SystemExit(f"FAIL: expected lower bound {lb} <= optimum {opt} <= tour {length}")
    if n > EXACT_MAX_N:
        how = "published optimum"
    else:
        how = "Held-Karp optimum" + (" (the published one)" if optimum is not None else "")
    print(
        f"  {how} {opt:.0f}: lower bound <= optimum <= tour holds "
        f"(bound/optimum {lb / max(opt, 1):.3f})"
    )


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
        help=f"cities of the instance solved exactly (at most {EXACT_MAX_N})",
    )
    p.add_argument("--tsplib", type=Path, help="also solve this TSPLIB .tsp/.atsp file")
    p.add_argument("--no-classic", action="store_true", help="skip the bundled TSPLIB instances")
    p.add_argument("--batch", type=int, default=64, help="instances of the batched solve")
    p.add_argument("--batch-n", type=int, default=50, help="cities per batched instance")
    p.add_argument("--noise", type=float, default=300.0, help="asymmetric noise in [0, this)")
    p.add_argument("--repeats", type=int, default=10, help="timing repeats (best is reported)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    if not 2 <= args.small_n <= EXACT_MAX_N:
        p.error(f"--small-n must be in [2, {EXACT_MAX_N}]")

    print(f"jaxmatch {jaxmatch.__version__} on {jax.default_backend()}")
    rng = np.random.default_rng(args.seed)
    solve_single("main instance", random_atsp(rng, 1, args.n, args.noise)[0], args.repeats)
    solve_single("small instance", random_atsp(rng, 1, args.small_n, args.noise)[0], args.repeats)
    if not args.no_classic:
        for file, optimum in CLASSIC.items():
            C = read_tsplib(DATA_DIR / file)
            solve_single(f"TSPLIB {file}", C, args.repeats, optimum=optimum)
    if args.tsplib is not None:
        solve_single(f"TSPLIB {args.tsplib.name}", read_tsplib(args.tsplib), args.repeats)
    solve_batch(random_atsp(rng, args.batch, args.batch_n, args.noise), args.repeats)
    print("all checks passed")


if __name__ == "__main__":
    main()
