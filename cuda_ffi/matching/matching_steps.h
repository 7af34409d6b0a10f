// The steps of the GPU augmenting-path matching algorithms of Deveci, Kaya,
// Ucar and Catalyurek (APFB / APsB drivers, and a hybrid of the two; GPUBFS /
// GPUBFS-WR level kernels, Alternate, FixMatching), written once for every
// back end.
//
// Each step is a function of a Team (the workers sharing one problem: one
// serial worker on the CPU, a thread block in the fused CUDA solver, a grid
// row in the stepped one) and an McmView.  Steps are separated by team-wide
// barriers; `mcm_ctrl_*` run on one worker and own the scalar transitions.
//
// One phase:  level, level, ..., level   (until the driver stops the BFS)
//             alternate                  (flip the paths found)
//             fix_and_restart            (FixMatching, InitBfsArray; with
//                                         kept trees release, graft,
//                                         requeue: kept_trees.h)
//
// The BFS and Alternate race by design (plain loads and stores, as in the
// paper); what keeps every outcome correct:
//  * rmatch[r] is only ever written with pred[r] by Alternate, and cmatch[c]
//    only with rows r whose pred[r] == c, so after FixMatching
//    (rmatch[r] = -1 unless cmatch[rmatch[r]] == r) the two arrays describe
//    one valid matching, whatever the interleaving.
//  * A column, once matched, never becomes free, and the walk of Alternate
//    only continues through a column's original match, whose pred points one
//    BFS level lower: so among the columns Alternate writes, the one of least
//    level is a root (a free column), and every phase that found a path adds
//    at least one pair.  With root tracking each root keeps the largest free
//    row it reached (atomicMin of -r), and Alternate starts only from the
//    rows so kept; the largest such row overall is always kept by the root
//    of its own pred, so some walk starts.
//  * A phase that finds no path ran the BFS from every free column to its end
//    (GPUBFS-WR prunes only trees that found a path): the matching is maximum
//    (Berge).
#pragma once

#include "matching/karp_sipser.h"
#include "matching/matching_state.h"
#include "matching/ordered_greedy.h"
#include "matching/push_relabel.h"

