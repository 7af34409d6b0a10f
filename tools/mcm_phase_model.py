#!/usr/bin/env python3
"""Host model of the GPU matching solver's phases: adjacency entries read.

Runs APFB with root tracking (GPUBFS-WR) level by level with numpy, from a
model of the GPU's racing cheap matching (every unmatched column takes its
next row at once, a random winner per contested row), and counts the
entries each phase's top-down BFS reads: a level reads its frontier's
lists whole. Two alternatives are counted beside it:

* ``--bottom-up``: per level, the entries a bottom-up level would read
  instead (every unvisited matched column's row, and every free row, looks
  through its list for a frontier column and stops at the first);
* ``--kept-trees``: a second solve in which the trees that did not augment
  are kept across phases (tree grafting, Azad, Buluc and Pothen, TPDS 2017):
  the vertices of the trees that augmented are released, each released row
  looks through its list for a column of a kept tree (stopping at the
  first) and, where it finds one, joins that tree with its mate, whose
  column starts the next phase's BFS; with ``--keep-divisor K`` only when
  the phase released fewer than one visited column in K, else the next
  phase is from scratch (``MatchingTuning.keep_trees_divisor``).

The graph is one of the matching benchmark's (``benchmarks/matching/``),
taken as symmetric (row lists are column lists), so the families with a
square symmetric pattern only::

    python3 tools/mcm_phase_model.py kron 20 --bottom-up --kept-trees --keep-divisor 4

Both solves must end at the same cardinality (the maximum); the numbers are
a model's, not the GPU's (``docs/benchmarks.md``, "A bottom-up level and
kept trees, modelled").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

# The generators live in the benchmarks package at the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


class Model:
    """A symmetric graph's lists and the matching state of one solve."""

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, seed: int = 0):
        self.ip = indptr.astype(np.int64)
        self.ix = indices.astype(np.int64)
        self.n = self.ip.size - 1
        self.deg = np.diff(self.ip)
        self.rng = np.random.default_rng(seed)

    def lists(self, vertices: np.ndarray):
        """(owner, neighbour, offset in the owner's list) of every entry."""
        d = self.deg[vertices]
        offset = np.arange(int(d.sum())) - np.repeat(np.cumsum(d) - d, d)
        return np.repeat(vertices, d), self.ix[np.repeat(self.ip[vertices], d) + offset], offset

    def first_hit(self, rows: np.ndarray, wanted: np.ndarray):
        """Entries read by rows looking for a wanted column (stopping at the
        first), and the column each found (-1 where none)."""
        _, neighbour, offset = self.lists(rows)
        hits = np.flatnonzero(wanted[neighbour])
        owner = np.repeat(np.arange(rows.size), self.deg[rows])
        found, first = np.unique(owner[hits], return_index=True)
        position = np.full(rows.size, -1, np.int64)
        position[found] = offset[hits[first]]
        column = np.full(rows.size, -1, np.int64)
        column[found] = neighbour[hits[first]]
        return int(np.where(position >= 0, position + 1, self.deg[rows]).sum()), column

    def cheap(self):
        """The racing cheap matching: (match of each row, of each column)."""
        rm = np.full(self.n, -1, np.int64)
        cm = np.full(self.n, -1, np.int64)
        active = np.flatnonzero(self.deg > 0)
        step = np.zeros(active.size, np.int64)
        while active.size:
            rows = self.ix[self.ip[active] + step]
            free = rm[rows] == -1
            cols, rows = active[free], rows[free]
            order = np.lexsort((self.rng.random(cols.size), rows))
            rows, cols = rows[order], cols[order]
            first = np.ones(rows.size, bool)
            first[1:] = rows[1:] != rows[:-1]
            rm[rows[first]] = cols[first]
            cm[cols[first]] = rows[first]
            step += 1
            keep = (cm[active] == -1) & (step < self.deg[active])
            active, step = active[keep], step[keep]
        return rm, cm


def bfs(m: Model, frontier, rm, cm, root, pred, ends, bottom_up: bool):
    """Top-down levels from `frontier` until it empties; a tree whose root
    reached a free row stops growing. Returns (entries read, levels, the
    entries bottom-up levels would have read)."""
    reads = levels = bu_reads = 0
    done = np.zeros(m.n, bool)
    done[list(ends)] = True
    while True:
        frontier = frontier[~done[root[frontier]]]
        if frontier.size == 0:
            return reads, levels, bu_reads
        if bottom_up:
            in_frontier = np.zeros(m.n, bool)
            in_frontier[frontier] = True
            unvisited = np.flatnonzero((root == -1) & (cm >= 0))
            free_rows = np.flatnonzero((rm == -1) & (m.deg > 0) & (pred == -1))
            bu_reads += m.first_hit(cm[unvisited], in_frontier)[0]
            bu_reads += m.first_hit(free_rows, in_frontier)[0] + m.n
        owner, rows, _ = m.lists(frontier)
        reads += rows.size
        levels += 1
        new = pred[rows] == -1
        rows, first = np.unique(rows[new], return_index=True)
        owner = owner[new][first]
        pred[rows] = owner
        for r, c in zip(rows[rm[rows] == -1], owner[rm[rows] == -1]):
            if not done[root[c]]:
                done[root[c]] = True
                ends[root[c]] = r
        matched = rm[rows] >= 0
        mates, parents = rm[rows[matched]], owner[matched]
        fresh = root[mates] == -1
        mates, first = np.unique(mates[fresh], return_index=True)
        root[mates] = root[parents[fresh][first]]
        frontier = mates


