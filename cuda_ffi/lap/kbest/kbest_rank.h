// The k best assignments' ranking (Murty's, as lap/kbest/kbest_steps.h's
// file comment describes it, over its steps): KBestRank, by a crew of
// teams; KBestSolveTeam, one problem whole.  Everything here compiles for
// the device (JM_HD).
//
// The crew.  One team (member 0, the chief) pops the queue's least node,
// writes it out and lists its open columns; the crew bounds its rows, each
// member over a share of the columns; the chief orders them and lists the
// children whose bound passes; then the crew searches those children
// crew.size() at a time, each member its own from the parent into its own
// working node, with the queue's bound as it stood before the batch; then
// the chief takes their results in order exactly as one team searching
// them in turn would have: a child whose bound no longer passes is skipped
// (its search not counted), and one whose search scanned a distance at or
// past the bound as it now stands is dropped (a search stops at the first
// such distance, and a looser bound changes nothing before it:
// KBestAugment's peak), the others are queued.  So every crew size finds
// the same solutions in the same order and counts the same searches (the
// host emulation and the kernel harness compare it with one team).  A crew
// of one (SerialCrew, the CPU) is the plain loop.
#pragma once

#include <cstdint>
#include <limits>

#include "common/device.h"
#include "lap/kbest/kbest_steps.h"

