"""``solve_lap(C, unassigned_cost=...)`` against the same batch without it and
against the padded ``(n + m) x (m + n)`` matrix that expresses the same
problem as a plain LAP, jitted, on the default device.

Tracking-like costs: Euclidean distances between random points in a 100 x 100
square; rows priced at the 90th percentile of the rows' least costs, columns
at 0. Each call is timed ``--repeats`` times after a compiling call, waited
for alone (median, ms); the unassigned and padded solves also with 20 calls
in flight (a call's share, median of ``--repeats / 5`` rounds, at least 3),
which leaves out the host's wait for each call. The unassigned solve's
cost is checked against the padded solve's.

``--lapjv``: also lap's ``lapjv(C, extend_cost=True, cost_limit=p)`` (the
row price ``p``) on the host, float64, one matrix after another (median of
``--lapjv-repeats`` passes over the batch). It solves the same problem:
its ``(n + m)`` square extension prices every unassigned row and column at
``p / 2``, and ``sum_assigned (C - p) + p n`` (this problem's objective)
and ``sum_assigned (C - p) + p (n + m) / 2`` (lapjv's) differ by the
constant ``p (n - m) / 2``; the objectives are compared.

    python -m benchmarks.lap_unassigned [--shapes 256x40x50 1x1000x1000] [--repeats 25]
        [--lapjv]
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import jaxmatch
from benchmarks.timing import IN_FLIGHT, pipelined_ms, waited_ms

SHAPES = ("256x40x50", "256x100x120", "16x500x600", "1x1000x1000", "1x2000x2000")
#: The padded form is not run past this many rows plus columns (its matrix).
PADDED_MAX_SIDE = 2400


def padded(C, r, c):
    """The plain LAP of the same problem: row i's exit (cost r[i]) and column
    j's exit (cost c[j]) on the diagonals, the exits matched among
    themselves at no cost."""
    B, n, m = C.shape
    top = jnp.concatenate([C, jnp.where(jnp.eye(n, dtype=bool), r[:, :, None], jnp.inf)], -1)
    bottom = jnp.concatenate(
        [jnp.where(jnp.eye(m, dtype=bool), c[:, :, None], jnp.inf), jnp.zeros((B, m, n), C.dtype)],
        -1,
    )
    return jnp.concatenate([top, bottom], -2)


def lapjv_objectives(C: np.ndarray, price: float) -> np.ndarray:
    """lap.lapjv with ``cost_limit=price`` on each matrix of ``C`` [B, n, m]
    (float64): each objective in this problem's terms."""
    from lap import lapjv

    B, n, m = C.shape
    out = np.empty(B)
    for b in range(B):
        assigned, x, y = lapjv(C[b], extend_cost=True, cost_limit=price)
        unassigned = int(np.sum(x < 0) + np.sum(y < 0))
        out[b] = assigned + price / 2 * unassigned + price * (n - m) / 2
    return out


def problems(rng, B: int, n: int, m: int):
    X, Y = rng.random((B, n, 2)) * 100, rng.random((B, m, 2)) * 100
    C = np.linalg.norm(X[:, :, None] - Y[:, None], axis=-1).astype(np.float32)
    price = np.float32(np.quantile(C.min(-1), 0.9))
    return C, np.full((B, n), price, np.float32), np.zeros((B, m), np.float32)


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", nargs="*", default=list(SHAPES), help="BxNxM")
    p.add_argument("--repeats", type=int, default=25)
    p.add_argument("--lapjv", action="store_true", help="also lap.lapjv(cost_limit=) on the host")
    p.add_argument("--lapjv-repeats", type=int, default=5)
    args = p.parse_args(argv)
    rng = np.random.default_rng(0)
    plain = jax.jit(lambda C: jaxmatch.solve_lap(C).cost)
    priced = jax.jit(lambda C, r, c: jaxmatch.solve_lap(C, unassigned_cost=(r, c)).cost)
    pad = jax.jit(lambda C, r, c: jaxmatch.solve_lap(padded(C, r, c)).cost)
    print(f"{jax.devices()[0].device_kind}; ms, median of {args.repeats}")
    rows = []
    for shape in args.shapes:
        B, n, m = (int(x) for x in shape.split("x"))
        C, r, c = (jnp.asarray(x) for x in problems(rng, B, n, m))
        t_plain = waited_ms(plain, C, repeats=args.repeats)
        t_priced = waited_ms(priced, C, r, c, repeats=args.repeats)
        rounds = max(3, args.repeats // 5)
        p_priced = pipelined_ms(priced, C, r, c, repeats=rounds)
        t_pad, p_pad, same = float("nan"), float("nan"), None
        if n + m <= PADDED_MAX_SIDE:
            t_pad = waited_ms(pad, C, r, c, repeats=args.repeats)
            p_pad = pipelined_ms(pad, C, r, c, repeats=rounds)
            same = bool(np.allclose(priced(C, r, c), pad(C, r, c), rtol=1e-4))
            assert same, f"{shape}: the unassigned solve's cost differs from the padded one's"
        res = jaxmatch.solve_lap(C, unassigned_cost=(r, c))
        out = float(np.mean(np.asarray(res.col_for_row) < 0))
        row = dict(shape=shape, plain=t_plain, unassigned=t_priced, padded=t_pad, rows_out=out)
        row.update(unassigned_pipelined=p_priced, padded_pipelined=p_pad)
        text = (
            f"{shape}: plain {t_plain:.3f}, unassigned {t_priced:.3f} "
            f"({t_priced / t_plain:.2f}x plain), padded {t_pad:.3f} "
            f"({t_pad / t_priced:.1f}x the unassigned); {IN_FLIGHT} in flight: unassigned "
            f"{p_priced:.3f}, padded {p_pad:.3f} ({p_pad / p_priced:.1f}x); rows unassigned "
            f"{out:.2f}; cost equal to the padded solve's: {same}"
        )
        if args.lapjv:
            C64, price = np.asarray(C, np.float64), float(r[0, 0])
            times = []
            for _ in range(args.lapjv_repeats):
                t = time.perf_counter()
                theirs = lapjv_objectives(C64, price)
                times.append(time.perf_counter() - t)
            row["lapjv"] = 1e3 * float(np.median(times))
            ours = np.asarray(res.cost, np.float64)
            assert np.allclose(ours, theirs, rtol=1e-4), f"{shape}: lapjv's objective differs"
            text += f"; lapjv {row['lapjv']:.3f} ({row['lapjv'] / t_priced:.1f}x the unassigned)"
        rows.append(row)
        print(text, flush=True)
    return rows


if __name__ == "__main__":
    main()
