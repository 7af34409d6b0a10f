// Jonker and Volgenant's shortest augmenting paths (lap/jv/jv_cpu.h) run by a
// team of GPU threads per problem: a warp (JvWarp) for batches of small
// problems, a block (JvBlock) for large ones.
//
// The algorithm is lap/jv/jv_cpu.h's, step for step: column reduction with
// reduction transfer, one bounded pass of augmenting row reduction (square,
// finite costs) or the row-minima greedy start (rectangular, +inf entries),
// then Dijkstra from each free row.  The team splits every pass over the
// columns: thread t owns columns t, t + kSize, ...; each sequential decision
// (the least column, the second least, the next row to scan) is a team
// reduction whose result every thread holds, so the threads run the same
// control flow and thread 0 alone writes the scalars of the shared state.
// Duals and distances are kept in the wider type W (double for float costs,
// int64 for int32), as on the CPU.
//
// A warp keeps its state in shared memory (LapJvWarpLayout), the cost
// matrix too when it fits beside the state, and during a search each lane
// holds its columns' distances, prices and owners in registers
// (AugmentHeld), so a search step costs the next row's cost loads and one
// reduction: the path of one problem is latency, and a batch runs a problem
// per warp on every SM.  A block keeps as much of its state as fits in
// shared memory, the rest in the solve's global workspace (LapWorkLayout),
// which stays in L2, and spreads each step's row over its threads (held in
// registers too below 1024 columns).  From 1024 rows on GPUs with
// thread-block clusters (sm_90), a cluster of blocks (JvCluster) shares a
// problem: each step's row spreads over 16 SMs, and the reductions go
// through the blocks' shared memory.
//
// kExits: lap/jv/jv_cpu.h's problem with unassigned costs (n <= m, warps and
// blocks), row i's private exit of cost r_i priced 0 and the prices from c;
// the CPU's start (SolveWithExits), and each scanned row offers its exit at
// its distance plus r_i - u_i, a scalar the team holds.  Without kExits the
// code is the solver above, unchanged.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "common/reduction_teams.cuh"
#include "lap/common/lap_state.h"

namespace jaxmatch {

// The state of one JV solve (shared or global memory): the prices v and the
// distances d (W [m]), the predecessors pred and owners y (int [m]), the
// assignment x and the list of free rows (int [n]).
template <class W>
struct JvState {
  W *v, *d;
  int *pred, *y, *x, *rows;
};

// The prices of leaving a row or a column unassigned: r [n] and c [m]
// (global memory), for TeamJv's kExits; without it TeamJv keeps JvNoExit.
template <class T>
struct JvExitCosts {
  const T* row = nullptr;
  const T* col = nullptr;
};
struct JvNoExit {};

// One problem (n <= m, m <= 64 * Team::kSize) solved by the calling team
// (JvWarp or JvBlock); every thread of the team calls every member
// function.  `C` is the [n, m] cost matrix (global or shared memory).
// kHeld > 0: a search holds each thread's columns in registers
// (AugmentHeld; needs m <= kHeld * kSize and a team with LeastAfter), else in
// memory (Augment).  kExits: the problem with unassigned costs
// (SetExitCosts; Solve only, n <= m).
template <class T, class Team, int kHeld = 0, bool kExits = false>
class TeamJv {
 public:
  using W = LapJvWide<T>;
  using Key = jv_warp::Key<W>;
  static constexpr int kSize = Team::kSize;
  static constexpr bool kExitCosts = kExits;

  __device__ TeamJv(int n, int m, const T* C, const JvState<W>& state)
      : n_(n),
        m_(m),
        C_(C),
        me_(Team::rank()),
        v_(state.v),
        d_(state.d),
        pred_(state.pred),
        y_(state.y),
        x_(state.x),
        rows_(state.rows) {}

  // kExits: the prices of leaving a row or a column unassigned, before Solve.
  __device__ void SetExitCosts(JvExitCosts<T> exits) {
    static_assert(kExits, "a solve with unassigned costs");
    exits_ = exits;
  }

