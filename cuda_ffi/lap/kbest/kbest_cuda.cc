// The CUDA library's k best assignments (operands, results and attributes in
// kbest_ffi.h, the same as the CPU's): one fused kernel for the whole batch,
// a crew of warps per problem (lap/kbest/kbest_kernels.cu), its nodes and
// queues in XLA's scratch memory.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <string>

#include "common/cuda_check.h"
#include "common/ffi_helpers.h"
#include "lap/kbest/kbest_ffi.h"
#include "lap/kbest/kbest_kernels.h"

namespace jaxmatch {
namespace {

ffi::Error KBestCuda(cudaStream_t stream, ffi::ScratchAllocator scratch,
                     int32_t device, ffi::AnyBuffer C, ffi::AnyBuffer row_cost,
                     ffi::AnyBuffer col_cost,
                     ffi::Result<ffi::AnyBuffer> assignments,
                     ffi::Result<ffi::AnyBuffer> costs,
                     ffi::Result<ffi::AnyBuffer> info, int32_t k,
                     int32_t exits) {
  KBestShape s;
  JM_RETURN_IF_ERROR(CheckKBest(C, row_cost, col_cost, *assignments, *costs,
                                *info, k, exits, &s));
  if (s.batch == 0) return ffi::Error::Success();
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    KBestBatch<T> p;
    p.batch = s.batch;
    p.n = s.n;
    p.m = s.m;
    p.k = s.k;
    p.exits = exits != 0;
    p.C = static_cast<const T*>(C.untyped_data());
    p.row_cost = static_cast<const T*>(row_cost.untyped_data());
    p.col_cost = static_cast<const T*>(col_cost.untyped_data());
    p.assignments = static_cast<int*>(assignments->untyped_data());
    p.costs = static_cast<T*>(costs->untyped_data());
    p.info = static_cast<int*>(info->untyped_data());
    JM_RETURN_IF_ERROR(
        CudaCheck(KBestPlan(device, s.batch, &p.crew), "k best plan"));
    const std::size_t bytes =
        KBestScratchBytes<T>(s.batch, s.n, s.m, s.k, p.crew);
    // 16 bytes: the largest alignment XLA's FFI scratch allocator takes.
    const std::optional<void*> got = scratch.Allocate(bytes, 16);
    if (!got.has_value())
      return ffi::Error(
          ffi::ErrorCode::kResourceExhausted,
          "jaxmatch: k_best_assignments: no " + std::to_string(bytes) +
              " bytes of GPU scratch memory for the ranking's nodes (" +
              std::to_string(KBestCrewBytes<T>(s.n, s.m, s.k, p.crew)) +
              " bytes per problem ranked at once, up to " +
              std::to_string(kKBestMaxCrews) +
              "); use a smaller k or batch, or run it on the CPU");
    return CudaCheck(LaunchKBest<T>(stream, p, *got), "k best launch");
  });
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

// Not kCmdBufferCompatible: its scratch memory is XLA's for the call only,
// which a recorded command buffer would outlive.
JM_EXPORT_HANDLER(
    jaxmatch_lap_k_best_cuda, jaxmatch::KBestCuda,
    jaxmatch::BindKBest(ffi::Ffi::Bind()
                            .Ctx<ffi::PlatformStream<cudaStream_t>>()
                            .Ctx<ffi::ScratchAllocator>()
                            .Ctx<ffi::DeviceOrdinal>()));
