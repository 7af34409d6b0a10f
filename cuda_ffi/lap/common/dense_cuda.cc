// CUDA handlers of the dense LAP targets (operands in dense_ffi.h, the same
// as the CPU's): the attribute `variant` picks the Hungarian kernels
// (lap/hungarian/hungarian_kernels.cu) or JV's (lap/jv/jv_kernels.cu); the
// unassigned-cost target runs JV's.  The sparse target is in
// lap/sparse/sparse_cuda.cc.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <string>

#include "common/cuda_check.h"
#include "lap/common/dense_ffi.h"
#include "lap/hungarian/hungarian_kernels.h"
#include "lap/jv/jv_kernels.h"

namespace jaxmatch {
namespace {

// The error of a problem wider than GPU JV's block takes (LapJvFits): `who`
// solves it, `advice` (from a space, or empty) says what to do instead.
ffi::Error JvTooWide(const char* who, int n, int m, const char* advice) {
  return InvalidArgument(
      std::string(who) + " on a GPU solves each problem in one block of " +
      std::to_string(kLapJvBlockThreads) + " threads, each owning at most " +
      "64 columns: up to " + std::to_string(kLapJvMaxColumns) +
      " columns (the larger side); got " + std::to_string(n) + " x " +
      std::to_string(m) + "." + advice);
}

// Initialises every batch member, from the warm start x0, v0
// (lap/common/dense_ffi.h) when given (`auction`: LapProblem::warm_auction),
// and, when `solve`, runs the whole solve (fused kernel; JV by a warp, a block
// or a cluster per problem for variant kLapJv).
ffi::Error LapStartCuda(cudaStream_t stream, ffi::AnyBuffer C,
                        const ffi::AnyBuffer* x0, const ffi::AnyBuffer* v0,
                        ffi::RemainingRets rets, int32_t variant,
                        int32_t max_iterations, bool solve,
                        bool auction = false) {
  LapShape s;
  LapStateData out;
  if (!solve)
    JM_RETURN_IF_ERROR(CheckSteppedVariant(variant, "in a stepped solve"));
  JM_RETURN_IF_ERROR(
      CheckSolveStart(C, variant, max_iterations, rets, &s, &out));
  if (x0 != nullptr) {
    JM_RETURN_IF_ERROR(CheckLapWarm(s, C.element_type(), *x0, *v0));
  }
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    LapProblem<T> p = LapProblemOf<T>(s, C, out);
    if (x0 != nullptr) SetLapWarm(*x0, *v0, &p);
    p.warm_auction = p.x0 != nullptr && auction;
    if (variant == kLapJv) {
      if (!LapJvFits(s.n, s.m))
        return JvTooWide("method 'jv'", s.n, s.m,
                         " Use method 'tree' or 'auto'.");
      return CudaCheck(LaunchLapJvSolve<T>(stream, p), "LAP JV launch");
    }
    if (solve)
      return CudaCheck(LaunchLapSolve<T>(stream, p), "LAP solve launch");
    return CudaCheck(LaunchLapInit<T>(stream, p), "LAP init launch");
  });
}

ffi::Error LapInitCuda(cudaStream_t stream, ffi::AnyBuffer C,
                       ffi::RemainingRets rets, int32_t variant,
                       int32_t max_iterations) {
  return LapStartCuda(stream, C, nullptr, nullptr, rets, variant,
                      max_iterations, false);
}

ffi::Error LapSolveCuda(cudaStream_t stream, ffi::AnyBuffer C,
                        ffi::RemainingRets rets, int32_t variant,
                        int32_t max_iterations) {
  return LapStartCuda(stream, C, nullptr, nullptr, rets, variant,
                      max_iterations, true);
}

ffi::Error LapStepCuda(cudaStream_t stream, ffi::AnyBuffer C,
                       ffi::RemainingArgs args, ffi::RemainingRets rets,
                       int32_t variant, int32_t iterations) {
  LapShape s;
  LapStateData in, out;
  JM_RETURN_IF_ERROR(
      CheckLapStep(C, variant, args, rets, iterations, &s, &in, &out));
  for (int k = 0; k < kLapStateBuffers; ++k) {
    JM_RETURN_IF_ERROR(
        CopyIfNotAliased(stream, in.data[k], out.data[k], in.bytes[k]));
  }
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    return CudaCheck(
        LaunchLapStep<T>(stream, LapProblemOf<T>(s, C, out), iterations),
        "LAP step launch");
  });
}

ffi::Error LapSolveWarmCuda(cudaStream_t stream, ffi::AnyBuffer C,
                            ffi::AnyBuffer x0, ffi::AnyBuffer v0,
                            ffi::RemainingRets rets, int32_t max_iterations,
                            int32_t variant, int32_t auction) {
  return LapStartCuda(stream, C, &x0, &v0, rets, variant, max_iterations, true,
                      auction != 0);
}

