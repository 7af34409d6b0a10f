// State of one maximum-cardinality bipartite matching problem (Deveci, Kaya,
// Ucar, Catalyurek: APFB / APsB with GPUBFS / GPUBFS-WR).  It travels
// through XLA as four named int32 buffers, each [..., len] with the graph's
// leading dimensions:
//
//   row_match (rmatch) [n_rows]
//   col_match (cmatch) [n_cols]
//   info      [kMcmInfoLen]      scalars (McmScalar): status, counters
//   work      [McmWorkLayout::len]  bfs, root, pred, queue, ia
//
// and the graph is the column CSR (cxadj, cadj), plus the row CSR (rxadj,
// radj) for the initialisations that read it (Karp-Sipser; null otherwise).
//
// and the arrays mean:
//   rmatch  [n_rows]   column matched to each row, -1 free; -2 marks a free
//                      row that ends an augmenting path found by the BFS
//   cmatch  [n_cols]   row matched to each column, -1 free
//   bfs     [n_cols]   BFS level of each column: kL0 for the roots (the free
//                      columns), kL0 - 1 unvisited, larger = deeper (a phase
//                      from kept trees goes on above their levels); with root
//                      tracking, a root whose tree found a path holds -r for
//                      the free row r chosen as its path's end (<= 0)
//   root    [n_cols]   the root a column's tree grew from (-1 unvisited;
//                      between the phases of kept trees, kMcmRootReleased
//                      and grafted columns' marks, kept_trees.h);
//                      during a Karp-Sipser initialisation, the number of
//                      free rows of each column
//   pred    [n_rows]   the column from which the BFS reached a row
//                      (kMcmPredScan: a row freed by FixMatching, for the
//                      graft of kept trees); during a Karp-Sipser
//                      initialisation, the number of free columns of each
//                      row
//   queue   [n_cols]   the columns in BFS order (each enters once per phase:
//                      the roots first, then every column as its level is
//                      claimed); level k is queue[head, end), the next level
//                      is appended at tail
//   ia      [n_cols]   the BFS on a graph of skewed degrees (mcm_edges_even):
//                      the first edge of queue[i]'s column in its level's
//                      edges (the level's columns' lists laid end to end in
//                      queue order), so that a level's edges can be shared
//                      out evenly; push-relabel (iA): the push iteration in
//                      which a column is active, -1 before its first
//
// The push-relabel driver (push_relabel.h) gives the BFS arrays its own
// meanings: bfs is psi_c (the columns' labels), pred psi_r (the rows'),
// queue and root the two active-column lists A_0 and A_1 (slots [0,
// info[kMcmInitialFree]), the columns with edges free after the initial
// matching);
// cmatch[c] == -2 marks a column retired as unmatchable.
//
// Only C++ knows the workspace layout; Python asks the library for its
// length and reads info through the slots the library exports.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/device.h"