  // lap/jv/jv_cpu.h's LapJv::Solve; kLapInvalidEntries (the state cleared) when
  // a cost is NaN or -inf, or (kExits) an unassigned cost is not finite.
  __device__ int Solve(int max_searches, int* augmentations) {
    Clear();
    const Entries entries = ScanEntries();
    if (!entries.valid) return kLapInvalidEntries;
    if constexpr (kExits) {
      return SolveWithExits(max_searches, augmentations);
    } else {
      int free_count;
      if (n_ == m_ && entries.finite) {
        free_count = ColumnReduction();
        if (free_count > 0) free_count = AugmentingRowReduction(free_count);
      } else {
        free_count = RowMinimaGreedy();
      }
      return AugmentFreeRows(free_count, max_searches, augmentations);
    }
  }

  // lap/jv/jv_cpu.h's LapJv::SolveFrom: from the prices v0 [m] and the
  // assignment x0 [n] of an earlier solve (global memory).
  __device__ int SolveFrom(const T* v0, const int* x0, int max_searches,
                           int* augmentations) {
    static_assert(!kExits, "warm starts take no unassigned costs");
    const Entries entries = ScanEntries();
    if (!entries.valid) {
      Clear();
      return kLapInvalidEntries;
    }
    for (int j = me_; j < m_; j += kSize) {
      const W p = static_cast<W>(v0[j]);
      const bool finite = isfinite(static_cast<double>(v0[j]));
      v_[j] = !finite ? W(0) : (n_ < m_ && p > W(0) ? W(0) : p);
      y_[j] = -1;
    }
    for (int i = me_; i < n_; i += kSize) x_[i] = -1;
    team_.sync();
    KeepMinimalRows(x0);
    if (n_ < m_) ZeroUnassignedPrices();
    return FinishFromKept(entries.finite, max_searches, augmentations);
  }

  // The end of SolveFrom: from the prices v_ and the assignment x_, y_ in
  // the state, each assigned row at its least reduced cost (and, when
  // n < m, the free columns' prices 0), the free rows augmented;
  // kLapInvalidEntries (the state cleared) when a cost is NaN or -inf.
  __device__ int SolveFromKept(int max_searches, int* augmentations) {
    static_assert(!kExits, "warm starts take no unassigned costs");
    const Entries entries = ScanEntries();
    if (!entries.valid) {
      Clear();
      return kLapInvalidEntries;
    }
    return FinishFromKept(entries.finite, max_searches, augmentations);
  }

  // lap/jv/jv_cpu.h's LapJv::Write: the assignment and the duals (global
  // memory) of a solve that ended with `status`; returns the problem's status:
  // kLapOverflow instead of kLapOptimal when a dual, or the total cost of
  // integer costs, does not fit T.  The assignment is -1 throughout unless
  // the status is kLapOptimal.  kExits: -1 also marks the unassigned, a row
  // at its exit has u_i = r_i, no shift (u <= r, v <= c fix the duals), and
  // the total counts the prices of the unassigned.
  __device__ int Write(int status, int* col_for_row, int* row_for_col, T* u,
                       T* v) const {
    W u_min = jv_warp::WideInf<W>(), u_max = -jv_warp::WideInf<W>();
    W v_min = jv_warp::WideInf<W>(), v_max = -jv_warp::WideInf<W>();
    for (int i = me_; i < n_; i += kSize) {
      const W r = RowDual(i);
      u_min = r < u_min ? r : u_min;
      u_max = r > u_max ? r : u_max;
    }
    for (int j = me_; j < m_; j += kSize) {
      v_min = v_[j] < v_min ? v_[j] : v_min;
      v_max = v_[j] > v_max ? v_[j] : v_max;
    }
    W shift = W(0);
    if constexpr (!std::is_floating_point<T>::value && !kExits) {
      if (n_ == m_) {
        u_min = team_.Min(u_min);
        v_min = team_.Min(v_min);
        u_max = team_.Max(u_max);
        v_max = team_.Max(v_max);
        const W lo = static_cast<W>(INT_MIN), hi = static_cast<W>(INT_MAX);
        const W s_min = (lo - v_min) > (u_max - hi) ? lo - v_min : u_max - hi;
        const W s_max = (hi - v_max) < (u_min - lo) ? hi - v_max : u_min - lo;
        if (!(s_min > s_max || (s_min <= 0 && 0 <= s_max)))
          shift = s_min > 0 ? s_min : s_max;
      }
    }
    bool fits = true;
    W total = W(0);
    for (int i = me_; i < n_; i += kSize) {
      fits &= Store(RowDual(i) - shift, u + i);
      if (x_[i] >= 0) total += Cost(i, x_[i]);
      if constexpr (kExits) total += x_[i] == kExit ? ExitCost(i) : W(0);
    }
    for (int j = me_; j < m_; j += kSize) {
      fits &= Store(v_[j] + shift, v + j);
      if constexpr (kExits)
        total += y_[j] < 0 ? static_cast<W>(exits_.col[j]) : W(0);
    }
    if constexpr (!std::is_floating_point<T>::value) {
      // |total| < (n + m) 2^31: no int64 overflow.
      total = team_.Sum(total);
      fits &=
          static_cast<W>(INT_MIN) <= total && total <= static_cast<W>(INT_MAX);
    }
    if (!team_.All(fits) && status == kLapOptimal) status = kLapOverflow;
    const bool optimal = status == kLapOptimal;
    for (int i = me_; i < n_; i += kSize) col_for_row[i] = optimal ? x_[i] : -1;
    for (int j = me_; j < m_; j += kSize) row_for_col[j] = optimal ? y_[j] : -1;
    return status;
  }

