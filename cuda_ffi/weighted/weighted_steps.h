// The steps of the approximate weighted matching algorithms on general
// graphs, written once for every back end: Suitor (Manne and Halappanavar;
// on GPUs Naim, Manne, Halappanavar, Tumeo, Langguth) and the locally
// dominant (LD) matching by rounds of mutually heaviest pairs.
//
// Each step is a function of a Team: the workers that share one vertex (a
// serial worker on the CPU, a tile of a warp on CUDA: TileTeam in
// common/teams.cuh) or, for the per-vertex steps, of one worker.
//
// Edges are totally ordered by (key, larger endpoint, smaller endpoint)
// (weighted_state.h), so the locally dominant matching is unique: it is what
// the sequential greedy algorithm (heaviest remaining edge first) returns,
// and both methods return it, on every back end and every interleaving.
//
// Suitor.  offer[v] is the best proposal v holds, packed (key << 32) | u, so
// that one 64-bit atomicMax both compares a proposal with v's current offer
// and installs it.  A vertex u proposes to its heaviest neighbour v whose
// offer (key_uv, u) beats; when the atomic returns an offer above u's (the
// read was stale), u searches again; when it installs u's, the suitor it
// replaced (if any) is dislodged and proposes again, in the same team
// (sequential Suitor's "re-process before moving on").  Why this is correct
// with any interleaving:
//  * offers only grow, so a vertex refused by v stays refused; a stale read
//    of an offer is never above the true one, so the search never skips a
//    neighbour that would accept, and the atomic refuses one that would not;
//  * at every moment each vertex is either held by exactly one team (being
//    processed, or queued for a later team), or the suitor of exactly one
//    vertex (its proposal stands), or done without a neighbour that would
//    accept it: the atomic that installs a proposal hands the replaced
//    suitor to the installing team;
//  * so the final offers are those of sequential Suitor under the same
//    total order, whose mutual pairs (u holds v's offer and v holds u's) are
//    the locally dominant matching.
#pragma once

#include <climits>

#include "weighted/weighted_state.h"