namespace jaxmatch {

// A crew of one team.  A crew: size() teams rank one problem; member() is
// the calling team's index; sync() is a barrier of every worker of every
// member.
struct SerialCrew {
  JM_HD int size() const { return 1; }
  JM_HD int member() const { return 0; }
  JM_HD void sync() const {}
};

// What the chief tells the crew (ctl): the parent's slot (-1: the ranking
// ended), how many of its columns are open and how many children are
// listed; (ctl_wide) the parent's cost and the queue's bound.
constexpr int kKBestCtlParent = 0, kKBestCtlOpen = 1, kKBestCtlListed = 2,
              kKBestCtlLen = 3;
constexpr int kKBestCtlCost = 0, kKBestCtlBound = 1, kKBestCtlWideLen = 2;

// The crew's workspace: each member's working node slot, and its last
// child's bound (the parent's cost plus its row's bound), search length and
// peak [crew size]; the members' parts of the rows' bounds, least and
// second [crew size, n] (KBestRowBoundParts; a crew of one writes its
// bounds at once: null); the chief's words ctl [kKBestCtlLen] and ctl_wide
// [kKBestCtlWideLen].
template <class W>
struct KBestCrewWork {
  int* slots;
  W* lows;
  W* lengths;
  W* peaks;
  W* least;
  W* second;
  int* ctl;
  W* ctl_wide;
};

// The node slots a ranking of k by a crew of `members` uses: the queue's
// at most k - 1, the parent, and each member's working node.
JM_HD int KBestSlots(int k, int members) { return k + 1 + members; }

// The whole ranking of one problem by the crew (every worker of every
// member calls it; the control on every worker of a team alike, see
// kbest_steps.h's file comment).  ints [KBestSlots * L.ints()] and wides
// [KBestSlots * L.wides()] hold the nodes, sw the calling member's search
// workspace, rw the queue's and the pop's (the chief's sw.cols the open
// columns' lists every member reads), cw the crew's.  The chief writes the
// k best solutions' columns (-1: unassigned) to assign [k, n] and their
// columns' rows (-1: unassigned) to assign_cols [k, m] (unused entries
// untouched), in the order found (KBestObjectives sums their objectives),
// and the searches run to *searches; returns to the chief's workers how
// many exist up to k (0: no assignment), after a barrier of the crew.
template <class T, class Team, class Crew>
JM_HD int KBestRank(const Team& team, const Crew& crew,
                    const KBestProblem<T>& P, int k, int* ints,
                    KBestWide<T>* wides,
                    const KBestSearchWork<KBestWide<T>>& sw,
                    const KBestRankWork<KBestWide<T>>& rw,
                    const KBestCrewWork<KBestWide<T>>& cw, int* assign,
                    int* assign_cols, int* searches) {
  using W = KBestWide<T>;
  const W inf = KBestInf<W>();
  const KBestNodeLayout L{P.n, P.m};
  const int n = P.n, m = P.m, members = crew.size(), me = crew.member();
  const bool lead = team.rank() == 0, chief = me == 0;
  auto node = [&](int s) { return KBestNodeAt<W>(L, ints, wides, s); };
  // The chief's: the free slots (a stack, slot 0 on top), the queue's size,
  // the searches counted, the solutions written.
  const int slots = KBestSlots(k, members);
  int free_top = slots, qsize = 0, runs = n, count = 0;
  if (chief) {
    for (int q = team.rank(); q < slots; q += team.size())
      rw.free_slots[q] = slots - 1 - q;
    team.sync();
    const int root = rw.free_slots[--free_top];
    if (KBestRoot(team, P, node(root), sw)) {
      if (lead) {
        rw.queue[0] = root;
        rw.keys[0] = *node(root).cost;
      }
      qsize = 1;
    }
  }
  for (int t = 0;; ++t) {
    if (chief) {
      team.sync();
      int ps = -1, open = 0;
      W pcost = W(0), bound = inf;
      if (t < k && qsize > 0) {
        // The queue is sorted by key, largest first: the least is the last.
        ps = rw.queue[--qsize];
        const KBestNode<W> parent = node(ps);
        pcost = *parent.cost;
        for (int i = team.rank(); i < n; i += team.size()) {
          const int j = parent.x[i];
          assign[static_cast<int64_t>(t) * n + i] = j >= 0 ? j : -1;
        }
        for (int j = team.rank(); j < m; j += team.size())
          assign_cols[static_cast<int64_t>(t) * m + j] = parent.y[j];
        count = t + 1;
        const int cap = k - t - 1;
        if (cap == 0) {
          ps = -1;
        } else {
          // The worst queued key when the queue is full (the bound).
          bound = qsize < cap ? inf : rw.keys[0];
          open = KBestListNodeOpen(team, P, parent, sw);
        }
      }
      if (lead) {
        cw.ctl[kKBestCtlParent] = ps;
        cw.ctl[kKBestCtlOpen] = open;
        cw.ctl_wide[kKBestCtlCost] = pcost;
        cw.ctl_wide[kKBestCtlBound] = bound;
      }
    }
    crew.sync();
    const int ps = cw.ctl[kKBestCtlParent];
    if (ps < 0) break;
    const W pcost = cw.ctl_wide[kKBestCtlCost];
    const KBestNode<W> parent = node(ps);
    const int A = parent.active();
    const int* pexcl = parent.special() ? parent.excl : nullptr;
    // The rows' bounds, the open columns shared over the crew.
    KBestRowBoundParts(team, P, parent, sw.cols, cw.ctl[kKBestCtlOpen], A,
                       pexcl, me, members, cw.least, cw.second, rw.bounds);
    crew.sync();
    if (chief) {
      KBestRowBoundsJoin(team, P, parent, A, pexcl, members, cw.least,
                         cw.second, rw.bounds);
      const int listed = KBestSplit(team, P, parent, sw, rw, pcost,
                                    cw.ctl_wide[kKBestCtlBound]);
      // Each member's working slot.
      if (lead) {
        for (int w = 0; w < members; ++w)
          cw.slots[w] = rw.free_slots[free_top - 1 - w];
        cw.ctl[kKBestCtlListed] = listed;
      }
      free_top -= members;
    }
    crew.sync();
    const int listed = cw.ctl[kKBestCtlListed];
    for (int c0 = 0; c0 < listed; c0 += members) {
      // The batch: child c0 + me by this member.
      const W bound = cw.ctl_wide[kKBestCtlBound];
      const int c = c0 + me;
      if (c < listed) {
        const int p = rw.children[c];
        const int f = parent.order[p - 1];
        const int held = parent.x[f];
        const W low = pcost + rw.bounds[f];
        W length = inf, peak = inf;
        if (low < bound) {
          const KBestNode<W> child = node(cw.slots[me]);
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
          length = KBestAugment(team, P, child, f, child.excl, sw,
                                rw.child_total[c], bound - pcost, &peak);
        }
        if (lead) {
          cw.lows[me] = low;
          cw.lengths[me] = length;
          cw.peaks[me] = peak;
        }
      }
      crew.sync();
      if (chief) {
        // The batch's results in order, against the bound as it stands.
        W now = bound;
        const int cap = k - t - 1;
        const int end = c0 + members < listed ? c0 + members : listed;
        for (int b = c0; b < end; ++b) {
          const int w = b - c0;
          if (!(cw.lows[w] < now)) continue;  // skipped by bound
          ++runs;
          const W length = cw.lengths[w];
          if (!(length < inf) || !(cw.peaks[w] < now - pcost)) continue;
          const W key = pcost + length;
          const int slot = cw.slots[w];
          const int evicted = qsize < cap ? -1 : rw.queue[0];
          team.sync();
          if (lead) *node(slot).cost = key;
          // Full: the worst leaves, its slot the member's next.
          KBestQueueInsert(team, rw, qsize, qsize < cap ? 0 : 1, key, slot);
          int next = evicted;
          if (qsize < cap) {
            ++qsize;
            next = rw.free_slots[--free_top];
          }
          if (lead) cw.slots[w] = next;
          if (qsize == cap) now = rw.keys[0];
        }
        if (lead) cw.ctl_wide[kKBestCtlBound] = now;
      }
      crew.sync();
    }
    if (chief) {
      team.sync();
      if (lead) {
        for (int w = 0; w < members; ++w)
          rw.free_slots[free_top + w] = cw.slots[w];
        rw.free_slots[free_top + members] = ps;
      }
      free_top += members + 1;
    }
  }
  if (chief && lead) *searches = runs;
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

// A crew member's workspace for KBestSolveTeam: the nodes (KBestRank's ints
// and wides), its search's arrays, the queue's and the crew's, and the
// found solutions before they are ordered: found_rows [k, n], found_cols
// [k, m], found [k], order [k]; all but sw shared by the crew.
template <class W>
struct KBestTeamWork {
  int* ints;
  W* wides;
  KBestSearchWork<W> sw;
  KBestRankWork<W> rw;
  KBestCrewWork<W> cw;
  int* found_rows;
  int* found_cols;
  W* found;
  int* order;
};

// One problem, whole, by a crew (every worker of every member calls it):
// checks its entries, ranks, and the chief orders the found solutions by
// their objectives summed afresh (stably: ties in the order found, as the
// CPU's std::stable_sort, each solution's place counted by every worker for
// its own) and writes assign [k, n] (-1 past the count), costs [k] (the
// dtype's largest past it) and info [kKBestInfoLen] (rank 0).  Ends in a
// barrier of the crew.
template <class T, class Team, class Crew>
JM_HD void KBestSolveTeam(const Team& team, const Crew& crew,
                          const KBestProblem<T>& P, int k,
                          const KBestTeamWork<KBestWide<T>>& w, int* assign,
                          T* costs, int* info) {
  using W = KBestWide<T>;
  const int n = P.n;
  const bool lead = team.rank() == 0;
  int status = kLapInvalidEntries, count = 0, searches = 0;
  const bool valid = KBestValid(team, P);
  if (valid)
    count = KBestRank(team, crew, P, k, w.ints, w.wides, w.sw, w.rw, w.cw,
                      w.found_rows, w.found_cols, &searches);
  if (crew.member() == 0) {
    if (valid) {
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
  }
  team.sync();
  crew.sync();
}

}  // namespace jaxmatch
