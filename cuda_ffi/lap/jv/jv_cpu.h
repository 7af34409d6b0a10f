// The CPU's linear assignment solver: Jonker and Volgenant's shortest
// augmenting path algorithm ("A shortest augmenting path algorithm for dense
// and sparse linear assignment problems", Computing 38, 1987), for one
// problem on one core.  The GPU variants (lap/hungarian/hungarian_steps.h) find
// many augmenting paths per pass, which a single core cannot exploit; JV's
// initialisation (column reduction, reduction transfer, one bounded pass of
// augmenting row reduction) assigns most rows cheaply, and each remaining free
// row is then augmented along a shortest path (Dijkstra over the columns, with
// a list of the columns at the current least distance so that ties cost one
// pass). Each relaxation pass runs over every column's contiguous arrays in
// vector lanes, free of branches, the columns already in the list masked by
// their key: on Machol-Wien costs, where a pass finds two thirds of the columns
// outside the list on average, that is faster (with AVX2) than a branching
// pass over those alone.
//
// Costs are read as T and every dual and distance is kept in a wider type W
// (double for float costs, int64 for int32 costs), so float32 duals lose no
// precision over thousands of updates and integer arithmetic cannot wrap.
//
// Duals.  Column prices v are kept; the row duals are u_i = C[i, x_i] - v[x_i]
// at the end.  Every step keeps C[i, j] - v[j] >= u_i with equality on the
// assignment, so (u, v) certify optimality (lap/verify.py).  On a
// rectangular problem (n < m) JV's initialisation is replaced by a greedy
// assignment of rows to their least-cost columns at prices 0: Dijkstra only
// lowers the prices of the columns it scans and never scans a free column
// before the path's end, so v <= 0 with v = 0 on the columns left free, the
// conditions of the rectangular LP's dual.  The same holds when C holds +inf
// (forbidden pairs), where the initialisation's differences of infinities
// are avoided the same way.
//
// Unassigned costs.  Given row prices r [n] and column prices c [m], the
// solve minimises the matched costs plus r_i for every row left unassigned
// plus c_j for every column left unassigned, for any n and m.  That is the
// rectangular problem of n rows over the m columns and n exit columns, row
// i's private exit costing r_i, with every real column's cost lowered by
// c_j: so the prices start at v = c (the lowered costs' prices 0), and the
// columns left free keep v_j = c_j while Dijkstra lowers the others.  An
// exit is adjacent to its row alone, so it can only end a path, and a row
// at its exit is never reached again: its price stays 0 and needs no
// array.  Each scanned row offers its exit as a sink at its distance plus
// r_i - u_i (one running minimum), and a search ends at whichever of that
// and the nearest free column is nearer; a row at its exit has u_i = r_i,
// and u_i <= r_i (the exit's reduced cost) holds for every row.  The
// start is the greedy (RowMinimaGreedy), which sends a row to its exit
// when r_i is no dearer than its least C[i, j] - c_j; each row it leaves
// free takes one search, with no augmenting row reduction between (its
// visits cost more than the searches they save: docs/benchmarks.md, "LAP
// with unassigned costs").  A square problem with no pair dearer than
// leaving its row and its column is solved as the plain square one
// instead, its duals shifted under the prices (PairsBelowExits).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "common/cancel.h"
#include "lap/common/lap_state.h"
#include "lap/jv/jv_cpu_passes.h"

namespace jaxmatch {

template <class T>
class LapJv {
 public:
  using W = LapJvWide<T>;

  // `cancel`: taken when the solve (its batch) started.  With `row_cost`
  // [n] and `col_cost` [m] (both or neither), the prices of leaving a row
  // or a column unassigned: Solve then solves the problem with unassigned
  // costs (SolveFrom does not take them).
  LapJv(int n, int m, const T* C, CancelToken cancel = {},
        const T* row_cost = nullptr, const T* col_cost = nullptr)
      : n_(n),
        m_(m),
        C_(C),
        r_(row_cost),
        c_(col_cost),
        x_(n, -1),
        y_(m, -1),
        v_(m, W(0)),
        cancel_(cancel) {
    for (int j = 0; c_ != nullptr && j < m_; ++j) v_[j] = static_cast<W>(c_[j]);
  }

