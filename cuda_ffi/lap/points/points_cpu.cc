// CPU back end of the points sweep (lap/points/points_steps.h): one list per
// row, the row's columns in order, their costs computed a vectorised chunk at a
// time; ranges of rows on XLA's CPU threads (common/cpu_parallel.h).  Operands:
// lap/points/points_ffi.h.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/cpu_parallel.h"
#include "lap/points/points_ffi.h"

namespace jaxmatch {
namespace {

// Pairs of the cost of one row's sweep in a range of rows taken by one
// thread: about a millisecond of work.
constexpr int64_t kPointsPairsPerRange = int64_t{1} << 18;
// Columns whose costs and ranks one row computes at a time.
constexpr int kPointsChunk = 64;

// On x86-64 with GCC SweepRow is built twice, for AVX2 and for the
// baseline, and the loader picks the build the CPU runs (function
// multiversioning; Clang takes no target_clones on templates).  Its loop is
// vectorised across columns, each cost computed in the same order, so both
// builds give the same results.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define JM_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define JM_AVX2_CLONE
#endif

// Unsigned words of |cost|: for values without a sign, their order is the
// values' order, and every NaN's is above +inf's, so their maximum is the
// largest |cost|, or a NaN once one is NaN (PointsBest::see_cost; the NaN
// of the largest payload rather than the first one).
template <class T>
using AbsBits =
    std::conditional_t<sizeof(T) == sizeof(uint32_t), uint32_t, uint64_t>;

// One row's sweep (points_sweep_columns' list, in the same column order) a
// chunk of columns at a time: the chunk's ranks and largest |cost| first,
// in a loop without branches that the compiler vectorises (D > 0: points
// of D dimensions, M: the metric, both known at compile time), then the
// offers, which the list's last entry mostly rejects.
template <class T, int D, int M>
JM_AVX2_CLONE void SweepRow(PointsBest<T>* best, const T* x, T u, const T* yt,
                            const T* v, int m, int d, T sign) {
  const int dim = D > 0 ? D : d;
  T rank[kPointsChunk];
  for (int j0 = 0; j0 < m; j0 += kPointsChunk) {
    const int count = std::min(kPointsChunk, m - j0);
    AbsBits<T> most = 0;
    for (int t = 0; t < count; ++t) {
      const T c = sign * points_cost(x, yt + j0 + t, dim,
                                     static_cast<std::size_t>(m), M);
      const T a = std::fabs(c);
      AbsBits<T> bits;
      std::memcpy(&bits, &a, sizeof bits);
      most = bits > most ? bits : most;
      rank[t] = points_rank_value(c, u, v[j0 + t]);
    }
    T largest;
    std::memcpy(&largest, &most, sizeof largest);
    best->see_cost(largest);
    for (int t = 0; t < count; ++t)
      if (points_before(rank[t], j0 + t, best->r[kPointsMaxK - 1],
                        best->j[kPointsMaxK - 1]))
        best->offer(rank[t], j0 + t);
  }
}

template <class T, int D>
void SweepRowOfMetric(int metric, PointsBest<T>* best, const T* x, T u,
                      const T* yt, const T* v, int m, int d, T sign) {
  if (metric == kPointsSqeuclidean)
    SweepRow<T, D, kPointsSqeuclidean>(best, x, u, yt, v, m, d, sign);
  else if (metric == kPointsEuclidean)
    SweepRow<T, D, kPointsEuclidean>(best, x, u, yt, v, m, d, sign);
  else
    SweepRow<T, D, kPointsCityblock>(best, x, u, yt, v, m, d, sign);
}

// SweepRow with the dimension fixed at compile time up to 3.
template <class T>
void SweepRowOfShape(int metric, PointsBest<T>* best, const T* x, T u,
                     const T* yt, const T* v, int m, int d, T sign) {
  switch (d) {
    case 1:
      return SweepRowOfMetric<T, 1>(metric, best, x, u, yt, v, m, d, sign);
    case 2:
      return SweepRowOfMetric<T, 2>(metric, best, x, u, yt, v, m, d, sign);
    case 3:
      return SweepRowOfMetric<T, 3>(metric, best, x, u, yt, v, m, d, sign);
    default:
      return SweepRowOfMetric<T, 0>(metric, best, x, u, yt, v, m, d, sign);
  }
}

ffi::Error PointsSweepCpu(ffi::ThreadPool pool, ffi::AnyBuffer X,
                          ffi::AnyBuffer u, ffi::AnyBuffer YT, ffi::AnyBuffer v,
                          ffi::Result<ffi::AnyBuffer> cols,
                          ffi::Result<ffi::AnyBuffer> cost,
                          ffi::Result<ffi::AnyBuffer> cost_max, int32_t metric,
                          int32_t negate) {
  LapPointsSweepData s;
  JM_RETURN_IF_ERROR(
      CheckPointsSweep(X, u, YT, v, cols, cost, cost_max, metric, negate, &s));
  return DispatchPoints(X.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    const T* Xt = static_cast<const T*>(s.X);
    const T* ut = static_cast<const T*>(s.u);
    const T* yt = static_cast<const T*>(s.YT);
    const T* vt = static_cast<const T*>(s.v);
    T* ct = static_cast<T*>(s.cost);
    T* mt = static_cast<T*>(s.cost_max);
    const T sign = s.negate ? T(-1) : T(1);
    // Rows are independent: each writes only its own outputs.
    auto rows = [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        const T* x = Xt + static_cast<std::size_t>(i) * s.d;
        PointsBest<T> best;
        best.clear();
        SweepRowOfShape(s.metric, &best, x, ut[i], yt, vt, s.m, s.d, sign);
        for (int q = 0; q < s.k; ++q) {
          const int j = best.j[q];
          s.cols[static_cast<std::size_t>(i) * s.k + q] = j;
          ct[static_cast<std::size_t>(i) * s.k + q] =
              sign * points_cost(x, yt + j, s.d, static_cast<std::size_t>(s.m),
                                 s.metric);
        }
        mt[i] = best.cost_max;
      }
    };
    const int64_t row_pairs = static_cast<int64_t>(s.m) * s.d;
    ParallelFor(pool, s.b, GrainFor(row_pairs, kPointsPairsPerRange), rows);
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace jaxmatch

JM_EXPORT_HANDLER(
    jaxmatch_lap_points_sweep_cpu, jaxmatch::PointsSweepCpu,
    jaxmatch::BindPointsSweep(
        jaxmatch::ffi::Ffi::Bind().Ctx<jaxmatch::ffi::ThreadPool>()));
