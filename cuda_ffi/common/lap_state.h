// Packed per-problem state of the Hungarian LAP solver.
//
// The solver state of one problem (n rows, m columns, n <= m) lives in two
// flat arrays so that it travels through XLA as two buffers:
//   istate: int32  [lap_istate_len(n, m, variant)]
//   tstate: T      [lap_tstate_len(n, m)]      (T = the cost dtype)
// The Python side (jaxmatch/_lap_layout.py) mirrors these offsets; keep the
// two in step.
#pragma once

#include <cstddef>
#include <cstdint>

#include "jm_device.h"

namespace jaxmatch {

enum LapVariant : int32_t { kLapTree = 0, kLapClassical = 1 };

enum LapStatus : int32_t {
  kLapRunning = 0,
  kLapOptimal = 1,
  kLapInfeasible = 2,
  kLapOverflow = 3,
  kLapIterationLimit = 4,
};

enum LapPhase : int32_t {
  kPhaseNeedTree = 0,  // (re)build the alternating forest from the free rows
  kPhaseSearch = 1,    // expand the frontier (list_cur)
  kPhaseDual = 2,      // classical: compute delta, rebuild zero lists, update
  kPhaseRescan = 3,    // classical: rescan every tree row after a dual update
};

// Scalar slots at the head of istate.
enum LapScalar : int32_t {
  kStatus = 0,
  kPhase,
  kCntCur,       // entries in the current frontier list
  kCntNext,      // entries appended to the next frontier list
  kNFree,        // free columns reached in this iteration
  kNAug,         // augmenting paths applied in this iteration
  kNAssigned,    // rows assigned so far
  kIters,        // iterations of the main loop
  kNDual,        // dual updates
  kNAugPhases,   // iterations that augmented
  kListSel,      // which half of `list` is the current frontier
  kFlagOverflow, // integer overflow seen
  kFlagInfeas,   // infeasibility seen during initialisation
  kNTree,        // classical: rows in tree_list
  kMaxIters,     // iteration limit (set by init)
  kNumScalars = 16,
};

struct LapLayout {
  // Offsets into istate.
  std::size_t col_for_row, row_for_col, pred, col_flag, row_flag, root, claim,
      list, tree_list, zcnt, zidx, ilen;
  // Offsets into tstate.
  std::size_t u, v, slack, delta, tlen;

  JM_HD LapLayout(int n, int m, int variant) {
    std::size_t o = kNumScalars;
    col_for_row = o; o += n;
    row_for_col = o; o += m;
    pred = o; o += m;
    col_flag = o; o += m;
    row_flag = o; o += n;
    root = o; o += n;
    claim = o; o += n;
    list = o; o += 2 * static_cast<std::size_t>(n);
    tree_list = o; zcnt = o; zidx = o;
    if (variant == kLapClassical) {
      tree_list = o; o += n;
      zcnt = o; o += n;
      zidx = o; o += static_cast<std::size_t>(n) * m;
    }
    ilen = o;
    std::size_t t = 0;
    u = t; t += n;
    v = t; t += m;
    slack = t; t += m;
    delta = t; t += 2;
    tlen = t;
  }
};

// A view of one problem: the cost matrix and pointers into its state.
template <class T>
struct LapView {
  int n, m;
  const T* C;  // [n, m] row-major
  int* sc;     // scalars
  int *col_for_row, *row_for_col, *pred, *col_flag, *row_flag, *root, *claim,
      *list, *tree_list, *zcnt, *zidx;
  T *u, *v, *slack, *delta;

  JM_HD LapView(int n_, int m_, int variant, const T* C_, int* istate,
                T* tstate)
      : n(n_), m(m_), C(C_) {
    LapLayout L(n_, m_, variant);
    sc = istate;
    col_for_row = istate + L.col_for_row;
    row_for_col = istate + L.row_for_col;
    pred = istate + L.pred;
    col_flag = istate + L.col_flag;
    row_flag = istate + L.row_flag;
    root = istate + L.root;
    claim = istate + L.claim;
    list = istate + L.list;
    tree_list = istate + L.tree_list;
    zcnt = istate + L.zcnt;
    zidx = istate + L.zidx;
    u = tstate + L.u;
    v = tstate + L.v;
    slack = tstate + L.slack;
    delta = tstate + L.delta;
  }

  JM_HD T c(int i, int j) const {
    return C[static_cast<std::size_t>(i) * m + j];
  }
  JM_HD int* list_cur() const { return list + (sc[kListSel] ? n : 0); }
  JM_HD int* list_next() const { return list + (sc[kListSel] ? 0 : n); }
};

}  // namespace jaxmatch