  // Solves; returns kLapOptimal, kLapInfeasible when no assignment of finite
  // cost exists (never with unassigned costs), kLapIterationLimit after
  // `max_searches` (> 0) searches with rows still free, or when the solve
  // is cancelled (common/cancel.h), or kLapInvalidEntries, nothing
  // assigned, when a cost is NaN or -inf or an unassigned cost is not
  // finite.  *augmentations counts the shortest-path searches.
  int Solve(int max_searches, int* augmentations) {
    if (!AllValid()) return kLapInvalidEntries;
    std::vector<int> free_rows;
    if (Exits()) {
      int spent = 0;
      if (n_ == m_ && PairsBelowExits()) {
        const int status = SolvePlainSquare(max_searches, augmentations);
        if (status != kLapOptimal || ShiftBelowPrices()) return status;
        // Rounding left a dual above its price: solve with the exits.
        x_.assign(n_, -1);
        y_.assign(m_, -1);
        for (int j = 0; j < m_; ++j) v_[j] = static_cast<W>(c_[j]);
        spent = *augmentations;
      }
      RowMinimaGreedy<true>(&free_rows);
      // The searches the plain solve spent count against the limit.
      if (max_searches > 0 && spent >= max_searches && !free_rows.empty())
        return kLapIterationLimit;
      const int left =
          max_searches > 0 ? std::max(max_searches - spent, 0) : max_searches;
      const int status = AugmentFreeRows<true>(free_rows, left, augmentations);
      *augmentations += spent;
      return status;
    }
    if (n_ == m_ && AllFinite())
      return SolvePlainSquare(max_searches, augmentations);
    RowMinimaGreedy<false>(&free_rows);
    return AugmentFreeRows<false>(free_rows, max_searches, augmentations);
  }

  // Solves from an earlier solve's column prices `v0` [m] and assignment
  // `x0` [n] (-1: none; out-of-range entries are ignored).  Row i keeps
  // column x0[i] when no earlier row kept it and it attains the row's least
  // reduced cost c_ij - v_j: JV's invariant for an assigned row, so any
  // prices serve.  A rectangular problem's certificate also needs prices
  // <= 0, and 0 on the columns left unassigned: the prices are capped at 0,
  // the unassigned columns' set to 0, and the kept rows checked again until
  // none loses its minimum (ZeroUnassignedPrices).  The other rows go through
  // Solve's augmenting row reduction (square, finite costs) and searches; a
  // non-finite price counts as 0.  Statuses as Solve's.
  int SolveFrom(const T* v0, const int* x0, int max_searches,
                int* augmentations) {
    if (!AllValid()) return kLapInvalidEntries;
    for (int j = 0; j < m_; ++j) {
      const W p = static_cast<W>(v0[j]);
      const bool finite = std::isfinite(static_cast<double>(v0[j]));
      v_[j] = !finite ? W(0) : (n_ < m_ && p > W(0) ? W(0) : p);
    }
    KeepMinimalRows(x0);
    if (n_ < m_) ZeroUnassignedPrices();
    std::vector<int> free_rows;
    for (int i = 0; i < n_; ++i)
      if (x_[i] < 0) free_rows.push_back(i);
    if (n_ == m_ && !free_rows.empty() && AllFinite())
      AugmentingRowReduction(&free_rows);
    return AugmentFreeRows<false>(free_rows, max_searches, augmentations);
  }

