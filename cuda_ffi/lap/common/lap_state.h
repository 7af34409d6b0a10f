// The state of one Hungarian LAP problem (n rows, m columns, n <= m).
//
// It travels through XLA as named buffers, each [..., len] with the leading
// dimensions of the cost matrix:
//   col_for_row  int32 [n]    the column assigned to each row, -1 free
//   row_for_col  int32 [m]    the row assigned to each column, -1 free
//   u, v         T [n], T [m] row and column duals (T = the cost dtype)
//   info         int32 [kLapInfoLen]  scalars (LapScalar): status, counters
//   work         int32 [LapWorkLayout::ilen]  the solver's own arrays
//   twork        T [LapWorkLayout::tlen]      the solver's own arrays,
//                among them the duals' rounding errors (u_lo [n], v_lo [m]:
//                u + u_lo and v + v_lo are the duals the updates summed)
// Only C++ knows the workspace layout; Python asks the library for the two
// workspace lengths and reads info through the slots the library exports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common/device.h"

namespace jaxmatch {

// kLapJv, Jonker-Volgenant's shortest augmenting paths (lap/jv/jv_cpu.h on the
// CPU, a warp per problem in lap_jv_warp.cuh on a GPU), runs as one fused call,
// dense costs only on a GPU.  kLapCsrTree is the alternating-tree
// variant on sparse (CSR) costs (lap/sparse/csr_steps.h); kLapCsrAuto asks the
// sparse handlers for their platform's solver (JV on the CPU, kLapCsrTree on
// a GPU).
enum LapVariant : int32_t {
  kLapCsrAuto = -1,
  kLapTree = 0,
  kLapClassical = 1,
  kLapJv = 2,
  kLapCsrTree = 3,
};

enum LapStatus : int32_t {
  kLapRunning = 0,
  kLapOptimal = 1,
  kLapInfeasible = 2,
  kLapOverflow = 3,
  kLapIterationLimit = 4,
  kLapInvalidEntries = 5,    // NaN / -inf input (JV; the wrapper for others)
  kLapInvalidStructure = 6,  // a malformed sparse (CSR) cost matrix
};

// Cost dtypes of the host entry point (jaxmatch_lap_solve_host).
enum LapHostDtype : int32_t {
  kLapHostFloat32 = 0,
  kLapHostFloat64 = 1,
  kLapHostInt32 = 2,
};

enum LapPhase : int32_t {
  kPhaseNeedTree = 0,  // (re)build the alternating forest from the free rows
  kPhaseSearch = 1,    // expand the frontier (list_cur)
  kPhaseDual = 2,      // classical: compute delta, rebuild zero lists, update
  kPhaseRescan = 3,    // classical: rescan every tree row after a dual update
};

// Slots of the info buffer.
enum LapScalar : int32_t {
  kStatus = 0,
  kPhase,
  kCntCur,        // entries in the current frontier list
  kCntNext,       // entries appended to the next frontier list
  kNFree,         // free columns reached in this iteration
  kNAug,          // augmenting paths applied in this iteration
  kNAssigned,     // rows assigned so far
  kIters,         // iterations of the main loop
  kNDual,         // dual updates
  kNAugPhases,    // iterations that augmented
  kListSel,       // which half of `list` is the current frontier
  kFlagOverflow,  // integer overflow seen
  kFlagInfeas,    // infeasibility seen during initialisation
  kNTree,         // classical: rows in tree_list
  kMaxIters,      // iteration limit (set by init)
  kFlagInput,     // sparse costs: the status of malformed input, else 0
  kNTouched,      // sparse costs: columns in the touched list
  kNForest,       // sparse costs: rows in the forest list
  kOldTouched,    // sparse costs: the lists' lengths when the phase ended
  kOldForest,
  kLapInfoLen = 20,
};

// Row visits of JV's augmenting row reduction (lap/jv/jv_cpu.h,
// lap/jv/jv_team.cuh) per free row it starts with.
constexpr int64_t kLapJvReductionVisits = 2;

// The type of JV's duals and distances (lap/jv/jv_cpu.h, lap/jv/jv_team.cuh):
// double for float costs, int64 for int32 costs.
template <class T>
using LapJvWide = typename std::conditional<std::is_floating_point<T>::value,
                                            double, int64_t>::type;

// Offsets into the shared memory of one warp's JV solve
// (lap/jv/jv_team.cuh): the prices v and the distances d (W [m]), the
// predecessors pred and owners y (int [m]), the assignment x and the list of
// free rows (int [n]), and the cost matrix (T [n, m]) when staged.
struct LapJvWarpLayout {
  size_t v, d, pred, y, x, rows, cost, state_bytes, staged_bytes;