def augment(rm, cm, pred, ends):
    for end in ends.values():
        row = end
        while True:
            col = pred[row]
            old = cm[col]
            cm[col], rm[row] = row, col
            if old < 0:
                break
            row = old


def solve(m: Model, kept_trees: bool, bottom_up: bool, keep_divisor: int = 0) -> int:
    rm, cm = m.cheap()
    root = np.full(m.n, -1, np.int64)
    pred = np.full(m.n, -1, np.int64)
    frontier = np.flatnonzero((cm == -1) & (m.deg > 0))
    root[frontier] = frontier
    total = total_levels = phase = 0
    released_scan = released_rows = 0
    while True:
        ends: dict[int, int] = {}
        reads, levels, bu = bfs(m, frontier, rm, cm, root, pred, ends, bottom_up)
        total += reads
        total_levels += levels
        line = f"  phase {phase}: {frontier.size} columns start, {len(ends)} paths, "
        line += f"{reads:,} entries ({levels} levels)"
        if released_scan:
            line += f" + {released_scan:,} for the {released_rows:,} released rows"
        if bottom_up:
            line += f"; bottom-up levels would read {bu:,}"
        print(line, flush=True)
        if not ends:
            break
        augment(rm, cm, pred, ends)
        phase += 1
        released = np.zeros(m.n, bool)
        released[list(ends)] = True
        visited = int((root >= 0).sum())
        n_released = int(released[root[root >= 0]].sum())
        scratch = not kept_trees or (keep_divisor and n_released * keep_divisor >= visited)
        if kept_trees:
            print(f"    {n_released:,} of {visited:,} visited columns released", flush=True)
        if scratch:
            root[:] = -1
            pred[:] = -1
            frontier = np.flatnonzero((cm == -1) & (m.deg > 0))
            root[frontier] = frontier
            released_scan = 0
            continue
        cols = np.flatnonzero((root >= 0) & released[np.maximum(root, 0)])
        owner_root = root[np.maximum(pred, 0)]
        rows = np.flatnonzero((pred >= 0) & (owner_root >= 0) & released[np.maximum(owner_root, 0)])
        root[cols] = -1
        pred[rows] = -1
        released_scan, column = m.first_hit(rows, root >= 0)
        released_rows = rows.size
        total += released_scan
        # a matched row joins the kept tree with its mate; a free row's
        # column expands again and ends a path there
        joined = (column >= 0) & (rm[rows] >= 0)
        pred[rows[joined]] = column[joined]
        mates = rm[rows[joined]]
        mates, first = np.unique(mates, return_index=True)
        root[mates] = root[column[joined][first]]
        ending = column[(column >= 0) & (rm[rows] == -1)]
        frontier = np.unique(np.concatenate([mates, ending]))
    print(
        f"{'kept trees' if kept_trees else 'from scratch'}: {total:,} entries in "
        f"{total_levels} levels, {(cm >= 0).sum():,} pairs"
    )
    return int((cm >= 0).sum())


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("family", help="a symmetric family of benchmarks/matching/graphs.py")
    p.add_argument("K", type=int, help="2^K vertices")
    p.add_argument("--bottom-up", action="store_true")
    p.add_argument("--kept-trees", action="store_true")
    p.add_argument("--keep-divisor", type=int, default=0, help="0: keep after every phase")
    p.add_argument("--permuted", action="store_true")
    args = p.parse_args(argv)
    from benchmarks.matching import graphs

    A, meta = graphs.load_graph(graphs.graph_params(args.family, args.K), args.permuted)
    A = A.tocsr()
    A.sort_indices()
    print(f"{meta['name']}: {A.shape[0]:,} vertices, {A.nnz:,} entries")
    m = Model(A.indptr, A.indices)
    pairs = solve(m, kept_trees=False, bottom_up=args.bottom_up)
    if args.kept_trees:
        m.rng = np.random.default_rng(0)
        if solve(m, kept_trees=True, bottom_up=False, keep_divisor=args.keep_divisor) != pairs:
            raise SystemExit("the two solves disagree")


if __name__ == "__main__":
    main()
