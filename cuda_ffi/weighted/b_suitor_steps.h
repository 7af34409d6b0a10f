// The steps of b-Suitor (Khan, Pothen, Patwary, Halappanavar, Satish,
// Sundaram, Dubey, SIAM J. Sci. Comput. 38(5), 2016), the 1/2-approximate
// maximum weight b-matching, written once for every back end over a Team
// (a serial worker on the CPU; a tile of a warp or a whole block on CUDA:
// common/teams.cuh).  State and workspace: weighted_state.h (BmView).
//
// Each vertex v holds S(v), the up to b(v) best proposals made to it, packed
// (key << 32) | proposer (the order of WmOffer: key, then the proposer), in
// a binary min-heap; floor(v) is the lightest of S(v) once S(v) is full, 0
// before.  A vertex u owes b(u) proposals (at most its degree): each goes to
// u's heaviest neighbour v (order (key, v), as wm_suitor_target) with
// (key_uv, u) > floor(v) that does not hold one of u's proposals; installing
// it into a full S(v) dislodges S(v)'s lightest proposer, which then owes one
// more.  When no proposal is owed, edge (u, v) is matched iff u is in S(v)
// and v in S(u).
//
// Why any interleaving gives the sequential b-greedy's matching (under the
// total order of edges, weighted_state.h):
//  * floors only grow (a heap only gains entries until full, then only
//    trades its lightest for a heavier one), so a vertex v that refuses or
//    dislodges u never accepts u again.  Hence u's targets come in strictly
//    decreasing order (key, v): cursor[u] keeps u's last one and the search
//    looks only below it (it never needs "is u already in S(v)", and each
//    neighbour gets at most one proposal of u: a pair stored more than once
//    is a candidate along its heaviest copy only).  A stale read of floor(v)
//    is never above the true floor, so the search never skips a neighbour
//    that would accept; the install re-checks under v's lock;
//  * owed[u] + (u's proposals standing) == min(b(u), deg(u)) until u runs
//    out of targets, less the proposals u's owner made but has not yet
//    subtracted (bm_process); the team that raises owed[u] from 0 owns u and
//    makes its proposals until it brings owed[u] back to 0, so at every
//    moment u has at most one owner, which alone moves cursor[u];
//  * so the run ends in a state where every vertex has b(u) standing
//    proposals or no target left, and every S(v) holds the b(v) heaviest
//    proposals ever made to it.  Khan et al. (Lemma 4.1, Theorem 4.2) show
//    this state is unique, whatever the order of the proposals, and that its
//    mutual proposals are the sequential b-greedy matching (heaviest edge
//    first, taken when both endpoints still have room).
//
// Heaps: a per-vertex spin lock (a bit of the vertex's 32-byte record, which
// also holds floor(v), S(v)'s size and bound, and the vertex's cursor and
// owed count: an install touches one record) taken by one lane of the team
// (sm_70+ independent thread scheduling lets a lane spin on a lock that a
// lane of its own warp holds), rather than a lock-free scheme: an install
// into a heap of b(v) entries needs a consistent heap for its O(log b) sift,
// which one 64-bit atomic cannot give for b > 1 (b = 1 is Suitor's
// atomicMax).  The lock is held only for the sift, with no team collective
// inside, so a holder never waits on anyone.
//
// Candidates: one scan of u's list gives each worker its best eligible
// candidate below the cursor and its second best; every candidate above the
// team's largest second best is then exactly the team's top eligible ones,
// proposed to in order (one reduction each) before the list is scanned
// again.  With a whole block on a hub this is a block-wide partial selection
// of up to 1024 candidates per scan, so a vertex with b in the hundreds and
// millions of neighbours makes its proposals with few scans.
//
// Each worker keeps its kDepth best candidates (16 for the CPU's one
// worker, 2 for a lane of a tile, 1 for a thread of a block).
//
// Work: a team chases the vertices its proposals dislodge (as Suitor) on a
// small stack; a vertex the team should not process (a hub met by a tile, a
// light vertex met by a block) or beyond the stack goes to a queue that the
// next round reads.
#pragma once

