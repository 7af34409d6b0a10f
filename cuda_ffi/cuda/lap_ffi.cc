// XLA FFI binding of the CUDA Hungarian LAP kernels (the kernels live in
// lap_kernels.cu).  Same operands as the CPU handlers in cpu/lap_cpu.cc.
#include <cuda_runtime_api.h>

#include "../common/ffi_util.h"
#include "lap_kernels.h"

namespace jaxmatch {
namespace {

ffi::Error CudaError(cudaError_t err, const char* what) {
  return ffi::Error(ffi::ErrorCode::kInternal,
                    std::string("jaxmatch: ") + what + ": " +
                        cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

LapProblemShape ToProblem(const LapShape& s, int variant) {
  return LapProblemShape{s.batch, s.n, s.m, variant,
                         static_cast<int64_t>(s.layout.ilen),
                         static_cast<int64_t>(s.layout.tlen)};
}

ffi::Error LapInitCuda(cudaStream_t stream, ffi::AnyBuffer C,
                       ffi::Result<ffi::AnyBuffer> istate,
                       ffi::Result<ffi::AnyBuffer> tstate, int32_t variant) {
  LapShape s;
  JM_RETURN_IF_ERROR(GetLapShape(C, variant, &s));
  JM_RETURN_IF_ERROR(CheckLapState(s, C.element_type(), *istate, *tstate));
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    cudaError_t err = LaunchLapInit<T>(
        stream, ToProblem(s, variant), static_cast<const T*>(C.untyped_data()),
        static_cast<int*>(istate->untyped_data()),
        static_cast<T*>(tstate->untyped_data()));
    if (err != cudaSuccess) return CudaError(err, "LAP init launch failed");
    return ffi::Error::Success();
  });
}

ffi::Error CopyIfNotAliased(cudaStream_t stream, const ffi::AnyBuffer& in,
                            ffi::AnyBuffer* out) {
  if (in.untyped_data() == out->untyped_data()) return ffi::Error::Success();
  cudaError_t err =
      cudaMemcpyAsync(out->untyped_data(), in.untyped_data(), in.size_bytes(),
                      cudaMemcpyDeviceToDevice, stream);
  if (err != cudaSuccess) return CudaError(err, "state copy failed");
  return ffi::Error::Success();
}

ffi::Error LapStepCuda(cudaStream_t stream, ffi::AnyBuffer C,
                       ffi::AnyBuffer istate_in, ffi::AnyBuffer tstate_in,
                       ffi::Result<ffi::AnyBuffer> istate,
                       ffi::Result<ffi::AnyBuffer> tstate, int32_t variant,
                       int32_t iterations) {
  LapShape s;
  JM_RETURN_IF_ERROR(GetLapShape(C, variant, &s));
  JM_RETURN_IF_ERROR(CheckLapState(s, C.element_type(), istate_in, tstate_in));
  JM_RETURN_IF_ERROR(CheckLapState(s, C.element_type(), *istate, *tstate));
  if (iterations < 1) return InvalidArgument("iterations must be >= 1");
  JM_RETURN_IF_ERROR(CopyIfNotAliased(stream, istate_in, &*istate));
  JM_RETURN_IF_ERROR(CopyIfNotAliased(stream, tstate_in, &*tstate));
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    cudaError_t err = LaunchLapStep<T>(
        stream, ToProblem(s, variant), static_cast<const T*>(C.untyped_data()),
        static_cast<int*>(istate->untyped_data()),
        static_cast<T*>(tstate->untyped_data()), iterations);
    if (err != cudaSuccess) return CudaError(err, "LAP step launch failed");
    return ffi::Error::Success();
  });
}

ffi::Error LapSolveCuda(cudaStream_t stream, ffi::AnyBuffer C,
                        ffi::Result<ffi::AnyBuffer> istate,
                        ffi::Result<ffi::AnyBuffer> tstate, int32_t variant) {
  LapShape s;
  JM_RETURN_IF_ERROR(GetLapShape(C, variant, &s));
  JM_RETURN_IF_ERROR(CheckLapState(s, C.element_type(), *istate, *tstate));
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    cudaError_t err = LaunchLapSolve<T>(
        stream, ToProblem(s, variant), static_cast<const T*>(C.untyped_data()),
        static_cast<int*>(istate->untyped_data()),
        static_cast<T*>(tstate->untyped_data()));
    if (err != cudaSuccess) return CudaError(err, "LAP solve launch failed");
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

// Every handler enqueues the same work for the same shapes, with no host
// synchronisation: safe to record in a command buffer (CUDA graph).
JM_EXPORT_HANDLER(jaxmatch_lap_init_cuda, jaxmatch::LapInitCuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<int32_t>("variant"),
                              {ffi::Traits::kCmdBufferCompatible});

JM_EXPORT_HANDLER(jaxmatch_lap_step_cuda, jaxmatch::LapStepCuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<int32_t>("variant")
                                  .Attr<int32_t>("iterations"),
                              {ffi::Traits::kCmdBufferCompatible});

JM_EXPORT_HANDLER(jaxmatch_lap_solve_cuda, jaxmatch::LapSolveCuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Ret<ffi::AnyBuffer>()
                                  .Attr<int32_t>("variant"),
                              {ffi::Traits::kCmdBufferCompatible});
