// XLA FFI binding of the split LAP's CUDA kernels (lap/split/split_kernels.cu).
// Same operands as the CPU handlers (lap/split/split_ffi.h).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/cuda_check.h"
#include "lap/split/split_ffi.h"
#include "lap/split/split_kernels.h"

namespace jaxmatch {
namespace {

ffi::Error SplitScanCuda(cudaStream_t stream, ffi::AnyBuffer C,
                         ffi::AnyBuffer u, ffi::AnyBuffer row_D,
                         ffi::AnyBuffer plist, ffi::AnyBuffer info,
                         ffi::Result<ffi::AnyBuffer> best,
                         ffi::Result<ffi::AnyBuffer> arg) {
  LapSplitScanData s;
  JM_RETURN_IF_ERROR(CheckSplitScan(C, u, row_D, plist, info, best, arg, &s));
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    return CudaCheck(LaunchSplitScan<T>(stream, static_cast<const T*>(s.C),
                                        s.nl, s.m, static_cast<const T*>(s.u),
                                        static_cast<const T*>(s.row_D), s.plist,
                                        s.info, static_cast<T*>(s.best), s.arg),
                     "split LAP scan launch");
  });
}

ffi::Error SplitUpdateCuda(cudaStream_t stream, ffi::AnyBuffer C,
                           ffi::AnyBuffer bests, ffi::AnyBuffer args,
                           ffi::RemainingArgs state, ffi::RemainingRets rets,
                           int32_t n, int32_t max_iterations) {
  LapSplitUpdateData s;
  JM_RETURN_IF_ERROR(
      CheckSplitUpdate(C, bests, args, state, rets, n, max_iterations, &s));
  if (reinterpret_cast<std::uintptr_t>(s.out[kSplitStateBuffers - 1]) % 8 != 0)
    return InvalidArgument("split LAP: info must be 8-byte aligned");
  for (int k = 0; k < kSplitStateBuffers; ++k)
    JM_RETURN_IF_ERROR(CopyIfNotAliased(stream, s.in[k], s.out[k], s.bytes[k]));
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    return CudaCheck(LaunchSplitUpdate<T>(stream, SplitViewOf<T>(s)),
                     "split LAP update launch");
  });
}

}  // namespace
}  // namespace jaxmatch

JM_EXPORT_HANDLER(jaxmatch_lap_split_scan_cuda, jaxmatch::SplitScanCuda,
                  jaxmatch::BindSplitScan(
                      jaxmatch::ffi::Ffi::Bind()
                          .Ctx<jaxmatch::ffi::PlatformStream<cudaStream_t>>()),
                  {jaxmatch::ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(jaxmatch_lap_split_update_cuda, jaxmatch::SplitUpdateCuda,
                  jaxmatch::BindSplitUpdate(
                      jaxmatch::ffi::Ffi::Bind()
                          .Ctx<jaxmatch::ffi::PlatformStream<cudaStream_t>>()),
                  {jaxmatch::ffi::Traits::kCmdBufferCompatible});