// The stepped solve's initialisation (the tree variant or the classical
// one): no auction.
ffi::Error LapInitWarmCuda(cudaStream_t stream, ffi::AnyBuffer C,
                           ffi::AnyBuffer x0, ffi::AnyBuffer v0,
                           ffi::RemainingRets rets, int32_t max_iterations,
                           int32_t variant, int32_t /*auction*/) {
  return LapStartCuda(stream, C, &x0, &v0, rets, variant, max_iterations,
                      false);
}

// Unassigned costs (operands in dense_ffi.h): JV with a price for leaving each
// row and column unassigned, a warp or a block per problem
// (lap/jv/jv_kernels.cu), rows <= columns (the wrapper transposes a tall
// problem and swaps the prices).  A block's state lives in XLA's scratch
// memory.
ffi::Error LapSolveUnassignedCuda(
    cudaStream_t stream, ffi::ScratchAllocator scratch, ffi::AnyBuffer C,
    ffi::AnyBuffer row_cost, ffi::AnyBuffer col_cost,
    ffi::Result<ffi::AnyBuffer> col_for_row,
    ffi::Result<ffi::AnyBuffer> row_for_col, ffi::Result<ffi::AnyBuffer> u,
    ffi::Result<ffi::AnyBuffer> v, ffi::Result<ffi::AnyBuffer> info,
    int32_t max_iterations) {
  LapUnassignedShape s;
  JM_RETURN_IF_ERROR(CheckLapUnassigned(C, row_cost, col_cost, *col_for_row,
                                        *row_for_col, *u, *v, *info,
                                        max_iterations, &s));
  if (s.n > s.m)
    return InvalidArgument(
        "kernels expect rows <= columns; the wrapper transposes tall "
        "matrices");
  if (!LapJvFits(s.n, s.m))
    return JvTooWide("JV with unassigned costs", s.n, s.m, "");
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    LapExitProblem<T> p;
    p.batch = s.batch;
    p.n = s.n;
    p.m = s.m;
    p.variant = kLapJv;
    p.C = static_cast<const T*>(C.untyped_data());
    p.base = LapBuffers<T>{static_cast<int*>(info->untyped_data()),
                           static_cast<int*>(col_for_row->untyped_data()),
                           static_cast<int*>(row_for_col->untyped_data()),
                           static_cast<T*>(u->untyped_data()),
                           static_cast<T*>(v->untyped_data()),
                           nullptr,
                           nullptr};
    p.max_iters = max_iterations;
    p.row_cost = static_cast<const T*>(row_cost.untyped_data());
    p.col_cost = static_cast<const T*>(col_cost.untyped_data());
    void* work = nullptr;
    const std::size_t bytes = LapJvUnassignedScratchBytes<T>(s.batch, s.n, s.m);
    if (bytes > 0) {
      // 16 bytes: the largest alignment XLA's FFI scratch allocator takes
      // (a larger one is refused); the state's arrays need 8.
      const std::optional<void*> got = scratch.Allocate(bytes, 16);
      if (!got.has_value())
        return ffi::Error(ffi::ErrorCode::kResourceExhausted,
                          "jaxmatch: unassigned costs: no " +
                              std::to_string(bytes) +
                              " bytes of scratch memory for JV's state");
      work = *got;
    }
    return CudaCheck(LaunchLapJvUnassigned<T>(stream, p, work),
                     "LAP JV (unassigned costs) launch");
  });
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

// These handlers enqueue the same work for the same shapes, with no host
// synchronisation: safe to record in a command buffer (CUDA graph).
JM_EXPORT_HANDLER(
    jaxmatch_lap_init_cuda, jaxmatch::LapInitCuda,
    jaxmatch::BindLapFromScratch(
        ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
    {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(
    jaxmatch_lap_step_cuda, jaxmatch::LapStepCuda,
    jaxmatch::BindLapStep(
        ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
    {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(
    jaxmatch_lap_solve_warm_cuda, jaxmatch::LapSolveWarmCuda,
    jaxmatch::BindLapWarm(
        ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
    {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(
    jaxmatch_lap_init_warm_cuda, jaxmatch::LapInitWarmCuda,
    jaxmatch::BindLapWarm(
        ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
    {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(
    jaxmatch_lap_solve_cuda, jaxmatch::LapSolveCuda,
    jaxmatch::BindLapFromScratch(
        ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
    {ffi::Traits::kCmdBufferCompatible});
// Not this one: its scratch memory is XLA's for the call only, which a
// recorded command buffer would outlive.
JM_EXPORT_HANDLER(
    jaxmatch_lap_solve_unassigned_cuda, jaxmatch::LapSolveUnassignedCuda,
    jaxmatch::BindLapUnassigned(ffi::Ffi::Bind()
                                    .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                    .Ctx<ffi::ScratchAllocator>()));