  // The rows assigned to columns, for info's kNAssigned.
  __device__ int AssignedRows() const {
    int count = 0;
    for (int i = me_; i < n_; i += kSize) count += x_[i] >= 0;
    return team_.Sum(count);
  }

 private:
  // x_[i] of a row at its exit (kExits) and of a row still free.
  static constexpr int kExit = -1;
  static constexpr int kFree = kExits ? -2 : -1;

  // r_i, widened (kExits): from d_, where Clear copies r for the held
  // search (its distances live in registers; d_ is in shared memory).
  __device__ W ExitCost(int i) const {
    if constexpr (kHeld > 0)
      return d_[i];
    else
      return static_cast<W>(exits_.row[i]);
  }
  __device__ W Cost(int i, int j) const {
    return static_cast<W>(C_[static_cast<size_t>(i) * m_ + j]);
  }
  __device__ W RowDual(int i) const {
    if constexpr (kExits) {
      if (x_[i] == kExit) return ExitCost(i);
    }
    return x_[i] >= 0 ? Cost(i, x_[i]) - v_[x_[i]] : W(0);
  }
  __device__ static bool Store(W w, T* out) {
    if constexpr (!std::is_floating_point<T>::value) {
      if (w < static_cast<W>(INT_MIN) || w > static_cast<W>(INT_MAX))
        return false;
    }
    *out = static_cast<T>(w);
    return true;
  }

  // The prices 0 (kExits: c; r in d_, ExitCost) and nothing assigned.
  __device__ void Clear() {
    for (int j = me_; j < m_; j += kSize) v_[j] = W(0), y_[j] = -1;
    for (int i = me_; i < n_; i += kSize) x_[i] = kFree;
    if constexpr (kExits) {
      for (int j = me_; j < m_; j += kSize)
        v_[j] = static_cast<W>(exits_.col[j]);
      if constexpr (kHeld > 0) {
        for (int i = me_; i < n_; i += kSize)
          d_[i] = static_cast<W>(exits_.row[i]);
      }
    }
    team_.sync();
  }

