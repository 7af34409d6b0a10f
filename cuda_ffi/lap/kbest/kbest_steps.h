// The k best assignments (Murty's ranking, with the optimizations of Miller,
// Stone and Cox, "Optimizing Murty's ranked assignment method", IEEE TAES
// 33(3), 1997, and of fastmurty, Motro and Ghosh, FUSION 2019), with a
// price for leaving a row or a column unassigned: its steps, written once
// over a Team (common/device.h's SerialTeam on the CPU; a warp,
// common/teams.cuh's TileTeam<32>, on the GPU: lap/kbest/kbest_kernels.cu);
// lap/kbest/kbest_rank.h ranks with them, by a crew of teams.  Everything
// here compiles for the device (JM_HD).
//
// The team.  The loops over columns (and over the rows' bounds) stride over
// the team's workers; the control runs on every worker alike, each holding
// the same scalars (sizes, bounds, slots) in its registers, computed from
// the same memory; memory the control writes is written by rank 0 alone,
// between team.sync()s: one before (every worker has read what it
// overwrites) where a worker may still read it, one after (every worker
// sees it).  KBestLeast combines the workers' minima by (distance, place
// in the list), the serial scan's first least, so that every team finds
// the serial team's paths, solutions and ranking exactly (the host
// emulation tests/lap/kbest_team_emulation.cc checks it).
//
// The problem (its exits and duals) and the nodes: lap/kbest/kbest_problem.h.
//
// The ranking.  A node is a solution with its duals and its part of the
// solution space: its rows `order` [n] hold first its `active` rows, free
// to change, then rows fixed to their solution's value; the last active
// row may carry exclusions (the list `excl`: the values it may not take,
// m standing for its exit).
// Splitting a node of A active rows gives A children: child p (1..A) keeps
// rows order[0..p-1] active and excludes row order[p-1]'s value (inheriting
// the node's exclusions when p = A; the node's excluded row is its last
// active one, so every other child fixes it and exclusions stay on one
// row).  Each child is solved from its parent's solution and duals by ONE
// shortest augmenting path from the freed row to its freed column (or to
// the zone when the row was unassigned), in reduced costs, over the
// columns not held by fixed rows.  A bounded queue, sorted by key, holds
// at most k - t - 1 nodes after the t-th output; a child whose lower bound
// (its row's second least reduced cost) or whose search reaches the
// queue's worst is skipped; the rows are split in the order of those
// bounds, the largest last.  Each search runs over a list of the open
// columns (each child's list its predecessor's plus the column its row
// frees, all written before the searches: KBestListChildren), its own copy
// of which it permutes, the scanned columns moved behind the others
// (fastmurty's cols2use), and among columns at the least distance takes
// the freed column first, which ends it.  Memory: KBestSlots nodes of
// 2 n + 2 m + 4 int32 and m + 1 wide entries, a search's 5 m + n entries
// (the list shared by a crew), the queue's 3 k + 2, the rows' bounds and
// children 3 n, and a crew's parts of the bounds (2 n a member).
#pragma once

#include <cstdint>
#include <limits>

#include "common/device.h"
#include "lap/common/lap_state.h"
#include "lap/kbest/kbest_info.h"
#include "lap/kbest/kbest_problem.h"