#include <climits>

#include "weighted/weighted_steps.h"

namespace jaxmatch {

constexpr WmOffer kBmAll = ~0ull;
constexpr int kBmRefused = -2;
// Vertices a team keeps to process after its current one.
constexpr int kBmStack = 8;

JM_HD bool bm_running(const BmView& p) {
  return load_shared_scalar(p.sc + kBmStatus) == kWmRunning;
}

JM_HD bool bm_drained(const BmView& p) {
  return load_shared_scalar(p.sc + kBmDrained) != 0;
}

// ------------------------------------------------------------ initialisation

// Scalars and every array cleared (one worker per vertex and entry); S(v)'s
// and u's bound min(b, deg) (0 where b < 0 or the pointers are malformed).
template <class Team>
JM_HD void bm_init_clear(const Team& team, BmView& p, const int* b) {
  if (team.rank() == 0) {
    for (int k = 0; k < kBmInfoLen; ++k) p.sc[k] = 0;
    p.sc[kBmStatus] = kWmRunning;
  }
  for (int u = team.rank(); u < p.n; u += team.size()) {
    const bool ok = wm_pointers_ok(p, u);
    const int deg = ok ? wm_degree(p, u) : 0;
    const int bu = b[u];
    const int c = bu < 0 ? 0 : (bu < deg ? bu : deg);
    BmVertex& x = p.vx[u];
    x.floor = c == 0 ? kBmAll : 0;
    x.cursor = kBmAll;
    x.hoff = ok ? p.xadj[u] : 0;
    x.hcap = c;
    x.owed = c;
    x.state = 0;
    p.heavy[u] = -1;
    p.degree[u] = 0;
  }
  for (int k = team.rank(); k < p.cap; k += team.size()) p.mark[k] = 0;
}

// Flags malformed pointers or a negative b and lists the vertices of high
// degree (after bm_init_clear, past a barrier); the stored entries are then
// checked by wm_check_entries (weighted_steps.h) unless a pointer is bad.
template <class Team>
JM_HD void bm_init_validate(const Team& team, BmView& p, const int* b) {
  const int heavy = wm_heavy_degree(p.n, p.cap);
  bool bad_graph = false, bad_b = false;
  for (int u = team.rank(); u < p.n; u += team.size()) {
    if (b[u] < 0) bad_b = true;
    if (!wm_pointers_ok(p, u))
      bad_graph = true;
    else if (wm_degree(p, u) > heavy)
      p.heavy[atomic_add_int(p.sc + kBmHeavy, 1)] = u;
  }
  if (bad_graph) p.sc[kBmBadGraph] = 1;
  if (bad_b) p.sc[kBmBadCapacity] = 1;
}

// The status from the flags and the entries' balance (one worker, after
// the check): a malformed graph first.  The balance is left nonzero only
// when the pointers and entries are good but the two ends differ (as
// wm_init_control).
JM_HD void bm_init_control(BmView& p) {
  unsigned long long* balance = wm_balance_word(p.sc, kBmBalance);
  if (p.sc[kBmBadGraph] != 0) *balance = 0;
  if (p.sc[kBmBadGraph] != 0 || *balance != 0)
    p.sc[kBmStatus] = kWmBadGraph;
  else if (p.sc[kBmBadCapacity] != 0)
    p.sc[kBmStatus] = kWmInvalidCapacity;
}

// The whole init by one worker (the CPU back end, the harnesses' reference).
inline void bm_init_serial(BmView& p, const int* b) {
  const SerialTeam team;
  bm_init_clear(team, p, b);
  bm_init_validate(team, p, b);
  if (p.sc[kBmBadGraph] == 0)
    wm_check_entries_serial(p, wm_balance_word(p.sc, kBmBalance),
                            p.sc + kBmBadGraph, 1, p.sc + kBmCopies);
  bm_init_control(p);
}

// ------------------------------------------------------------ candidates

// A worker's part of the team's candidates: its kDepth best unused ones
// (descending, 0: none; head is the next) and `bound` (the same on every
// worker): the largest candidate any worker had to drop, so that the
// candidates above it are exactly the team's top eligible ones.
template <int kDepth>
struct BmCache {
  WmOffer best[kDepth] = {};
  int head = 0;
  WmOffer bound = 0;
  bool filled = false;
  // best[head] (0 when used up), with static indices: registers on CUDA.
  JM_HD WmOffer next() const {
    WmOffer x = 0;
    JM_UNROLL
    for (int i = 0; i < kDepth; ++i)
      if (i == head) x = best[i];
    return x;
  }
};

// Whether u's entry k (neighbour v, `key`; u's list [lo, hi)) is its pair's
// one candidate: a pair stored more than once, its copies side by side in
// the sorted list, is one edge, proposed along its heaviest copy (the first
// of equal ones); otherwise u could hold two places in S(v).  The scan asks
// only when the init found such a pair (kBmCopies): most graphs have none.
JM_HD bool bm_heaviest_copy(const BmView& p, int k, int lo, int hi, int v,
                            uint32_t key) {
  for (int j = k - 1; j >= lo && p.adj[j] == v; --j)
    if (p.key[j] >= key) return false;
  for (int j = k + 1; j < hi && p.adj[j] == v; ++j)
    if (p.key[j] > key) return false;
  return true;
}

// Scans u's list for neighbours below `below` (packed (key, v)) that would
// take u's proposal; every worker keeps its kDepth best and the largest it
// drops.
template <int kDepth, class Team>
JM_HD void bm_scan(const Team& team, const BmView& p, int u, WmOffer below,
                   BmCache<kDepth>& c) {
  JM_UNROLL
  for (int i = 0; i < kDepth; ++i) c.best[i] = 0;
  WmOffer dropped = 0;
  if (below != 0) {
    const int lo = p.xadj[u], hi = p.xadj[u + 1];
    const bool copies = p.sc[kBmCopies] != 0;
#if !defined(__CUDA_ARCH__)
    const int stored = p.xadj[p.n];
#endif
    for (int k = lo + team.rank(); k < hi; k += team.size()) {
      const int v = p.adj[k];
      const uint32_t key = p.key[k];
#if !defined(__CUDA_ARCH__)
      // The serial CPU scan waits on each random record otherwise (the
      // entries past u's list are the next vertices' of the pass; every
      // stored entry is a validated vertex).
      if (k + 16 < stored) __builtin_prefetch(&p.vx[p.adj[k + 16]]);
#endif
      if (key == 0 || v == u) continue;
      const WmOffer cand = wm_pack(key, v);
      if (cand >= below || cand <= dropped) continue;
      if (wm_pack(key, u) <= load_shared_value(&p.vx[v].floor)) continue;
      if (copies && !bm_heaviest_copy(p, k, lo, hi, v, key)) continue;
      const WmOffer last = c.best[kDepth - 1];
      if (cand < last) {
        dropped = cand;  // above `dropped` (checked), below every kept one
        continue;
      }
      if (last != 0) dropped = last;
      // insert, shifting the lighter ones down (static indices)
      WmOffer x = cand;
      JM_UNROLL
      for (int i = 0; i < kDepth; ++i) {
        if (x > c.best[i]) {
          const WmOffer y = c.best[i];
          c.best[i] = x;
          x = y;
        }
      }
    }
  }
  c.head = 0;
  c.bound = team.all_max(dropped);
  c.filled = true;
}

// u's next target below `cursor` (which moves to it), packed (key, v), or 0
// when u has none left (cursor 0).  The candidates are taken from the cache
// while they are known to be the top ones, else the list is scanned again.
template <int kDepth, class Team>
JM_HD WmOffer bm_next_target(const Team& team, const BmView& p, int u,
                             WmOffer& cursor, BmCache<kDepth>& c) {
  for (;;) {
    if (c.filled) {
      const WmOffer mine = c.next();
      const WmOffer top = team.all_max(mine);
      if (top != 0 && top > c.bound) {
        if (mine == top) ++c.head;
        cursor = top;
        return top;
      }
      // After a scan the top is above every dropped candidate unless the
      // scan found nothing: this ends the loop.
      if (top == 0 && c.bound == 0) {
        cursor = 0;
        return 0;
      }
    }
    bm_scan(team, p, u, cursor, c);
  }
}

// ------------------------------------------------------------ heaps

// Takes S(v)'s lock (the kBmLocked bit of the record's state; acquire
// order: the last holder's updates are seen) and returns S(v)'s size.
JM_HD int bm_lock(BmVertex& x) {
  for (;;) {
    const int s = load_shared_scalar(&x.state);
    if (!(s & kBmLocked) &&
        atomic_cas_acquire_int(&x.state, s, s | kBmLocked) == s)
      return s;
#if defined(__CUDA_ARCH__)
    __nanosleep(32);
#endif
  }
}

// Publishes S(v)'s updates and its new size, and releases the lock.
JM_HD void bm_unlock(BmVertex& x, int size) {
  store_release_int(&x.state, size);
}

// Inserts proposal `mine` into the heap h of `size` entries and bound `cap`
// (the caller holds S(v)'s lock).  Returns kBmRefused, -1 when it took a
// free slot, or the proposer it dislodged; the heap's new size goes to
// *new_size and, once the heap is full, its root to *floor.
JM_HD int bm_heap_insert(volatile WmOffer* h, int size, int cap, WmOffer mine,
                         int* new_size, volatile WmOffer* floor) {
  *new_size = size;
  if (size < cap) {
    int i = size;  // sift up from the new leaf
    while (i > 0) {
      const int parent = (i - 1) / 2;
      const WmOffer e = h[parent];
      if (e <= mine) break;
      h[i] = e;
      i = parent;
    }
    h[i] = mine;
    *new_size = size + 1;
    if (*new_size == cap) *floor = h[0];
    return -1;
  }
  if (cap == 0 || mine <= h[0]) return kBmRefused;
  const int out = wm_id(h[0]);
  int i = 0;  // the root replaced: sift down
  for (;;) {
    const int l = 2 * i + 1;
    if (l >= cap) break;
    const int r = l + 1;
    const int m = (r < cap && h[r] < h[l]) ? r : l;
    const WmOffer e = h[m];
    if (e >= mine) break;
    h[i] = e;
    i = m;
  }
  h[i] = mine;
  *floor = h[0];
  return out;
}

// Installs proposal `mine` (packed (key, proposer)) into S(v) (one worker).
// Returns kBmRefused, -1 when it took a free slot, or the proposer it
// dislodged.  Heap reads are volatile: another team's last update, published by
// its unlock, must not be read from a stale cache line.  S(v)'s bound and
// place, fixed since the init, are read with the floor, before the lock.
JM_HD int bm_install(BmView& p, int v, WmOffer mine) {
  BmVertex& x = p.vx[v];
  volatile WmOffer* floor = &x.floor;
  const int cap = x.hcap, hoff = x.hoff;
  if (mine <= *floor) return kBmRefused;
  const int size = bm_lock(x);
  int new_size = size;
  const int out =
      bm_heap_insert(p.heap + hoff, size, cap, mine, &new_size, floor);
  bm_unlock(x, new_size);
  return out;
}

// ------------------------------------------------------------ proposals

// A vertex the team owns but does not process goes to the queue the next
// round reads (one worker).  Each vertex is there at most once: it stays
// owned (owed > 0) until that round processes it.
JM_HD void bm_enqueue(BmView& p, int x) {
  const int next = p.sc[kBmQueueSel] ^ 1;
  const int i = atomic_add_int(p.sc + kBmQueueLen0 + next, 1);
  if (i < p.n) p.queue[next * p.n + i] = x;
}

// Every vertex a team meets is its own to process (the CPU).
struct BmKeepAll {
  template <class Team>
  JM_HD bool operator()(const Team&, const BmView&, int) const {
    return true;
  }
};

// Makes the proposals u owes (the team owns u: owed[u] > 0), then those of
// every vertex the team comes to own by dislodging it, as long as `keep(team,
// p, x)` says the team processes x (the same answer on every worker) and
// its stack has room; the others go to the queue.  Returns the proposals
// installed.
//
// The owner settles its proposals in batches: it reads owed[u] (others only
// raise it), makes that many, and subtracts them in one acquire-release add
// after storing u's cursor; the old value says whether more were owed
// meanwhile (then the next batch) or u is released.  A team that raises
// owed[x] from 0 (acquire-release too) thus sees x's cursor as its last
// owner left it.
template <int kDepth, class Team, class Keep>
JM_HD int bm_process(const Team& team, BmView& p, int u, Keep keep) {
  int stack[kBmStack];
  int depth = 0;
  int installed = 0;
  int cur = u;
  while (cur >= 0) {
    WmOffer cursor = 0;
    int owed = 0, settled = 0;  // the batch (rank 0's)
    if (team.rank() == 0) {
      cursor = load_shared_value(&p.vx[cur].cursor);
      owed = load_shared_scalar(&p.vx[cur].owed);
    }
    cursor = team.from_first(cursor);
    BmCache<kDepth> cache;
    for (;;) {
      const WmOffer t = bm_next_target(team, p, cur, cursor, cache);
      unsigned long long word = 0;  // bit 0 refused, 1 released, 2 owned
      if (team.rank() == 0) {
        const int r =
            t == 0 ? -1 : bm_install(p, wm_id(t), wm_pack(wm_key(t), cur));
        if (r == kBmRefused) {
          word = 1;
        } else {  // a proposal made (one settled), or none left (all)
          if (t != 0) {
            ++installed;
            ++settled;
          } else {
            settled = owed;
          }
          if (r >= 0) {
            word |= static_cast<unsigned long long>(r) << 32;
            if (atomic_add_acq_rel_int(&p.vx[r].owed, 1) == 0) word |= 4;
          }
          if (settled == owed) {
            *static_cast<volatile WmOffer*>(&p.vx[cur].cursor) = cursor;
            const int before = atomic_add_acq_rel_int(&p.vx[cur].owed, -owed);
            if (before == owed) word |= 2;
            owed = before - owed;
            settled = 0;
          }
        }
      }
      word = team.from_first(word);
      if (word & 1) continue;  // refused: the next target
      if (word & 4) {
        const int x = static_cast<int>(word >> 32);
        if (depth < kBmStack && keep(team, p, x))
          stack[depth++] = x;
        else if (team.rank() == 0)
          bm_enqueue(p, x);
      }
      if (word & 2) break;  // cur owes nothing more
    }
    cur = depth > 0 ? stack[--depth] : -1;
  }
  return installed;
}

// The scalar transition after a round (one worker): the queue the round
// filled becomes the one read; an empty one ends the proposals.  `first`:
// after the first pass, which it runs only once.
JM_HD void bm_control(BmView& p, bool first) {
  if (!bm_running(p) || p.sc[kBmDrained] != 0) return;
  if (first) {
    if (p.sc[kBmPhase] != 0) return;
    p.sc[kBmPhase] = 1;
    p.sc[kBmRounds] = 1;
  }
  const int next = p.sc[kBmQueueSel] ^ 1;
  const int len = p.sc[kBmQueueLen0 + next];
  p.sc[kBmQueueSel] = next;
  p.sc[kBmQueueLen0 + (next ^ 1)] = 0;
  if (len == 0)
    p.sc[kBmDrained] = 1;
  else
    p.sc[kBmRounds] += 1;
}

// The queue being read: its entries and their number.
JM_HD const int* bm_queue(const BmView& p, int* len) {
  const int sel = p.sc[kBmQueueSel];
  const int l = p.sc[kBmQueueLen0 + sel];
  *len = l < p.n ? l : p.n;
  return p.queue + sel * p.n;
}

// ------------------------------------------------------------ the result

// The position in u's list of the edge along which u proposes to w with
// `key`: its heaviest copy, the first of w's entries (side by side in the
// sorted list, found by binary search) with the largest key, which is `key`.
JM_HD int bm_edge_position(const BmView& p, int u, int w, uint32_t key) {
  const int end = p.xadj[u + 1];
  int lo = p.xadj[u], hi = end;
  while (lo < hi) {  // the first entry >= w
    const int mid = lo + (hi - lo) / 2;
    if (p.adj[mid] < w)
      lo = mid + 1;
    else
      hi = mid;
  }
  while (p.key[lo] != key && lo + 1 < end && p.adj[lo + 1] == w) ++lo;
  return lo;
}

// After the proposals (one worker per vertex): each proposal (key, w) that u
// holds is matched when w holds (key, u); u marks its own entry of the edge
// (2 where its column w is above its row u: each edge once), and u's degree
// counts them.  Every mark is written by the vertex whose list holds it.
//
// w holds (key, u) iff (key, w) >= cursor(u) and (key, u) >= floor(w), both
// final, so the check reads one record instead of searching S(w) (which
// would cost b(u) * b(w) for a hub with large b):
//  * if u's proposal stands in S(w), u passed (key, w) on its way down, and
//    (key, u), an entry of S(w), is at least its least, floor(w);
//  * conversely, u met (key, w) on its way down to cursor(u): either it
//    proposed, or found w refusing, (key, u) <= floor(w) then.  Floors only
//    grow, so a refusal, or a proposal later dislodged (after which floor(w)
//    exceeds (key, u)), would leave floor(w) > (key, u), unless (key, u) is
//    floor(w) itself, an entry of S(w).
JM_HD void bm_finalize(BmView& p, int u) {
  const BmVertex& x = p.vx[u];
  const WmOffer* h = p.heap + x.hoff;
  const int size = x.state;
  int deg = 0;
  for (int j = 0; j < size; ++j) {
    const WmOffer e = h[j];
    const int w = wm_id(e);
    const uint32_t key = wm_key(e);
    if (wm_pack(key, w) >= x.cursor && wm_pack(key, u) >= p.vx[w].floor) {
      p.mark[bm_edge_position(p, u, w, key)] = w > u ? 2 : 1;
      ++deg;
    }
  }
  p.degree[u] = deg;
}

// The status once the proposals are made and read off (one worker).
JM_HD void bm_done(BmView& p) {
  if (bm_running(p) && bm_drained(p)) p.sc[kBmStatus] = kWmDominant;
}

// ------------------------------------------------------------ serial driver
// The CPU back end (and the kernel harness's reference): sequential
// b-Suitor, every dislodged vertex re-processed before the next vertex.
constexpr int kBmSerialDepth = 16;

inline void bm_serial(BmView& p) {
  if (!bm_running(p)) return;
  const SerialTeam team;
  int installed = 0;
  if (p.sc[kBmPhase] == 0) {
    for (int u = 0; u < p.n; ++u)
      if (p.vx[u].hcap > 0)
        installed += bm_process<kBmSerialDepth>(team, p, u, BmKeepAll{});
    bm_control(p, true);
  }
  while (!bm_drained(p)) {
    int len = 0;
    const int* q = bm_queue(p, &len);
    for (int i = 0; i < len; ++i)
      installed += bm_process<kBmSerialDepth>(team, p, q[i], BmKeepAll{});
    bm_control(p, false);
  }
  for (int u = 0; u < p.n; ++u) bm_finalize(p, u);
  p.sc[kBmProposals] += installed;
  bm_done(p);
}

}  // namespace jaxmatch
