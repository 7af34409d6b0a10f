// The k best assignments (Murty's ranking, with the optimizations of Miller,
// Stone and Cox, "Optimizing Murty's ranked assignment method", IEEE TAES
// 33(3), 1997, and of fastmurty, Motro and Ghosh, FUSION 2019), with a
// price for leaving a row or a column unassigned, written once over a Team
// (common/device.h's SerialTeam on the CPU; a warp, common/teams.cuh's
// TileTeam<32>, on the GPU: lap/kbest/kbest_kernels.cu).  Everything here
// compiles for the device (JM_HD).
//
// The team.  The loops over columns (and over the rows' bounds) stride over
// the team's workers; the control runs on every worker alike, each holding
// the same scalars (sizes, bounds, slots) in its registers, computed from
// the same memory; memory the control writes is written by rank 0 alone,
// between team.sync()s: one before (every worker has read what it
// overwrites) where a worker may still read it, one after (every worker
// sees it).  KBestLeast combines the workers' minima by (distance,
// position), the serial scan's first least, so that every team finds the
// serial team's paths, solutions and ranking exactly (the host emulation
// tests/lap/kbest_team_emulation.cc checks it).
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
// at most k - t - 1 nodes after the t-th output; a child whose lower bound (its
// row's second least reduced cost) or whose search reaches the queue's worst is
// skipped; the rows are split in the order of those bounds, the largest
// last.  Each search runs over a list of the open columns, the scanned ones
// moved behind the others (fastmurty's cols2use), and each child's list is
// its predecessor's plus the column its row frees.  Memory: (k + 2) nodes
// of 2 n + 2 m + 4 int32 and m + 1 wide entries, a search's 4 m entries,
// the queue's 3 k + 2 and the rows' bounds n.
#pragma once

#include <cstdint>
#include <limits>

#include "common/device.h"
#include "lap/common/lap_state.h"
#include "lap/kbest/kbest_info.h"
#include "lap/kbest/kbest_problem.h"

