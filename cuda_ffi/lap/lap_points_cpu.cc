// CPU back end of the points sweep (lap_points_steps.h): one list per row,
// the row's columns in order; ranges of rows on XLA's CPU threads
// (common/cpu_parallel.h).  Operands: lap_points_ffi.h.
#include "common/cpu_parallel.h"
#include "lap/lap_points_ffi.h"

namespace jaxmatch {
namespace {

// Pairs of the cost of one row's sweep in a range of rows taken by one
// thread: about a millisecond of work.
constexpr int64_t kPointsPairsPerRange = int64_t{1} << 18;

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
        points_sweep_columns(&best, x, ut[i], yt, static_cast<std::size_t>(s.m),
                             vt, s.m, 0, s.d, s.metric, sign, 0, 1);
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
