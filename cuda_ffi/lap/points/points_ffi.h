// Operands of the points sweep's handlers (lap/points/points_steps.h), shared
// by the CPU (lap/points/points_cpu.cc) and CUDA (lap/points/points_cuda.cc)
// bindings.
//
// jaxmatch_lap_points_sweep(X, u, YT, v) -> cols, cost, cost_max
//   X [b, d], u [b], YT [d, m] (Y transposed), v [m]: float32 or float64,
//   one dtype; cols [b, k] (int32), cost [b, k] and cost_max [b] (X's
//   dtype), 1 <= k <= min(kPointsMaxK, m); attributes metric (PointsMetric)
//   and negate (1: costs are -cost(x, y), for maximizing); d <=
//   kPointsMaxDim.
#pragma once

#include <string>

#include "common/ffi_helpers.h"
#include "lap/points/points_steps.h"

namespace jaxmatch {

struct LapPointsSweepData {
  int b = 0, d = 0, m = 0, k = 0, metric = 0;
  bool negate = false;
  const void *X = nullptr, *u = nullptr, *YT = nullptr, *v = nullptr;
  int* cols = nullptr;
  void *cost = nullptr, *cost_max = nullptr;
};

inline ffi::Error CheckPointsSweep(
    const ffi::AnyBuffer& X, const ffi::AnyBuffer& u, const ffi::AnyBuffer& YT,
    const ffi::AnyBuffer& v, ffi::Result<ffi::AnyBuffer> cols,
    ffi::Result<ffi::AnyBuffer> cost, ffi::Result<ffi::AnyBuffer> cost_max,
    int32_t metric, int32_t negate, LapPointsSweepData* s) {
  const ffi::DataType t = X.element_type();
  if (t != ffi::DataType::F32 && t != ffi::DataType::F64)
    return InvalidArgument("points sweep: points must be float32 or float64");
  auto xd = X.dimensions(), yd = YT.dimensions(), kd = cols->dimensions();
  if (xd.size() != 2 || yd.size() != 2 || kd.size() != 2)
    return InvalidArgument("points sweep: X [b, d], YT [d, m], cols [b, k]");
  // Row and column counts leave room for the strides of a block, a warp and
  // a tile of columns (lap/points/points_kernels.cu).
  if (xd[0] > INT_MAX - kPointsTileCols || xd[1] < 1 || xd[1] != yd[0] ||
      yd[1] < 1 || yd[1] > INT_MAX - kPointsTileCols || kd[0] != xd[0])
    return InvalidArgument("points sweep: X [b, d], YT [d, m], cols [b, k]");
  if (xd[1] > kPointsMaxDim)
    return InvalidArgument("points sweep: points of more than " +
                           std::to_string(kPointsMaxDim) + " dimensions");
  s->b = static_cast<int>(xd[0]);
  s->d = static_cast<int>(xd[1]);
  s->m = static_cast<int>(yd[1]);
  s->k = static_cast<int>(kd[1]);
  if (s->k < 1 || s->k > kPointsMaxK || s->k > s->m)
    return InvalidArgument("points sweep: k must be in [1, min(16, m)]");
  if (metric != kPointsSqeuclidean && metric != kPointsEuclidean &&
      metric != kPointsCityblock)
    return InvalidArgument("points sweep: unknown metric code");
  if (YT.element_type() != t)
    return InvalidArgument("points sweep: X and YT differ in dtype");
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(u, "u", t, 1, s->b));
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(v, "v", t, 1, s->m));
  JM_RETURN_IF_ERROR(
      CheckTrailingBuffer(*cols, "cols", ffi::DataType::S32, s->b, s->k));
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(*cost, "cost", t, s->b, s->k));
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(*cost_max, "cost_max", t, 1, s->b));
  s->metric = metric;
  s->negate = negate != 0;
  s->X = X.untyped_data();
  s->u = u.untyped_data();
  s->YT = YT.untyped_data();
  s->v = v.untyped_data();
  s->cols = static_cast<int*>(cols->untyped_data());
  s->cost = cost->untyped_data();
  s->cost_max = cost_max->untyped_data();
  return ffi::Error::Success();
}

template <class Binding>
auto BindPointsSweep(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()  // X
      .template Arg<ffi::AnyBuffer>()  // u
      .template Arg<ffi::AnyBuffer>()  // YT
      .template Arg<ffi::AnyBuffer>()  // v
      .template Ret<ffi::AnyBuffer>()  // cols
      .template Ret<ffi::AnyBuffer>()  // cost
      .template Ret<ffi::AnyBuffer>()  // cost_max
      .template Attr<int32_t>("metric")
      .template Attr<int32_t>("negate");
}

// X's dtype: float32 or float64.
template <class F>
ffi::Error DispatchPoints(ffi::DataType dt, F&& f) {
  if (dt == ffi::DataType::F32) return f(float{});
  if (dt == ffi::DataType::F64) return f(double{});
  return InvalidArgument("points sweep: points must be float32 or float64");
}

}  // namespace jaxmatch