  template <class T>
  JM_HD static constexpr LapJvWarpLayout Of(int n, int m) {
    using W = LapJvWide<T>;
    LapJvWarpLayout L{};
    const size_t mm = static_cast<size_t>(m), nn = static_cast<size_t>(n);
    L.v = 0;
    L.d = L.v + mm * sizeof(W);
    L.pred = L.d + mm * sizeof(W);
    L.y = L.pred + mm * sizeof(int);
    L.x = L.y + mm * sizeof(int);
    L.rows = L.x + nn * sizeof(int);
    L.cost = (L.rows + nn * sizeof(int) + 15) / 16 * 16;
    L.state_bytes = L.cost;
    L.staged_bytes = L.cost + nn * mm * sizeof(T);
    return L;
  }
};

// The shared memory of a GPU JV solve: its state fits the default 48 KiB
// (up to 1536 columns for a square problem, 2048 for one row), so a lane
// owns at most 64 columns; the cost matrix is staged beside it up to 96 KiB
// in all (two blocks per SM; float32 up to 152 x 152).
constexpr size_t kLapJvWarpSharedBytes = 48 * 1024;
constexpr size_t kLapJvWarpStagedBytes = 96 * 1024;

// A block's JV solve (lap/jv/jv_team.cuh): up to kLapJvBlockThreads threads,
// each owning up to 64 columns.  It takes every problem from
// kLapJvBlockMinColumns columns, and those whose state does not fit a warp.
// Measured on an H100 (docs/benchmarks.md): a block solves one 1024 x 1024
// problem in 16 ms (a warp: 90 ms), 16 of them in 22 ms (155 ms), one
// 256 x 256 problem in 1.7 ms (4.4 ms) and 128 of them in 2.5 ms (6.5 ms);
// warps are ahead on batches of smaller problems.
constexpr int kLapJvBlockThreads = 1024;
constexpr int kLapJvMaxColumns = 64 * kLapJvBlockThreads;
constexpr int kLapJvBlockMinColumns = 256;

// From this many rows (n <= m) the GPU's JV solves a problem with a
// cluster of blocks, on devices that have clusters (sm_90), when the batch
// has no more problems than clusters run at once (lap/jv/jv_kernels.cu).  On
// an H100, against a block: Machol-Wien 1024^2 544 against 694 ms, rank
// one 1024^2 471 against 651 ms, U[0, 1) 1024^2 12.4 against 13.4 ms,
// squared distances 1500^2 52 against 69 ms.  Below 1024 rows a block was
// ahead (1000 x 3000: 2.7 against 3.8 ms in a cluster of 8 x 512).
constexpr int kLapJvClusterMinRows = 1024;

// The auction start of a cluster's JV (lap/jv/auction_team.cuh), for square
// problems with finite costs from kLapAuctionMinRows rows whose rows' least
// columns are few, when the batch has no more problems than clusters run
// at once: epsilon-scaling phases from a quarter of the cost scale, epsilon
// divided by kLapAuctionTheta per phase while above kLapAuctionEpsFinal
// times the scale, each phase ending when at most LapAuctionPhaseEndRows(n)
// rows are free, then at most kLapAuctionFinalRounds rounds with epsilon
// 0; at most kLapAuctionRoundsPerRow rounds a row in all.  Below
// kLapJvClusterMinRows rows, single problems only: a cluster finishes the
// problem when the auction started it, else a block solves it.  On an
// H100 against JV alone (docs/benchmarks.md): Machol-Wien float32 256^2
// 25 -> 5 ms, 512^2 129 -> 13 ms, 1024^2 548 -> 35 ms; rank one 256^2 21
// -> 5 ms, 768^2 255 -> 26 ms.  The others pay for the start's launch and
// the cluster's that leaves at once: U[0, 1) 256^2 (no auction) 1.4 -> 1.7
// ms, 384^2 2.2 -> 2.4 ms.
constexpr int kLapAuctionMinRows = 256;
// From this many rows the auction starts every such problem whose rows'
// two least costs mostly differ (lap/jv/auction_team.cuh's Run); below, only
// those whose rows' least columns are few.  On an H100 from 1024^2 to
// 2048^2 (docs/benchmarks.md): U[0, 1) 1024^2 12 -> 6 ms, squared
// distances 2048^2 102 -> 17 ms, distances 2048^2 101 -> 32 ms, 4 x 2048^2
// U[0, 1) 44 -> 16 ms.
constexpr int kLapAuctionAllMinRows = 1024;
constexpr double kLapAuctionTheta = 6.0;
constexpr double kLapAuctionEpsFinal = 1e-6;
constexpr int kLapAuctionFinalRounds = 50;
constexpr int kLapAuctionRoundsPerRow = 64;
// The free rows that end an auction phase of an n x n problem: n / 512, at
// least 4 and at most 16.  A phase's last rounds are a few rows outbidding
// each other, one scan a round; JV's searches place the rows left free
// after the last phase.  On an H100, against phases run to the end
// (docs/benchmarks.md): squared distances 16384^2 3.4 -> 0.69 s, U[0, 1)
// 16384^2 0.67 -> 0.38 s, distances 8192^2 1.31 -> 0.29 s.  With n / 256
// U[0, 1) 16384^2 took 1.5 s (each search far longer from the coarser
// prices), with n / 512 from 4096 rows up to 29 % faster than n / 1024.
JM_HD int LapAuctionPhaseEndRows(int n) {
  const int rows = n / 512;
  return rows < 4 ? 4 : (rows > 16 ? 16 : rows);
}

// The widest square problem whose JV state fits a warp's shared memory
// (LapJvWarpLayout; the state does not depend on the cost dtype).  A warp
// runs the problems below kLapJvBlockMinColumns columns (LapJvInBlock).
constexpr int LapJvWarpMaxColumns() {
  int m = 0;
  while (LapJvWarpLayout::Of<float>(m + 1, m + 1).state_bytes <=
         kLapJvWarpSharedBytes)
    ++m;
  return m;
}

// Whether the GPU's JV solves an n x m problem (n <= m) in a block.
JM_HD bool LapJvInBlock(int n, int m) {
  return m >= kLapJvBlockMinColumns ||
         LapJvWarpLayout::Of<float>(n, m).state_bytes > kLapJvWarpSharedBytes;
}

// Whether the GPU's JV solves an n x m problem (n <= m), in a warp or a
// block.  The warp's state does not depend on the cost dtype (the wide type
// W is 8 bytes for every one).
JM_HD bool LapJvFits(int n, int m) {
  (void)n;
  return m <= kLapJvMaxColumns;
}

// Offsets into one problem's workspaces.
struct LapWorkLayout {
  std::size_t pred, col_flag, row_flag, root, claim, list, tree_list, zcnt,
      zidx, cand, touched, forest, capped, ilen;    // into work
  std::size_t slack, delta, rdist, ulo, vlo, tlen;  // into twork
  // JV (kLapJv): a block's pred, y [m], x, rows, list [n] and two counts
  // into work, and the prices and distances v, d (LapJvWide [m] each) and
  // the auction's bids (uint64 [m]) at the start of twork.  Every size gets
  // them, also those a warp or the CPU solves (which keep their own arrays):
  // so the lengths are affine in n and m, and a program exported with
  // symbolic sizes can state them.
  std::size_t jv_pred, jv_y, jv_x, jv_rows, jv_list, jv_count, jv_bids;