namespace jaxmatch {

// A search's workspace: per column its distance, predecessor row (or
// kKBestZone) and state (kKBestOut: held by a fixed row, or kKBestOpen;
// while a pop lists its open columns), the list of open columns `cols`
// (the caller's: a crew's chief writes it, every member's search reads
// it), the search's own copy of its part in `list` [m]: the first `open`
// not yet scanned, then the scanned ones in order (as fastmurty's
// cols2use, so that every pass runs over the columns still unscanned
// alone), and `rows` [n], a list of rows: those at their exits while a
// search relaxes from the zone, the split's new order while a pop sorts
// its rows.
template <class W>
struct KBestSearchWork {
  W* dist;
  int* pred;
  int* state;
  int* cols;
  int* list;
  int* rows;
};
constexpr int kKBestOut = 0, kKBestOpen = 1;

// The least distance of the unscanned columns list[0..open-1] and its
// place in the list (-1: none below +inf), to every worker: among ties the
// column `target` (which ends the search), else the first in the list.
// Each worker takes a stride, then the team combines them by (distance,
// key), the target's key (its place less `open`) below every other's.
template <class W, class Team>
JM_HD void KBestLeast(const Team& team, const KBestSearchWork<W>& w, int open,
                      int target, W* least, int* at) {
  constexpr int kNone = std::numeric_limits<int>::max();
  W best = KBestInf<W>();
  int where = kNone;
  JM_UNROLL_BY(2)
  for (int q = team.rank(); q < open; q += team.size()) {
    const int j = w.list[q];
    const W d = w.dist[j];
    const int key = j == target ? q - open : q;
    if (d < best || (d == best && key < where)) {
      best = d;
      where = key;
    }
  }
  team.all_argmin(&best, &where);
  *least = best;
  *at = where == kNone ? -1 : where < 0 ? where + open : where;
}

// Relaxes the unscanned columns list[0..open-1] from row i (the distance to
// column j is C_ij - v_j - shift).
template <class T, class W, class Team>
JM_HD void KBestRelax(const Team& team, const KBestProblem<T>& P,
                      const KBestNode<W>& nd, const KBestSearchWork<W>& w,
                      int open, int i, W shift) {
  const T* row = P.C + static_cast<int64_t>(i) * P.m;
  JM_UNROLL_BY(2)
  for (int q = team.rank(); q < open; q += team.size()) {
    const int j = w.list[q];
    const W d = static_cast<W>(row[j]) - nd.v[j] - shift;
    if (d < w.dist[j]) {
      w.dist[j] = d;
      w.pred[j] = i;
    }
  }
  team.sync();
}

// Lists value(q) for the q in [0, len) where pick(q, &value) holds, in
// order of q, in out; returns how many (to every worker).  A stream
// compaction: each worker takes a q of every team-wide stretch and places
// its value after those the lower ranks hold; ends in a barrier.
template <class Team, class Pick>
JM_HD int KBestCompact(const Team& team, int len, Pick pick, int* out) {
  int count = 0;
  for (int q0 = 0; q0 < len; q0 += team.size()) {
    const int q = q0 + team.rank();
    int value = 0;
    const bool listed = q < len && pick(q, &value);
    int stretch;
    const int before = team.count_before(listed, &stretch);
    if (listed) out[count + before] = value;
    count += stretch;
  }
  team.sync();
  return count;
}

// Relaxes the unscanned columns list[0..open-1] from the zone, scanned at
// distance `least`:
// from each row at its exit, w.rows[0..exits-1] in order (the distance to
// column j is C_ij - v_j - (r_i - least)), then from the zone to the
// assigned columns (c_j - v_j + least).  KBestRelax's passes in that order,
// fused: each column takes its least in the same order (the first row to
// attain it), with one barrier.
template <class T, class W, class Team>
JM_HD void KBestRelaxZone(const Team& team, const KBestProblem<T>& P,
                          const KBestNode<W>& nd, const KBestSearchWork<W>& w,
                          int open, int exits, W least) {
  JM_UNROLL_BY(2)
  for (int q = team.rank(); q < open; q += team.size()) {
    const int j = w.list[q];
    const W vj = nd.v[j];
    W best = w.dist[j];
    int from = 0;
    bool better = false;
    for (int e = 0; e < exits; ++e) {
      const int i = w.rows[e];
      const W d = static_cast<W>(P.C[static_cast<int64_t>(i) * P.m + j]) - vj -
                  (static_cast<W>(P.r[i]) - least);
      if (d < best) {
        best = d;
        from = i;
        better = true;
      }
    }
    if (nd.y[j] >= 0) {
      const W d = P.col_price(j) - vj + least;
      if (d < best) {
        best = d;
        from = kKBestZone;
        better = true;
      }
    }
    if (better) {
      w.dist[j] = best;
      w.pred[j] = from;
    }
  }
  team.sync();
}

// Row i's dual u_i (x[i] a column or the exit).
template <class T, class W>
JM_HD W KBestRowDual(const KBestProblem<T>& P, const KBestNode<W>& nd, int i) {
  const int j = nd.x[i];
  if (j >= 0) return P.cost(i, j) - nd.v[j];
  if (j == kKBestExit) return static_cast<W>(P.r[i]);
  return W(0);
}

// One shortest augmenting path from row f of node `nd` (in place): f's
// value is freed (a column, or its exit; kKBestNone for a row the root's
// solve adds), f may not take what the list `excl` holds (null: nothing),
// the rows order[0..active-1] may change, the columns of the other rows
// are out: the caller lists the open ones in w.cols[0..total-1] (which the
// search copies to w.list and permutes there).  Returns
// the path's length L in reduced costs (the new cost is the old plus L),
// or KBestInf when no path is shorter than `bound` (nd then undefined);
// *peak: the largest distance scanned (L, or the first at or past `bound`
// when the search stopped there), so that a caller can tell what a
// smaller bound would have given: L when peak is below it, else KBestInf.
// The prices stay feasible and tight (see the file's comment).
template <class T, class Team>
JM_HD KBestWide<T> KBestAugment(const Team& team, const KBestProblem<T>& P,
                                const KBestNode<KBestWide<T>>& nd, int f,
                                const int* excl,
                                const KBestSearchWork<KBestWide<T>>& w,
                                int total, KBestWide<T> bound,
                                KBestWide<T>* peak) {
  using W = KBestWide<T>;
  const W inf = KBestInf<W>();
  const int m = P.m;
  const int j0 = nd.x[f];
  const bool to_zone = j0 < 0;
  const W uf = KBestRowDual(P, nd, f);
  const T* frow = P.C + static_cast<int64_t>(f) * m;
  JM_UNROLL_BY(2)
  for (int q = team.rank(); q < total; q += team.size()) {
    const int j = w.cols[q];
    w.list[q] = j;
    w.pred[j] = f;
    w.dist[j] = static_cast<W>(frow[j]) - nd.v[j] - uf;
  }
  team.sync();
  if (excl != nullptr)
    for (int e = 1 + team.rank(); e <= excl[0]; e += team.size())
      if (excl[e] < m) w.dist[excl[e]] = inf;
  team.sync();
  // The zone: its distance, whether scanned, and how it was entered (a
  // row's exit, or an unassigned column).
  W zone = inf, zone_at = inf;
  bool zone_open = true;
  int zone_row = -1, zone_col = -1;
  if (P.exits && !KBestExcluded(excl, m)) {
    zone = static_cast<W>(P.r[f]) - uf;
    zone_row = f;
  }
  W length = inf;
  int end = -1;  // the target column, or -1 for the zone
  W top = -inf;  // the largest distance scanned
  int open = total;
  for (;;) {
    W least;
    int at;
    KBestLeast(team, w, open, j0, &least, &at);
    if (zone_open && zone <= least) {
      least = zone;
      at = -1;
    }
    top = least > top ? least : top;
    *peak = top;
    if (!(least < bound) || !(least < inf)) return inf;
    if (at < 0) {
      zone_open = false;
      zone_at = least;
      if (to_zone) {
        length = least;
        break;
      }
      // Rows at their exits take columns; assigned columns' dummies leave
      // them unassigned.
      const int exits = KBestCompact(
          team, nd.active(),
          [&](int q, int* i) {
            *i = nd.order[q];
            return *i != f && nd.x[*i] == kKBestExit;
          },
          w.rows);
      KBestRelaxZone(team, P, nd, w, open, exits, least);
      continue;
    }
    // Column list[at] is scanned: it moves behind the unscanned ones.
    const int j = w.list[at];
    team.sync();  // every worker has read list[at]
    if (team.rank() == 0) {
      w.list[at] = w.list[open - 1];
      w.list[open - 1] = j;
    }
    team.sync();
    --open;
    if (j == j0) {
      length = least;
      end = j;
      break;
    }
    const int i = nd.y[j];
    if (i < 0) {  // an unassigned column: the zone at its distance
      if (zone_open && least < zone) {
        zone = least;
        zone_row = -1;
        zone_col = j;
      }
      continue;
    }
    const W h = P.cost(i, j) - nd.v[j] - least;  // u_i - least
    KBestRelax(team, P, nd, w, open, i, h);
    if (P.exits && zone_open) {
      const W d = static_cast<W>(P.r[i]) - h;
      if (d < zone) {
        zone = d;
        zone_row = i;
        zone_col = -1;
      }
    }
  }
  // Prices: the scanned columns by distance minus length; when the zone
  // was scanned before the end, every price shifts by length minus its
  // distance, so that the zone's potential stays 0.
  const W shift = !zone_open && !to_zone ? length - zone_at : W(0);
  const int first = shift != W(0) ? 0 : open;  // unscanned: only shifted
  JM_UNROLL_BY(2)
  for (int q = first + team.rank(); q < total; q += team.size()) {
    const int j = w.list[q];
    if (q >= open && j != end) nd.v[j] += w.dist[j] - length;
    nd.v[j] += shift;
  }
  team.sync();
  // The path, from its end back to f.
  if (team.rank() == 0) {
    int cur = end;  // a column, or -1: the zone
    for (;;) {
      if (cur >= 0) {
        const int p = w.pred[cur];
        if (p == kKBestZone) {
          nd.y[cur] = -1;
          cur = -1;
          continue;
        }
        const int old = nd.x[p];
        nd.x[p] = cur;
        nd.y[cur] = p;
        if (p == f) break;
        cur = old >= 0 ? old : -1;
      } else if (zone_row >= 0) {
        const int old = nd.x[zone_row];
        nd.x[zone_row] = kKBestExit;
        if (zone_row == f) break;
        cur = old;
      } else {
        cur = zone_col;
      }
    }
  }
  team.sync();
  // Unassigned columns keep their price exactly: against rounding, and an
  // unscanned one shifted with the zone goes back (its dummy row's
  // potential stays 0; lowering a price keeps every pair feasible).
  JM_UNROLL_BY(2)
  for (int q = first + team.rank(); q < total; q += team.size()) {
    const int j = w.list[q];
    if (nd.y[j] < 0) nd.v[j] = P.col_price(j);
  }
  team.sync();
  return length;
}

// The objective of node nd's solution, summed afresh.
template <class T>
JM_HD KBestWide<T> KBestObjective(const KBestProblem<T>& P, const int* x,
                                  const int* y) {
  using W = KBestWide<T>;
  W total = W(0);
  for (int i = 0; i < P.n; ++i)
    total += x[i] >= 0 ? P.cost(i, x[i]) : static_cast<W>(P.r[i]);
  if (P.exits)
    for (int j = 0; j < P.m; ++j)
      if (y[j] < 0) total += P.col_price(j);
  return total;
}

// The root: every row added by one search (the successive shortest paths
// from prices c).  false when some row has no path (no assignment).
template <class T, class Team>
JM_HD bool KBestRoot(const Team& team, const KBestProblem<T>& P,
                     const KBestNode<KBestWide<T>>& nd,
                     const KBestSearchWork<KBestWide<T>>& w) {
  using W = KBestWide<T>;
  for (int i = team.rank(); i < P.n; i += team.size()) {
    nd.x[i] = kKBestNone;
    nd.order[i] = i;
  }
  for (int j = team.rank(); j < P.m; j += team.size()) {
    nd.y[j] = -1;
    nd.v[j] = P.col_price(j);
  }
  if (team.rank() == 0) {
    nd.excl[0] = 0;
    nd.special() = 0;
  }
  for (int j = team.rank(); j < P.m; j += team.size()) w.cols[j] = j;
  team.sync();
  for (int f = 0; f < P.n; ++f) {
    if (team.rank() == 0) nd.active() = f + 1;
    team.sync();
    W peak;
    if (!(KBestAugment(team, P, nd, f, nullptr, w, P.m, KBestInf<W>(), &peak) <
          KBestInf<W>()))
      return false;
  }
  if (team.rank() == 0) {
    nd.active() = P.n;
    *nd.cost = KBestObjective(P, nd.x, nd.y);
  }
  team.sync();
  return true;
}

// The least and second least of values with their repeats, as d comes:
// lo <= hi, free of branches.
template <class W>
JM_HD void KBestTakeOne(W d, W* lo, W* hi) {
  *hi = d < *hi ? d : *hi;
  *hi = *lo > *hi ? *lo : *hi;
  *lo = d < *lo ? d : *lo;
}

// The least and second least of two such pairs' values together, into
// (*lo, *hi).
template <class W>
JM_HD void KBestTakeTwo(W other_lo, W other_hi, W* lo, W* hi) {
  const W low_high = *lo > other_lo ? *lo : other_lo;
  const W high_low = *hi < other_hi ? *hi : other_hi;
  *lo = *lo < other_lo ? *lo : other_lo;
  *hi = low_high < high_low ? low_high : high_low;
}

// How many of a node's A active rows are bounded without exclusions: all
// but the last when `excl` lists any.
JM_HD int KBestPlainRows(int A, const int* excl) {
  return excl != nullptr && excl[0] > 0 ? A - 1 : A;
}

// Row f's least and second least reduced costs (of the values with their
// repeats) over the open columns cols[lo..hi-1], into *least and *second:
// a part of its bound (KBestRowBound).  By one worker, free of branches,
// over the even and the odd places apart (two chains of dependent steps),
// then merged (KBestTakeTwo).
template <class T, class W>
JM_HD void KBestRowLeastTwo(const KBestProblem<T>& P, const KBestNode<W>& nd,
                            const int* cols, int lo, int hi, int f, W* least,
                            W* second) {
  // Row f's costs, C_fj at row[j * step]: across a team's workers (rows)
  // the transposed copy's entries lie side by side.
  const T* row =
      P.Ct != nullptr ? P.Ct + f : P.C + static_cast<int64_t>(f) * P.m;
  const int64_t step = P.Ct != nullptr ? P.n : 1;
  const W inf = KBestInf<W>();
  W lo_even = inf, hi_even = inf, lo_odd = inf, hi_odd = inf;
  int q = lo;
  JM_UNROLL_BY(2)
  for (; q + 1 < hi; q += 2) {
    const int j = cols[q], j_odd = cols[q + 1];
    KBestTakeOne(static_cast<W>(row[j * step]) - nd.v[j], &lo_even, &hi_even);
    KBestTakeOne(static_cast<W>(row[j_odd * step]) - nd.v[j_odd], &lo_odd,
                 &hi_odd);
  }
  if (q < hi)
    KBestTakeOne(static_cast<W>(row[cols[q] * step]) - nd.v[cols[q]], &lo_even,
                 &hi_even);
  KBestTakeTwo(lo_odd, hi_odd, &lo_even, &hi_even);
  *least = lo_even;
  *second = hi_even;
}

// Row f's bound from `least`, its least c_fj - v_j over the columns it may
// take: less its dual uf, and at most its exit's r_f - uf when `exit_open`
// (the problem has exits and row f may take its exit).
template <class T, class W>
JM_HD W KBestBoundWithExit(const KBestProblem<T>& P, int f, W uf, W least,
                           bool exit_open) {
  least -= uf;
  if (exit_open) {
    const W d = static_cast<W>(P.r[f]) - uf;
    if (d < least) least = d;
  }
  return least;
}

// Row f's least reduced cost over the open columns and its exit, bar what
// it holds, from the least and second least of the open columns: a lower
// bound on its child's path (the second when the held column attains the
// least: then another column attains the least too, or the second is the
// least of the others).
template <class T, class W>
JM_HD W KBestRowBound(const KBestProblem<T>& P, const KBestNode<W>& nd, int f,
                      W least, W second) {
  const W uf = KBestRowDual(P, nd, f);
  const int held = nd.x[f];
  if (held >= 0 && P.cost(f, held) - nd.v[held] == least) least = second;
  return KBestBoundWithExit(P, f, uf, least, P.exits && held != kKBestExit);
}

// The same bound for row f, which may not take what the list `excl`
// holds either, by the whole team (each worker a stride of the columns);
// to every worker.
template <class T, class W, class Team>
JM_HD W KBestExcludedRowBound(const Team& team, const KBestProblem<T>& P,
                              const KBestNode<W>& nd, const int* cols, int open,
                              int f, const int* excl) {
  const W uf = KBestRowDual(P, nd, f);
  const int held = nd.x[f];
  const T* row = P.C + static_cast<int64_t>(f) * P.m;
  W least = KBestInf<W>();
  JM_UNROLL_BY(2)
  for (int q = team.rank(); q < open; q += team.size()) {
    const int j = cols[q];
    if (j == held || KBestExcluded(excl, j)) continue;
    const W d = static_cast<W>(row[j]) - nd.v[j];
    if (d < least) least = d;
  }
  int unused = 0;
  team.all_argmin(&least, &unused);
  return KBestBoundWithExit(
      P, f, uf, least,
      P.exits && held != kKBestExit && !KBestExcluded(excl, P.m));
}

// The bounds of the active rows order[0..A-1] of node nd (the last one's
// under the exclusions `excl`, or null) by part `part` of a crew of `parts`
// teams: rows order[0..plain-1] (KBestPlainRows) each by a worker over the
// part's share of the open columns cols[0..open-1], its least and second
// least into least [parts, n] and second [parts, n] at [part, q] (one
// part: its bound into bounds [row] at once); the row with exclusions by
// the last part, whole, into bounds [row].  KBestRowBoundsJoin then joins
// the parts.
template <class T, class W, class Team>
JM_HD void KBestRowBoundParts(const Team& team, const KBestProblem<T>& P,
                              const KBestNode<W>& nd, const int* cols, int open,
                              int A, const int* excl, int part, int parts,
                              W* least, W* second, W* bounds) {
  const int plain = KBestPlainRows(A, excl);
  const int lo = static_cast<int>(int64_t{open} * part / parts),
            hi = static_cast<int>(int64_t{open} * (part + 1) / parts);
  const int64_t at = int64_t{part} * P.n;
  for (int q = team.rank(); q < plain; q += team.size()) {
    const int f = nd.order[q];
    W lo_f, hi_f;
    KBestRowLeastTwo(P, nd, cols, lo, hi, f, &lo_f, &hi_f);
    if (parts == 1) {
      bounds[f] = KBestRowBound(P, nd, f, lo_f, hi_f);
    } else {
      least[at + q] = lo_f;
      second[at + q] = hi_f;
    }
  }
  if (plain < A && part == parts - 1) {
    const int f = nd.order[A - 1];
    const W b = KBestExcludedRowBound(team, P, nd, cols, open, f, excl);
    if (team.rank() == 0) bounds[f] = b;
  }
}

// The bounds of rows order[0..plain-1] into bounds [row], from the parts'
// least and second least (KBestRowBoundParts; one part wrote them at once);
// ends in a barrier.
template <class T, class W, class Team>
JM_HD void KBestRowBoundsJoin(const Team& team, const KBestProblem<T>& P,
                              const KBestNode<W>& nd, int A, const int* excl,
                              int parts, const W* least, const W* second,
                              W* bounds) {
  const int plain = parts > 1 ? KBestPlainRows(A, excl) : 0;
  for (int q = team.rank(); q < plain; q += team.size()) {
    W lo = least[q], hi = second[q];
    for (int part = 1; part < parts; ++part)
      KBestTakeTwo(least[int64_t{part} * P.n + q],
                   second[int64_t{part} * P.n + q], &lo, &hi);
    const int f = nd.order[q];
    bounds[f] = KBestRowBound(P, nd, f, lo, hi);
  }
  team.sync();
}

// Sorts order[0..len-1] by bounds[order[.]], stably (ties keep their
// order), through scratch [len]: a serial team inserts, a larger one ranks
// each row by counting those before it.  Ends in a barrier.
template <class W, class Team>
JM_HD void KBestSortRows(const Team& team, int* order, int len, const W* bounds,
                         int* scratch) {
  if (team.size() == 1) {
    for (int a = 1; a < len; ++a) {
      const int f = order[a];
      int b = a;
      for (; b > 0 && bounds[order[b - 1]] > bounds[f]; --b)
        order[b] = order[b - 1];
      order[b] = f;
    }
    team.sync();
    return;
  }
  for (int a = team.rank(); a < len; a += team.size()) {
    const int f = order[a];
    const W key = bounds[f];
    int place = 0;
    for (int b = 0; b < len; ++b) {
      const W kb = bounds[order[b]];
      place += (kb < key) | ((kb == key) & (b < a));
    }
    scratch[place] = f;
  }
  team.sync();
  for (int a = team.rank(); a < len; a += team.size()) order[a] = scratch[a];
  team.sync();
}

// The ranking's workspace beside the nodes: the queue's slots and keys
// [k] (sorted by key, the largest first), the free slots [k + 2], the rows'
// bounds [n], and a pop's children whose bound passes [n] with their lists'
// lengths [n] (KBestListChildren).
template <class W>
struct KBestRankWork {
  int* queue;
  W* keys;
  int* free_slots;
  W* bounds;
  int* children;
  int* child_total;
};

// Before the children of node nd (A active rows, cost pcost) are searched:
// child p's list of open columns is its predecessor's plus the column row
// order[p-1] frees (for p > 1), child 1's the first `total` entries of
// cols; every child's column is put in place at once (past each list: a
// search permutes only its list).  Lists the children whose bound (pcost
// plus their row's bound) passes `bound`, in order, in children with their
// lists' lengths in totals; returns how many (to every worker).  Ends in a
// barrier.
template <class W, class Team>
JM_HD int KBestListChildren(const Team& team, const KBestNode<W>& nd, int A,
                            int total, W pcost, W bound, const W* bounds,
                            int* cols, int* children, int* totals) {
  int added = 0, listed = 0;
  for (int p0 = 1; p0 <= A; p0 += team.size()) {
    const int p = p0 + team.rank();
    int held = -1;
    bool adds = false, passes = false;
    if (p <= A) {
      const int f = nd.order[p - 1];
      held = nd.x[f];
      adds = p > 1 && held >= 0;
      passes = pcost + bounds[f] < bound;
    }
    int added_here, listed_here;
    const int added_before = team.count_before(adds, &added_here);
    const int listed_before = team.count_before(passes, &listed_here);
    const int length = total + added + added_before + (adds ? 1 : 0);
    if (adds) cols[length - 1] = held;
    if (passes) {
      children[listed + listed_before] = p;
      totals[listed + listed_before] = length;
    }
    added += added_here;
    listed += listed_here;
  }
  team.sync();
  return listed;
}

// Puts (key, slot) into the queue rw.keys/rw.queue [0..size-1], sorted by
// key from the largest: with drop 0 it grows by one; with drop 1 its first
// (largest) entry leaves instead, the size unchanged.  Every worker finds
// the place by binary search; the entries move over the team a stretch at a
// time (each worker reads its entry, a barrier, then writes it one place
// on), the stretches taken away from the place, so that no stretch reads
// what another wrote; rank 0 writes the new entry.  Ends in a barrier.
template <class W, class Team>
JM_HD void KBestQueueInsert(const Team& team, const KBestRankWork<W>& rw,
                            int size, int drop, W key, int slot) {
  // p: the first position past every key >= key, among entries [drop, size).
  int lo = drop, hi = size;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (rw.keys[mid] >= key)
      lo = mid + 1;
    else
      hi = mid;
  }
  int p = lo;
  const int g = team.size();
  if (drop) {  // entries [1, p) move up one place, the new one at p - 1
    for (int q0 = 1; q0 < p; q0 += g) {
      const int q = q0 + team.rank();
      W kq = W(0);
      int sq = 0;
      if (q < p) {
        kq = rw.keys[q];
        sq = rw.queue[q];
      }
      team.sync();
      if (q < p) {
        rw.keys[q - 1] = kq;
        rw.queue[q - 1] = sq;
      }
    }
    --p;
  } else {  // entries [p, size) move down one place, from the last
    for (int q0 = size - 1; q0 >= p; q0 -= g) {
      const int q = q0 - team.rank();
      W kq = W(0);
      int sq = 0;
      if (q >= p) {
        kq = rw.keys[q];
        sq = rw.queue[q];
      }
      team.sync();
      if (q >= p) {
        rw.keys[q + 1] = kq;
        rw.queue[q + 1] = sq;
      }
    }
  }
  team.sync();
  if (team.rank() == 0) {
    rw.keys[p] = key;
    rw.queue[p] = slot;
  }
  team.sync();
}