  // Whether the costs are valid (no NaN or -inf; +inf marks a forbidden
  // pair; kExits: the unassigned costs finite) and finite, in one pass: four
  // entries a thread per iteration, without an exit per entry, so that the
  // loads overlap.
  struct Entries {
    bool valid, finite;
  };
  __device__ Entries ScanEntries() const {
    if constexpr (!std::is_floating_point<T>::value) {
      return Entries{true, true};
    } else {
      const size_t size = static_cast<size_t>(n_) * m_;
      bool valid = true, finite = true;
      const auto scan = [&](T c) {
        valid &= c > T(-INFINITY);  // false for NaN
        finite &= fabs(c) < T(INFINITY);
      };
      size_t k = me_;
      for (; k + 3 * kSize < size; k += 4 * kSize) {
        const T a = C_[k], b = C_[k + kSize], c = C_[k + 2 * kSize],
                d = C_[k + 3 * kSize];
        scan(a), scan(b), scan(c), scan(d);
      }
      for (; k < size; k += kSize) scan(C_[k]);
      if constexpr (kExits) {
        for (int i = me_; i < n_; i += kSize)
          valid &= fabs(exits_.row[i]) < T(INFINITY);  // false for NaN
        for (int j = me_; j < m_; j += kSize)
          valid &= fabs(exits_.col[j]) < T(INFINITY);
      }
      valid = team_.All(valid);
      return Entries{valid, valid && team_.All(finite)};
    }
  }

  // Lists the free rows (x_ == kFree) in rows_ in increasing order;
  // returns their number.
  __device__ int ListFreeRows() {
    int free_count = 0;
    for (int base = 0; base < n_; base += kSize) {
      const int i = base + me_;
      const bool is_free = i < n_ && x_[i] <= kFree;
      int total;
      const int before = team_.Enumerate(is_free, &total);
      if (is_free) rows_[free_count + before] = i;
      free_count += total;
    }
    team_.sync();
    return free_count;
  }

  // SolveFromKept's search, `finite`: every cost.
  __device__ int FinishFromKept(bool finite, int max_searches,
                                int* augmentations) {
    int free_count = ListFreeRows();
    if (n_ == m_ && free_count > 0 && finite)
      free_count = AugmentingRowReduction(free_count);
    return AugmentFreeRows(free_count, max_searches, augmentations);
  }

  // lap/jv/jv_cpu.h's LapJv::Solve with exits (kExits), after Clear and the
  // entries' check: a square problem with no pair dearer than leaving its
  // row and its column is solved as the plain one, its duals shifted under
  // the prices (ShiftBelowPrices); else, or when rounding broke a bound, the
  // greedy start with the exits, then a search from each row it left free,
  // the plain solve's searches counted against the limit.
  __device__ int SolveWithExits(int max_searches, int* augmentations) {
    int spent = 0, free_count;
    if (n_ == m_ && PairsBelowExits()) {
      free_count = ColumnReduction();
      if (free_count > 0) free_count = AugmentingRowReduction(free_count);
      const int status =
          AugmentFreeRows<false>(free_count, max_searches, augmentations);
      if (status != kLapOptimal || ShiftBelowPrices()) return status;
      Clear();
      spent = *augmentations;
    }
    free_count = RowMinimaGreedy();
    if (max_searches > 0 && spent >= max_searches && free_count > 0)
      return kLapIterationLimit;
    const int left = max_searches > 0
                         ? (max_searches > spent ? max_searches - spent : 0)
                         : max_searches;
    const int status = AugmentFreeRows(free_count, left, augmentations);
    *augmentations += spent;
    return status;
  }

  // lap/jv/jv_cpu.h's PairsBelowExits: C_ij <= r_i + c_j for every pair (the
  // prices v_ = c, as Clear leaves them).
  __device__ bool PairsBelowExits() const {
    bool below = true;
    for (int i = 0; i < n_; ++i) {
      const W r = ExitCost(i);
      ForColumns([&](int j) { below &= Cost(i, j) <= r + v_[j]; });
    }
    return team_.All(below);
  }

  // lap/jv/jv_cpu.h's ShiftBelowPrices: the plain square solve's prices
  // raised by s = min_j (c_j - v_j); whether v <= c and u <= r then hold as
  // Write computes them.
  __device__ bool ShiftBelowPrices() {
    W s = jv_warp::WideInf<W>();
    for (int j = me_; j < m_; j += kSize) {
      const W gap = static_cast<W>(exits_.col[j]) - v_[j];
      s = gap < s ? gap : s;
    }
    s = team_.Min(s);
    bool below = true;
    for (int j = me_; j < m_; j += kSize) {
      v_[j] += s;
      below &= v_[j] <= static_cast<W>(exits_.col[j]);
    }
    team_.sync();
    for (int i = me_; i < n_; i += kSize)
      below &= Cost(i, x_[i]) - v_[x_[i]] <= ExitCost(i);
    return team_.All(below);
  }

