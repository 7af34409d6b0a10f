// Trees kept across phases (tree grafting; Azad, Buluc and Pothen, TPDS
// 2017) for the APFB driver with root tracking: after Alternate only the
// trees that found a path are released, the others keep their columns and
// levels, and the next phase's BFS starts from the columns grafted onto them
// and from the released free columns.  Late phases of a graph with many
// free columns that stay free (kron: a few paths found among hundreds of
// thousands of roots) then no longer run the BFS from every root again.
//
// The end of a phase that keeps its trees, three steps apart by barriers:
//
//   mcm_release  FixMatching; the columns of the trees that found a path
//                are marked released (root = kMcmRootReleased) and counted
//                with the visited ones; mcm_ctrl_release then keeps the
//                trees when few were released (keep_trees_divisor)
//   mcm_graft    every row whose mate was released, and every row freed by
//                FixMatching, looks through its row list (a warp's lanes
//                side by side) for a column of a kept tree and stops at the
//                first: its mate joins that tree
//                (marked root = kMcmGraftedBase - tree), or, a free row,
//                ends an augmenting path there
//   mcm_requeue  released columns become unvisited, or roots where free;
//                grafted ones take their tree; both form the next queue,
//                one level above every kept column's
//
// A phase from kept trees whose BFS ends without a path goes on with the
// whole forest, every column any tree holds, as one more level (the forest
// step: mcm_begin_forest, then mcm_requeue); the solve ends when that finds
// nothing either.
//
// Why every outcome stays right:
//  * Validity: a graft makes (column, row) a tree edge only once the
//    column's own list holds the row (binary search, mcm_column_has_row),
//    whatever the row CSR says; Alternate flips only tree edges.
//  * Maximality never rests on the row CSR (which need not be the column
//    CSR's transpose, nor its lists sorted): a phase from kept trees ends
//    the solve only after its forest step, when every column of the forest
//    read its column list and found neither a free row nor an unvisited
//    column, so no alternating path leaves the forest, which holds every
//    free column.  With a row CSR that is the transpose the grafts leave
//    nothing for it to find, and it costs one level over the forest.
//  * Progress: levels still grow along every tree's pred chain (a grafted
//    column is queued above every kept column), so the argument of
//    matching_steps.h holds: a phase that found a path adds a pair.
#pragma once

#include "matching/matching_steps.h"

namespace jaxmatch {

// root[c] of a released column, and of a column grafted onto tree t
// (kMcmGraftedBase - t, at most kMcmGraftedBase) between mcm_release and
// mcm_requeue; both below -1, the mark of an unvisited column.
constexpr int kMcmRootReleased = -2;
constexpr int kMcmGraftedBase = -3;
// pred[r] of a row freed by FixMatching, until mcm_graft reads it.
constexpr int kMcmPredScan = -3;

// Whether the options keep trees on problems with a row CSR (APFB, or auto,
// which may run as APFB; with root tracking).
JM_HD bool mcm_keeps_trees(const McmOptions& o, bool has_row_csr) {
  return o.keep_trees_divisor > 0 && o.bfs == kMcmBfsWr &&
         (o.driver == kMcmApfb || o.driver == kMcmAuto) && has_row_csr;
}

// Whether row r is in column c's list, found by binary search, so only in
// a sorted list (every constructor's); a hit is always a real edge.
JM_HD bool mcm_column_has_row(const McmView& p, int c, int r) {
  int lo = p.cxadj[c], hi = p.cxadj[c + 1];
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    const int x = p.cadj[mid];
    if (x == r) return true;
    if (x < r)
      lo = mid + 1;
    else
      hi = mid;
  }
  return false;
}

// FixMatching (rows freed here are marked kMcmPredScan for mcm_graft), and
// the columns of the trees that found a path marked released; visited and
// released columns are counted into kMcmVisited and kMcmReleased.
template <class Team>
JM_HD void mcm_release(const Team& team, McmView& p) {
  for (int r = team.rank(); r < p.nr; r += team.size())
    if (mcm_fix_row(p, r)) p.pred[r] = kMcmPredScan;
  int visited = 0, released = 0;
  for (int c = team.rank(); c < p.nc; c += team.size()) {
    if (p.bfs[c] == kMcmL0 - 1) continue;
    ++visited;
    if (p.bfs[p.root[c]] < kMcmL0 - 1) {  // its tree found a path
      p.root[c] = kMcmRootReleased;
      ++released;
    }
  }
  atomic_add_by_warp(p.sc + kMcmVisited, visited);
  atomic_add_by_warp(p.sc + kMcmReleased, released);
}

// After mcm_release: the trees are kept when the phase found a path, ran
// its BFS to the end, released fewer than one visited column in
// keep_trees_divisor, and the phase limit leaves room for the next phase
// (a graft may mark a path's end, -2, which only that phase's Alternate and
// FixMatching clear); the next phase then starts two levels above this
// one's last (no kept column is that deep).
JM_HD void mcm_ctrl_release(McmView& p, const McmOptions& o) {
  int* sc = p.sc;
  sc[kMcmForest] = 0;
  const long long visited = sc[kMcmVisited], released = sc[kMcmReleased];
  // Only APFB runs every BFS to its end, so that a tree that found no path
  // is closed, nothing left to expand.
  const bool keep = sc[kMcmFound] != 0 &&
                    mcm_resolved_driver(o, sc, p.nc) == kMcmApfb &&
                    released * o.keep_trees_divisor < visited &&
                    sc[kMcmNPhases] + 1 < o.max_phases;
  sc[kMcmKeptLevel] = keep ? sc[kMcmLevel] + 2 : 0;
  sc[kMcmPhaseSlot] = kMcmRequeuePhase;
}