// Lists the columns whose state is kKBestOpen in w.cols, in increasing
// order; returns how many (to every worker).  Ends in a barrier.
template <class W, class Team>
JM_HD int KBestListOpen(const Team& team, const KBestSearchWork<W>& w, int m) {
  return KBestCompact(
      team, m,
      [&](int j, int* value) {
        *value = j;
        return w.state[j] == kKBestOpen;
      },
      w.cols);
}

// Lists the open columns of node nd (those its fixed rows do not hold) in
// sw.cols; returns how many (to every worker); ends in a barrier.
template <class T, class Team>
JM_HD int KBestListNodeOpen(const Team& team, const KBestProblem<T>& P,
                            const KBestNode<KBestWide<T>>& nd,
                            const KBestSearchWork<KBestWide<T>>& sw) {
  const int n = P.n, m = P.m, A = nd.active();
  for (int j = team.rank(); j < m; j += team.size()) sw.state[j] = kKBestOpen;
  team.sync();
  for (int q = A + team.rank(); q < n; q += team.size())
    if (nd.x[nd.order[q]] >= 0) sw.state[nd.x[nd.order[q]]] = kKBestOut;
  team.sync();
  return KBestListOpen(team, sw, P.m);
}

// The split of node nd (cost pcost), once its rows are bounded (rw.bounds):
// orders its active rows by their bounds, the largest last (its child, the
// largest, is the likeliest skipped; the row with exclusions stays last),
// and lists its children whose bound passes `bound` (KBestListChildren:
// rw.children, rw.child_total, and their lists in sw.cols): child p fixes
// rows order[p..A-1] beside the node's, so child 1's list has the columns
// of rows order[1..A-1] out, and each next child frees one.  Returns how
// many children are listed (to every worker); ends in a barrier.
template <class T, class Team>
JM_HD int KBestSplit(const Team& team, const KBestProblem<T>& P,
                     const KBestNode<KBestWide<T>>& nd,
                     const KBestSearchWork<KBestWide<T>>& sw,
                     const KBestRankWork<KBestWide<T>>& rw, KBestWide<T> pcost,
                     KBestWide<T> bound) {
  const int A = nd.active();
  KBestSortRows(team, nd.order, A - 1, rw.bounds, sw.rows);
  for (int q = 1 + team.rank(); q < A; q += team.size())
    if (nd.x[nd.order[q]] >= 0) sw.state[nd.x[nd.order[q]]] = kKBestOut;
  team.sync();
  return KBestListChildren(team, nd, A, KBestListOpen(team, sw, P.m), pcost,
                           bound, rw.bounds, sw.cols, rw.children,
                           rw.child_total);
}

}  // namespace jaxmatch