  // The assignment and the duals of a solve that ended with `status`,
  // written to the state's arrays; returns the problem's status:
  // kLapOverflow instead of kLapOptimal when a dual, or the total cost of
  // integer costs, does not fit T.  The assignment is -1 throughout unless
  // the status is kLapOptimal (-1 also marks a row or column left
  // unassigned).  A square problem's duals may be shifted (u - s, v + s)
  // without changing any reduced cost: for integer costs s is chosen, when
  // one exists, so that every dual fits T.  With unassigned costs there is
  // no shift (u <= r and v <= c fix the duals' level), a row at its exit
  // has u_i = r_i, and the total counts the unassigned rows' and columns'
  // prices.
  int Write(int status, int* col_for_row, int* row_for_col, T* u, T* v) const {
    std::vector<W> row_dual(n_);
    W total = W(0);
    for (int i = 0; i < n_; ++i) {
      row_dual[i] = x_[i] >= 0 ? Cost(i, x_[i]) - v_[x_[i]] : W(0);
      if (x_[i] >= 0) total += Cost(i, x_[i]);
      if (x_[i] == kExit) {
        row_dual[i] = static_cast<W>(r_[i]);
        total += row_dual[i];
      }
    }
    for (int j = 0; Exits() && j < m_; ++j)
      if (y_[j] < 0) total += static_cast<W>(c_[j]);
    const W shift = n_ == m_ && !Exits() ? FittingShift(row_dual) : W(0);
    bool fits = true;
    for (int i = 0; i < n_; ++i) fits &= Store(row_dual[i] - shift, u + i);
    for (int j = 0; j < m_; ++j) fits &= Store(v_[j] + shift, v + j);
    if (!std::is_floating_point<T>::value) {
      // |total| < (n + m) 2^31: no int64 overflow.
      fits &= static_cast<W>(std::numeric_limits<T>::min()) <= total &&
              total <= static_cast<W>(std::numeric_limits<T>::max());
    }
    if (!fits && status == kLapOptimal) status = kLapOverflow;
    const bool optimal = status == kLapOptimal;
    for (int i = 0; i < n_; ++i)
      col_for_row[i] = optimal && x_[i] >= 0 ? x_[i] : -1;
    for (int j = 0; j < m_; ++j) row_for_col[j] = optimal ? y_[j] : -1;
    return status;
  }

 private:
  // x_[i] of a row at its exit (unassigned costs).
  static constexpr int kExit = -2;
  bool Exits() const { return r_ != nullptr; }
  const T* Row(int i) const { return C_ + static_cast<int64_t>(i) * m_; }
  W Cost(int i, int j) const {
    return static_cast<W>(C_[static_cast<int64_t>(i) * m_ + j]);
  }
  static bool Store(W w, T* out) {
    if (std::is_floating_point<T>::value) {
      *out = static_cast<T>(w);
      return true;
    }
    if (w < std::numeric_limits<T>::min() || w > std::numeric_limits<T>::max())
      return false;
    *out = static_cast<T>(w);
    return true;
  }
  // For integer costs: 0 when every dual fits T, else a shift s that makes
  // u - s and v + s fit (0 when none does).
  W FittingShift(const std::vector<W>& row_dual) const {
    if (std::is_floating_point<T>::value || n_ == 0) return W(0);
    const W lo = static_cast<W>(std::numeric_limits<T>::min());
    const W hi = static_cast<W>(std::numeric_limits<T>::max());
    W u_min = row_dual[0], u_max = row_dual[0], v_min = v_[0], v_max = v_[0];
    for (W x : row_dual) u_min = std::min(u_min, x), u_max = std::max(u_max, x);
    for (W x : v_) v_min = std::min(v_min, x), v_max = std::max(v_max, x);
    const W s_min = std::max(lo - v_min, u_max - hi);
    const W s_max = std::min(hi - v_max, u_min - lo);
    if (s_min > s_max || (s_min <= 0 && 0 <= s_max)) return W(0);
    return s_min > 0 ? s_min : s_max;
  }
  // The assignment of SolveFrom: the rows of x0 at their least reduced cost.
  void KeepMinimalRows(const int* x0) {
    x_.assign(n_, -1);
    y_.assign(m_, -1);
    for (int i = 0; i < n_; ++i) {
      const int j = x0[i];
      if (j < 0 || j >= m_ || y_[j] >= 0) continue;
      const W mine = Cost(i, j) - v_[j];
      if (!(mine < Inf())) continue;
      bool least = true;
      for (int k = 0; k < m_ && least; ++k)
        least = !(Cost(i, k) - v_[k] < mine);
      if (least) {
        x_[i] = j;
        y_[j] = i;
      }
    }
  }

  // Rectangular warm starts: every unassigned column's price raised to 0.
  // Raising column j's price lowers row r's reduced cost there; a kept row
  // that is then no longer at its minimum is freed, and its column joins
  // the unassigned ones.  Each column is raised at most once: O(n m).
  void ZeroUnassignedPrices() {
    std::vector<int> raise;
    for (int j = 0; j < m_; ++j)
      if (y_[j] < 0) raise.push_back(j);
    while (!raise.empty()) {
      const int j = raise.back();
      raise.pop_back();
      if (v_[j] == W(0)) continue;
      v_[j] = W(0);
      for (int r = 0; r < n_; ++r) {
        const int k = x_[r];
        if (k < 0 || !(Cost(r, j) - v_[j] < Cost(r, k) - v_[k])) continue;
        x_[r] = -1;
        y_[k] = -1;
        raise.push_back(k);
      }
    }
  }