// Whether row r looks for a graft: its mate was released, or FixMatching
// freed it.
JM_HD bool mcm_graft_wanted(const McmView& p, int r) {
  const int m = p.rmatch[r];
  return m >= 0 ? p.root[m] == kMcmRootReleased : p.pred[r] == kMcmPredScan;
}

// No lane: above every lane's rank in a tile's minimum.
constexpr int kMcmNoLane = 1 << 30;

// Row r's graft, by a tile of lanes that read its row list side by side
// (every lane takes the same branches): the kept columns (root >= 0:
// neither released, grafted nor unvisited) that the list names are checked
// in list order, one binary search each (mcm_column_has_row), and the
// first whose own list holds the row takes it: a matched row's mate is
// grafted onto that column's tree (pred = the column), a free row ends a
// path there (-2, as in mcm_expand).  A free row that finds none gets
// pred -1.  Returns kMcmFlagFound when a free row ended a path.  Reads the
// row CSR, its list checked before it is read.
template <class Tile>
JM_HD int mcm_graft_row(const Tile& tile, McmView& p, int r) {
  const int m = p.rmatch[r];
  const bool ok = mcm_pointers_ok(p.rxadj, p.rnnz_cap, r);
  const int stop = ok ? p.rxadj[r + 1] : 0;
  for (int base = ok ? p.rxadj[r] : 0; base < stop; base += tile.size()) {
    const int k = base + tile.rank();
    int c = k < stop ? p.radj[k] : -1;
    if (c >= p.nc || (c >= 0 && p.root[c] < 0)) c = -1;
    for (;;) {
      const int first = tile.all_min(c >= 0 ? tile.rank() : kMcmNoLane);
      if (first == kMcmNoLane) break;
      const bool mine = tile.rank() == first;
      if (tile.sync_or(mine && mcm_column_has_row(p, c, r) ? 1 : 0)) {
        if (!mine) return m >= 0 ? 0 : kMcmFlagFound;
        const int tree = p.root[c];
        p.pred[r] = c;
        if (m >= 0) {
          p.root[m] = kMcmGraftedBase - tree;
          return 0;
        }
        p.rmatch[r] = -2;
        atomic_min_int(p.bfs + tree, -r);
        return kMcmFlagFound;
      }
      if (mine) c = -1;  // not in the column's list: the next one
    }
  }
  if (m < 0 && tile.rank() == 0) p.pred[r] = -1;
  return 0;
}

// Every row that wants a graft (mcm_graft_wanted) gets one
// (mcm_graft_row): the team's tiles take blocks of rows, one row to a lane
// for the test, then the tile reads each wanted row's list together, so a
// hub row is not one worker's long tail and the rows that want nothing
// cost one test each.  `tile`: this worker's (warp_tile(team)).  Returns
// kMcmFlagFound when a free row ended a path.
template <class Team, class Tile>
JM_HD int mcm_graft(const Team& team, const Tile& tile, McmView& p) {
  int flags = 0;
  for (int base = team.rank() - tile.rank(); base < p.nr; base += team.size()) {
    const int r = base + tile.rank();
    bool wanted = r < p.nr && mcm_graft_wanted(p, r);
    for (;;) {
      const int j = tile.all_min(wanted ? tile.rank() : kMcmNoLane);
      if (j == kMcmNoLane) break;
      flags |= mcm_graft_row(tile, p, base + j);
      if (tile.rank() == j) wanted = false;
    }
  }
  return flags;
}

// Released columns become unvisited, or roots of their own where free
// (with an edge), at the kept level; grafted columns join their trees
// there; the columns at that level form the next queue.  Expects an empty
// queue (mcm_alternate emptied it).
template <class Team>
JM_HD void mcm_requeue_kept(const Team& team, McmView& p, int level) {
  for (int c = team.rank(); c < p.nc; c += team.size()) {
    const int mark = p.root[c];
    if (mark == kMcmRootReleased) {
      const bool root = mcm_is_root(p, c);
      p.bfs[c] = root ? level : kMcmL0 - 1;
      p.root[c] = root ? c : -1;
    } else if (mark <= kMcmGraftedBase) {
      p.bfs[c] = level;
      p.root[c] = kMcmGraftedBase - mark;
    }
  }
  mcm_queue_where(team, p, [&](int c) { return p.bfs[c] == level; });
}

// The forest step's queue: every column the trees hold (below `level`)
// that has an edge.  Expects an empty queue (mcm_begin_forest emptied it).
template <class Team>
JM_HD void mcm_queue_forest(const Team& team, McmView& p, int level) {
  mcm_queue_where(team, p, [&](int c) {
    const int b = p.bfs[c];
    return b >= kMcmL0 && b < level && mcm_degree(p, c) > 0;
  });
}

// The last step of a phase's end: the next queue, from the kept trees
// (mcm_requeue_kept), their whole forest (mcm_queue_forest) or from scratch
// (mcm_init_bfs: every free column a root again, the marks of mcm_release
// overwritten).
template <class Team>
JM_HD void mcm_requeue(const Team& team, McmView& p) {
  const int level = load_shared_scalar(p.sc + kMcmKeptLevel);
  if (level == 0)
    mcm_init_bfs(team, p);
  else if (load_shared_scalar(p.sc + kMcmForest) != 0)
    mcm_queue_forest(team, p, level);
  else
    mcm_requeue_kept(team, p, level);
}

}  // namespace jaxmatch