  // The least reduced cost c_ij - v_j of row i over the columns, excluding
  // `skip` (-1: none), with its column (the lowest among ties).
  __device__ Key RowLeast(int i, int skip) const {
    Key best{jv_warp::WideInf<W>(), INT_MAX};
    ForColumns([&](int j) {
      const Key k{Cost(i, j) - v_[j], j};
      best = (j != skip) & (k < best) ? k : best;
    });
    return team_.ArgMinFast(best);
  }

  // f(j) for each of the thread's columns j in turn: unrolled over a
  // team's kHeld columns a thread, so that their loads all issue first.
  template <class F>
  __device__ void ForColumns(F f) const {
    if constexpr (kHeld > 0) {
#pragma unroll
      for (int k = 0; k < kHeld; ++k)
        if (me_ + k * kSize < m_) f(me_ + k * kSize);
    } else {
      for (int j = me_; j < m_; j += kSize) f(j);
    }
  }

  // lap/jv/jv_cpu.h's ColumnReduction; returns the number of free rows, listed
  // in rows_.  Column j takes its least row (ties: the cyclic order from row
  // j); a row chosen by several columns goes to the last of them, as in
  // lap/jv/jv_cpu.h's descending pass.
  __device__ int ColumnReduction() {
    int* count = rows_;  // how many columns chose each row
    for (int i = me_; i < n_; i += kSize) count[i] = 0;
    team_.sync();
    for (int j = me_; j < m_; j += kSize) {
      // The rows in that cyclic order, the first least kept; in T (the
      // widening is exact and keeps the order).
      int arg = j % n_;
      T best = C_[static_cast<size_t>(arg) * m_ + j];
      for (int t = 1, i = arg; t < n_; ++t) {
        i = i + 1 == n_ ? 0 : i + 1;
        const T c = C_[static_cast<size_t>(i) * m_ + j];
        arg = c < best ? i : arg;
        best = c < best ? c : best;
      }
      v_[j] = static_cast<W>(best);
      pred_[j] = arg;
      atomicMax(x_ + arg, j);
      atomicAdd(count + arg, 1);
    }
    team_.sync();
    for (int j = me_; j < m_; j += kSize)
      y_[j] = x_[pred_[j]] == j ? pred_[j] : -1;
    team_.sync();
    // Row by row, as on the CPU: a later row's second least sees the
    // prices lowered for the rows before it.  count[i] is read before
    // rows_[free_count] (free_count <= i) is written.
    int free_count = 0;
    for (int i = 0; i < n_; ++i) {
      const int j = x_[i];
      const int chosen_by = count[i];
      team_.sync();
      if (j < 0) {
        if (me_ == 0) rows_[free_count] = i;
        ++free_count;
      } else if (chosen_by == 1) {
        const Key second = RowLeast(i, j);
        if (second.value < jv_warp::WideInf<W>() && me_ == 0)
          v_[j] -= second.value;
      }
      team_.sync();
    }
    return free_count;
  }

  // Row i's least column and its reduced cost C[i, j] - v_j (kExits; else
  // C[i, j]), ties to the first in the cyclic order from column i % m, by
  // the calling thread alone (a row of +inf entries: its first column in
  // that order, at +inf).  Each thread starts at the column j0 with
  // i m + j0 = i (mod 32), so that a warp's rows read distinct
  // shared-memory banks at every step, and ranks every column in the
  // cyclic order from i % m to break ties.
  __device__ Key RowLeastAlone(int i) const {
    const int start = i % m_;
    const unsigned skew = static_cast<unsigned>(i) * (1u - m_) % 32u;
    int j = static_cast<int>(skew % static_cast<unsigned>(m_));
    Key best = jv_warp::NoKey<W>();
    int column = INT_MAX;
#pragma unroll 4
    for (int t = 0; t < m_; ++t) {
      W c = Cost(i, j);
      if constexpr (kExits) c -= v_[j];
      const Key k{c, j >= start ? j - start : j - start + m_};
      column = k < best ? j : column;
      best = k < best ? k : best;
      j = j + 1 == m_ ? 0 : j + 1;
    }
    return Key{best.value, column};
  }

