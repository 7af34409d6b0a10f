// XLA FFI binding of the CUDA Hungarian LAP kernels (the kernels live in
// lap_kernels.cu).  Same operands as the CPU handlers in cpu/lap_cpu.cc.
#include <cuda_runtime_api.h>

#include "../common/ffi_util.h"
#include "cuda_util.h"
#include "lap_kernels.h"

namespace jaxmatch {
namespace {

LapProblemShape ToProblem(const LapShape& s, int variant) {
  return LapProblemShape{s.batch, s.n, s.m, variant,
                         static_cast<int64_t>(s.layout.ilen),
                         static_cast<int64_t>(s.layout.tlen)};
}

// Calls launch(T{}, problem, C, istate, tstate) for the cost dtype of C.
template <class Launch>
ffi::Error DispatchLaunch(const ffi::AnyBuffer& C, const LapShape& s,
                          int32_t variant, ffi::AnyBuffer& istate,
                          ffi::AnyBuffer& tstate, const char* what,
                          Launch&& launch) {
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    cudaError_t err = launch(zero, ToProblem(s, variant),
                             static_cast<const T*>(C.untyped_data()),
                             static_cast<int*>(istate.untyped_data()),
                             static_cast<T*>(tstate.untyped_data()));
    if (err != cudaSuccess) return CudaError(err, what);
    return ffi::Error::Success();
  });
}

// Initialises the state of every batch member and, when `solve`, runs the
// whole solve (fused kernel).
ffi::Error LapFromScratchCuda(cudaStream_t stream, ffi::AnyBuffer C,
                              ffi::Result<ffi::AnyBuffer> istate,
                              ffi::Result<ffi::AnyBuffer> tstate,
                              int32_t variant, bool solve) {
  LapShape s;
  JM_RETURN_IF_ERROR(GetLapShape(C, variant, &s));
  JM_RETURN_IF_ERROR(CheckLapState(s, C.element_type(), *istate, *tstate));
  return DispatchLaunch(
      C, s, variant, *istate, *tstate,
      solve ? "LAP solve launch failed" : "LAP init launch failed",
      [&](auto zero, const LapProblemShape& p, const auto* c, int* is,
          auto* ts) {
        using T = decltype(zero);
        return solve ? LaunchLapSolve<T>(stream, p, c, is, ts)
                     : LaunchLapInit<T>(stream, p, c, is, ts);
      });
}

ffi::Error LapInitCuda(cudaStream_t stream, ffi::AnyBuffer C,
                       ffi::Result<ffi::AnyBuffer> istate,
                       ffi::Result<ffi::AnyBuffer> tstate, int32_t variant) {
  return LapFromScratchCuda(stream, C, istate, tstate, variant, false);
}

ffi::Error LapSolveCuda(cudaStream_t stream, ffi::AnyBuffer C,
                        ffi::Result<ffi::AnyBuffer> istate,
                        ffi::Result<ffi::AnyBuffer> tstate, int32_t variant) {
  return LapFromScratchCuda(stream, C, istate, tstate, variant, true);
}

ffi::Error LapStepCuda(cudaStream_t stream, ffi::AnyBuffer C,
                       ffi::AnyBuffer istate_in, ffi::AnyBuffer tstate_in,
                       ffi::Result<ffi::AnyBuffer> istate,
                       ffi::Result<ffi::AnyBuffer> tstate, int32_t variant,
                       int32_t iterations) {
  LapShape s;
  JM_RETURN_IF_ERROR(CheckLapStep(C, variant, istate_in, tstate_in, *istate,
                                  *tstate, iterations, &s));
  JM_RETURN_IF_ERROR(CopyIfNotAliased(stream, istate_in, &*istate));
  JM_RETURN_IF_ERROR(CopyIfNotAliased(stream, tstate_in, &*tstate));
  return DispatchLaunch(
      C, s, variant, *istate, *tstate, "LAP step launch failed",
      [&](auto zero, const LapProblemShape& p, const auto* c, int* is,
          auto* ts) {
        using T = decltype(zero);
        return LaunchLapStep<T>(stream, p, c, is, ts, iterations);
      });
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

// Every handler enqueues the same work for the same shapes, with no host
// synchronisation: safe to record in a command buffer (CUDA graph).
JM_EXPORT_HANDLER(jaxmatch_lap_init_cuda, jaxmatch::LapInitCuda,
                  jaxmatch::BindLapFromScratch(
                      ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
                  {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(jaxmatch_lap_step_cuda, jaxmatch::LapStepCuda,
                  jaxmatch::BindLapStep(
                      ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
                  {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(jaxmatch_lap_solve_cuda, jaxmatch::LapSolveCuda,
                  jaxmatch::BindLapFromScratch(
                      ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
                  {ffi::Traits::kCmdBufferCompatible});