namespace jaxmatch {

// A search's workspace: per column its distance, predecessor row (or
// kKBestZone) and state (kKBestOut: held by a fixed row, or kKBestOpen; set
// by the caller), and the open columns `cols`: the first `open` not yet
// scanned, then the scanned ones in order (as fastmurty's cols2use, so that
// every pass runs over the columns still unscanned alone).
template <class W>
struct KBestSearchWork {
  W* dist;
  int* pred;
  int* state;
  int* cols;
};
constexpr int kKBestOut = 0, kKBestOpen = 1;

// The least distance of the unscanned columns cols[0..open-1] and its
// position in cols (-1: none below +inf), the first such position, to
// every worker: each takes a stride, then the team combines them.
template <class W, class Team>
JM_HD void KBestLeast(const Team& team, const KBestSearchWork<W>& w, int open,
                      W* least, int* at) {
  W best = KBestInf<W>();
  int where = -1;
  for (int q = team.rank(); q < open; q += team.size()) {
    const W d = w.dist[w.cols[q]];
    if (d < best) {
      best = d;
      where = q;
    }
  }
  team.all_argmin(&best, &where);
  *least = best;
  *at = where;
}

// Relaxes the unscanned columns from row i (the distance to column j is
// C_ij - v_j - shift), or from the zone to the assigned columns (i < 0:
// c_j - v_j + shift, shift the zone's distance).
template <class T, class W, class Team>
JM_HD void KBestRelax(const Team& team, const KBestProblem<T>& P,
                      const KBestNode<W>& nd, const KBestSearchWork<W>& w,
                      int open, int i, W shift) {
  if (i >= 0) {
    const T* row = P.C + static_cast<int64_t>(i) * P.m;
    for (int q = team.rank(); q < open; q += team.size()) {
      const int j = w.cols[q];
      const W d = static_cast<W>(row[j]) - nd.v[j] - shift;
      if (d < w.dist[j]) {
        w.dist[j] = d;
        w.pred[j] = i;
      }
    }
  } else {
    for (int q = team.rank(); q < open; q += team.size()) {
      const int j = w.cols[q];
      if (nd.y[j] < 0) continue;
      const W d = P.col_price(j) - nd.v[j] + shift;
      if (d < w.dist[j]) {
        w.dist[j] = d;
        w.pred[j] = kKBestZone;
      }
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
// are out: the caller lists the open ones in w.cols[0..total-1] (which
// the search permutes).  Returns
// the path's length L in reduced costs (the new cost is the old plus L),
// or KBestInf when no path is shorter than `bound` (nd then undefined).
// The prices stay feasible and tight (see the file's comment).
template <class T, class Team>
JM_HD KBestWide<T> KBestAugment(const Team& team, const KBestProblem<T>& P,
                                const KBestNode<KBestWide<T>>& nd, int f,
                                const int* excl,
                                const KBestSearchWork<KBestWide<T>>& w,
                                int total, KBestWide<T> bound) {
  using W = KBestWide<T>;
  const W inf = KBestInf<W>();
  const int m = P.m;
  const int j0 = nd.x[f];
  const bool to_zone = j0 < 0;
  const W uf = KBestRowDual(P, nd, f);
  const T* frow = P.C + static_cast<int64_t>(f) * m;
  for (int q = team.rank(); q < total; q += team.size()) {
    const int j = w.cols[q];
    w.pred[j] = f;
    w.dist[j] = static_cast<W>(frow[j]) - nd.v[j] - uf;
  }
  team.sync();
  if (team.rank() == 0 && excl != nullptr)
    for (int e = 1; e <= excl[0]; ++e)
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
  int open = total;
  for (;;) {
    W least;
    int at;
    KBestLeast(team, w, open, &least, &at);
    if (zone_open && zone <= least) {
      least = zone;
      at = -1;
    }
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
      for (int k = 0; k < nd.active(); ++k) {
        const int i = nd.order[k];
        if (i != f && nd.x[i] == kKBestExit)
          KBestRelax(team, P, nd, w, open, i, static_cast<W>(P.r[i]) - least);
      }
      KBestRelax(team, P, nd, w, open, -1, least);
      continue;
    }
    // Column cols[at] is scanned: it moves behind the unscanned ones.
    const int j = w.cols[at];
    team.sync();  // every worker has read cols[at]
    if (team.rank() == 0) {
      w.cols[at] = w.cols[open - 1];
      w.cols[open - 1] = j;
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
  for (int q = first + team.rank(); q < total; q += team.size()) {
    const int j = w.cols[q];
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
  for (int q = first + team.rank(); q < total; q += team.size()) {
    const int j = w.cols[q];
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
    if (!(KBestAugment(team, P, nd, f, nullptr, w, P.m, KBestInf<W>()) <
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

// Row f's least reduced cost over the open columns cols[0..open-1] and
// its exit, bar what it holds and what `excl` excludes: a lower bound on
// its child's path.
template <class T, class W>
JM_HD W KBestRowBound(const KBestProblem<T>& P, const KBestNode<W>& nd,
                      const int* cols, int open, int f, const int* excl) {
  const W uf = KBestRowDual(P, nd, f);
  const int held = nd.x[f];
  const T* row = P.C + static_cast<int64_t>(f) * P.m;
  W least = KBestInf<W>(), second = KBestInf<W>();
  if (excl == nullptr || excl[0] == 0) {
    // The least and the second least, free of branches; the second when
    // the held column attains the least (then another column attains the
    // least too, or the second is the least of the others).
    for (int q = 0; q < open; ++q) {
      const int j = cols[q];
      const W d = static_cast<W>(row[j]) - nd.v[j];
      second = d < second ? d : second;
      second = least > second ? least : second;
      least = d < least ? d : least;
    }
    if (held >= 0 && static_cast<W>(row[held]) - nd.v[held] == least)
      least = second;
  } else {
    for (int q = 0; q < open; ++q) {
      const int j = cols[q];
      if (j == held || KBestExcluded(excl, j)) continue;
      const W d = static_cast<W>(row[j]) - nd.v[j];
      if (d < least) least = d;
    }
  }
  least -= uf;
  if (P.exits && held != kKBestExit && !KBestExcluded(excl, P.m)) {
    const W d = static_cast<W>(P.r[f]) - uf;
    if (d < least) least = d;
  }
  return least;
}

// The ranking's workspace beside the nodes: the queue's slots and keys
// [k] (sorted by key, the largest first), the free slots [k + 2], the rows'
// bounds [n].
template <class W>
struct KBestRankWork {
  int* queue;
  W* keys;
  int* free_slots;
  W* bounds;
};

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
// order; returns how many (to every worker).  A stream compaction: each
// worker takes a column of every team-wide stretch and places it after
// those the lower ranks hold; ends in a barrier.
template <class W, class Team>
JM_HD int KBestListOpen(const Team& team, const KBestSearchWork<W>& w, int m) {
  int open = 0;
  for (int j0 = 0; j0 < m; j0 += team.size()) {
    const int j = j0 + team.rank();
    const bool listed = j < m && w.state[j] == kKBestOpen;
    int stretch;
    const int before = team.count_before(listed, &stretch);
    if (listed) w.cols[open + before] = j;
    open += stretch;
  }
  team.sync();
  return open;
}

// The whole ranking of one problem (the control on every worker alike, see
// the file's comment; the searches, copies and bounds over the team).  ints
// [(k + 2) * L.ints()] and wides [(k + 2) * L.wides()] hold the nodes, sw
// the search's workspace, rw the queue's.  Writes the k best solutions'
// columns (-1: unassigned) to assign [k, n] and their columns' rows (-1:
// unassigned) to assign_cols [k, m] (unused entries untouched), in the
// order found (KBestObjectives sums their objectives), and the searches run
// to *searches (rank 0); returns how many exist up to k (0: no
// assignment), to every worker, after a barrier.
template <class T, class Team>
JM_HD int KBestRank(const Team& team, const KBestProblem<T>& P, int k,
                    int* ints, KBestWide<T>* wides,
                    const KBestSearchWork<KBestWide<T>>& sw,
                    const KBestRankWork<KBestWide<T>>& rw, int* assign,
                    int* assign_cols, int* searches) {
  using W = KBestWide<T>;
  const KBestNodeLayout L{P.n, P.m};
  const int n = P.n, m = P.m;
  const bool lead = team.rank() == 0;
  auto node = [&](int s) { return KBestNodeAt<W>(L, ints, wides, s); };
  // The free slots, a stack: slot 0 on top.
  int free_top = k + 2;
  for (int q = team.rank(); q < k + 2; q += team.size())
    rw.free_slots[q] = k + 1 - q;
  team.sync();
  int qsize = 0, runs = n;
  const int root = rw.free_slots[--free_top];
  if (!KBestRoot(team, P, node(root), sw)) {
    if (lead) *searches = runs;
    return 0;
  }
  if (lead) {
    rw.queue[0] = root;
    rw.keys[0] = *node(root).cost;
  }
  qsize = 1;
  int count = 0;
  for (int t = 0; t < k && qsize > 0; ++t) {
    team.sync();
    // The queue is sorted by key, largest first: the least is the last.
    const int ps = rw.queue[--qsize];
    const KBestNode<W> parent = node(ps);
    const W pcost = *parent.cost;
    for (int i = team.rank(); i < n; i += team.size()) {
      const int j = parent.x[i];
      assign[static_cast<int64_t>(t) * n + i] = j >= 0 ? j : -1;
    }
    for (int j = team.rank(); j < m; j += team.size())
      assign_cols[static_cast<int64_t>(t) * m + j] = parent.y[j];
    count = t + 1;
    const int cap = k - t - 1;
    if (cap == 0) break;
    // The worst queued key when the queue is full (the bound).
    W bound = qsize < cap ? KBestInf<W>() : rw.keys[0];
    // The parent's open columns (not held by its fixed rows), listed.
    const int A = parent.active();
    const int* pexcl = parent.special() ? parent.excl : nullptr;
    for (int j = team.rank(); j < m; j += team.size()) sw.state[j] = kKBestOpen;
    team.sync();
    for (int q = A + team.rank(); q < n; q += team.size())
      if (parent.x[parent.order[q]] >= 0)
        sw.state[parent.x[parent.order[q]]] = kKBestOut;
    team.sync();
    const int open = KBestListOpen(team, sw, m);
    for (int q = team.rank(); q < A; q += team.size()) {
      const int f = parent.order[q];
      rw.bounds[f] = KBestRowBound(P, parent, sw.cols, open, f,
                                   q == A - 1 ? pexcl : nullptr);
    }
    team.sync();
    // Split: the active rows but the last ordered by their bounds, the
    // largest last (its child, the largest, is the likeliest skipped).
    if (lead)
      for (int a = 1; a < A - 1; ++a) {
        const int f = parent.order[a];
        int b = a;
        for (; b > 0 && rw.bounds[parent.order[b - 1]] > rw.bounds[f]; --b)
          parent.order[b] = parent.order[b - 1];
        parent.order[b] = f;
      }
    team.sync();
    // Child p fixes rows order[p..A-1] beside the parent's: the columns
    // of rows order[1..A-1] out for child 1, then freed one by one.
    for (int q = 1 + team.rank(); q < A; q += team.size())
      if (parent.x[parent.order[q]] >= 0)
        sw.state[parent.x[parent.order[q]]] = kKBestOut;
    team.sync();
    int total = KBestListOpen(team, sw, m);
    int ws = rw.free_slots[--free_top];
    for (int p = 1; p <= A; ++p) {
      const int f = parent.order[p - 1];
      const int held = parent.x[f];
      // The searches permute the list; each child adds its row's column
      // (past the list: no worker reads it before the next barrier).
      if (p > 1 && held >= 0) {
        if (lead) sw.cols[total] = held;
        ++total;
      }
      if (!(pcost + rw.bounds[f] < bound)) continue;  // skipped by bound
      team.sync();
      const KBestNode<W> child = node(ws);
      KBestCopyNode(team, L, child, parent);
      if (lead) {
        child.active() = p;
        child.special() = 1;
        int excluded = 0;
        if (p == A && pexcl != nullptr) {
          excluded = pexcl[0];
          for (int e = 1; e <= excluded; ++e) child.excl[e] = pexcl[e];
        }
        child.excl[++excluded] = held >= 0 ? held : m;
        child.excl[0] = excluded;
      }
      team.sync();
      ++runs;
      const W length =
          KBestAugment(team, P, child, f, child.excl, sw, total, bound - pcost);
      if (!(length < KBestInf<W>())) continue;
      const W key = pcost + length;
      const int evicted = qsize < cap ? -1 : rw.queue[0];
      team.sync();
      if (lead) *child.cost = key;
      // Full: the worst leaves, its slot the next child's.
      KBestQueueInsert(team, rw, qsize, qsize < cap ? 0 : 1, key, ws);
      if (qsize < cap) {
        ++qsize;
        ws = rw.free_slots[--free_top];
      } else {
        ws = evicted;
      }
      if (qsize == cap) bound = rw.keys[0];
    }
    team.sync();
    if (lead) {
      rw.free_slots[free_top] = ws;
      rw.free_slots[free_top + 1] = ps;
    }
    free_top += 2;
  }
  if (lead) *searches = runs;
  team.sync();
  return count;
}

// The objectives of the `count` solutions that KBestRank wrote to assign
// [k, n] and assign_cols [k, m], summed afresh into costs [k]: each by one
// worker, in KBestObjective's order, so that every team size gives the same
// sums.  Ends in a barrier.
template <class T, class Team>
JM_HD void KBestObjectives(const Team& team, const KBestProblem<T>& P,
                           int count, const int* assign, const int* assign_cols,
                           KBestWide<T>* costs) {
  for (int t = team.rank(); t < count; t += team.size())
    costs[t] = KBestObjective(P, assign + static_cast<int64_t>(t) * P.n,
                              assign_cols + static_cast<int64_t>(t) * P.m);
  team.sync();
}

// A team's workspace for KBestSolveTeam: the nodes (KBestRank's ints and
// wides), the search's and the queue's arrays, and the found solutions
// before they are ordered: found_rows [k, n], found_cols [k, m], found [k],
// order [k].
template <class W>
struct KBestTeamWork {
  int* ints;
  W* wides;
  KBestSearchWork<W> sw;
  KBestRankWork<W> rw;
  int* found_rows;
  int* found_cols;
  W* found;
  int* order;
};

// One problem, whole, by a team (the GPU's warp): checks its entries, ranks,
// orders the found solutions by their objectives summed afresh (stably:
// ties in the order found, as the CPU's std::stable_sort, each solution's
// place counted by every worker for its own), and writes assign [k, n]
// (-1 past the count), costs [k] (the dtype's largest past it) and info
// [kKBestInfoLen] (rank 0).  Ends in a barrier.
template <class T, class Team>
JM_HD void KBestSolveTeam(const Team& team, const KBestProblem<T>& P, int k,
                          const KBestTeamWork<KBestWide<T>>& w, int* assign,
                          T* costs, int* info) {
  using W = KBestWide<T>;
  const int n = P.n;
  const bool lead = team.rank() == 0;
  int status = kLapInvalidEntries, count = 0, searches = 0;
  if (KBestValid(team, P)) {
    count = KBestRank(team, P, k, w.ints, w.wides, w.sw, w.rw, w.found_rows,
                      w.found_cols, &searches);
    KBestObjectives(team, P, count, w.found_rows, w.found_cols, w.found);
    status = count > 0 ? kLapOptimal : kLapInfeasible;
    for (int t = team.rank(); t < count; t += team.size()) {
      const W key = w.found[t];
      int place = 0;
      for (int a = 0; a < count; ++a)
        place += (w.found[a] < key) | ((w.found[a] == key) & (a < t));
      w.order[place] = t;
    }
    team.sync();
    for (int t = 0; t < count; ++t) {
      const int from = w.order[t];
      for (int i = team.rank(); i < n; i += team.size())
        assign[static_cast<int64_t>(t) * n + i] =
            w.found_rows[static_cast<int64_t>(from) * n + i];
      if (lead && !KBestStoreCost<T>(w.found[from], &costs[t]))
        status = kLapOverflow;
    }
  }
  const int64_t rest = static_cast<int64_t>(k - count) * n;
  for (int64_t e = team.rank(); e < rest; e += team.size())
    assign[static_cast<int64_t>(count) * n + e] = -1;
  const T fill = std::numeric_limits<T>::has_infinity
                     ? std::numeric_limits<T>::infinity()
                     : std::numeric_limits<T>::max();
  for (int t = count + team.rank(); t < k; t += team.size()) costs[t] = fill;
  if (lead) {
    info[kKBestInfoStatus] = status;
    info[kKBestInfoCount] = count;
    info[kKBestInfoIters] = searches;
  }
  team.sync();
}

}  // namespace jaxmatch