  // The greedy start's choice for row i, whose least column is `least`
  // (RowLeastAlone's): that column, or kExit (kExits: when the exit is no
  // dearer) or -1 (every entry +inf).
  __device__ int GreedyChoice(int i, Key least) const {
    if constexpr (kExits)
      return least.value <= ExitCost(i) ? least.index : kExit;
    else
      return least.value < jv_warp::WideInf<W>() ? least.index : -1;
  }

  // lap/jv/jv_cpu.h's RowMinimaGreedy (prices 0): each row in turn takes its
  // least column (ties: the first in the cyclic order from column i) when no
  // earlier row took it; returns the number of rows left free, listed in
  // rows_ in increasing order.  Row i takes column j exactly when i is the
  // least row whose least column is j, so the rows are not taken in turn:
  // the team finds each row's least column (x_), the least row per column
  // wins it (atomicMin on y_, INT_MAX for none), and the others are listed.
  // A warp finds a row's least column a lane alone (RowLeastAlone), a block
  // a warp per row; rows in turn would cost a team-wide reduction and two
  // syncs each, most of a block's solve of a 100 x 300 problem.  kExits, as
  // on the CPU: a row whose least C[i, j] - c_j is above r_i leaves to its
  // exit, and so does one that loses its column when r_i is no dearer.
  __device__ int RowMinimaGreedy() {
    static_assert(kSize % 32 == 0, "whole warps");
    for (int j = me_; j < m_; j += kSize) y_[j] = INT_MAX;
    if constexpr (kSize == 32) {
      for (int i = me_; i < n_; i += kSize) {
        const Key best = RowLeastAlone(i);
        x_[i] = GreedyChoice(i, best);
      }
    } else {
      const int lane = me_ & 31, warps = kSize / 32;
      for (int i = me_ / 32; i < n_; i += warps) {
        const int start = i % m_;
        Key best{jv_warp::WideInf<W>(), INT_MAX};
        for (int j = lane; j < m_; j += 32) {
          const int rank = j >= start ? j - start : j - start + m_;
          W c = Cost(i, j);
          if constexpr (kExits) c -= v_[j];
          const Key k{c, rank};
          if (k < best) best = k;
        }
        best = jv_warp::WarpArgMin(best);
        best.index = best.index + start < m_ ? best.index + start
                                             : best.index + start - m_;
        if (lane == 0) x_[i] = GreedyChoice(i, best);
      }
    }
    team_.sync();
    for (int i = me_; i < n_; i += kSize)
      if (x_[i] >= 0) atomicMin(&y_[x_[i]], i);
    team_.sync();
    for (int i = me_; i < n_; i += kSize) {
      if (x_[i] >= 0 && y_[x_[i]] != i) {
        if constexpr (kExits)
          x_[i] = ExitCost(i) <= Cost(i, x_[i]) - v_[x_[i]] ? kExit : kFree;
        else
          x_[i] = -1;
      }
    }
    team_.sync();
    for (int j = me_; j < m_; j += kSize)
      if (y_[j] == INT_MAX) y_[j] = -1;
    return ListFreeRows();
  }