  JM_HD LapWorkLayout(int n, int m, int variant) {
    std::size_t o = 0;
    pred = o;
    o += m;
    col_flag = o;
    o += m;
    row_flag = o;
    o += n;
    root = o;
    o += n;
    claim = o;
    o += n;
    list = o;
    o += 2 * static_cast<std::size_t>(n);
    tree_list = o;
    zcnt = o;
    zidx = o;
    if (variant == kLapClassical) {
      tree_list = o;
      o += n;
      zcnt = o;
      o += n;
      zidx = o;
      o += static_cast<std::size_t>(n) * m;
    }
    cand = touched = forest = capped = o;
    if (variant == kLapCsrTree) {
      cand = o;  // each column's least row achieving its new key
      o += m;
      touched = o;  // the columns given a key in this phase
      o += m;
      forest = o;  // the rows in this phase's forest
      o += n;
      capped = o;  // 1 when an int32 key of this phase did not fit
      o += 1;
    }
    ilen = o;
    slack = 0;
    delta = m;
    rdist = static_cast<std::size_t>(m) + 2;
    ulo = rdist + (variant == kLapCsrTree ? n : 0);
    vlo = ulo + n;
    tlen = vlo + m;
    jv_pred = jv_y = jv_x = jv_rows = jv_list = jv_count = jv_bids = 0;
    if (variant == kLapJv) {
      // lap/jv/jv_cpu.h and a warp keep their own arrays; a block's live here.
      pred = col_flag = row_flag = root = claim = list = 0;
      tree_list = zcnt = zidx = cand = touched = forest = capped = ilen = 0;
      slack = delta = rdist = ulo = vlo = tlen = 0;
      jv_y = m;
      jv_x = 2 * static_cast<std::size_t>(m);
      jv_rows = jv_x + n;
      jv_list = jv_rows + n;
      jv_count = jv_list + n;
      ilen = jv_count + 2;
      // 3m 8-byte values, in units of a 4-byte T (an 8-byte T has twice the
      // room it needs).
      jv_bids = 4 * static_cast<std::size_t>(m);
      tlen = 6 * static_cast<std::size_t>(m);
    }
  }
};

// The buffers of one problem.
template <class T>
struct LapBuffers {
  int* info;
  int* col_for_row;
  int* row_for_col;
  T* u;
  T* v;
  int* work;
  T* twork;