  // Unassigned costs on a square problem where no pair costs more than
  // leaving its row and its column (C_ij <= r_i + c_j): a perfect
  // matching is then optimal (an unassigned row and an unassigned column
  // can always be matched at no loss), so the plain solve's assignment is,
  // and its duals (u, v) certify it once shifted to (u - s, v + s) with
  // s = min_j (c_j - v_j): v + s <= c by the choice of s, and u_i - s <=
  // r_i since u_i + v_j <= C_ij <= r_i + c_j for every j, in particular
  // the one that sets s.  The plain solve starts from JV's column
  // reduction, whose prices leave far fewer searches (1000^2 uniform: 107
  // against 272) than the exits' start from prices c, which the free
  // columns must keep.  The bound also says that every cost is finite, as
  // the plain square solve needs.
  bool PairsBelowExits() const {
    for (int i = 0; i < n_; ++i) {
      const T* row = Row(i);
      const W r = static_cast<W>(r_[i]);
      bool below = true;
      for (int j = 0; j < m_; ++j)
        below &= static_cast<W>(row[j]) <= r + static_cast<W>(c_[j]);
      if (!below) return false;
    }
    return true;
  }
  // The plain square solve (finite costs): column reduction, augmenting
  // row reduction, searches.
  int SolvePlainSquare(int max_searches, int* augmentations) {
    std::vector<int> free_rows;
    ColumnReduction(&free_rows);
    if (!free_rows.empty()) AugmentingRowReduction(&free_rows);
    return AugmentFreeRows<false>(free_rows, max_searches, augmentations);
  }
  // Shifts the plain solve's prices by s (above) and checks, as Write
  // computes them, that v <= c and u <= r hold: false only when rounding
  // broke one (floating costs).
  bool ShiftBelowPrices() {
    W s = Inf();
    for (int j = 0; j < m_; ++j) s = std::min(s, static_cast<W>(c_[j]) - v_[j]);
    bool below = true;
    for (int j = 0; j < m_; ++j) {
      v_[j] += s;
      below &= v_[j] <= static_cast<W>(c_[j]);
    }
    for (int i = 0; i < n_; ++i)
      below &= Cost(i, x_[i]) - v_[x_[i]] <= static_cast<W>(r_[i]);
    return below;
  }

  // Dijkstra from each free row in turn (Solve's second half): kLapOptimal,
  // kLapInfeasible, or kLapIterationLimit after `max_searches` (> 0)
  // searches or on a cancellation.  kExits: with unassigned costs.
  template <bool kExits>
  int AugmentFreeRows(const std::vector<int>& free_rows, int max_searches,
                      int* augmentations) {
    key_.resize(m_);
    dist_.resize(m_);
    pred_.resize(m_);
    list_.reserve(m_);
    *augmentations = 0;
    for (int f : free_rows) {
      if ((max_searches > 0 && *augmentations >= max_searches) ||
          cancel_.requested())
        return kLapIterationLimit;
      ++*augmentations;
      if (!Augment<kExits>(f)) return kLapInfeasible;
    }
    return kLapOptimal;
  }

  // No NaN and no -inf (+inf marks a forbidden pair); unassigned costs
  // finite.
  bool AllValid() const {
    if (!std::is_floating_point<T>::value) return true;
    const int64_t size = static_cast<int64_t>(n_) * m_;
    bool valid = true;
    for (int64_t k = 0; k < size; ++k) valid &= C_[k] > -Inf();  // NaN: false
    auto finite = [](T x) { return std::isfinite(static_cast<double>(x)); };
    for (int i = 0; Exits() && i < n_; ++i) valid &= finite(r_[i]);
    for (int j = 0; Exits() && j < m_; ++j) valid &= finite(c_[j]);
    return valid;
  }

  bool AllFinite() const {
    if (!std::is_floating_point<T>::value) return true;
    const int64_t size = static_cast<int64_t>(n_) * m_;
    for (int64_t k = 0; k < size; ++k)
      if (!(std::isfinite(static_cast<double>(C_[k])))) return false;
    return true;
  }