namespace jaxmatch {

// Options of a solve, passed to the kernels as one small struct.
// APFB runs each phase's BFS to its end, APsB stops it at the first level
// that reaches a free row, the hybrid at kMcmHybridDepthFactor times that
// level's depth.  Auto is APFB when the initial matching leaves more than
// one column in auto_free_divisor free (and with an edge), else the hybrid
// (chosen once, at the first phase).
enum McmDriver : int {
  kMcmApfb = 0,
  kMcmApsb = 1,
  kMcmHybrid = 2,
  kMcmAuto = 3,
  kMcmPr = 4,  // push-relabel (G-PR, push_relabel.h); its own phases
};
enum McmBfs : int { kMcmBfsPlain = 0, kMcmBfsWr = 1 };
// Thread mapping of the stepped CUDA kernels (Deveci et al.): CT, a constant
// grid of 256 x 256 threads, each striding over many vertices; MT, about one
// thread per vertex.  The CPU ignores it.
enum McmMapping : int { kMcmMappingCt = 0, kMcmMappingMt = 1 };
// Initial matchings: none; cheap (each column takes a free row);
// a given warm start; Karp-Sipser (karp_sipser.h); the sequential greedy in
// parallel rounds (ordered_greedy.h).
enum McmInit : int {
  kMcmInitNone = 0,
  kMcmInitCheap = 1,
  kMcmInitGiven = 2,
  kMcmInitKarpSipser = 3,
  kMcmInitGreedy = 4
};

enum McmStatus : int {
  kMcmRunning = 0,
  kMcmDone = 1,        // no augmenting path left: the matching is maximum
  kMcmPhaseLimit = 2,  // stopped by max_phases (never reached by the theory)
  kMcmBadGraph = 3,    // malformed CSR (validated constructors never give one)
  kMcmInitial = 4,     // set by the Python wrapper of the cheap matching
};

// The push-relabel driver's phases: kMcmBfsPhase is its start (the lists and
// the first global relabel, run by the first step), then
//   relabel init, relabel levels ..., (list, push)*, relabel init, ...
// with a restart when a list step finds no active column, until a relabel
// reaches no free column, then the fix.
enum McmPhase : int {
  kMcmBfsPhase = 0,
  kMcmAlternatePhase = 1,
  kMcmPrRelabelInitPhase = 2,  // GR: INITRELABEL
  kMcmPrRelabelPhase = 3,      // GR: one BFS level from the free rows
  kMcmPrListPhase = 4,         // G-PR-INITKRNL: roll back, mark active
  kMcmPrPushPhase = 5,         // G-PR-PUSHKRNL
  kMcmPrFixPhase = 6,          // FixMatching, then the final status
  kMcmPrRestartPhase = 7,      // the lists from every free column, a relabel
  kMcmPrShrinkPhase = 8,       // G-PR-SHRKRNL: A_c's active slots to A_p
  kMcmPrShrunkPhase = 9,       // ... and back to A_c, compacted
  kMcmGreedyPhase = 10,        // restart from the ordered greedy (stepped)
  kMcmRequeuePhase = 11,       // kept trees: graft, then the next queue
};

enum McmScalar : int {
  kMcmStatus = 0,
  kMcmPhaseSlot = 1,  // McmPhase
  kMcmLevel = 2,      // BFS level being expanded
  kMcmInserted = 3,   // OR of the level kernel's blocks' flags (stepped)
  kMcmFound = 4,      // an augmenting path was found (this phase)
  kMcmNPhases = 5,    // completed BFS + Alternate + FixMatching phases that
                      // found a path
  kMcmNLevels = 6,    // BFS level kernels run, over all phases
  kMcmTicket = 7,     // blocks done with the current kernel (stepped solver)
  kMcmQHead = 8,      // the current level is queue[head, end)
  kMcmQEnd = 9,
  kMcmLevelEdges = 10,      // the current level's edges, counted or not (below)
  kMcmFoundLevel = 11,      // the first level of this phase that found a path
  kMcmInitialFree = 12,     // columns queued after the initial matching
  kMcmKsStage = 13,         // Karp-Sipser: the next round's McmKsStage
  kMcmKsMatched = 14,       // Karp-Sipser: OR of the round's blocks' flags
  kMcmKsSeedSlice = 15,     // Karp-Sipser: seed slices done
  kMcmMinusMaxDegree = 16,  // minus the largest valid column's degree
  kMcmLocalColumns = 17,    // init: local columns (mcm_column_local)
  // One 64-bit word (low, high), added to at once as a column is queued
  // (mcm_queue_push): the next level is appended at queue[tail], and its
  // columns' edges so far (when counted).
  kMcmQTail = 18,
  kMcmNextEdges = 19,
  // Trees kept across phases (kept_trees.h): the level the next phase starts
  // from when it keeps them (0: from scratch, at kMcmL0), whether grafting
  // found a path, the columns the ending phase visited and released, and
  // whether the phase expands the whole forest (1) once more; slot 25 keeps
  // the length even.
  kMcmKeptLevel = 20,
  kMcmGraftFound = 21,
  kMcmVisited = 22,
  kMcmReleased = 23,
  kMcmForest = 24,
  kMcmInfoLen = 26,
};
static_assert(kMcmQTail % 2 == 0 && kMcmNextEdges == kMcmQTail + 1 &&
                  kMcmInfoLen % 2 == 0,
              "the queue's tail and edges form an aligned 64-bit word");

// kMcmLevelEdges when the current level's edges were not counted: on a graph
// whose levels never share their edges out (mcm_edges_even false), or after
// a level expanded by a kernel that does not count (the small frontiers').
constexpr int kMcmLevelEdgesUncounted = -1;

// A graph's BFS levels share their edges out evenly when its largest column
// degree is above this many times the average (a power-law graph: columns
// of thousands of edges, which one group of lanes would read alone, among
// many of a few).  Meshes, road networks and geometric graphs are at 3 times
// or less, and keep a group per column, which costs no counting.
constexpr int kMcmEvenDegreeSkew = 32;

// The push-relabel driver reuses slots whose BFS meaning it has no use for
// (the Karp-Sipser slots are free once the initialisation is done).
// kMcmNPhases counts its push iterations (the paper's `loop`), kMcmNLevels
// its global-relabel levels, kMcmLevel is the relabel's current level,
// kMcmInserted ORs the blocks' flags as for the BFS, kMcmFound says whether
// the current relabel reached a free column, kMcmInitialFree is the number
// of list slots (the free columns at the start or the last restart), and
// kMcmQTail counts the columns a restart queues.
constexpr McmScalar kMcmPrNextRelabel = kMcmQHead;  // iterGR
constexpr McmScalar kMcmPrMaxLevel = kMcmFoundLevel;
constexpr McmScalar kMcmPrLimit = kMcmKsStage;  // the fix ends at max_phases
constexpr McmScalar kMcmPrShrinkDue = kMcmKsSeedSlice;  // a relabel ended
// The BFS drivers after a cheap start: whether they restarted from the
// ordered greedy (0 or 1).
constexpr McmScalar kMcmRestarted = kMcmKsMatched;

// The lists are compacted after a relabel when they have at least this many
// slots (Deveci et al.: shrinking smaller lists does not pay).
constexpr int kMcmPrShrinkMinSlots = 512;

// The next global relabel comes ceil(k * maxLevel) push iterations after
// one, k = kMcmPrRelabelNum / kMcmPrRelabelDen = 0.7 (Deveci et al.'s
// adaptive strategy, their best k).
constexpr int kMcmPrRelabelNum = 7;
constexpr int kMcmPrRelabelDen = 10;

// The BFS start level.  With kL0 = 2, levels stay positive and a root's
// found-marker -r (r >= 0) stays below kL0 - 1 (Deveci et al.).
constexpr int kMcmL0 = 2;

struct McmOptions {
  int driver;             // McmDriver
  int bfs;                // McmBfs
  int max_phases;         // status kMcmPhaseLimit after this many phases
  int hybrid_depth;       // the hybrid's depth factor
  int auto_free_divisor;  // auto runs APFB above n_cols / this many roots
  // The stepped CUDA solver restarts once from the ordered greedy matching
  // (ordered_greedy.h) once the BFS has run this many levels in all, in the
  // middle of a phase if need be (0: never).  Set for the cheap start only; the
  // CPU's cheap matching is the sequential greedy already.
  int restart_levels = 0;
  // Trees that did not augment are kept across an APFB phase (with root
  // tracking and a row CSR; kept_trees.h) when fewer than one visited column
  // in keep_trees_divisor was released (0: never).
  int keep_trees_divisor = 0;
};

// Offsets into one problem's workspace.
struct McmWorkLayout {
  std::size_t bfs, root, pred, queue, ia, len;
  JM_HD McmWorkLayout(int nr, int nc) {
    bfs = 0;
    root = bfs + nc;
    pred = root + nc;
    queue = pred + nr;
    ia = queue + nc;
    len = ia + nc;
  }
};

// One problem: the column CSR (cxadj [n_cols + 1], cadj [nnz_cap], entries
// past cxadj[n_cols] are padding), the row CSR when it is read (rxadj
// [n_rows + 1], radj [rnnz_cap]; else null) and its state.
struct McmView {
  int nr, nc, nnz_cap;
  const int* cxadj;
  const int* cadj;
  int rnnz_cap = 0;
  const int* rxadj = nullptr;
  const int* radj = nullptr;
  int* sc;
  int* rmatch;
  int* cmatch;
  int* bfs;
  int* root;
  int* pred;
  int* queue;
  int* ia;
  JM_HD McmView(int n_rows, int n_cols, int cap, const int* cx, const int* ca,
                int* rm, int* cm, int* info, int* work)
      : nr(n_rows),
        nc(n_cols),
        nnz_cap(cap),
        cxadj(cx),
        cadj(ca),
        sc(info),
        rmatch(rm),
        cmatch(cm) {
    const McmWorkLayout L(n_rows, n_cols);
    bfs = work + L.bfs;
    root = work + L.root;
    pred = work + L.pred;
    queue = work + L.queue;
    ia = work + L.ia;
  }
};

JM_HD bool mcm_running(const McmView& p) {
  return load_shared_scalar(p.sc + kMcmStatus) == kMcmRunning;
}
JM_HD int mcm_phase(const McmView& p) {
  return load_shared_scalar(p.sc + kMcmPhaseSlot);
}

// Whether vertex v's pointers in a CSR (ptr, capacity cap) delimit a slice
// of its entries (and they start at 0).  When every vertex's do, the slices
// tile the stored entries [0, ptr[len]).
JM_HD bool mcm_pointers_ok(const int* ptr, int cap, int v) {
  const int lo = ptr[v], hi = ptr[v + 1];
  return lo >= 0 && hi >= lo && hi <= cap && (v != 0 || lo == 0);
}

// The stored entries of a CSR of `len` vertices, ptr[len] clamped to
// [0, cap] so that a malformed graph is still read in bounds.
JM_HD int mcm_stored(const int* ptr, int len, int cap) {
  if (len == 0) return 0;
  const int e = ptr[len];
  return e < 0 ? 0 : (e > cap ? cap : e);
}

// Whether this worker's share of a CSR is valid: its vertices' pointers and
// its stored entries (each in [0, bound)).  Every worker of the team checks
// its share, so no worker reads a whole list.
template <class Team>
JM_HD bool mcm_csr_share_ok(const Team& team, const int* ptr, const int* adj,
                            int len, int cap, int bound) {
  bool ok = true;
  for (int v = team.rank(); v < len; v += team.size())
    if (!mcm_pointers_ok(ptr, cap, v)) ok = false;
  const int stored = mcm_stored(ptr, len, cap);
  for (int k = team.rank(); k < stored; k += team.size()) {
    const int x = adj[k];
    if (x < 0 || x >= bound) ok = false;
  }
  return ok;
}

JM_HD bool mcm_column_pointers_ok(const McmView& p, int c) {
  return mcm_pointers_ok(p.cxadj, p.nnz_cap, c);
}

// A batch of graphs with equal shapes and their states: the operands of one
// call, each [batch, len].  view(b) is problem b.  The row CSR is set only
// for the calls that read it (initialisation).
struct McmProblem {
  int64_t batch;
  int nr, nc, cap;
  const int* cxadj;            // [batch, nc + 1]
  const int* cadj;             // [batch, cap]
  int* rmatch;                 // [batch, nr]
  int* cmatch;                 // [batch, nc]
  int* info;                   // [batch, kMcmInfoLen]
  int* work;                   // [batch, McmWorkLayout::len]
  const int* rxadj = nullptr;  // [batch, nr + 1] or null
  const int* radj = nullptr;   // [batch, rcap] or null
  int rcap = 0;

  JM_HD int64_t work_len() const {
    return static_cast<int64_t>(McmWorkLayout(nr, nc).len);
  }
  JM_HD McmView view(int64_t b) const {
    McmView v(nr, nc, cap, cxadj + b * (nc + 1), cadj + b * cap,
              rmatch + b * nr, cmatch + b * nc, info + b * kMcmInfoLen,
              work + b * work_len());
    if (rxadj != nullptr) {
      v.rnnz_cap = rcap;
      v.rxadj = rxadj + b * (nr + 1);
      v.radj = radj + b * rcap;
    }
    return v;
  }
};

}  // namespace jaxmatch
