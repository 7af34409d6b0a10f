// XLA FFI binding of the points sweep's CUDA kernel
// (lap/points/points_kernels.cu). Same operands as the CPU handler
// (lap/points/points_ffi.h).
#include <cuda_runtime_api.h>

#include "common/cuda_check.h"
#include "lap/points/points_ffi.h"
#include "lap/points/points_kernels.h"

namespace jaxmatch {
namespace {

ffi::Error PointsSweepCuda(cudaStream_t stream, ffi::AnyBuffer X,
                           ffi::AnyBuffer u, ffi::AnyBuffer YT,
                           ffi::AnyBuffer v, ffi::Result<ffi::AnyBuffer> cols,
                           ffi::Result<ffi::AnyBuffer> cost,
                           ffi::Result<ffi::AnyBuffer> cost_max, int32_t metric,
                           int32_t negate) {
  LapPointsSweepData s;
  JM_RETURN_IF_ERROR(
      CheckPointsSweep(X, u, YT, v, cols, cost, cost_max, metric, negate, &s));
  return DispatchPoints(X.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    return CudaCheck(
        LaunchPointsSweep<T>(
            stream, static_cast<const T*>(s.X), static_cast<const T*>(s.u),
            static_cast<const T*>(s.YT), static_cast<const T*>(s.v), s.b, s.d,
            s.m, s.k, s.metric, s.negate ? T(-1) : T(1), s.cols,
            static_cast<T*>(s.cost), static_cast<T*>(s.cost_max)),
        "points sweep launch");
  });
}

}  // namespace
}  // namespace jaxmatch

JM_EXPORT_HANDLER(jaxmatch_lap_points_sweep_cuda, jaxmatch::PointsSweepCuda,
                  jaxmatch::BindPointsSweep(
                      jaxmatch::ffi::Ffi::Bind()
                          .Ctx<jaxmatch::ffi::PlatformStream<cudaStream_t>>()),
                  {jaxmatch::ffi::Traits::kCmdBufferCompatible});
