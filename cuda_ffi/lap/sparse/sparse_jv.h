// The sparse linear assignment solver of the CPU (the scipy drop-in
// min_weight_full_bipartite_matching): Jonker and Volgenant's shortest
// augmenting paths on a CSR cost matrix (their LAPJVsp), for one problem of
// n rows and m >= n columns on one core.
//
// Start: on a square problem JV's column reduction and reduction transfer,
// on a rectangular one each row, in turn, takes a column still free among
// its least-cost ones when there is one (prices v = 0); then two passes of JV's
// augmenting row reduction along the stored edges.  Then a Dijkstra search
// from every row left free over the columns reachable along stored edges
// (Augment: the columns at the current distance on a stack, farther ones in
// an indexed heap, common/indexed_heap.h, so that the many equal distances
// of integer costs cost no heap work): the reduced cost of edge
// (i, j) is c_ij - v_j - u_i with u_i = c_{i,x_i} - v_{x_i}, non-negative
// because every assigned row sits at its least reduced cost.  After a
// search the prices of the columns it finalised drop by their distance short
// of the path's end, which keeps that invariant.  On a rectangular problem
// prices start at 0 and a free column's price never changes before it ends
// a path, so v <= 0 with v = 0 on the columns left free: (u, v) solves the
// rectangular LP's dual, the certificate of lap/sparse.py.  Edges of
// infinite cost are absent; a search that runs out of columns before it
// reaches a free one proves that no full matching exists.
//
// Unassigned costs (SolveFromPrices, lap_csr_solve with prices): the caller
// appends to each row i a private exit column m + i of cost row_cost_i and
// starts the real columns' prices at col_cost; the greedy start and the
// searches are those of a rectangular problem (prices only drop, a free
// column's never), and the exits' prices stay 0 (the augmenting row
// reduction lowers no exit's price, and a search reaches an exit only from
// its row, so never past it), so u_i <= row_cost_i with equality on a row
// left on its exit, and v <= col_cost with equality on the free columns:
// the duals of jaxmatch/lap/unassigned.py.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/cancel.h"
#include "common/indexed_heap.h"
#include "lap/common/lap_state.h"

namespace jaxmatch {

class SparseLapJv {
 public:
  // indptr [n + 1], indices [nnz] (columns in [0, m)), cost [nnz]; n <= m.
  // row_reduction_bound: JV's augmenting row reduction lowers prices while
  // its visits stay below (rows taken so far) * bound; 0 takes JV's bound,
  // n (see AugmentingRowReduction).
  SparseLapJv(int n, int m, const int64_t* indptr, const int* indices,
              const double* cost, int row_reduction_bound = 0)
      : n_(n),
        arr_bound_(row_reduction_bound > 0 ? row_reduction_bound : n),
        m_(m),
        indptr_(indptr),
        indices_(indices),
        cost_(cost),
        x_(n, -1),
        y_(m, -1),
        v_(m, 0.0),
        matched_cost_(m, 0.0),
        search_(m),
        heap_(m) {}

  // kLapOptimal, kLapInfeasible when no full matching exists, or
  // kLapIterationLimit when the solve is cancelled (common/cancel.h).
  int Solve(int* searches) {
    std::vector<int> free_rows;
    if (n_ == m_)
      ColumnReduction(&free_rows);
    else
      RowMinimaGreedy(&free_rows);
    return Finish(&free_rows, searches);
  }

  // Unassigned costs: the problem with prices v0 [m] to start from, whose
  // columns from `exits_from` on are the rows' exits (their prices never
  // drop, see the top of the file); rectangular (n < m).
  int SolveFromPrices(const double* v0, int exits_from, int* searches) {
    for (int j = 0; j < m_; ++j) v_[j] = v0[j];
    fixed_from_ = exits_from;
    std::vector<int> free_rows;
    RowMinimaGreedy(&free_rows);
    return Finish(&free_rows, searches);
  }