  // Column reduction and reduction transfer (square, finite costs): each
  // column's price is its least cost; a row that is the least of exactly
  // one column takes it, and that column's price drops by the row's second
  // least reduced cost.  Every reduced cost stays >= 0.
  void ColumnReduction(std::vector<int>* free_rows) {
    // Among tied rows, column j takes the first in the cyclic order that
    // starts at row j (the spread of lap/hungarian/hungarian_steps.h's greedy
    // start): a matrix of equal costs is assigned here, without a search.
    std::vector<W> best(m_, Inf());
    std::vector<int64_t> argbest(m_, 0);
    InLanes(ColumnMinima{C_, n_, best.data(), argbest.data()});
    std::vector<char> unique(n_, 1);
    for (int j = m_ - 1; j >= 0; --j) {
      v_[j] = best[j];
      const int i = static_cast<int>(argbest[j]);
      if (x_[i] < 0) {
        x_[i] = j;
        y_[j] = i;
      } else {
        unique[i] = 0;
      }
    }
    for (int i = 0; i < n_; ++i) {
      if (x_[i] < 0) {
        free_rows->push_back(i);
      } else if (unique[i]) {
        const int j = x_[i];
        const W second =
            InLanes(LeastOf{Row(i), v_.data(), nullptr, j, m_}).value;
        if (second < Inf()) v_[j] -= second;
      }
    }
  }

  // With prices 0 (rectangular problems, +inf entries): each row, in turn,
  // takes its least-cost column when that column is still free.  The row is
  // then at its minimum, which is all Dijkstra's invariant asks of an
  // assigned row; the prices stay 0.  kExits (unassigned costs, prices c):
  // the least reduced cost C[i, j] - c_j is compared with r_i: the row
  // takes its column when that is free and no dearer than r_i, else leaves
  // to its exit when r_i is no dearer than the column (u_i = r_i, below
  // every reduced cost), else stays free.
  template <bool kExits>
  void RowMinimaGreedy(std::vector<int>* free_rows) {
    for (int i = 0; i < n_; ++i) {
      // Among tied columns, the first in the cyclic order that starts at
      // column i, so that equal costs spread over the columns.
      const int start = m_ > 0 ? i % m_ : 0;
      int best = -1;
      W least = Inf();
      for (int k = 0; k < m_; ++k) {
        const int j = start + k < m_ ? start + k : start + k - m_;
        const W c = kExits ? Cost(i, j) - v_[j] : Cost(i, j);
        if (c < least) {
          least = c;
          best = j;
        }
      }
      const W exit_cost = kExits ? static_cast<W>(r_[i]) : Inf();
      if (best >= 0 && y_[best] < 0 && (!kExits || least <= exit_cost)) {
        x_[i] = best;
        y_[best] = i;
      } else if (kExits && exit_cost <= least) {
        x_[i] = kExit;
      } else {
        free_rows->push_back(i);
      }
    }
  }

  // Augmenting row reduction (square, finite costs): a free row takes its
  // least reduced-cost column, lowering that column's price to the row's
  // second least so the row stays at its minimum; the column's previous
  // owner becomes free and is processed next when the price dropped.  One
  // pass of at most kLapJvReductionVisits row visits per free row, O(n m) in
  // all: JV's two passes bounded by current * n visits cost 4-5x the whole
  // solve on squared distances and rank-one costs (1000^2: 330 ms against
  // 56 ms), where rows bounce between a few columns.
  void AugmentingRowReduction(std::vector<int>* free_rows) {
    std::vector<int>& rows = *free_rows;
    const int count = static_cast<int>(rows.size());
    int current = 0, kept = 0;
    const int64_t bound = kLapJvReductionVisits * static_cast<int64_t>(count);
    int64_t visits = 0;
    while (current < count) {
      const bool within = ++visits < bound;
      const int i = rows[current++];
      int j1 = 0, j2 = -1;
      const T* row = Row(i);
      W u1 = static_cast<W>(row[0]) - v_[0], u2 = Inf();
      for (int j = 1; j < m_; ++j) {
        const W h = static_cast<W>(row[j]) - v_[j];
        if (h < u2) {
          if (h >= u1) {
            u2 = h;
            j2 = j;
          } else {
            u2 = u1;
            u1 = h;
            j2 = j1;
            j1 = j;
          }
        }
      }
      int i0 = y_[j1];
      const W lowered = j2 >= 0 ? v_[j1] - (u2 - u1) : v_[j1];
      const bool lowers = lowered < v_[j1];
      if (within) {
        if (lowers) {
          v_[j1] = lowered;
        } else if (i0 >= 0 && j2 >= 0) {
          j1 = j2;
          i0 = y_[j2];
        }
        if (i0 >= 0) {
          if (lowers)
            rows[--current] = i0;
          else
            rows[kept++] = i0;
        }
      } else if (i0 >= 0) {
        rows[kept++] = i0;
      }
      if (i0 >= 0) x_[i0] = -1;
      x_[i] = j1;
      y_[j1] = i;
    }
    rows.resize(kept);
  }
  // The passes in lanes (jv_cpu_passes.h).
  using Passes = LapJvPasses<T>;
  using Least = typename Passes::Least;
  template <bool kTrack>
  using Relax = typename Passes::template Relax<kTrack>;
  using LeastOf = typename Passes::LeastOf;
  using FindKey = typename Passes::FindKey;
  using ColumnMinima = typename Passes::ColumnMinima;
  static W Inf() { return Passes::Inf(); }
  static W NegInf() { return Passes::NegInf(); }
  template <class Pass>
  static auto InLanes(const Pass& pass) {
    return Passes::InLanes(pass);
  }

