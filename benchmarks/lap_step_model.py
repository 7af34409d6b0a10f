"""Sequential steps of two LAP strategies on one matrix, counted by a NumPy
model (not timed): what bounds a single large problem on the GPU.

``jv``: Jonker and Volgenant's shortest augmenting paths from the column
reduction start, one step per column a search scans: the GPU's JV team
spends one team reduction (about 1.2-1.6 us from 4096 columns on an H100)
on each, one after the other.

``auction``: an epsilon-scaling Jacobi auction (every free row bids at
once in a round; each column goes to its highest bid; the assignment is
reset at each phase, the prices kept), then one phase with epsilon 0 for at
most ``--final-rounds`` rounds, after which every assigned row attains its
least reduced cost ``c_ij + p_j`` (a bid raises its column's price to the
row's second least exactly, and later bids only raise prices); then JV's
searches from the prices ``v = -p`` for the rows left free, the assigned
rows kept. One step per round (its bids scan their rows side by side) and
one per scanned column of the finishing searches.

Both answers are checked against scipy's optimum. Neither model has JV's
augmenting row reduction. One JSON line per case. Run:

    python -m benchmarks.lap_step_model f32:1000 sqdist:1000
        [--theta 10] [--eps-final 1e-6] [--final-rounds 50]

Classes as in ``benchmarks.lap_float32`` (same seeds).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import scipy.optimize

from benchmarks.lap_float32 import costs


def column_reduction(C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Prices ``v`` (the column minima) and the assignment ``x`` (-1: free)
    of each column's least row, the first column to choose a row keeping it."""
    n = C.shape[0]
    v = C.min(axis=0)
    x = np.full(n, -1)
    for j, i in enumerate(C.argmin(axis=0)):
        if x[i] < 0:
            x[i] = j
    return v, x


def jv_searches(C: np.ndarray, v: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Dijkstra from each free row of ``x`` in turn at prices ``v`` (both
    updated in place; every assigned row must attain its least ``c_ij -
    v_j``). Returns the assignment, the steps (scanned columns plus one per
    search for the free column it ends at) and the searches."""
    n = C.shape[0]
    y = np.full(n, -1)
    y[x[x >= 0]] = np.nonzero(x >= 0)[0]
    steps = 0
    free_rows = np.nonzero(x < 0)[0]
    for f in free_rows:
        d = C[f] - v
        pred = np.full(n, f)
        scanned = np.zeros(n, bool)
        while True:
            j = int(np.argmin(np.where(scanned, np.inf, d)))
            least = d[j]
            steps += 1
            if not np.isfinite(least):
                raise ValueError("no assignment of finite cost")
            if y[j] < 0:
                break
            i = y[j]
            scanned[j] = True
            reduced = C[i] - v - (C[i, j] - v[j] - least)
            lowers = ~scanned & (reduced < d)
            d[lowers] = reduced[lowers]
            pred[lowers] = i
        v[scanned] += d[scanned] - least
        while True:
            i = pred[j]
            y[j] = i
            x[i], j = j, x[i]
            if i == f:
                break
    return x, steps, len(free_rows)


def auction(
    C: np.ndarray, theta: float, eps_final: float, final_rounds: int
) -> tuple[np.ndarray, np.ndarray, int, int, int]:
    """The epsilon-scaling Jacobi auction and its epsilon-0 phase. Returns
    the prices, the assignment (-1: free), the rounds, the bids and the
    phases with epsilon > 0."""
    n = C.shape[0]
    spread = float(C.max() - C.min()) or 1.0
    schedule = []
    eps = spread / 4
    while eps > eps_final * spread:
        schedule.append(eps)
        eps /= theta
    p = np.zeros(n)
    x = np.full(n, -1)
    rounds = bids = 0
    for eps in [*schedule, 0.0]:
        x[:] = -1
        y = np.full(n, -1)
        phase_rounds = 0
        while (x < 0).any() and (eps > 0 or phase_rounds < final_rounds):
            bidders = np.nonzero(x < 0)[0]
            w = C[bidders] + p
            at = np.arange(len(bidders))
            first = w.argmin(axis=1)
            least = w[at, first]
            w[at, first] = np.inf
            bid = p[first] + (w.min(axis=1) - least) + eps
            rounds += 1
            phase_rounds += 1
            bids += len(bidders)
            order = np.lexsort((-bid, first))  # by column, the highest bid first
            head = np.ones(len(order), bool)
            head[1:] = first[order[1:]] != first[order[:-1]]
            win = order[head]
            cols, rows, prices = first[win], bidders[win], bid[win]
            # With epsilon 0 a tie would take an owned column at no increase.
            take = (prices > p[cols]) | (y[cols] < 0)
            cols, rows, prices = cols[take], rows[take], prices[take]
            outbid = y[cols]
            x[outbid[outbid >= 0]] = -1
            p[cols] = prices
            y[cols] = rows
            x[rows] = cols
    return p, x, rounds, bids, len(schedule)


def model(C: np.ndarray, theta: float, eps_final: float, final_rounds: int) -> dict:
    """Both strategies' steps on ``C`` [n, n], each answer checked."""
    rows, cols = scipy.optimize.linear_sum_assignment(C)
    optimum = float(C[rows, cols].sum())

    def optimal(x: np.ndarray) -> bool:
        return abs(float(C[np.arange(len(x)), x].sum()) - optimum) <= 1e-9 * max(1.0, abs(optimum))

    v, x = column_reduction(C)
    x, jv_steps, jv_searches_ = jv_searches(C, v, x)
    p, xa, rounds, bids, phases = auction(C, theta, eps_final, final_rounds)
    v = -p
    keep = np.zeros(len(xa), bool)
    assigned = np.nonzero(xa >= 0)[0]
    keep[assigned] = (C[assigned, xa[assigned]] - v[xa[assigned]]) <= (C[assigned] - v).min(axis=1)
    xf = np.where(keep, xa, -1)
    xf, finish_steps, finish_searches = jv_searches(C, v, xf)
    return {
        "jv_steps": jv_steps,
        "jv_searches": jv_searches_,
        "jv_optimal": optimal(x),
        "auction_phases": phases,
        "auction_rounds": rounds,
        "auction_bids": bids,
        "finish_searches": finish_searches,
        "finish_steps": finish_steps,
        "auction_optimal": optimal(xf),
        "steps_ratio": round(jv_steps / (rounds + finish_steps), 2),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="+", help="CLASS:N (benchmarks.lap_float32's classes)")
    p.add_argument("--theta", type=float, default=10.0, help="epsilon's divisor per phase")
    p.add_argument(
        "--eps-final", type=float, default=1e-6, help="last epsilon > 0, times the cost spread"
    )
    p.add_argument("--final-rounds", type=int, default=50, help="rounds of the epsilon-0 phase")
    args = p.parse_args(argv)
    for case in args.cases:
        kind, n = case.split(":")
        C = costs(kind, int(n), np.random.default_rng(int(n) + len(kind))).astype(np.float64)
        t0 = time.perf_counter()
        row = {"case": case, **model(C, args.theta, args.eps_final, args.final_rounds)}
        row["model_s"] = round(time.perf_counter() - t0, 1)
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