  // A warm start of a square problem from prices v0 [m] and an earlier
  // assignment x0 [n] (-1: none), e.g. the solution of a problem with fewer
  // edges: a row keeps its column when that pair is an edge at the row's
  // least reduced cost c_ij - v0_j (so the searches' invariant holds) and
  // the column is not taken yet; the other rows start free.
  int SolveFrom(const int* x0, const double* v0, int* searches) {
    for (int j = 0; j < m_; ++j) v_[j] = v0[j];
    std::vector<int> free_rows;
    for (int i = 0; i < n_; ++i) {
      const int j = x0[i];
      double least = INFINITY;
      for (int64_t e = indptr_[i]; e < indptr_[i + 1]; ++e)
        if (std::isfinite(cost_[e]) && cost_[e] - v_[indices_[e]] < least)
          least = cost_[e] - v_[indices_[e]];
      const double c = j >= 0 && j < m_ ? EdgeCost(i, j) : INFINITY;
      if (std::isfinite(c) && y_[j] < 0 && c - v_[j] <= least) {
        x_[i] = j;
        y_[j] = i;
        matched_cost_[j] = c;
      } else {
        free_rows.push_back(i);
      }
    }
    return Finish(&free_rows, searches);
  }

  void Write(int* col_for_row, int* row_for_col, double* u, double* v) const {
    for (int i = 0; i < n_; ++i) {
      col_for_row[i] = x_[i];
      u[i] = x_[i] >= 0 ? matched_cost_[x_[i]] - v_[x_[i]] : 0.0;
    }
    for (int j = 0; j < m_; ++j) {
      row_for_col[j] = y_[j];
      v[j] = v_[j];
    }
  }

 private:
  // JV's augmenting row reduction, then a search from each row still free.
  int Finish(std::vector<int>* free_rows, int* searches) {
    for (int pass = 0; pass < 2 && !free_rows->empty(); ++pass)
      AugmentingRowReduction(free_rows);
    *searches = 0;
    for (int j = 0; j < m_; ++j) {
      search_[j].price = v_[j];
      search_[j].row = y_[j];
    }
    int status = kLapOptimal;
    for (int f : *free_rows) {
      if (cancel_.requested()) {
        status = kLapIterationLimit;
        break;
      }
      ++*searches;
      if (!Augment(f)) {
        status = kLapInfeasible;
        break;
      }
    }
    for (int j = 0; j < m_; ++j) {
      v_[j] = search_[j].price;
      y_[j] = search_[j].row;
    }
    return status;
  }

  // Rectangular problems (prices stay 0 for the wider side's sign): each
  // row, in turn, takes a free column among its least-cost ones when there
  // is one (the first least-cost column otherwise decides).  On integer
  // costs a row has many columns at its least cost, and the first of them
  // is often taken: looking past it leaves few rows to the searches.
  // With starting prices (SolveFromPrices) the least c_ij - v_j decides
  // (without, the prices are 0 and go unread).
  void RowMinimaGreedy(std::vector<int>* free_rows) {
    const bool priced = fixed_from_ < m_;
    for (int i = 0; i < n_; ++i) {
      int best = -1;
      double least = INFINITY, best_cost = INFINITY;
      for (int64_t e = indptr_[i]; e < indptr_[i + 1]; ++e) {
        const int j = indices_[e];
        const double h = priced ? cost_[e] - v_[j] : cost_[e];
        if (h < least ||
            (h == least && best >= 0 && y_[best] >= 0 && y_[j] < 0)) {
          least = h;
          best = j;
          best_cost = cost_[e];
        }
      }
      if (best >= 0 && y_[best] < 0) {
        x_[i] = best;
        y_[best] = i;
        matched_cost_[best] = best_cost;
      } else {
        free_rows->push_back(i);
      }
    }
  }

  // Square problems (no sign on the duals): JV's column reduction and
  // reduction transfer along the stored edges.  Each column's price is its
  // least cost (0 for a column without edges, which a search then reports);
  // a row that is the least of exactly one column takes it and that
  // column's price drops by the row's second least reduced cost.  Ties go
  // to the first row, as in LAPJVsp: on random sparse integer costs the
  // searches then reach 10-15 % fewer columns than after the cyclic order
  // of the dense solver (lap/jv/jv_cpu.h), on lap's structured matrices
  // 3-5 % more.
  void ColumnReduction(std::vector<int>* free_rows) {
    std::vector<double> best(m_, INFINITY);
    std::vector<int> arg(m_, -1);
    for (int i = 0; i < n_; ++i) {
      for (int64_t e = indptr_[i]; e < indptr_[i + 1]; ++e) {
        const int j = indices_[e];
        const double c = cost_[e];
        if (c < best[j]) {
          best[j] = c;
          arg[j] = i;
        }
      }
    }
    std::vector<char> unique(n_, 1);
    for (int j = m_ - 1; j >= 0; --j) {
      if (arg[j] < 0) continue;  // no finite edge: v_j stays 0
      v_[j] = best[j];
      const int i = arg[j];
      if (x_[i] < 0) {
        x_[i] = j;
        y_[j] = i;
        matched_cost_[j] = best[j];
      } else {
        unique[i] = 0;
      }
    }
    for (int i = 0; i < n_; ++i) {
      if (x_[i] < 0) {
        free_rows->push_back(i);
      } else if (unique[i]) {
        const int j = x_[i];
        double second = INFINITY;
        for (int64_t e = indptr_[i]; e < indptr_[i + 1]; ++e) {
          const int k = indices_[e];
          if (k != j && cost_[e] - v_[k] < second) second = cost_[e] - v_[k];
        }
        if (std::isfinite(second)) v_[j] -= second;
      }
    }
  }

