"""Frame-to-frame multi-object tracking with ``jaxmatch.solve_lap``.

Synthetic scenes: objects appear and disappear at random frames and move with
constant velocity; each frame the detector sees every live object with
probability ``--p-detect`` (position plus Gaussian noise) and reports
``--clutter`` false alarms on average, shuffled, without identities.

Each frame the tracker predicts every track one step ahead (an alpha-beta
filter on position and velocity) and assigns detections to tracks by solving
one ``tracks x detections`` problem with ``unassigned_cost``: a track may
stay unassigned (a miss) at the price ``--gate``, a detection at price 0.
Gating is a ``+inf`` cost: a detection farther than ``--gate`` from a track's
prediction can never be assigned to it. The solve minimizes the assigned
distances plus ``--gate`` per missed track, so a track takes a detection only
where that is no dearer than missing, and a frame in which some track has
nothing inside its gate is solved like any other (without the prices,
``solve_lap`` must assign every row of the smaller side, and such a frame is
infeasible: the output counts those frames). Detections left unassigned
start new tracks (birth); a track missed ``--max-misses`` frames in a row is
dropped (death); a track is reported once it has two hits. The matrices are
padded to multiples of 16 (padded rows and columns: every pair forbidden,
price 0, so they stay unassigned at no cost) so that ``jax.jit`` compiles a
handful of shapes, not one per frame. Every solve is certified by
``jaxmatch.verify_lap`` with the same ``unassigned_cost``.

A second variant maximizes a similarity ``exp(-d^2 / (2 sigma^2))``
(``sigma = gate / 2``, ``-inf`` outside the gate) with ``maximize=True``; a
missed track then earns the similarity at the gate's distance, a detection 0.
Both are scored against the ground truth with CLEAR-MOT style counts (misses,
false positives, identity switches, MOTA) and per-object continuity (the
share of an object's detected frames covered by its main track).

Finally ``--sequences`` scenes are linked detection-to-detection (frame t-1
to frame t; a detection of frame t-1 stays unlinked at price ``--gate``, one
of frame t at 0) for all frames of all scenes at once: the padded costs
``[sequences, frames - 1, D, D]`` and their row prices ``[sequences,
frames - 1, D]`` go to one ``jax.jit(jax.vmap(...))`` call, the column price
0 broadcast. Each result is certified by ``verify_lap`` and its cost checked
against scipy's ``linear_sum_assignment`` on the unpadded problem in its
square form (scipy has no prices for unassigned rows or columns: each row
and each column of ``C`` gets a private partner at its price, and those
partners pair off at 0).

Each frame starts from scratch: the detections are new, unordered points
every frame, so there is no earlier solution to warm-start from (and
``unassigned_cost`` takes no ``init=``). Warm starts pay where the same rows
and columns recur with costs that drift (see ``docs/lap.md``).

Run: ``python examples/tracking.py [--objects 12 --frames 60 --sequences 8]``.
Exits non-zero if a check fails.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field

import jax
import numpy as np
import scipy.optimize

import jaxmatch

PAD = 16  # cost matrices are padded to multiples of this
ALPHA, BETA = 0.7, 0.3  # alpha-beta filter gains
MIN_HITS = 2  # a track is reported from its second hit on


@dataclass
class Scene:
    """Detections of one sequence and their hidden ground truth."""

    detections: list[np.ndarray]  # per frame, float [D, 2]
    labels: list[np.ndarray]  # per frame, int [D]: object id, -1 for clutter
    alive: list[np.ndarray]  # per frame, the ids of the objects present


def simulate(rng, args) -> Scene:
    n, frames, area = args.objects, args.frames, args.area
    start = rng.integers(0, frames // 2, n)
    end = np.minimum(frames, start + rng.integers(frames // 3, frames + 1, n))
    pos0 = rng.uniform(0.2 * area, 0.8 * area, (n, 2))
    angle = rng.uniform(0, 2 * np.pi, n)
    vel = rng.uniform(0.3, 1.0, n)[:, None] * np.stack([np.cos(angle), np.sin(angle)], 1)
    scene = Scene([], [], [])
    for t in range(frames):
        alive = np.flatnonzero((start <= t) & (t < end))
        seen = alive[rng.random(alive.size) < args.p_detect]
        true_pos = pos0[seen] + (t - start[seen])[:, None] * vel[seen]
        dets = true_pos + rng.normal(0, args.noise, true_pos.shape)
        n_clutter = rng.poisson(args.clutter)
        dets = np.concatenate([dets, rng.uniform(0, area, (n_clutter, 2))])
        labels = np.concatenate([seen, np.full(n_clutter, -1)])
        order = rng.permutation(labels.size)
        scene.detections.append(dets[order])
        scene.labels.append(labels[order])
        scene.alive.append(alive)
    return scene


def padded(k: int) -> int:
    return max(PAD, -(-k // PAD) * PAD)


def frame_problem(pred, dets, gate, n_rows, n_cols, similarity):
    """The padded problem of one frame: costs and unassigned prices.

    Args:
      pred: float ``[T, 2]``, the tracks' predicted positions (the rows).
      dets: float ``[D, 2]``, the detections (the columns).
      gate: the gating distance.
      n_rows, n_cols: the padded shape (``>= T``, ``>= D``).
      similarity: Gaussian similarities to maximize, else distances to
        minimize.

    Returns:
      ``(C, row_price, col_price)``: float32 ``[n_rows, n_cols]`` costs
      (forbidden pairs ``+inf``, ``-inf`` when maximizing; padded rows and
      columns all forbidden), float32 ``[n_rows]`` the price of a missed
      track (0 on padded rows) and float32 ``[n_cols]`` zeros (a detection
      left unassigned costs nothing).
    """
    forbid = -np.inf if similarity else np.inf
    C = np.full((n_rows, n_cols), forbid, np.float32)
    d = np.linalg.norm(pred[:, None, :] - dets[None, :, :], axis=-1)
    if similarity:
        sigma = gate / 2
        score, miss = np.exp(-(d**2) / (2 * sigma**2)), np.exp(-(gate**2) / (2 * sigma**2))
    else:
        score, miss = d, gate
    C[: len(pred), : len(dets)] = np.where(d <= gate, score, forbid)
    row_price = np.where(np.arange(n_rows) < len(pred), miss, 0.0).astype(np.float32)
    return C, row_price, np.zeros(n_cols, np.float32)


def square_oracle(C: np.ndarray, row_price: np.ndarray, col_price: np.ndarray) -> np.ndarray:
    """The ``(n + m) x (m + n)`` square matrix whose plain assignment problem
    is ``C`` ``[n, m]`` with unassigned prices: row i may take its private
    column ``m + i`` at ``row_price[i]``, column j its private row ``n + j``
    at ``col_price[j]``, and the private rows and columns pair off at 0."""
    n, m = C.shape
    S = np.full((n + m, m + n), np.inf)
    S[:n, :m] = C
    S[np.arange(n), m + np.arange(n)] = row_price
    S[n + np.arange(m), np.arange(m)] = col_price
    S[n:, m:] = 0.0
    return S


@dataclass
class Tracks:
    pos: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    vel: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    ids: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    hits: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    misses: np.ndarray = field(default_factory=lambda: np.zeros(0, int))


def plain_is_infeasible(C: np.ndarray) -> bool:
    """Whether the gated ``tracks x detections`` costs alone, without
    unassigned prices, have no complete assignment (of every track, or of
    every detection if they are fewer)."""
    try:
        jaxmatch.linear_sum_assignment(C)  # eager; raises on an infeasible pattern
    except ValueError:
        return True
    return False


def track(scene: Scene, args, solve, similarity: bool) -> tuple[list, int, int]:
    """Runs the tracker; returns per frame the reported ``(track id,
    detection index)`` pairs, the number of tracks started (clutter
    included) and of frames whose gated problem without unassigned prices
    is infeasible."""
    tr, next_id, reports, n_infeasible = Tracks(), 0, [], 0
    for dets in scene.detections:
        pred = tr.pos + tr.vel
        n_rows, n_dets = padded(len(pred)), padded(len(dets))
        C, row_price, col_price = frame_problem(pred, dets, args.gate, n_rows, n_dets, similarity)
        n_infeasible += plain_is_infeasible(np.abs(C[: len(pred), : len(dets)]))
        prices = (row_price, col_price)
        res = solve(C, maximize=similarity, unassigned_cost=prices)
        cert = jaxmatch.verify_lap(C, res, maximize=similarity, unassigned_cost=prices)
        if not bool(res.feasible) or not cert.optimal:
            raise SystemExit(f"FAIL: frame solve not certified optimal ({res.status_name})")
        col = np.asarray(res.col_for_row)[: len(pred)]
        hit = col >= 0
        if not np.isfinite(C[np.flatnonzero(hit), col[hit]]).all():
            raise SystemExit("FAIL: a gated (infinite-cost) pair was assigned")
        z = dets[col[hit]]
        fresh = tr.hits[hit] == 1  # second hit: velocity from two positions
        r = z - pred[hit]
        new_pos = np.where(fresh[:, None], z, pred[hit] + ALPHA * r)
        tr.vel[hit] = np.where(fresh[:, None], z - tr.pos[hit], tr.vel[hit] + BETA * r)
        tr.pos = pred
        tr.pos[hit] = new_pos
        tr.hits[hit] += 1
        tr.misses[hit] = 0
        tr.misses[~hit] += 1
        shown = hit & (tr.hits >= MIN_HITS)
        reports.append(list(zip(tr.ids[shown], col[shown])))
        keep = tr.misses < args.max_misses
        born = np.flatnonzero(np.asarray(res.row_for_col)[: len(dets)] < 0)
        tr = Tracks(
            pos=np.concatenate([tr.pos[keep], dets[born]]),
            vel=np.concatenate([tr.vel[keep], np.zeros((born.size, 2))]),
            ids=np.concatenate([tr.ids[keep], next_id + np.arange(born.size)]),
            hits=np.concatenate([tr.hits[keep], np.ones(born.size, int)]),
            misses=np.concatenate([tr.misses[keep], np.zeros(born.size, int)]),
        )
        next_id += born.size
    return reports, next_id, n_infeasible


def score(scene: Scene, reports) -> dict:
    """CLEAR-MOT style counts; a report covers the object of its detection."""
    n_gt = fn = fp = idsw = 0
    last_track: dict[int, int] = {}
    cover: dict[int, list[int]] = {}  # object -> track id per detected frame (-1: none)
    for labels, alive, pairs in zip(scene.labels, scene.alive, reports):
        covered = {}
        for tid, j in pairs:
            if labels[j] < 0:
                fp += 1
            else:
                covered[int(labels[j])] = int(tid)
        n_gt += alive.size
        fn += alive.size - len(covered)
        for obj, tid in covered.items():
            idsw += obj in last_track and last_track[obj] != tid
            last_track[obj] = tid
        for obj in labels[labels >= 0]:
            cover.setdefault(int(obj), []).append(covered.get(int(obj), -1))
    continuity = []
    for tids in cover.values():
        if len(tids) >= 5:
            ids, counts = np.unique([t for t in tids if t >= 0] or [-1], return_counts=True)
            continuity.append(counts.max() / len(tids) if ids[0] >= 0 else 0.0)
    detected = sum(int((lab >= 0).sum()) for lab in scene.labels)
    return dict(
        gt=n_gt,
        detected=detected,
        fn=fn,
        fp=fp,
        idsw=idsw,
        mota=1 - (fn + fp + idsw) / n_gt,
        continuity=float(np.mean(continuity)),
    )


def batched_linking(scenes: list[Scene], gate: float) -> None:
    """Links detections of consecutive frames, all frames of all scenes in
    one vmapped solve; certifies every result and checks its cost against
    scipy on the unpadded problem's square form."""
    frames = len(scenes[0].detections)
    n_dets = padded(max(len(d) for s in scenes for d in s.detections))
    problems = [
        [
            frame_problem(s.detections[t - 1], s.detections[t], gate, n_dets, n_dets, False)
            for t in range(1, frames)
        ]
        for s in scenes
    ]
    C = np.stack([np.stack([p[0] for p in row]) for row in problems])  # [S, F - 1, D, D]
    row_price = np.stack([np.stack([p[1] for p in row]) for row in problems])  # [S, F - 1, D]

    def link(C, row_price):  # one scene: the frames are a batch dimension
        return jaxmatch.solve_lap(C, unassigned_cost=(row_price, 0.0))

    solve = jax.jit(jax.vmap(link))  # vmap over scenes
    jax.block_until_ready(solve(C, row_price))
    t0 = time.perf_counter()
    res = jax.block_until_ready(solve(C, row_price))
    dt = time.perf_counter() - t0
    certs = jaxmatch.verify_lap(C, res, unassigned_cost=(row_price, 0.0))
    if not np.asarray(res.feasible).all() or not all(c.optimal for c in certs):
        raise SystemExit("FAIL: a batched linking solve is not certified optimal")
    cost, col_for_row = np.asarray(res.cost), np.asarray(res.col_for_row)
    true_links = found = correct = 0
    for b, s in enumerate(scenes):
        for t in range(1, frames):
            prev, cur = s.detections[t - 1], s.detections[t]
            small, r, c = frame_problem(prev, cur, gate, len(prev), len(cur), False)
            oracle = square_oracle(small, r, c)
            rows, cols = scipy.optimize.linear_sum_assignment(oracle)
            ref = oracle[rows, cols].sum()
            if abs(cost[b, t - 1] - ref) > 1e-4 * max(1.0, abs(ref)):
                raise SystemExit(f"FAIL: scene {b} frame {t}: cost {cost[b, t - 1]} != {ref}")
            la, lb = s.labels[t - 1], s.labels[t]
            true_links += np.intersect1d(la[la >= 0], lb[lb >= 0]).size
            col = col_for_row[b, t - 1, : len(prev)]
            linked = col >= 0
            found += linked.sum()
            correct += ((la[linked] >= 0) & (la[linked] == lb[col[linked]])).sum()
    precision, recall = correct / found, correct / true_links
    print(
        f"batched linking: {C.shape[0]} scenes x {C.shape[1]} frame pairs = "
        f"{C.shape[0] * C.shape[1]} problems of {C.shape[2]}x{C.shape[3]} in one call, "
        f"{dt * 1e3:.2f} ms; all certified, costs equal scipy's on the unpadded problems' "
        f"square form; link precision {precision:.3f}, recall {recall:.3f}"
    )
    if recall < 0.85 or precision < 0.85:
        raise SystemExit("FAIL: batched linking precision or recall below 0.85")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--objects", type=int, default=12, help="objects per sequence")
    p.add_argument("--frames", type=int, default=60)
    p.add_argument("--area", type=float, default=60.0, help="side of the square scene")
    p.add_argument("--p-detect", type=float, default=0.9, help="detection probability")
    p.add_argument("--clutter", type=float, default=2.0, help="mean false alarms per frame")
    p.add_argument("--noise", type=float, default=0.15, help="detection noise (std)")
    p.add_argument("--gate", type=float, default=2.0, help="gating distance")
    p.add_argument("--max-misses", type=int, default=3, help="misses in a row before death")
    p.add_argument("--sequences", type=int, default=8, help="scenes of the batched linking")
    p.add_argument("--min-mota", type=float, default=0.7, help="check: MOTA at least this")
    p.add_argument("--min-continuity", type=float, default=0.85, help="check: mean continuity")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    print(f"jaxmatch {jaxmatch.__version__} on {jax.default_backend()}")
    rng = np.random.default_rng(args.seed)
    scenes = [simulate(rng, args) for _ in range(args.sequences)]
    scene = scenes[0]
    solve = jax.jit(jaxmatch.solve_lap)  # maximize is traced: one compile per shape
    failed = False
    for name, similarity in (("distance, minimize", False), ("similarity, maximize", True)):
        t0 = time.perf_counter()
        reports, n_tracks, n_infeasible = track(scene, args, solve, similarity)
        dt = time.perf_counter() - t0
        m = score(scene, reports)
        confirmed = len({tid for pairs in reports for tid, _ in pairs})
        print(
            f"{name:21s}: {args.frames} frames in {dt:.2f} s, {n_tracks} tracks started, "
            f"{confirmed} confirmed, for {args.objects} objects; "
            f"GT {m['gt']} (detected {m['detected']}), "
            f"FN {m['fn']}, FP {m['fp']}, IDSW {m['idsw']}, MOTA {m['mota']:.3f} "
            f"(detector bound {m['detected'] / m['gt']:.3f}), continuity {m['continuity']:.3f}; "
            f"without unassigned prices {n_infeasible} frames would be infeasible"
        )
        if m["mota"] < args.min_mota or m["continuity"] < args.min_continuity:
            print(f"FAIL: {name}: MOTA or continuity below the thresholds")
            failed = True
    batched_linking(scenes, args.gate)
    if failed:
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