  // lap/jv/jv_cpu.h's AugmentingRowReduction over rows_[0, count); returns the
  // number of rows left free, listed in rows_.
  __device__ int AugmentingRowReduction(int count) {
    int current = 0, kept = 0;
    int64_t visits = 0;
    while (current < count) {
      ++visits;
      const int i = rows_[current++];
      Key first{jv_warp::WideInf<W>(), INT_MAX}, second = first;
      ForColumns([&](int j) {
        const Key k{Cost(i, j) - v_[j], j};
        const bool below_first = k < first, below_second = k < second;
        second = below_first ? first : (below_second ? k : second);
        first = below_first ? k : first;
      });
      team_.TwoLeast(&first, &second);
      int j1 = first.index;
      const int j2 = second.index < m_ ? second.index : -1;
      // Every read of the shared state comes before the barrier: after it
      // thread 0 may already be writing y_[j2] (a block's warps run apart).
      int i0 = y_[j1];
      const int i2 = j2 >= 0 ? y_[j2] : -1;
      const W price = v_[j1];
      const W lowered = j2 >= 0 ? price - (second.value - first.value) : price;
      const bool lowers = lowered < price;
      team_.sync();
      if (visits < kLapJvReductionVisits * static_cast<int64_t>(count)) {
        if (lowers) {
          if (me_ == 0) v_[j1] = lowered;
        } else if (i0 >= 0 && j2 >= 0) {
          j1 = j2;
          i0 = i2;
        }
        if (i0 >= 0) {
          if (lowers) {
            --current;
            if (me_ == 0) rows_[current] = i0;
          } else {
            if (me_ == 0) rows_[kept] = i0;
            ++kept;
          }
        }
      } else if (i0 >= 0) {
        if (me_ == 0) rows_[kept] = i0;
        ++kept;
      }
      if (me_ == 0) {
        if (i0 >= 0) x_[i0] = kFree;
        x_[i] = j1;
        y_[j1] = i;
      }
      team_.sync();
    }
    return kept;
  }

  // lap/jv/jv_cpu.h's KeepMinimalRows: row i keeps x0[i] when no earlier row
  // kept it and it attains the row's least reduced cost.
  __device__ void KeepMinimalRows(const int* x0) {
    for (int i = 0; i < n_; ++i) {
      const int j = x0[i];
      if (j < 0 || j >= m_ || y_[j] >= 0) continue;
      const W mine = Cost(i, j) - v_[j];
      if (!(mine < jv_warp::WideInf<W>())) continue;
      const Key least = RowLeast(i, -1);
      team_.sync();
      if (!(least.value < mine) && me_ == 0) {
        x_[i] = j;
        y_[j] = i;
      }
      team_.sync();
    }
  }

  // lap/jv/jv_cpu.h's ZeroUnassignedPrices, with the columns to raise stacked
  // in pred_ (each column is pushed at most once: only assigned columns are
  // freed, and none is assigned meanwhile).
  __device__ void ZeroUnassignedPrices() {
    __shared__ int top;
    if (me_ == 0) {
      int t = 0;
      for (int j = 0; j < m_; ++j)
        if (y_[j] < 0) pred_[t++] = j;
      top = t;
    }
    team_.sync();
    while (top > 0) {
      const int j = pred_[top - 1];
      const bool raise = v_[j] != W(0);
      team_.sync();
      if (me_ == 0) {
        --top;
        v_[j] = W(0);
      }
      team_.sync();
      if (raise) {
        for (int r = me_; r < n_; r += kSize) {
          const int k = x_[r];
          if (k < 0 || !(Cost(r, j) < Cost(r, k) - v_[k])) continue;
          x_[r] = -1;
          y_[k] = -1;
          pred_[atomicAdd(&top, 1)] = k;
        }
      }
      team_.sync();
    }
  }

  // The searches (lap/jv/jv_team_search.cuh): Dijkstra from each free row
  // in turn, the columns held in registers (kHeld) or in memory; kE: with
  // the exits (the plain searches serve kExits' square route too).
  template <bool kE = kExits>
  __device__ int AugmentFreeRows(int count, int max_searches,
                                 int* augmentations);
  template <bool kE>
  __device__ bool AugmentRow(int f);
  template <bool kE>
  __device__ bool AugmentHeld(int f);
  template <bool kE>
  __device__ bool Augment(int f);
  // A search's nearest exit (kE): its distance (value) and row (index).
  template <bool kE>
  using ExitTrack = typename std::conditional<kE, Key, JvNoExit>::type;
  __device__ void OfferExit(int i, W h, Key* exit) const;
  __device__ void FlipPathOrExit(int end, int exit_row, int f);

  int n_, m_;
  const T* C_;
  typename std::conditional<kExits, JvExitCosts<T>, JvNoExit>::type exits_;
  int me_;  // this thread's rank in the team: it owns columns me_ + k kSize
  W *v_, *d_;
  int *pred_, *y_, *x_, *rows_;
  mutable Team team_;
};

}  // namespace jaxmatch

#include "lap/jv/jv_team_search.cuh"
