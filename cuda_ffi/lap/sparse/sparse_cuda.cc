// XLA FFI binding of the CUDA sparse (CSR) LAP kernel (csr_kernels.cu).
// Same operands as the CPU handler (csr_ffi.h).
#include <cuda_runtime_api.h>

#include "common/cuda_check.h"
#include "lap/sparse/csr_ffi.h"
#include "lap/sparse/csr_kernels.h"

namespace jaxmatch {
namespace {

// The sparse LAP: the tree variant of lap/sparse/csr_steps.h (JV runs on the
// CPU only).
ffi::Error LapCsrSolveCuda(cudaStream_t stream, ffi::AnyBuffer indptr,
                           ffi::AnyBuffer indices, ffi::AnyBuffer cost,
                           ffi::RemainingRets rets, int32_t variant) {
  JM_RETURN_IF_ERROR(CheckLapCsrVariant(variant));
  if (variant == kLapJv)
    return InvalidArgument(
        "jaxmatch: a SparseCosts solve's method 'jv' runs on the CPU only, not "
        "in a GPU computation; use method 'tree' or 'auto' there");
  LapCsrShape s;
  JM_RETURN_IF_ERROR(CheckLapCsr(indptr, indices, cost, rets, &s));
  return DispatchCost(cost.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    return CudaCheck(LaunchLapCsrSolve<T>(
                         stream, LapCsrProblemOf<T>(s, indptr, indices, cost)),
                     "sparse LAP solve launch");
  });
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

// Enqueues the same work for the same shapes, with no host synchronisation:
// safe to record in a command buffer (CUDA graph).
JM_EXPORT_HANDLER(
    jaxmatch_lap_csr_solve_cuda, jaxmatch::LapCsrSolveCuda,
    jaxmatch::BindLapCsrSolve(
        ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
    {ffi::Traits::kCmdBufferCompatible});
