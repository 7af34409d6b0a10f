// XLA FFI binding of the CUDA sparse (CSR) LAP kernel (csr_kernels.cu).
// Same operands as the CPU handler (csr_ffi.h).
#include <cuda_runtime_api.h>

#include "common/cuda_check.h"
#include "lap/sparse/csr_ffi.h"
#include "lap/sparse/csr_kernels.h"

namespace jaxmatch {
namespace {

// The sparse LAP: the tree variant of lap/sparse/csr_steps.h (JV runs on the
// CPU only); with unassigned costs (row_cost and col_cost not null) every
// row and column may stay unassigned at its price.
ffi::Error RunLapCsrCuda(cudaStream_t stream, const ffi::AnyBuffer& indptr,
                         const ffi::AnyBuffer& indices,
                         const ffi::AnyBuffer& cost, ffi::RemainingRets& rets,
                         int32_t variant, const ffi::AnyBuffer* row_cost,
                         const ffi::AnyBuffer* col_cost) {
  JM_RETURN_IF_ERROR(CheckLapCsrVariant(variant));
  if (variant == kLapJv)
    return InvalidArgument(
        "jaxmatch: a SparseCosts solve's method 'jv' runs on the CPU only, not "
        "in a GPU computation; use method 'tree' or 'auto' there");
  LapCsrShape s;
  JM_RETURN_IF_ERROR(CheckLapCsr(indptr, indices, cost, rets, &s));
  if (row_cost != nullptr)
    JM_RETURN_IF_ERROR(CheckLapCsrPrices(cost, *row_cost, *col_cost, s));
  return DispatchCost(cost.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    LapCsrProblem<T> problem = LapCsrProblemOf<T>(s, indptr, indices, cost);
    if (row_cost != nullptr) {
      problem.row_cost = static_cast<const T*>(row_cost->untyped_data());
      problem.col_cost = static_cast<const T*>(col_cost->untyped_data());
    }
    return CudaCheck(LaunchLapCsrSolve<T>(stream, problem),
                     "sparse LAP solve launch");
  });
}

ffi::Error LapCsrSolveCuda(cudaStream_t stream, ffi::AnyBuffer indptr,
                           ffi::AnyBuffer indices, ffi::AnyBuffer cost,
                           ffi::RemainingRets rets, int32_t variant) {
  return RunLapCsrCuda(stream, indptr, indices, cost, rets, variant, nullptr,
                       nullptr);
}

ffi::Error LapCsrSolveUnassignedCuda(cudaStream_t stream, ffi::AnyBuffer indptr,
                                     ffi::AnyBuffer indices,
                                     ffi::AnyBuffer cost,
                                     ffi::AnyBuffer row_cost,
                                     ffi::AnyBuffer col_cost,
                                     ffi::RemainingRets rets, int32_t variant) {
  return RunLapCsrCuda(stream, indptr, indices, cost, rets, variant, &row_cost,
                       &col_cost);
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
JM_EXPORT_HANDLER(
    jaxmatch_lap_csr_solve_unassigned_cuda, jaxmatch::LapCsrSolveUnassignedCuda,
    jaxmatch::BindLapCsrSolveUnassigned(
        ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
    {ffi::Traits::kCmdBufferCompatible});
