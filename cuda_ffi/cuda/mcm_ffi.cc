// XLA FFI binding of the CUDA matching kernels (the kernels live in
// mcm_kernels.cu).  Same operands as the CPU handlers in cpu/mcm_cpu.cc.
#include <cuda_runtime_api.h>

#include "../common/mcm_ffi.h"
#include "cuda_util.h"
#include "mcm_kernels.h"

namespace jaxmatch {
namespace {

McmProblem ProblemOf(const McmShape& s, const ffi::AnyBuffer& cxadj,
                     const ffi::AnyBuffer& cadj, ffi::AnyBuffer& state) {
  return McmProblem{s.batch,
                    s.nr,
                    s.nc,
                    s.cap,
                    static_cast<int64_t>(s.len),
                    static_cast<const int*>(cxadj.untyped_data()),
                    static_cast<const int*>(cadj.untyped_data()),
                    static_cast<int*>(state.untyped_data())};
}

ffi::Error McmFromScratchCuda(cudaStream_t stream, ffi::AnyBuffer cxadj,
                              ffi::AnyBuffer cadj, ffi::AnyBuffer rm0,
                              ffi::AnyBuffer cm0,
                              ffi::Result<ffi::AnyBuffer> state, int32_t init,
                              const McmOptions* solve) {
  McmShape s;
  JM_RETURN_IF_ERROR(GetMcmShape(cxadj, cadj, *state, &s));
  JM_RETURN_IF_ERROR(CheckWarmStart(s, rm0, cm0));
  const McmProblem p = ProblemOf(s, cxadj, cadj, *state);
  const int* rm = static_cast<const int*>(rm0.untyped_data());
  const int* cm = static_cast<const int*>(cm0.untyped_data());
  if (solve)
    return CudaCheck(LaunchMcmSolve(stream, p, init, rm, cm, *solve),
                     "matching solve launch failed");
  return CudaCheck(LaunchMcmInit(stream, p, init, rm, cm),
                   "matching init launch failed");
}

ffi::Error McmInitCuda(cudaStream_t stream, ffi::AnyBuffer cxadj,
                       ffi::AnyBuffer cadj, ffi::AnyBuffer rm0,
                       ffi::AnyBuffer cm0, ffi::Result<ffi::AnyBuffer> state,
                       int32_t init) {
  JM_RETURN_IF_ERROR(CheckMcmOptions(init, kMcmApfb, kMcmBfsWr, 1));
  return McmFromScratchCuda(stream, cxadj, cadj, rm0, cm0, state, init,
                            nullptr);
}

ffi::Error McmSolveCuda(cudaStream_t stream, ffi::AnyBuffer cxadj,
                        ffi::AnyBuffer cadj, ffi::AnyBuffer rm0,
                        ffi::AnyBuffer cm0, ffi::Result<ffi::AnyBuffer> state,
                        int32_t init, int32_t driver, int32_t bfs,
                        int32_t max_phases) {
  JM_RETURN_IF_ERROR(CheckMcmOptions(init, driver, bfs, max_phases));
  const McmOptions o{driver, bfs, max_phases};
  return McmFromScratchCuda(stream, cxadj, cadj, rm0, cm0, state, init, &o);
}

ffi::Error McmStepCuda(cudaStream_t stream, ffi::AnyBuffer cxadj,
                       ffi::AnyBuffer cadj, ffi::AnyBuffer state_in,
                       ffi::Result<ffi::AnyBuffer> state, int32_t driver,
                       int32_t bfs, int32_t max_phases, int32_t levels,
                       int32_t mapping) {
  JM_RETURN_IF_ERROR(CheckMcmOptions(kMcmInitNone, driver, bfs, max_phases));
  JM_RETURN_IF_ERROR(CheckMcmStep(levels, mapping));
  McmShape s;
  JM_RETURN_IF_ERROR(GetMcmShape(cxadj, cadj, state_in, &s));
  JM_RETURN_IF_ERROR(GetMcmShape(cxadj, cadj, *state, &s));
  JM_RETURN_IF_ERROR(CopyIfNotAliased(stream, state_in, &*state));
  const McmOptions o{driver, bfs, max_phases};
  return CudaCheck(
      LaunchMcmStep(stream, ProblemOf(s, cxadj, cadj, *state), o, mapping,
                    levels),
      "matching step launch failed");
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

// Every handler enqueues the same work for the same shapes, with no host
// synchronisation: safe to record in a command buffer (CUDA graph).
JM_EXPORT_HANDLER(jaxmatch_mcm_init_cuda, jaxmatch::McmInitCuda,
                  jaxmatch::BindMcmInit(
                      ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
                  {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(jaxmatch_mcm_step_cuda, jaxmatch::McmStepCuda,
                  jaxmatch::BindMcmStep(
                      ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
                  {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(jaxmatch_mcm_solve_cuda, jaxmatch::McmSolveCuda,
                  jaxmatch::BindMcmSolve(
                      ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()),
                  {ffi::Traits::kCmdBufferCompatible});