  // JV's augmenting row reduction along stored edges: a free row takes its
  // least reduced-cost column (a free one among all its equals: on integer
  // costs that ends a chain where JV's choice would free another row), whose
  // price drops to the row's second least
  // so that the row stays at its minimum; the column's previous owner is
  // freed and, when the price dropped, processed next.  Prices only drop
  // and a column, once assigned, stays assigned, so v <= 0 with v = 0 on
  // the free columns still holds.  Bounded as in JV's code (current * n
  // visits): on random sparse costs two such passes halve the solve, unlike
  // on the dense structured classes of lap/jv/jv_cpu.h.  On geometric graphs
  // (the nearest neighbours of points) the price drops chase each other for
  // thousands of visits per row, and a bound of 16 visits per row taken
  // makes the solve 3-6x faster (jaxmatch/lap/points/ passes it).
  void AugmentingRowReduction(std::vector<int>* free_rows) {
    std::vector<int>& rows = *free_rows;
    const int count = static_cast<int>(rows.size());
    int current = 0, kept = 0;
    int64_t visits = 0;
    while (current < count) {
      ++visits;
      const int i = rows[current++];
      int j1 = -1, j2 = -1;
      double u1 = INFINITY, u2 = INFINITY, c1 = 0.0, c2 = 0.0;
      for (int64_t e = indptr_[i], stop = indptr_[i + 1]; e < stop; ++e) {
        const int j = indices_[e];
        const double c = cost_[e], h = c - v_[j];
        if (!(h <= u2) || !std::isfinite(c)) continue;
        if (h < u1 || (h == u1 && y_[j1] >= 0 && y_[j] < 0)) {
          u2 = u1;  // a free column ranks first among equals
          j2 = j1;
          c2 = c1;
          u1 = h;
          j1 = j;
          c1 = c;
        } else if (h < u2) {
          u2 = h;
          j2 = j;
          c2 = c;
        }
      }
      if (j1 < 0) {  // no edge: the searches will report it
        rows[kept++] = i;
        continue;
      }
      int i0 = y_[j1];
      const double lowered = j2 >= 0 ? v_[j1] - (u2 - u1) : v_[j1];
      const bool lowers = lowered < v_[j1] && j1 < fixed_from_;
      if (visits < static_cast<int64_t>(current) * arr_bound_) {
        if (lowers) {
          v_[j1] = lowered;
        } else if (i0 >= 0 && j2 >= 0) {
          j1 = j2;
          i0 = y_[j2];
          c1 = c2;
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
      matched_cost_[j1] = c1;
    }
    rows.resize(kept);
  }

  // The least finite cost of edge (i, j) (a row lists a column once after
  // the caller's canonicalisation).
  double EdgeCost(int i, int j) const {
    double c = INFINITY;
    for (int64_t e = indptr_[i]; e < indptr_[i + 1]; ++e)
      if (indices_[e] == j && cost_[e] < c) c = cost_[e];
    return c;
  }

  // Relaxes the edges of row i, whose own reduced distance is `base` (the
  // distance of the column it is matched to, less that edge's reduced
  // cost): a column not finalised takes the distance through row i when it
  // is shorter than the one known (an infinite cost never is).  A matched
  // column at the current distance floor_ then goes on the stack `level_`,
  // a farther one, once the search orders its columns in the heap, on the
  // list `pending_` (NextColumn).  A free column enters neither: the
  // search keeps the nearest one seen (end_, end_dist_), and stops once it
  // is at floor_, since no path is shorter.  The column a few edges ahead
  // is prefetched: on large problems the columns' records miss the caches,
  // and the loop's branches keep the core from reaching ahead by itself.
  void Scan(int i, double base) {
    const int stamp = stamp_;
    const double floor = floor_;
    const bool heap_mode = heap_mode_;
    const int* indices = indices_;
    const double* cost = cost_;
    SearchColumn* cols = search_.data();
    const int64_t stop = indptr_[i + 1];
    for (int64_t e = indptr_[i]; e < stop; ++e) {
      if (e + kPrefetchAhead < stop)
        __builtin_prefetch(&cols[indices[e + kPrefetchAhead]]);
      const int k = indices[e];
      SearchColumn& col = cols[k];
      if (col.done == stamp) continue;
      const double dist = base + cost[e] - col.price;
      if (!(dist < col.dist)) continue;
      if (col.dist == INFINITY) touched_.push_back(k);
      col.dist = dist;
      col.pred = i;
      col.edge = static_cast<int>(e);
      if (col.row < 0) {
        if (dist < end_dist_) {
          end_ = k;
          end_dist_ = dist;
          if (dist <= floor) return;
        }
      } else if (dist == floor) {
        level_.push_back(k);
      } else if (heap_mode) {
        pending_.push_back(k);
      }
    }
  }

  // The next column to finalise: the last one put on the stack at floor_,
  // else the first of the next level (which raises floor_), or -1 when
  // every column left is at least as far as the nearest free column.  The
  // first kScanLevels levels of a search are found by a pass over the
  // columns it reached (NextLevel): on integer costs a search ends within a
  // level or two, and a heap would order columns never finalised.  Then
  // every matched column reached enters the heap, and the ones Scan lowers
  // later are listed in pending_ and enter it (or move up in it) when the
  // level is done.  A column lowered to floor_ after it was listed is on
  // both; the entry found after it was finalised is skipped.
  int NextColumn() {
    while (!level_.empty()) {
      const int j = level_.back();
      level_.pop_back();
      if (search_[j].done != stamp_) return j;
    }
    if (!heap_mode_) {
      if (++levels_ <= kScanLevels) return NextLevel();
      heap_mode_ = true;  // every matched column reached enters the heap
      for (int j : touched_)
        if (search_[j].done != stamp_ && search_[j].row >= 0)
          heap_.Push(j, search_[j].dist);
    }
    for (int j : pending_)
      if (search_[j].done != stamp_) heap_.Push(j, search_[j].dist);
    pending_.clear();
    while (!heap_.empty()) {
      const auto [dist, j] = heap_.Pop();
      if (!(dist < end_dist_)) return -1;
      if (search_[j].done == stamp_) continue;
      floor_ = dist;
      return j;
    }
    return -1;
  }

  // The matched columns reached, not finalised, at the least distance
  // among them onto the stack, that distance the new floor_; the first of
  // them, or -1 when none is nearer than the nearest free column.
  int NextLevel() {
    double least = end_dist_;
    for (int j : touched_) {
      const SearchColumn& col = search_[j];
      if (col.done == stamp_ || col.row < 0 || col.dist > least) continue;
      if (col.dist < least) {
        least = col.dist;
        level_.clear();
      }
      level_.push_back(j);
    }
    if (!(least < end_dist_)) {
      level_.clear();
      return -1;
    }
    floor_ = least;
    const int j = level_.back();
    level_.pop_back();
    return j;
  }

  // Dijkstra from free row f over the matched columns, in order of
  // distance, until the nearest free column reached is no farther than
  // every column left (JV's shortest augmenting path).  Columns at equal
  // distance are scanned last-found first, and a free column at the current
  // distance ends the search at once: on integer costs a search finalises
  // a few columns of a tied level, not all of them.
  bool Augment(int f) {
    ++stamp_;
    if (heap_mode_) heap_.Clear();
    heap_mode_ = false;
    levels_ = 0;
    level_.clear();
    pending_.clear();
    finalised_.clear();
    end_ = -1;
    end_dist_ = INFINITY;
    if (ScanRoot(f)) return Flip(f);
    for (int j; end_dist_ > floor_ && (j = NextColumn()) >= 0;) {
      SearchColumn& col = search_[j];
      col.done = stamp_;
      finalised_.push_back(j);
      Scan(col.row, col.dist - (matched_cost_[j] - col.price));
    }
    if (end_ >= 0)
      for (int j : finalised_) search_[j].price += search_[j].dist - end_dist_;
    for (int j : touched_) search_[j].dist = INFINITY;
    touched_.clear();
    return end_ >= 0 && Flip(f);
  }

  // The search's first step, the edges of free row f, read first without
  // writing: true when a free column is among the nearest (most searches on
  // integer costs end here), with that column's predecessor recorded; else
  // Scan records every column reached, the nearest (at floor_) on the stack.
  bool ScanRoot(int f) {
    floor_ = INFINITY;
    int64_t end_edge = -1;
    const SearchColumn* cols = search_.data();
    for (int64_t e = indptr_[f], stop = indptr_[f + 1]; e < stop; ++e) {
      const SearchColumn& col = cols[indices_[e]];
      const double dist = cost_[e] - col.price;  // +inf for an infinite cost
      if (col.row >= 0) {
        if (dist < floor_) floor_ = dist;
      } else if (dist < end_dist_) {
        end_dist_ = dist;
        end_edge = e;
      }
    }
    if (end_edge >= 0 && end_dist_ <= floor_) {
      end_ = indices_[end_edge];
      search_[end_].pred = f;
      search_[end_].edge = static_cast<int>(end_edge);
      return true;
    }
    end_dist_ = INFINITY;
    Scan(f, 0.0);
    return false;
  }

  // Augments along the path from free row f to the search's end column:
  // each column on it takes the row it was reached from, at that edge's
  // cost.
  bool Flip(int f) {
    for (int j = end_;;) {
      SearchColumn& col = search_[j];
      const int i = col.pred;
      col.row = i;
      matched_cost_[j] = cost_[col.edge];
      const int next = x_[i];
      x_[i] = j;
      if (i == f) break;
      j = next;
    }
    return true;
  }

  // Columns a scan prefetches ahead of the one it relaxes.
  static constexpr int64_t kPrefetchAhead = 16;

  int n_, arr_bound_, m_;
  int fixed_from_ = m_;  // the first column whose price never drops (exits)
  const int64_t* indptr_;
  const int* indices_;
  const double* cost_;
  std::vector<int> x_, y_;
  std::vector<double> v_, matched_cost_;
  // What a search reads and writes of a column, in one place (32 bytes,
  // aligned) so that relaxing an edge touches one cache line: its distance
  // (infinite when not reached yet in this search), its price (v_ while the
  // searches run), whether it is finalised (done == stamp_), its row (y_
  // while the searches run; -1 when free) and the row and entry (an index
  // into the CSR, below 2**31) it was reached by.
  struct alignas(32) SearchColumn {
    double dist = INFINITY;
    double price = 0.0;
    int done = 0;
    int row = -1;
    int pred = -1;
    int edge = -1;
  };
  std::vector<SearchColumn> search_;
  std::vector<int> finalised_;
  std::vector<int> touched_;  // the columns reached (finite dist) this search
  int stamp_ = 0;
  std::vector<int> level_;    // matched columns reached at floor_, to scan
  std::vector<int> pending_;  // farther ones reached, not in the heap yet
  double floor_ = 0.0;        // the distance of the columns being finalised
  bool heap_mode_ = false;    // the search orders its columns in heap_
  int levels_ = 0;            // the levels the search has started
  // Levels found by a pass over the columns reached before the heap takes
  // over (each pass costs as much as pushing those columns in the heap).
  static constexpr int kScanLevels = 8;
  int end_ = -1;  // the nearest free column the search has reached
  double end_dist_ = INFINITY;
  IndexedMinHeap heap_;  // the searched columns not yet finalised
  CancelToken cancel_;
};

// One problem of a batch of CSR costs (the jitted sparse LAP,
// jaxmatch.solve_lap on SparseCosts): n rows, m >= n columns, indptr [n + 1],
// indices and cost [cap] in the cost type T.  The CSR is validated (pointers
// non-decreasing from 0 to at most cap, columns in [0, m): else status
// kLapInvalidStructure), NaN and -inf costs give kLapInvalidEntries, and the
// problem is solved in double precision.  Writes the assignment, the duals
// (in T; kLapOverflow when an int32 dual would not fit), the position of
// each row's matched entry (the cheapest of duplicates, -1 for a free row)
// and info (status, searches).  With unassigned costs row_cost [n] and
// col_cost [m] (both null without; any finite values, else
// kLapInvalidEntries) it solves the n x (m + n) problem with the rows' exits
// (SolveFromPrices; never infeasible), a row on its exit reading -1.
template <class T>
void lap_csr_solve(int n, int m, int cap, const int* indptr, const int* indices,
                   const T* cost, int* col_for_row, int* row_for_col, T* u,
                   T* v, int* edge_for_row, int* info,
                   const T* row_cost = nullptr, const T* col_cost = nullptr) {
  for (int k = 0; k < kLapInfoLen; ++k) info[k] = 0;
  for (int i = 0; i < n; ++i) {
    col_for_row[i] = -1;
    edge_for_row[i] = -1;
    u[i] = T(0);
  }
  for (int j = 0; j < m; ++j) {
    row_for_col[j] = -1;
    v[j] = T(0);
  }
  bool ok = indptr[0] == 0 && indptr[n] <= cap;
  for (int i = 0; i < n && ok; ++i) ok = indptr[i] <= indptr[i + 1];
  const int nnz = ok ? indptr[n] : 0;
  for (int k = 0; k < nnz && ok; ++k) ok = indices[k] >= 0 && indices[k] < m;
  if (!ok) {
    info[kStatus] = kLapInvalidStructure;
    return;
  }
  std::vector<int64_t> ptr(indptr, indptr + n + 1);
  std::vector<double> c(nnz);
  for (int k = 0; k < nnz; ++k) {
    c[k] = static_cast<double>(cost[k]);
    if (std::isnan(c[k]) || c[k] == -INFINITY) {
      info[kStatus] = kLapInvalidEntries;
      return;
    }
  }
  int searches = 0, status = kLapOptimal;
  std::vector<double> ud(n), vd(m);
  if (row_cost == nullptr) {
    SparseLapJv jv(n, m, ptr.data(), indices, c.data());
    status = jv.Solve(&searches);
    jv.Write(col_for_row, row_for_col, ud.data(), vd.data());
  } else {
    // The CSR with each row's exit (column m + i) after its entries.
    std::vector<int64_t> xptr(n + 1);
    std::vector<int> xidx(static_cast<std::size_t>(nnz) + n);
    std::vector<double> xcost(static_cast<std::size_t>(nnz) + n);
    std::vector<double> v0(static_cast<std::size_t>(m) + n, 0.0);
    for (int j = 0; j < m; ++j) v0[j] = static_cast<double>(col_cost[j]);
    for (int i = 0; i < n; ++i) {
      xptr[i] = ptr[i] + i;
      int64_t at = xptr[i];
      for (int64_t k = ptr[i]; k < ptr[i + 1]; ++k, ++at) {
        xidx[at] = indices[k];
        xcost[at] = c[k];
      }
      xidx[at] = m + i;
      xcost[at] = static_cast<double>(row_cost[i]);
    }
    xptr[n] = ptr[n] + n;
    for (int k = 0; k < n + m; ++k) {
      const double p = k < n ? xcost[xptr[k + 1] - 1] : v0[k - n];
      if (!std::isfinite(p)) {
        info[kStatus] = kLapInvalidEntries;
        return;
      }
    }
    SparseLapJv jv(n, m + n, xptr.data(), xidx.data(), xcost.data());
    status = jv.SolveFromPrices(v0.data(), m, &searches);
    std::vector<int> xrfc(static_cast<std::size_t>(m) + n);
    std::vector<double> xv(static_cast<std::size_t>(m) + n);
    jv.Write(col_for_row, xrfc.data(), ud.data(), xv.data());
    for (int i = 0; i < n; ++i)
      if (col_for_row[i] >= m) col_for_row[i] = -1;  // on its exit
    for (int j = 0; j < m; ++j) {
      row_for_col[j] = xrfc[j];
      vd[j] = xv[j];
    }
  }
  for (int i = 0; i < n; ++i) {  // the matched entry: the cheapest (i, j)
    const int j = col_for_row[i];
    int best = -1;
    for (int k = indptr[i]; j >= 0 && k < indptr[i + 1]; ++k)
      if (indices[k] == j && (best < 0 || c[k] < c[best])) best = k;
    edge_for_row[i] = best;
  }
  auto fits = [](double x) {
    return !std::is_integral<T>::value ||
           (x >= -2147483647.0 && x <= 2147483647.0);
  };
  for (int i = 0; i < n; ++i) {
    if (!fits(ud[i])) status = kLapOverflow;
    u[i] = fits(ud[i]) ? static_cast<T>(ud[i]) : T(0);
  }
  for (int j = 0; j < m; ++j) {
    if (!fits(vd[j])) status = kLapOverflow;
    v[j] = fits(vd[j]) ? static_cast<T>(vd[j]) : T(0);
  }
  info[kStatus] = status;
  info[kIters] = searches;
}

}  // namespace jaxmatch