namespace jaxmatch {

// Bits of the flags a level step reports.
constexpr int kMcmFlagInserted = 1;
constexpr int kMcmFlagFound = 2;

// Column c's number of edges (its pointers are checked at initialisation).
JM_HD int mcm_degree(const McmView& p, int c) {
  return p.cxadj[c + 1] - p.cxadj[c];
}

// Whether the graph's BFS levels share their edges out evenly
// (mcm_level_even): its largest column degree (kMcmMinusMaxDegree, from
// mcm_init_match) times the columns is above kMcmEvenDegreeSkew times the
// edges.
JM_HD bool mcm_edges_even(const McmView& p) {
  const long long most =
      -static_cast<long long>(load_shared_scalar(p.sc + kMcmMinusMaxDegree));
  return most * p.nc > kMcmEvenDegreeSkew * static_cast<long long>(p.nnz_cap);
}

// Appends column c to the queue's next level.  kCount: its edges join the
// level's (kMcmNextEdges) and ia gets its first edge among them, both from
// one add to the pair (kMcmQTail, kMcmNextEdges), which the lanes of a warp
// that push together share (the levels of a graph of skewed degrees queue
// tens of thousands of columns, all on the one pair).  Uncounted, each
// column takes its slot alone: the levels of the other graphs queue few
// columns at once, and sharing the add there measured no faster.
template <bool kCount>
JM_HD void mcm_queue_push(McmView& p, int c) {
  if constexpr (kCount) {
    int slot, first;
    atomic_add_int_pair_by_warp(p.sc + kMcmQTail, 1, mcm_degree(p, c), &slot,
                                &first);
    p.queue[slot] = c;
    p.ia[slot] = first;
  } else {
    p.queue[atomic_add_int(p.sc + kMcmQTail, 1)] = c;
  }
}

// An empty queue, its edges uncounted (the next phase's roots come next).
JM_HD void mcm_queue_reset(McmView& p) {
  p.sc[kMcmQTail] = 0;
  p.sc[kMcmNextEdges] = 0;
}

// ------------------------------------------------------------ initialisation

// Scalars; cmatch from the warm start (a pair is kept only when it is an edge
// and both sides name each other) or empty; rows cleared.
template <class Team>
JM_HD void mcm_init_clear(const Team& team, McmView& p, int init,
                          const int* rm0, const int* cm0) {
  if (team.rank() == 0) {
    for (int k = 0; k < kMcmInfoLen; ++k) p.sc[k] = 0;
    p.sc[kMcmStatus] = kMcmRunning;
    p.sc[kMcmPhaseSlot] = kMcmBfsPhase;
    p.sc[kMcmLevel] = kMcmL0;
  }
  for (int c = team.rank(); c < p.nc; c += team.size()) {
    int keep = -1;
    if (init == kMcmInitGiven && mcm_column_pointers_ok(p, c)) {
      const int r = cm0[c];
      if (r >= 0 && r < p.nr && rm0[r] == c) {
        for (int k = p.cxadj[c]; k < p.cxadj[c + 1]; ++k) {
          if (p.cadj[k] == r) {
            keep = r;
            break;
          }
        }
      }
    }
    p.cmatch[c] = keep;
  }
  for (int r = team.rank(); r < p.nr; r += team.size()) {
    p.rmatch[r] = -1;
    p.pred[r] = -1;
  }
}

// Rows a worker of the cheap matching reads at once: their rmatch loads
// overlap instead of following one another.
constexpr int kMcmCheapBatch = 4;
// A column is local when its first or its last row lies within
// 1/kMcmLocalSpan of the graph's larger side from its own index: a graph
// numbered along its geometry (a mesh, Z-ordered points) has almost only
// local columns, one whose labels are random few.
constexpr int kMcmLocalSpan = 64;

JM_HD bool mcm_column_local(const McmView& p, int c) {
  const int begin = p.cxadj[c], end = p.cxadj[c + 1];
  if (end <= begin) return false;
  const long long span = (p.nr > p.nc ? p.nr : p.nc) / kMcmLocalSpan;
  const long long first = p.cadj[begin] - static_cast<long long>(c);
  const long long last = p.cadj[end - 1] - static_cast<long long>(c);
  return (first >= -span && first <= span) || (last >= -span && last <= span);
}

// The cheap matching of column c: it takes the first free row of its list
// read from entry `first` on, wrapping around (compare-and-swap), and stops
// at a row out of range.
JM_HD void mcm_cheap_column(McmView& p, int c, int first) {
  const int begin = p.cxadj[c], degree = p.cxadj[c + 1] - begin;
  for (int i = 0; i < degree; i += kMcmCheapBatch) {
    int rows[kMcmCheapBatch], matched[kMcmCheapBatch];
    JM_UNROLL
    for (int j = 0; j < kMcmCheapBatch; ++j) {
      int at = first + i + j;
      if (at >= degree) at -= degree;
      rows[j] = i + j < degree ? p.cadj[begin + at] : -1;
    }
    JM_UNROLL
    for (int j = 0; j < kMcmCheapBatch; ++j)
      matched[j] = rows[j] >= 0 && rows[j] < p.nr ? p.rmatch[rows[j]] : 0;
    JM_UNROLL
    for (int j = 0; j < kMcmCheapBatch; ++j) {
      const int r = rows[j];
      if (i + j >= degree || r < 0 || r >= p.nr) return;
      if (matched[j] == -1 && atomic_cas_int(p.rmatch + r, -1, c) == -1) {
        p.cmatch[c] = r;
        return;
      }
    }
  }
}

// Warm start: rows take the pairs kept by their columns.  The column CSR is
// validated here, each worker its share (the cheap matching and the
// Karp-Sipser rounds come after), and its largest degree and (for a racing
// cheap matching) local columns counted.
template <class Team>
JM_HD void mcm_init_match(const Team& team, McmView& p, int init,
                          const int* rm0) {
  if (!mcm_csr_share_ok(team, p.cxadj, p.cadj, p.nc, p.nnz_cap, p.nr))
    p.sc[kMcmStatus] = kMcmBadGraph;
  const bool count_local = init == kMcmInitCheap && team.size() > 1;
  int most = 0;   // the largest degree of this worker's valid columns
  int local = 0;  // its local columns, when mcm_init_cheap races
  for (int c = team.rank(); c < p.nc; c += team.size()) {
    if (!mcm_column_pointers_ok(p, c)) continue;
    if (mcm_degree(p, c) > most) most = mcm_degree(p, c);
    if (count_local) local += mcm_column_local(p, c);
  }
  atomic_min_by_warp(p.sc + kMcmMinusMaxDegree, -most);
  if (count_local) atomic_add_by_warp(p.sc + kMcmLocalColumns, local);
  if (init == kMcmInitGiven) {
    for (int r = team.rank(); r < p.nr; r += team.size()) {
      const int c = rm0[r];
      if (c >= 0 && c < p.nc && p.cmatch[c] == r) p.rmatch[r] = c;
    }
  }
}

// A graph is numbered along its geometry when more than 1/kMcmGeometricShare
// of its columns are local (mcm_column_local).
constexpr int kMcmGeometricShare = 2;

// The cheap matching (init == kMcmInitCheap; after mcm_init_match): each
// column takes the first free row of its list (mcm_cheap_column).  A team of
// one worker takes the columns in index order, each from the start of its
// list: the sequential greedy of the papers (which the ordered greedy of a
// larger team computes in mcm_og_init).  A racing team does the same unless
// the graph is numbered along its geometry: columns that race from the
// start of sorted lists all reach for their lowest-numbered neighbours, and
// on such a graph that leaves free rows and columns far apart
// (docs/matching.md, "jaxmatch.cheap_matching").  There it takes the columns in
// a scrambled order (ScrambledOrder), each from a position drawn from its
// index.
template <class Team>
JM_HD void mcm_init_cheap(const Team& team, McmView& p) {
  const long long local = load_shared_scalar(p.sc + kMcmLocalColumns);
  const bool scatter = team.size() > 1 && local * kMcmGeometricShare > p.nc;
  const ScrambledOrder order(p.nc);
  for (int i = team.rank(); i < p.nc; i += team.size()) {
    const int c = scatter ? order(i) : i;
    if (!mcm_column_pointers_ok(p, c)) continue;
    mcm_cheap_column(p, c, scatter ? hashed_position(c, mcm_degree(p, c)) : 0);
  }
}

// Whether column c starts a path in the next phase: it is free and has an
// edge.
JM_HD bool mcm_is_root(const McmView& p, int c) {
  return p.cmatch[c] == -1 && mcm_degree(p, c) > 0;
}

// Appends this worker's columns c with queued(c), n of them with `edges`
// edges in all, to the queue: one add for its warp claims their slots (and,
// with `count`, their edges: ia gets each one's first), then it writes
// them in its own order.  queued must not change while it runs.
template <class Team, class Queued>
JM_HD void mcm_queue_counted(const Team& team, McmView& p, bool count, int n,
                             int edges, Queued queued) {
  int slot, first;
  atomic_add_int_pair_by_warp(p.sc + kMcmQTail, n, count ? edges : 0, &slot,
                              &first);
  for (int c = team.rank(); c < p.nc && n > 0; c += team.size()) {
    if (!queued(c)) continue;
    p.queue[slot] = c;
    if (count) p.ia[slot] = first;
    ++slot;
    --n;
    first += mcm_degree(p, c);
  }
}

// InitBfsArray (and the root array): free columns are the roots, at level L0;
// those with edges form the queue's first level (a column without edges
// starts no path), counted when the levels share their edges out.  Each
// worker counts its roots first and claims their slots (and edges) with one
// add for its warp: a phase may start from hundreds of thousands of roots,
// all on the one tail.  Expects an empty queue (mcm_queue_reset).
template <class Team>
JM_HD void mcm_init_bfs(const Team& team, McmView& p) {
  const bool count = mcm_edges_even(p);
  int roots = 0, edges = 0;
  for (int c = team.rank(); c < p.nc; c += team.size()) {
    const bool free_col = p.cmatch[c] == -1;
    p.bfs[c] = free_col ? kMcmL0 : kMcmL0 - 1;
    p.root[c] = free_col ? c : -1;
    if (mcm_is_root(p, c)) {
      ++roots;
      edges += mcm_degree(p, c);
    }
  }
  mcm_queue_counted(team, p, count, roots, edges,
                    [&](int c) { return mcm_is_root(p, c); });
}

// Appends this worker's columns c with queued(c) (which must not change
// while it runs) to the queue, counted when the levels share their edges
// out (mcm_queue_counted).
template <class Team, class Queued>
JM_HD void mcm_queue_where(const Team& team, McmView& p, Queued queued) {
  int n = 0, edges = 0;
  for (int c = team.rank(); c < p.nc; c += team.size()) {
    if (!queued(c)) continue;
    ++n;
    edges += mcm_degree(p, c);
  }
  mcm_queue_counted(team, p, mcm_edges_even(p), n, edges, queued);
}

// ------------------------------------------------------------ one BFS level
// Workers per column in a level: the power of two at or above the average
// column degree (nnz capacity / columns), at most 32 (a warp) and at most the
// team.  A column's edges are then read by `lanes` workers side by side
// instead of one after another: a level's latency is a few dependent loads,
// not a few per edge.
template <class Team>
JM_HD int mcm_lanes(const Team& team, const McmView& p) {
  const int avg =  // ceil(nnz_cap / nc), without overflow near 2^31
      p.nc > 0 ? p.nnz_cap / p.nc + (p.nnz_cap % p.nc != 0) : 1;
  int lanes = 1;
  while (lanes < avg && lanes < 32) lanes *= 2;
  while (lanes > team.size()) lanes /= 2;
  return lanes;
}

// The current level's scalars: its BFS level, and its columns
// queue[head, end).
struct McmLevelAt {
  int level, head, end;
};

JM_HD McmLevelAt mcm_level_at(const McmView& p) {
  return {load_shared_scalar(p.sc + kMcmLevel),
          load_shared_scalar(p.sc + kMcmQHead),
          load_shared_scalar(p.sc + kMcmQEnd)};
}

// Edges k, k + stride, ... below `stop` of column c of the current level,
// whose tree grew from my_root (wr): a matched row brings its column into the
// next level (claimed with compare-and-swap on its BFS level, so it is queued
// once and its row's pred has one writer); a free row ends an augmenting path
// and is marked -2 (racing writers of its pred all hold a column of this
// level; with root tracking the root keeps the largest such row, and the walk
// stops at its first).  kCount: as for mcm_queue_push.  Returns kMcmFlag*
// bits.
template <bool kCount>
JM_HD int mcm_expand(McmView& p, int level, int c, int my_root, bool wr, int k,
                     int stop, int stride) {
  int flags = 0;
  for (; k < stop; k += stride) {
    const int r = p.cadj[k];
    const int col_match = p.rmatch[r];
    if (col_match >= 0) {
      if (p.bfs[col_match] == kMcmL0 - 1 &&
          atomic_cas_int(p.bfs + col_match, kMcmL0 - 1, level + 1) ==
              kMcmL0 - 1) {
        if (wr) p.root[col_match] = my_root;
        p.pred[r] = c;
        mcm_queue_push<kCount>(p, col_match);
        flags |= kMcmFlagInserted;
      }
    } else if (col_match == -1) {
      p.rmatch[r] = -2;
      p.pred[r] = c;
      flags |= kMcmFlagFound;
      if (wr) {
        atomic_min_int(p.bfs + my_root, -r);
        break;
      }
    }
  }
  return flags;
}

// GPUBFS (wr = false) and GPUBFS-WR (wr = true): expand the columns of the
// current level, queue[head, end), each by `lanes` consecutive workers (a
// power of two dividing the team size) side by side (mcm_expand); with root
// tracking a column whose tree found a path is skipped.  kCount: the next
// level's columns are counted (mcm_queue_push; the graph's levels share
// their edges out).  `at`: the level's scalars.  Returns this worker's
// kMcmFlag* bits.
template <bool kCount, class Team>
JM_HD int mcm_level(const Team& team, McmView& p, bool wr, int lanes,
                    const McmLevelAt& at) {
  const int lane = team.rank() & (lanes - 1);
  const int groups = team.size() / lanes;
  int flags = 0;
  for (int i = at.head + team.rank() / lanes; i < at.end; i += groups) {
    const int c = p.queue[i];
    int my_root = -1;
    if (wr) {
      my_root = p.root[c];
      if (p.bfs[my_root] < kMcmL0 - 1) continue;  // its tree found a path
    }
    flags |= mcm_expand<kCount>(p, at.level, c, my_root, wr, p.cxadj[c] + lane,
                                p.cxadj[c + 1], lanes);
  }
  return flags;
}

// The same level with its edges shared out evenly (a graph of skewed
// degrees, whose level's columns were counted: kMcmLevelEdges > 0): the
// level's columns' lists laid end to end in queue order (ia holds each
// one's first edge) and cut into one run per worker, so that a column of
// many edges is read by many workers and one worker's run may span many
// short columns.  A worker finds the column of its run's first edge by
// binary search over ia and expands its run's part of each column in turn
// (mcm_expand).  With one worker it visits the edges as mcm_level does.
// `at`: the level's scalars, `edges` its edges.  Returns this worker's
// kMcmFlag* bits.
template <class Team>
JM_HD int mcm_level_even(const Team& team, McmView& p, bool wr,
                         const McmLevelAt& at, long long edges) {
  const long long workers = team.size(), w = team.rank();
  const long long per = edges / workers, extra = edges % workers;
  int e = static_cast<int>(w * per + (w < extra ? w : extra));
  const int stop = e + static_cast<int>(per) + (w < extra ? 1 : 0);
  if (e >= stop) return 0;
  int flags = 0;
  for (int slot = last_at_most(p.ia, at.head, at.end - 1, e); e < stop;
       ++slot) {
    const int next =
        slot + 1 < at.end ? p.ia[slot + 1] : static_cast<int>(edges);
    const int upto = next < stop ? next : stop;
    const int c = p.queue[slot];
    int my_root = -1;
    if (wr) my_root = p.root[c];
    if (!wr || p.bfs[my_root] >= kMcmL0 - 1) {  // else its tree found a path
      const int shift = p.cxadj[c] - p.ia[slot];
      flags |= mcm_expand<true>(p, at.level, c, my_root, wr, shift + e,
                                shift + upto, 1);
    }
    e = upto;
  }
  return flags;
}

// A level of a stepped solve on a grid row or a serial worker, `even`
// (mcm_edges_even) when the graph's levels share their edges out: then
// shared out evenly once its edges were counted (mcm_level_even), else a
// group of `lanes` per column counting the next level's; on other graphs a
// group per column, counting nothing.  After it: mcm_ctrl_level<even>.
template <class Team>
JM_HD int mcm_stepped_level(const Team& team, McmView& p, bool wr, int lanes,
                            bool even) {
  const McmLevelAt at = mcm_level_at(p);
  if (!even) return mcm_level<false>(team, p, wr, lanes, at);
  const int edges = load_shared_scalar(p.sc + kMcmLevelEdges);
  if (edges > 0) return mcm_level_even(team, p, wr, at, edges);
  return mcm_level<true>(team, p, wr, lanes, at);
}

// ------------------------------------------------------------ Alternate
// Flips the paths that end at the rows marked -2 (with root tracking: only
// the row each root kept).  A walk stops where another walk already flipped
// the column (cmatch[c] is a row whose pred is c) or at its root.
template <class Team>
JM_HD void mcm_alternate(const Team& team, McmView& p, bool wr) {
  if (team.rank() == 0) mcm_queue_reset(p);  // the next phase's queue
  for (int r = team.rank(); r < p.nr; r += team.size()) {
    if (p.rmatch[r] != -2) continue;
    if (wr && p.bfs[p.root[p.pred[r]]] != -r) continue;
    int row = r;
    int col = p.pred[row];
    for (;;) {
      const int old_row = p.cmatch[col];
      if (old_row >= 0 && p.pred[old_row] == col) break;
      p.cmatch[col] = row;
      p.rmatch[row] = col;
      if (old_row < 0) break;  // col was a root: the path is complete
      row = old_row;
      col = p.pred[row];
    }
  }
}

// ------------------------------------------------------------ FixMatching
// FixMatching of row r: free unless its column names it back (a path end
// that was not flipped too).  Returns whether it freed the row.
JM_HD bool mcm_fix_row(McmView& p, int r) {
  const int c = p.rmatch[r];
  if (c != -2 && (c < 0 || p.cmatch[c] == r)) return false;
  p.rmatch[r] = -1;
  return true;
}

// Rows whose column does not name them back become free, path ends that
// were not flipped too; then InitBfsArray for the next phase (it reads only
// cmatch, which FixMatching does not write; the queue's tail was reset by
// mcm_alternate).
template <class Team>
JM_HD void mcm_fix_and_restart(const Team& team, McmView& p) {
  for (int r = team.rank(); r < p.nr; r += team.size()) mcm_fix_row(p, r);
  mcm_init_bfs(team, p);
}

// ------------------------------------------------------------ control
// The first level of a phase: the roots queued by mcm_init_bfs, or the
// columns queued above kept trees (kept_trees.h: kMcmKeptLevel, where the
// graft may have found a path already).  The first phase records its roots
// (the columns the initial matching left free), from which the auto driver
// makes its choice.
JM_HD void mcm_ctrl_start_phase(McmView& p) {
  int* sc = p.sc;
  if (sc[kMcmNPhases] == 0)
    sc[kMcmInitialFree] = load_shared_scalar(sc + kMcmQTail);
  const int kept = sc[kMcmKeptLevel];
  sc[kMcmPhaseSlot] = kMcmBfsPhase;
  sc[kMcmLevel] = kept > 0 ? kept : kMcmL0;
  sc[kMcmFound] = kept > 0 && sc[kMcmGraftFound] != 0 ? 1 : 0;
  sc[kMcmFoundLevel] = sc[kMcmFound] != 0 ? sc[kMcmLevel] : 0;
  sc[kMcmGraftFound] = 0;
  sc[kMcmVisited] = 0;
  sc[kMcmReleased] = 0;
  sc[kMcmInserted] = 0;
  sc[kMcmQHead] = 0;
  sc[kMcmQEnd] = load_shared_scalar(sc + kMcmQTail);
  sc[kMcmLevelEdges] = mcm_edges_even(p)
                           ? load_shared_scalar(sc + kMcmNextEdges)
                           : kMcmLevelEdgesUncounted;
  sc[kMcmNextEdges] = 0;
}

// The driver a solve runs: auto resolved from its first phase's roots.
JM_HD int mcm_resolved_driver(const McmOptions& o, const int* sc, int nc) {
  if (o.driver != kMcmAuto) return o.driver;
  const long long roots = sc[kMcmInitialFree];
  return roots * o.auto_free_divisor > nc ? kMcmApfb : kMcmHybrid;
}

// Whether a driver ends the BFS of a phase that has found a path, after the
// level just expanded (depths count levels from 1: the roots' level is 1).
// APsB stops at once; the hybrid once the BFS is o.hybrid_depth times
// as deep as where it first found a path: the short paths of a phase are
// taken, the trees that would wander far for a long one start afresh in the
// next phase, while a phase whose first path is long still runs deep enough
// to take the other long ones.  Auto runs as APFB when more than one column
// in o.auto_free_divisor is a root, free and with an edge (there the
// hybrid's extra phases would restart wide BFSs), else as the hybrid;
// docs/matching.md gives the measurements behind both rules
// (mcm_resolved_driver).
JM_HD bool mcm_driver_stops(const McmOptions& o, const int* sc, int nc) {
  const int driver = mcm_resolved_driver(o, sc, nc);
  if (driver == kMcmApsb) return true;
  if (driver != kMcmHybrid) return false;
  const int depth = sc[kMcmLevel] - kMcmL0 + 1;
  const int first = sc[kMcmFoundLevel] - kMcmL0 + 1;
  return depth / o.hybrid_depth >= first;  // depth >= factor * first
}

// Whether the stepped solver's restart from the ordered greedy is due: the
// BFS has run o.restart_levels levels in all, and it has not restarted.
JM_HD bool mcm_restart_due(const McmOptions& o, const int* sc) {
  return o.restart_levels > 0 && sc[kMcmRestarted] == 0 &&
         sc[kMcmNLevels] >= o.restart_levels;
}
JM_HD void mcm_begin_restart(int* sc) {
  sc[kMcmRestarted] = 1;
  sc[kMcmPhaseSlot] = kMcmGreedyPhase;
}

// The end of a phase from kept trees that found no path (kept_trees.h): the
// grafts read the row CSR, which may not be the column CSR's transpose, so
// the phase goes on with every column of the forest as one more level, two
// above the deepest; only when that finds nothing either does the solve
// end.  mcm_requeue queues the forest.
JM_HD void mcm_begin_forest(McmView& p) {
  int* sc = p.sc;
  sc[kMcmForest] = 1;
  sc[kMcmKeptLevel] = sc[kMcmLevel] + 2;
  mcm_queue_reset(p);
  sc[kMcmPhaseSlot] = kMcmRequeuePhase;
}

// After a level step; `flags` is the team's OR of mcm_level's results.
// kCounted: the step counted the next level's edges (mcm_level<true>,
// mcm_level_even), which become its kMcmLevelEdges; else it is uncounted.
template <bool kCounted>
JM_HD void mcm_ctrl_level(McmView& p, const McmOptions& o, int flags) {
  int* sc = p.sc;
  sc[kMcmNLevels] += 1;
  if ((flags & kMcmFlagFound) && sc[kMcmFound] == 0) {
    sc[kMcmFound] = 1;
    sc[kMcmFoundLevel] = sc[kMcmLevel];
  }
  const bool found = sc[kMcmFound] != 0;
  const int tail = load_shared_scalar(sc + kMcmQTail);
  int next_edges = kMcmLevelEdgesUncounted;
  if constexpr (kCounted) {
    next_edges = load_shared_scalar(sc + kMcmNextEdges);
    sc[kMcmNextEdges] = 0;
  }
  const bool inserted = tail > sc[kMcmQEnd];
  if (!inserted) {
    if (found)
      sc[kMcmPhaseSlot] = kMcmAlternatePhase;
    else if (sc[kMcmKeptLevel] > 0 && sc[kMcmForest] == 0)
      mcm_begin_forest(p);  // kept trees: expand the whole forest once more
    else
      sc[kMcmStatus] = kMcmDone;  // the BFS from every free column ended
  } else if (found && mcm_driver_stops(o, sc, p.nc)) {
    sc[kMcmPhaseSlot] = kMcmAlternatePhase;
  } else {
    sc[kMcmLevel] += 1;
    sc[kMcmQHead] = sc[kMcmQEnd];
    sc[kMcmQEnd] = tail;
    sc[kMcmLevelEdges] = next_edges;
    // A restart replaces the matching, so the phase's BFS need not end
    // first.  Should the restart not run (a malformed row CSR), this BFS
    // goes on.
    if (mcm_restart_due(o, sc)) mcm_begin_restart(sc);
  }
}

// After fix_and_restart (or mcm_requeue): a new phase.  Only phases that
// found a path are counted (one from kept trees that found none comes here
// too, to expand its whole forest once more).
JM_HD void mcm_ctrl_restart(McmView& p, const McmOptions& o) {
  int* sc = p.sc;
  if (sc[kMcmFound] != 0) sc[kMcmNPhases] += 1;
  mcm_ctrl_start_phase(p);
  if (mcm_restart_due(o, sc)) mcm_begin_restart(sc);
  if (sc[kMcmNPhases] >= o.max_phases) sc[kMcmStatus] = kMcmPhaseLimit;
}

// The stepped solver's restart (kMcmGreedyPhase, set by mcm_ctrl_restart)
// for a block: the matching cleared and rebuilt by the ordered greedy, and
// the next phase started from its free columns.  A malformed row CSR (which
// the cheap start never reads) skips the restart: the phase that
// mcm_ctrl_restart prepared runs instead.
template <class Team>
JM_HD void mcm_og_restart(const Team& team, McmView& p) {
  const bool bad = team.sync_or(
      !mcm_csr_share_ok(team, p.rxadj, p.radj, p.nr, p.rnnz_cap, p.nc));
  if (bad) {
    if (team.rank() == 0) p.sc[kMcmPhaseSlot] = kMcmBfsPhase;
    team.sync();
    return;
  }
  for (int c = team.rank(); c < p.nc; c += team.size()) p.cmatch[c] = -1;
  for (int r = team.rank(); r < p.nr; r += team.size()) p.rmatch[r] = -1;
  team.sync();
  mcm_og_init(team, p);
  if (team.rank() == 0) {
    mcm_queue_reset(p);
    p.sc[kMcmKeptLevel] = 0;  // the trees of the old matching are gone
    p.sc[kMcmForest] = 0;
  }
  team.sync();
  mcm_init_bfs(team, p);
  team.sync();
  if (team.rank() == 0) {
    p.sc[kMcmInitialFree] = p.sc[kMcmQTail];  // the auto driver's choice
    mcm_ctrl_start_phase(p);
  }
  team.sync();
}

}  // namespace jaxmatch