  // The columns whose key is `least` join the list, in column order, until
  // one is free; returns it (the path's end), or -1.
  int JoinLeast(W least) {
    for (int j = InLanes(FindKey{key_.data(), 0, m_, least}); j < m_;
         j = InLanes(FindKey{key_.data(), j + 1, m_, least})) {
      Join(j, least);
      if (y_[j] < 0) return j;
    }
    return -1;
  }

  template <bool kTrack>
  bool RelaxRow(const T* row, W h, W least, int i, Least* next) {
    return InLanes(Relax<kTrack>{row, h, least, i, m_, v_.data(), key_.data(),
                                 pred_.data(), next});
  }
  // The least key outside the list.
  Least LeastKey() const {
    return InLanes(LeastOf{nullptr, nullptr, key_.data(), -1, m_});
  }

  void Join(int j, W distance) {
    dist_[j] = distance;
    key_[j] = NegInf();
    list_.push_back(j);
  }

  // Dijkstra from free row f over the columns; augments along the shortest
  // path to a free column and updates the prices of the columns scanned.
  // false when every column is at infinite distance.  kExits (unassigned
  // costs): row i scanned at `least` through its column (h = u_i - least)
  // also reaches its exit, at r_i - h; the nearest such exit (the root's at
  // r_f) ends the search instead when it is no farther than the next
  // distance, and the path's last row leaves to its exit (never false).
  //
  // The unscanned columns at the least distance are kept in a list, so that
  // columns tied at one distance are found by one pass (JV's "todo" list).
  // A relaxation pass also finds the least distance among the columns it
  // leaves out of the list: when the list runs empty and that least is held
  // by one column alone, the column joins the list without another pass, so
  // on distinct distances a scanned row costs one pass, not two.  After a
  // pass that found ties the search is skipped until a pass finds a single
  // least column again: on costs with many ties (integers in [0, n]) it
  // rarely pays.
  template <bool kExits>
  bool Augment(int f) {
    list_.clear();
    // Every column a path can reach has its key lowered from +inf by this
    // search, which sets its pred; pred needs no reset.
    std::fill(key_.begin(), key_.end(), Inf());
    Least next;
    RelaxRow<true>(Row(f), W(0), NegInf(), f, &next);
    size_t scanned = 0;
    int end = -1;
    W least = W(0);
    bool track = true;
    // The nearest exit and its row (kExits).
    W nearest_exit = kExits ? static_cast<W>(r_[f]) : Inf();
    int exit_row = f;
    while (end < 0) {
      if (scanned == list_.size()) {
        if (next.value != next.second) {
          // The last pass found the least distance held by one column.
          if (kExits && nearest_exit <= next.value) break;
          if (!(next.value < Inf())) return false;
          least = next.value;
          Join(next.at, least);
          if (y_[next.at] < 0) {
            end = next.at;
            break;
          }
        } else {
          // A pass over the keys for the least distance and its columns.
          const W key = LeastKey().value;
          if (kExits && nearest_exit <= key) break;
          least = key;
          if (!(least < Inf())) return false;
          const size_t before = list_.size();
          end = JoinLeast(least);
          if (end >= 0) break;
          track = list_.size() - before == 1;
        }
      }
      const int j1 = list_[scanned++];
      const int i = y_[j1];
      const T* row = Row(i);
      const W h = static_cast<W>(row[j1]) - v_[j1] - least;
      if (kExits && static_cast<W>(r_[i]) - h < nearest_exit) {
        nearest_exit = static_cast<W>(r_[i]) - h;
        exit_row = i;
      }
      // Only the pass that empties the list needs the least outside it;
      // after any other `next` reads as tied, which asks for a full pass.
      const bool last = track && scanned == list_.size();
      next = {Inf(), Inf(), m_};
      if (!(last ? RelaxRow<true>(row, h, least, i, &next)
                 : RelaxRow<false>(row, h, least, i, &next)))
        continue;
      end = JoinLeast(least);
      // The least outside the list, now that columns left it.
      if (end < 0 && last) next = LeastKey();
    }
    // The columns scanned; those joined after are at the path's length.
    const W length = end >= 0 ? least : nearest_exit;
    for (size_t k = 0; k < scanned; ++k)
      v_[list_[k]] += dist_[list_[k]] - length;
    if (end < 0) {
      // Row exit_row leaves its column (if any) to its exit.
      end = x_[exit_row];
      x_[exit_row] = kExit;
      if (exit_row == f) return true;
    }
    FlipAugmentingPath(end, f, pred_.data(), x_.data(), y_.data(), [](int) {});
    return true;
  }