  // Member b of a batch whose buffers these are (each [batch, len]), for
  // the sparse solver.  LapProblem::buffers spells the same out (a
  // compute-sanitizer quirk, docs/design.md).
  JM_HD LapBuffers member(int64_t b, int n, int m,
                          const LapWorkLayout& L) const {
    return LapBuffers{info + b * kLapInfoLen,
                      col_for_row + b * n,
                      row_for_col + b * m,
                      u + b * n,
                      v + b * m,
                      work + b * static_cast<int64_t>(L.ilen),
                      twork + b * static_cast<int64_t>(L.tlen)};
  }
};

// A view of one problem: the cost matrix and pointers into its state.
template <class T>
struct LapView {
  int n, m;
  const T* C;             // [n, m] row-major
  int* sc;                // info
  int* work;              // the int32 workspace (pred is its first array)
  T* twork;               // the cost-dtype workspace
  std::size_t zero_ilen;  // work[0, zero_ilen) is zeroed by init (not zidx)
  int max_iters = 0;      // main-loop iteration limit; 0: the default bound
  int *col_for_row, *row_for_col, *pred, *col_flag, *row_flag, *root, *claim,
      *list, *tree_list, *zcnt, *zidx;
  T *u, *v, *slack, *delta;
  T *ulo, *vlo;  // the duals' rounding errors (Num<T>::add_compensated)

