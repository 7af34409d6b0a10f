// The pricing sweep of jaxmatch.solve_lap_points (jaxmatch/lap/points/)
// for the built-in metrics, written once for every back end: for each row i
// of a block of points X, the kPointsMaxK pairs of least reduced cost
//
//   r_ij = s * cost(x_i, y_j) - u_i - v_j     (s = -1 when maximizing)
//
// over every point y_j of Y, in the order (r, j) (a NaN r counts as -inf, so
// that the caller sees it; -0 equals +0), their signed costs, and the
// row's largest |s * cost|.  The costs are computed on the fly: nothing of
// size n * m is held.  The CPU keeps one sorted list per row; a CUDA warp
// keeps one per lane and merges them.
#pragma once

#include <cmath>
#include <cstddef>

#include "common/device.h"

namespace jaxmatch {

enum PointsMetric : int {
  kPointsSqeuclidean = 0,
  kPointsEuclidean = 1,
  kPointsCityblock = 2,
};

// Pairs kept per row (the largest k a sweep may ask for), and the largest
// dimension of the points (a CUDA block holds its rows' points in shared
// memory).
constexpr int kPointsMaxK = 16;
constexpr int kPointsMaxDim = 512;
// Columns a CUDA block stages in shared memory at a time (a multiple of 32;
// lap/points/points_kernels.cu).
constexpr int kPointsTileCols = 1024;

// cost(x, y) of points of dimension d: x[q] for coordinate q, and y's at
// y[q * y_stride] (Y is held transposed, [d, m], for coalesced reads).
template <class T>
JM_HD T points_cost(const T* x, const T* y, int d, std::size_t y_stride,
                    int metric) {
  T acc = T(0);
  if (metric == kPointsCityblock) {
    for (int q = 0; q < d; ++q) acc += std::fabs(x[q] - y[q * y_stride]);
    return acc;
  }
  for (int q = 0; q < d; ++q) {
    const T t = x[q] - y[q * y_stride];
    acc += t * t;
  }
  return metric == kPointsEuclidean ? std::sqrt(acc) : acc;
}

// The reduced cost as ranked: NaN counts as -inf.
template <class T>
JM_HD T points_rank_value(T c, T u, T v) {
  const T r = c - u - v;
  return r == r ? r : -Num<T>::inf();
}

// Whether (a, ja) comes before (b, jb): the lesser value (-0 and +0 alike),
// then column.
template <class T>
JM_HD bool points_before(T a, int ja, T b, int jb) {
  return a < b || (a == b && ja < jb);
}

// The larger of a and b, NaN when either is.
template <class T>
JM_HD T points_nan_max(T a, T b) {
  return (a != a || !(b != b || b > a)) ? a : b;
}

// A sorted list of the kPointsMaxK least (r, j) seen, and the largest |c|
// (NaN once a cost is NaN).  Empty slots hold (+inf, INT_MAX), after every
// real pair.  Every index is a constant once the loops unroll, so a CUDA
// lane keeps the list in registers.
template <class T>
struct PointsBest {
  T r[kPointsMaxK];
  int j[kPointsMaxK];
  T cost_max;

  JM_HD void clear() {
    JM_UNROLL
    for (int q = 0; q < kPointsMaxK; ++q) {
      r[q] = Num<T>::inf();
      j[q] = INT_MAX;
    }
    cost_max = T(0);
  }

  JM_HD void see_cost(T c) {
    cost_max = points_nan_max(cost_max, std::fabs(c));
  }

  // Inserts (rv, jv) when it comes before the last entry.
  JM_HD void offer(T rv, int jv) {
    if (!points_before(rv, jv, r[kPointsMaxK - 1], j[kPointsMaxK - 1])) return;
    JM_UNROLL
    for (int q = kPointsMaxK - 1; q > 0; --q) {
      // Slot q takes its predecessor when the new pair goes before that,
      // else the new pair when it goes before slot q's own entry.
      const bool shift = points_before(rv, jv, r[q - 1], j[q - 1]);
      const bool here = !shift && points_before(rv, jv, r[q], j[q]);
      r[q] = shift ? r[q - 1] : (here ? rv : r[q]);
      j[q] = shift ? j[q - 1] : (here ? jv : j[q]);
    }
    if (points_before(rv, jv, r[0], j[0])) {
      r[0] = rv;
      j[0] = jv;
    }
  }

  // Drops the first entry (the list moves up one slot).
  JM_HD void pop() {
    JM_UNROLL
    for (int q = 0; q + 1 < kPointsMaxK; ++q) {
      r[q] = r[q + 1];
      j[q] = j[q + 1];
    }
    r[kPointsMaxK - 1] = Num<T>::inf();
    j[kPointsMaxK - 1] = INT_MAX;
  }
};

// One row's sweep (a CUDA lane's share of it; the CPU's handler computes
// chunks of columns at a time, lap/points/points_cpu.cc) over the columns j =
// first, first + step, ... < count of a block of columns: coordinate q of
// column j at yt[q * y_stride + j], its price at v[j], ranked as column j0 + j.
template <class T>
JM_HD void points_sweep_columns(PointsBest<T>* best, const T* x, T u,
                                const T* yt, std::size_t y_stride, const T* v,
                                int count, int j0, int d, int metric, T sign,
                                int first, int step) {
  for (int j = first; j < count; j += step) {
    const T c = sign * points_cost(x, yt + j, d, y_stride, metric);
    best->see_cost(c);
    best->offer(points_rank_value(c, u, v[j]), j0 + j);
  }
}

}  // namespace jaxmatch