  int n_, m_;
  const T* C_;
  // Unassigned costs (both null without them).
  const T* r_;
  const T* c_;
  std::vector<int> x_, y_;
  std::vector<W> v_;
  // The search's state by column: key (Relax), the distance at which a
  // column joined the list, the predecessor row; and the list in order.
  std::vector<W> key_, dist_;
  std::vector<int64_t> pred_;
  std::vector<int> list_;
  CancelToken cancel_;
};

// A JV solve's info: its status, its searches (`augmentations`) and the
// rows it assigned, the other slots 0.
inline void LapJvInfo(int status, int augmentations, int assigned, int* info) {
  for (int k = 0; k < kLapInfoLen; ++k) info[k] = 0;
  info[kStatus] = status;
  info[kIters] = augmentations;
  info[kNAugPhases] = augmentations;
  info[kNAssigned] = assigned;
}

// Solves one problem (n <= m) into its state arrays: the assignment, the
// duals and info's status and iteration count (augmenting searches, at most
// `max_searches` when > 0).  With `x0` and `v0` it starts from them
// (LapJv::SolveFrom).
template <class T>
void lap_jv_solve(const T* C, int n, int m, int max_searches, int* info,
                  int* col_for_row, int* row_for_col, T* u, T* v,
                  CancelToken cancel = {}, const int* x0 = nullptr,
                  const T* v0 = nullptr) {
  LapJv<T> jv(n, m, C, cancel);
  int augmentations = 0;
  int status = x0 != nullptr
                   ? jv.SolveFrom(v0, x0, max_searches, &augmentations)
                   : jv.Solve(max_searches, &augmentations);
  status = jv.Write(status, col_for_row, row_for_col, u, v);
  LapJvInfo(status, augmentations, status == kLapOptimal ? n : 0, info);
}

// Solves one problem with unassigned costs (any n, m): row_cost [n] and
// col_cost [m] are the prices of leaving a row or a column unassigned
// (LapJv); the results as lap_jv_solve's, with -1 for a row or a column
// left unassigned, u_i = row_cost[i] on such a row and v_j = col_cost[j]
// on such a column.  info's kNAssigned counts the rows assigned to columns.
template <class T>
void lap_jv_solve_unassigned(const T* C, const T* row_cost, const T* col_cost,
                             int n, int m, int max_searches, int* info,
                             int* col_for_row, int* row_for_col, T* u, T* v,
                             CancelToken cancel = {}) {
  LapJv<T> jv(n, m, C, cancel, row_cost, col_cost);
  int augmentations = 0;
  int status = jv.Solve(max_searches, &augmentations);
  status = jv.Write(status, col_for_row, row_for_col, u, v);
  int assigned = 0;
  for (int i = 0; i < n; ++i) assigned += col_for_row[i] >= 0;
  LapJvInfo(status, augmentations, assigned, info);
}

}  // namespace jaxmatch