  JM_HD LapView(int n_, int m_, int variant, const T* C_,
                const LapBuffers<T>& b)
      : n(n_), m(m_), C(C_) {
    const LapWorkLayout L(n_, m_, variant);
    sc = b.info;
    col_for_row = b.col_for_row;
    row_for_col = b.row_for_col;
    u = b.u;
    v = b.v;
    pred = b.work + L.pred;
    col_flag = b.work + L.col_flag;
    row_flag = b.work + L.row_flag;
    root = b.work + L.root;
    claim = b.work + L.claim;
    list = b.work + L.list;
    tree_list = b.work + L.tree_list;
    zcnt = b.work + L.zcnt;
    zidx = b.work + L.zidx;
    slack = b.twork + L.slack;
    delta = b.twork + L.delta;
    ulo = b.twork + L.ulo;
    vlo = b.twork + L.vlo;
  }

  // u_i += d and v_j += d, their rounding errors carried.
  JM_HD void add_u(int i, T d, int* ovf) {
    Num<T>::add_compensated(u + i, ulo + i, d, ovf);
  }
  JM_HD void add_v(int j, T d, int* ovf) {
    Num<T>::add_compensated(v + j, vlo + j, d, ovf);
  }

  JM_HD T c(int i, int j) const {
    return C[static_cast<std::size_t>(i) * m + j];
  }
  JM_HD int* list_cur() const { return list + (sc[kListSel] ? n : 0); }
  JM_HD int* list_next() const { return list + (sc[kListSel] ? 0 : n); }
};

// A batch of problems with equal shapes: the operands of one call, each a
// [batch, len] array.  view(b) is problem b.
template <class T>
struct LapProblem {
  int64_t batch;
  int n, m, variant;   // n <= m
  const T* C;          // [batch, n, m]
  LapBuffers<T> base;  // each [batch, len]
  int max_iters = 0;   // iteration limit (JV: augmenting searches); 0: default
  // A warm start (square problems): the earlier assignment x0 [batch, n]
  // (-1: none) and column prices v0 [batch, m]; null for a cold start.
  const int* x0 = nullptr;
  const T* v0 = nullptr;
  // The GPU's JV may start a square warm-started problem with its auction
  // instead, where the auction runs (lap/jv/auction_team.cuh's Run): for a
  // warm start from the tree variant's duals, not from a user's.
  bool warm_auction = false;

  JM_HD LapWorkLayout work_layout() const {
    return LapWorkLayout(n, m, variant);
  }
  JM_HD LapBuffers<T> buffers(int64_t b) const {
    const LapWorkLayout L = work_layout();
    return LapBuffers<T>{base.info + b * kLapInfoLen,
                         base.col_for_row + b * n,
                         base.row_for_col + b * m,
                         base.u + b * n,
                         base.v + b * m,
                         base.work + b * static_cast<int64_t>(L.ilen),
                         base.twork + b * static_cast<int64_t>(L.tlen)};
  }
  JM_HD LapView<T> view(int64_t b) const {
    LapView<T> p(n, m, variant, C + static_cast<std::size_t>(b) * n * m,
                 buffers(b));
    p.max_iters = max_iters;
    return p;
  }
};

// One sparse problem: the CSR costs and the state of
// lap/hungarian/hungarian_steps.h's tree variant (its workspace laid out by
// LapWorkLayout(n, m, kLapCsrTree)).
template <class T>
struct LapCsrView : LapView<T> {
  int cap;
  const int* indptr;   // [n + 1]
  const int* indices;  // [cap]
  const T* cost;       // [cap]
  int* cand;           // [m] least frontier row achieving a new least key
  int* touched;        // [m] the columns given a key in this phase
  int* forest;         // [n] the rows in this phase's forest
  int* capped;         // [1] an int32 key of this phase did not fit
  T* rdist;            // [n] the distance at which a forest row joined
  int* edge_for_row;   // [n] the position of each row's matched entry
  // Unassigned costs (null without): row i's price of staying unassigned,
  // the cost of its private exit column, [n]; the columns' starting prices
  // (their prices of staying unassigned), [m].
  const T* row_cost = nullptr;
  const T* col_cost = nullptr;