namespace jaxmatch {

JM_HD bool wm_running(const WmView& p) {
  return load_shared_scalar(p.sc + kWmStatus) == kWmRunning;
}

// ------------------------------------------------------------ initialisation

// The graph helpers take any view with n, cap, xadj (WmView, BmView).

// Whether u's pointers delimit a slice of adj (and they start at 0).  When
// every vertex's do, the slices tile the stored entries [0, xadj[n]).
template <class View>
JM_HD bool wm_pointers_ok(const View& p, int u) {
  const int lo = p.xadj[u], hi = p.xadj[u + 1];
  return lo >= 0 && hi >= lo && hi <= p.cap && (u != 0 || lo == 0);
}

// The number of stored entries, xadj[n], clamped to [0, cap] so that a
// malformed graph is still read in bounds.
template <class View>
JM_HD int wm_stored(const View& p) {
  if (p.n == 0) return 0;
  const int e = p.xadj[p.n];
  return e < 0 ? 0 : (e > p.cap ? p.cap : e);
}

template <class View>
JM_HD int wm_degree(const View& p, int u) {
  return p.xadj[u + 1] - p.xadj[u];
}

// Scalars and every array cleared (one worker per vertex).
template <class Team>
JM_HD void wm_init_clear(const Team& team, WmView& p) {
  if (team.rank() == 0) {
    for (int k = 0; k < kWmInfoLen; ++k) p.sc[k] = 0;
    p.sc[kWmStatus] = kWmRunning;
  }
  for (int u = team.rank(); u < p.n; u += team.size()) {
    p.mate[u] = -1;
    p.mate_edge[u] = -1;
    p.offer[u] = 0;
    p.cand[u] = -1;
    p.cand_edge[u] = -1;
    p.heavy[u] = -1;
  }
}

// Marks malformed pointers and lists the vertices of high degree (after
// wm_init_clear, past a barrier).  The pointers are checked per vertex; the
// stored entries, once every pointer is known good, by wm_check_entries.
template <class Team>
JM_HD void wm_init_validate(const Team& team, WmView& p) {
  const int heavy = wm_heavy_degree(p.n, p.cap);
  bool ok = true;
  for (int u = team.rank(); u < p.n; u += team.size()) {
    if (!wm_pointers_ok(p, u))
      ok = false;
    else if (wm_degree(p, u) > heavy)
      p.heavy[atomic_add_int(p.sc + kWmHeavy, 1)] = u;
  }
  if (!ok) p.sc[kWmStatus] = kWmBadGraph;
}

// ------------------------------------------------------------ stored entries
// A valid graph lists each vertex's neighbours, in range, in nondecreasing
// order (so the copies of a pair stored more than once lie side by side) and
// stores every edge from both ends with one key.  The last is checked by a
// sum over the entries of a 64-bit hash of (pair, key), added from the
// smaller end and subtracted from the larger: 0 when both ends list the same
// pairs and keys, as multisets; a graph whose ends differ gives 0 only if
// its hashes happen to cancel (probability about 2^-64).  Loops are left out.
struct WmEntryCheck {
  unsigned long long balance = 0;  // the signed hash sum, modulo 2^64
  bool bad = false;                // a neighbour out of range or of order
  bool copies = false;             // a list stores a neighbour twice
};

// splitmix64's finaliser (a bijection) of the pair (lo < hi) and key.
JM_HD unsigned long long wm_edge_hash(int lo, int hi, uint32_t key) {
  unsigned long long x =
      (static_cast<unsigned long long>(lo) << 32 | static_cast<uint32_t>(hi)) ^
      (static_cast<unsigned long long>(key) + 1) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

// Checks the stored entries first, first + stride, ... below `last` (<=
// xadj[n]) into `c` (one worker).  Every vertex's pointers must be valid
// (wm_pointers_ok): the worker finds the list of `first` by a binary search
// and walks the lists forward from there, its current list's bounds in
// registers.
template <class View>
JM_HD void wm_check_entries(const View& p, int first, int last, int stride,
                            WmEntryCheck& c) {
  if (first >= last) return;
  int u = last_at_most(p.xadj, 0, p.n - 1, first);
  int start = p.xadj[u], end = p.xadj[u + 1];
  for (int k = first; k < last; k += stride) {
    while (end <= k) {
      ++u;
      start = end;
      end = p.xadj[u + 1];
    }
    const int v = p.adj[k];
    const int before = k > start ? p.adj[k - 1] : -1;
    if (v < 0 || v >= p.n || before > v) {
      c.bad = true;
      continue;
    }
    if (before == v) c.copies = true;
    if (v == u) continue;
    const unsigned long long h =
        wm_edge_hash(u < v ? u : v, u < v ? v : u, p.key[k]);
    c.balance += u < v ? h : 0ull - h;
  }
}

// Where a problem's stored-entry check accumulates: a 64-bit word of the
// scalars (two int32 slots from an even one; every member's scalars start
// 8-byte aligned, their count being even).
JM_HD unsigned long long* wm_balance_word(int* sc, int slot) {
  return reinterpret_cast<unsigned long long*>(sc + slot);
}

// Every stored entry checked by one worker (the CPU): a bad one sets
// *flag = value, the balance goes to *balance and, given `copies`, a
// neighbour listed twice sets *copies = 1.
template <class View>
inline void wm_check_entries_serial(const View& p, unsigned long long* balance,
                                    int* flag, int value,
                                    int* copies = nullptr) {
  WmEntryCheck c;
  wm_check_entries(p, 0, wm_stored(p), 1, c);
  if (c.bad) *flag = value;
  if (c.copies && copies != nullptr) *copies = 1;
  *balance += c.balance;
}

// The status once the entries are checked (one worker).  The balance is
// left nonzero only for a graph whose pointers and entries are good but
// whose two ends differ: Python reports NaN weights before that (as
// Graph.validate() checks the weights before the symmetry) and after a bad
// structure.
JM_HD void wm_init_control(WmView& p) {
  unsigned long long* balance = wm_balance_word(p.sc, kWmBalance);
  if (p.sc[kWmStatus] != kWmRunning)
    *balance = 0;
  else if (*balance != 0)
    p.sc[kWmStatus] = kWmBadGraph;
}

// The whole init by one worker (the CPU back end, the harnesses' reference).
inline void wm_init_serial(WmView& p) {
  const SerialTeam team;
  wm_init_clear(team, p);
  wm_init_validate(team, p);
  if (wm_running(p))
    wm_check_entries_serial(p, wm_balance_word(p.sc, kWmBalance),
                            p.sc + kWmStatus, kWmBadGraph);
  wm_init_control(p);
}

// Whether u is listed in `heavy` (u's pointers valid).
template <class View>
JM_HD bool wm_is_heavy(const View& p, int u) {
  return wm_degree(p, u) > wm_heavy_degree(p.n, p.cap);
}

// ------------------------------------------------------------ Suitor

// A neighbour to propose to: (key_uv << 32) | v, or 0 for none, and the
// position of edge (u, v) in u's list (the first, should it be stored twice).
struct WmTarget {
  WmOffer offer;
  int pos;
};

// u's heaviest neighbour v that would take u's proposal (offer[v] below
// (key_uv, u)).
template <class Team>
JM_HD WmTarget wm_suitor_target(const Team& team, const WmView& p, int u) {
  WmOffer best = 0;
  int best_pos = INT_MAX;
  const int hi = p.xadj[u + 1];
  for (int k = p.xadj[u] + team.rank(); k < hi; k += team.size()) {
    const int v = p.adj[k];
    const uint32_t key = p.key[k];
    if (key == 0 || v == u) continue;
    if (wm_pack(key, u) <= load_shared_value(p.offer + v)) continue;
    const WmOffer c = wm_pack(key, v);
    if (c > best) {
      best = c;
      best_pos = k;
    }
  }
  const WmOffer top = team.all_max(best);
  if (top == 0) return {0, -1};
  return {top, team.all_min(best == top ? best_pos : INT_MAX)};
}

// Hands no vertex on: the team processes every vertex it meets.
struct WmKeepAll {
  template <class Team>
  JM_HD bool operator()(const Team&, WmView&, int) const {
    return false;
  }
};

// Processes u, then every suitor that a proposal of this team dislodges,
// until a proposal dislodges nobody or finds no neighbour that would take it.
// `hand_on(team, p, v)` may refuse a vertex v the team is about to process
// (the same answer on every worker of the team) by returning true: v is then
// another team's to process (a vertex of high degree, left to a larger team)
// and the chase ends.  Returns the number of proposals installed.
//
// Before each proposal the position of its edge goes to cand_edge[cur]; the
// atomic's acquire-release order puts that write after the previous
// holder's (whose proposal the atomic displaced), so the last proposal that
// took leaves its position there.
template <class Team, class HandOn = WmKeepAll>
JM_HD int wm_suitor_chase(const Team& team, WmView& p, int u,
                          HandOn hand_on = {}) {
  int installed = 0;
  int cur = u;
  while (cur >= 0) {
    if (hand_on(team, p, cur)) break;
    const WmTarget target = wm_suitor_target(team, p, cur);
    if (target.offer == 0) break;
    const int v = wm_id(target.offer);
    const WmOffer mine = wm_pack(wm_key(target.offer), cur);
    WmOffer old = 0;
    if (team.rank() == 0) {
      p.cand_edge[cur] = target.pos;
      old = atomic_max_acq_rel_u64(p.offer + v, mine);
    }
    old = team.from_first(old);
    if (old > mine) continue;  // a heavier proposal came first: search again
    ++installed;
    cur = old == 0 ? -1 : wm_id(old);  // the dislodged suitor proposes again
  }
  return installed;
}

// After every chase (one worker per vertex): u and v are matched when each
// holds the other's proposal.  u's proposal to v is then u's last one that
// took, whose edge position u's holder left in cand_edge[u].
JM_HD void wm_suitor_finalize(WmView& p, int u) {
  const WmOffer held = p.offer[u];
  int v = held == 0 ? -1 : wm_id(held);
  if (v >= 0) {
    const WmOffer theirs = p.offer[v];
    if (theirs == 0 || wm_id(theirs) != u) v = -1;
  }
  p.mate[u] = v;
  p.mate_edge[u] = v >= 0 ? p.cand_edge[u] : -1;
}

// ------------------------------------------------------------ LD rounds

// One round, first half: u's heaviest free neighbour (while u is free) into
// cand[u] / cand_edge[u]; any candidate sets the round's flag.
template <class Team>
JM_HD void wm_ld_candidate(const Team& team, WmView& p, int u, int parity) {
  WmOffer best = 0;
  int best_pos = INT_MAX;
  if (p.mate[u] < 0) {
    const int hi = p.xadj[u + 1];
    for (int k = p.xadj[u] + team.rank(); k < hi; k += team.size()) {
      const int v = p.adj[k];
      const uint32_t key = p.key[k];
      if (key == 0 || v == u || p.mate[v] >= 0) continue;
      const WmOffer c = wm_pack(key, v);
      if (c > best || (c == best && k < best_pos)) {
        best = c;
        best_pos = k;
      }
    }
  }
  const WmOffer top = team.all_max(best);
  const int pos = team.all_min(best == top ? best_pos : INT_MAX);
  if (team.rank() == 0) {
    p.cand[u] = top == 0 ? -1 : wm_id(top);
    p.cand_edge[u] = top == 0 ? -1 : pos;
    if (top != 0) p.sc[kWmAnyCand0 + parity] = 1;
  }
}

// Second half (one worker per vertex, after a barrier): mutual candidates
// are matched; each side writes its own entries.
JM_HD void wm_ld_match(WmView& p, int u) {
  const int v = p.cand[u];
  if (v >= 0 && p.cand[v] == u) {
    p.mate[u] = v;
    p.mate_edge[u] = p.cand_edge[u];
  }
}

// The round's scalar transition (one worker, after the match step's
// barrier): a round with no candidate ends the solve; otherwise it counts
// and the next round's flag is cleared.
JM_HD void wm_ld_control(WmView& p, int parity) {
  if (p.sc[kWmAnyCand0 + parity] == 0) {
    p.sc[kWmStatus] = kWmDominant;
    return;
  }
  p.sc[kWmRounds] += 1;
  p.sc[kWmAnyCand0 + (parity ^ 1)] = 0;
}

// ------------------------------------------------------------ serial drivers
// The CPU back end (and the kernel harness's reference).

// Sequential Suitor: each vertex in turn, every dislodged suitor re-processed
// before the next vertex.
inline void wm_suitor_serial(WmView& p) {
  const SerialTeam team;
  int installed = 0;
  for (int u = 0; u < p.n; ++u) installed += wm_suitor_chase(team, p, u);
  for (int u = 0; u < p.n; ++u) wm_suitor_finalize(p, u);
  p.sc[kWmProposals] += installed;
  p.sc[kWmRounds] = 1;
  p.sc[kWmStatus] = kWmDominant;
}

// Up to `rounds` LD rounds (fewer when the matching is done).
inline void wm_ld_rounds_serial(WmView& p, int rounds) {
  const SerialTeam team;
  for (int r = 0; r < rounds && wm_running(p); ++r) {
    const int parity = r & 1;
    for (int u = 0; u < p.n; ++u) wm_ld_candidate(team, p, u, parity);
    for (int u = 0; u < p.n; ++u) wm_ld_match(p, u);
    wm_ld_control(p, parity);
  }
}

}  // namespace jaxmatch
