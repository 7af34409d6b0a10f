// State of one maximum-cardinality bipartite matching problem (Deveci, Kaya,
// Ucar, Catalyurek: APFB / APsB with GPUBFS / GPUBFS-WR), as one int32 buffer
// per batch member:
//
//   [0, kMcmScalars)   scalars (McmScalar)
//   rmatch  [n_rows]   column matched to each row, -1 free; -2 marks a free
//                      row that ends an augmenting path found by the BFS
//   cmatch  [n_cols]   row matched to each column, -1 free
//   bfs     [n_cols]   BFS level of each column: kL0 for the roots (the free
//                      columns), kL0 - 1 unvisited, larger = deeper; with root
//                      tracking, a root whose tree found a path holds -r for
//                      the free row r chosen as its path's end (<= 0)
//   root    [n_cols]   the root a column's tree grew from (-1 unvisited)
//   pred    [n_rows]   the column from which the BFS reached a row
//   queue   [n_cols]   the columns in BFS order (each enters once per phase:
//                      the roots first, then every column as its level is
//                      claimed); level k is queue[head, end), the next level
//                      is appended at tail
//
// jaxmatch/_mcm_layout.py mirrors this layout.
#pragma once

#include "jm_device.h"

namespace jaxmatch {

// Options of a solve, passed to the kernels as one small struct.
// APFB runs each phase's BFS to its end, APsB stops it at the first level
// that reaches a free row, the hybrid at kMcmHybridDepthFactor times that
// level's depth.  Auto is APFB when the initial matching leaves more than
// one column in kMcmAutoFreeDivisor free, else the hybrid (chosen once, at
// the first phase).
enum McmDriver : int { kMcmApfb = 0, kMcmApsb = 1, kMcmHybrid = 2, kMcmAuto = 3 };
constexpr int kMcmHybridDepthFactor = 4;
constexpr int kMcmAutoFreeDivisor = 50;
enum McmBfs : int { kMcmBfsPlain = 0, kMcmBfsWr = 1 };
enum McmInit : int { kMcmInitNone = 0, kMcmInitCheap = 1, kMcmInitGiven = 2 };

enum McmStatus : int {
  kMcmRunning = 0,
  kMcmDone = 1,        // no augmenting path left: the matching is maximum
  kMcmPhaseLimit = 2,  // stopped by max_phases (never reached by the theory)
  kMcmBadGraph = 3,    // malformed CSR (validated constructors never give one)
};

enum McmPhase : int { kMcmBfsPhase = 0, kMcmAlternatePhase = 1 };

enum McmScalar : int {
  kMcmStatus = 0,
  kMcmPhaseSlot = 1,   // McmPhase
  kMcmLevel = 2,       // BFS level being expanded
  kMcmInserted = 3,    // OR of the level kernel's blocks' flags (stepped)
  kMcmFound = 4,       // an augmenting path was found (this phase)
  kMcmNPhases = 5,     // completed BFS + Alternate + FixMatching phases
  kMcmNLevels = 6,     // BFS level kernels run, over all phases
  kMcmTicket = 7,      // blocks done with the current kernel (stepped solver)
  kMcmQHead = 8,       // the current level is queue[head, end)
  kMcmQEnd = 9,
  kMcmQTail = 10,      // the next level is appended at queue[tail]
  kMcmFoundLevel = 11, // the first level of this phase that found a path
  kMcmAutoApfb = 12,   // auto driver: 1 runs as APFB, 0 as the hybrid
  kMcmScalars = 16,
};

// The BFS start level.  With kL0 = 2, levels stay positive and a root's
// found-marker -r (r >= 0) stays below kL0 - 1 (Deveci et al.).
constexpr int kMcmL0 = 2;

struct McmOptions {
  int driver;      // McmDriver
  int bfs;         // McmBfs
  int max_phases;  // status kMcmPhaseLimit after this many phases
};

struct McmLayout {
  int n_rows, n_cols;
  std::size_t rmatch, cmatch, bfs, root, pred, queue, len;
  JM_HD McmLayout(int nr, int nc) : n_rows(nr), n_cols(nc) {
    rmatch = kMcmScalars;
    cmatch = rmatch + nr;
    bfs = cmatch + nc;
    root = bfs + nc;
    pred = root + nc;
    queue = pred + nr;
    len = queue + nc;
  }
};

// One problem: the column CSR (cxadj [n_cols + 1], cadj [nnz_cap], entries
// past cxadj[n_cols] are padding) and its state.
struct McmView {
  int nr, nc, nnz_cap;
  const int* cxadj;
  const int* cadj;
  int* sc;
  int* rmatch;
  int* cmatch;
  int* bfs;
  int* root;
  int* pred;
  int* queue;
  JM_HD McmView(int n_rows, int n_cols, int cap, const int* cx, const int* ca,
                int* s)
      : nr(n_rows), nc(n_cols), nnz_cap(cap), cxadj(cx), cadj(ca), sc(s) {
    McmLayout L(n_rows, n_cols);
    rmatch = s + L.rmatch;
    cmatch = s + L.cmatch;
    bfs = s + L.bfs;
    root = s + L.root;
    pred = s + L.pred;
    queue = s + L.queue;
  }
};

}  // namespace jaxmatch