  JM_HD LapCsrView(int n_, int m_, int cap_, const int* indptr_,
                   const int* indices_, const T* cost_, const LapBuffers<T>& b,
                   int* edge_for_row_)
      : LapView<T>(n_, m_, kLapCsrTree, nullptr, b),
        cap(cap_),
        indptr(indptr_),
        indices(indices_),
        cost(cost_),
        cand(b.work + LapWorkLayout(n_, m_, kLapCsrTree).cand),
        touched(b.work + LapWorkLayout(n_, m_, kLapCsrTree).touched),
        forest(b.work + LapWorkLayout(n_, m_, kLapCsrTree).forest),
        capped(b.work + LapWorkLayout(n_, m_, kLapCsrTree).capped),
        rdist(b.twork + LapWorkLayout(n_, m_, kLapCsrTree).rdist),
        edge_for_row(edge_for_row_) {}

  // Whether entry k is an edge (+inf float costs are absent).
  JM_HD bool present(int k) const {
    return Num<T>::kIsInteger || cost[k] < Num<T>::inf();
  }
  // Whether each row has an exit (unassigned costs).
  JM_HD bool exits() const { return row_cost != nullptr; }
  // The internal column of a row assigned to its exit (beyond every real
  // column; lap_csr_finish writes -1).
  JM_HD int exit_of(int i) const { return this->m + i; }
};

// A batch of sparse problems of one shape and capacity: the operands of one
// call, each [batch, len].
template <class T>
struct LapCsrProblem {
  int64_t batch;
  int n, m, cap;  // n <= m
  const int* indptr;
  const int* indices;
  const T* cost;
  LapBuffers<T> base;  // each [batch, len], workspaces of kLapCsrTree
  int* edge_for_row;
  int max_iters = 0;
  const T* row_cost = nullptr;  // [batch, n], or null: no unassigned costs
  const T* col_cost = nullptr;  // [batch, m], with row_cost

  JM_HD LapCsrView<T> view(int64_t b) const {
    LapCsrView<T> p(n, m, cap, indptr + b * (n + 1), indices + b * cap,
                    cost + b * cap,
                    base.member(b, n, m, LapWorkLayout(n, m, kLapCsrTree)),
                    edge_for_row + b * n);
    p.max_iters = max_iters;
    if (row_cost != nullptr) {
      p.row_cost = row_cost + b * n;
      p.col_cost = col_cost + b * m;
    }
    return p;
  }
};

// Flips the augmenting path that a shortest-path search from the free row
// `root` found to the free column `end`: following the predecessor rows
// `pred` (column -> row, of any integer type), each column of the path takes
// its predecessor and each row the column it reached (`x`: row -> column,
// `y`: column -> row).
// `on_column(j)` runs for each column of the path (the JV solvers, dense,
// sparse and a warp's, end every search with this).
template <typename Pred, typename OnColumn>
JM_HD void FlipAugmentingPath(int end, int root, const Pred* pred, int* x,
                              int* y, OnColumn on_column) {
  for (int j = end;;) {
    const int i = static_cast<int>(pred[j]);
    y[j] = i;
    on_column(j);
    const int next = x[i];
    x[i] = j;
    if (i == root) break;
    j = next;
  }
}

}  // namespace jaxmatch
