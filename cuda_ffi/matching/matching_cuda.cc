// XLA FFI binding of the CUDA matching kernels (matching_kernels.cu).  Same
// operands as the CPU handlers (matching_ffi.h).
#include <cuda_runtime_api.h>

#include "common/cuda_check.h"
#include "matching/matching_ffi.h"
#include "matching/matching_kernels.h"

namespace jaxmatch {
namespace {

ffi::Error McmFromScratchCuda(cudaStream_t stream, int32_t device,
                              IndexBuffer cxadj, IndexBuffer cadj,
                              IndexBuffer rxadj, IndexBuffer radj,
                              IndexBuffer rm0, IndexBuffer cm0, McmState st,
                              int32_t init, const McmOptions* solve) {
  McmProblem p{};
  JM_RETURN_IF_ERROR(PrepareMcmFromScratch(cxadj, cadj, rxadj, radj, rm0, cm0,
                                           st, init, solve, &p));
  const int* rm = rm0.typed_data();
  const int* cm = cm0.typed_data();
  if (solve)
    return CudaCheck(LaunchMcmSolve(stream, p, init, rm, cm, *solve),
                     "matching solve launch");
  int resident = 0;
  JM_RETURN_IF_ERROR(ResidentBlocks(device, kMcmThreads, &resident));
  return CudaCheck(LaunchMcmInit(stream, p, init, rm, cm, resident),
                   "matching init launch");
}

ffi::Error McmInitCuda(cudaStream_t stream, int32_t device, IndexBuffer cxadj,
                       IndexBuffer cadj, IndexBuffer rxadj, IndexBuffer radj,
                       IndexBuffer rm0, IndexBuffer cm0, IndexResult rm,
                       IndexResult cm, IndexResult info, IndexResult work,
                       int32_t init) {
  return McmFromScratchCuda(stream, device, cxadj, cadj, rxadj, radj, rm0, cm0,
                            {&*rm, &*cm, &*info, &*work}, init, nullptr);
}

ffi::Error McmSolveCuda(cudaStream_t stream, int32_t device, IndexBuffer cxadj,
                        IndexBuffer cadj, IndexBuffer rxadj, IndexBuffer radj,
                        IndexBuffer rm0, IndexBuffer cm0, IndexResult rm,
                        IndexResult cm, IndexResult info, IndexResult work,
                        int32_t init, int32_t driver, int32_t bfs,
                        int32_t max_phases, int32_t hybrid_depth,
                        int32_t auto_free_divisor, int32_t keep_trees_divisor) {
  const McmOptions o = McmOptionsOf(driver, bfs, max_phases, hybrid_depth,
                                    auto_free_divisor, keep_trees_divisor);
  return McmFromScratchCuda(stream, device, cxadj, cadj, rxadj, radj, rm0, cm0,
                            {&*rm, &*cm, &*info, &*work}, init, &o);
}

ffi::Error McmStepCuda(cudaStream_t stream, int32_t device, IndexBuffer cxadj,
                       IndexBuffer cadj, IndexBuffer rxadj, IndexBuffer radj,
                       IndexBuffer rm_in, IndexBuffer cm_in,
                       IndexBuffer info_in, IndexBuffer work_in, IndexResult rm,
                       IndexResult cm, IndexResult info, IndexResult work,
                       int32_t driver, int32_t bfs, int32_t max_phases,
                       int32_t hybrid_depth, int32_t auto_free_divisor,
                       int32_t keep_trees_divisor, int32_t levels,
                       int32_t mapping, int32_t restart_levels) {
  const McmOptions o =
      McmOptionsOf(driver, bfs, max_phases, hybrid_depth, auto_free_divisor,
                   keep_trees_divisor, restart_levels);
  const McmState in{&rm_in, &cm_in, &info_in, &work_in};
  const McmState out{&*rm, &*cm, &*info, &*work};
  McmShape s;
  JM_RETURN_IF_ERROR(
      PrepareMcmStep(cxadj, cadj, rxadj, radj, in, out, o, levels, mapping, &s,
                     [stream](const void* from, void* to, std::size_t bytes) {
                       return CopyIfNotAliased(stream, from, to, bytes);
                     }));
  int resident = 0;
  JM_RETURN_IF_ERROR(ResidentBlocks(device, kMcmThreads, &resident));
  return CudaCheck(
      LaunchMcmStep(stream, McmProblemOf(s, cxadj, cadj, out, &rxadj, &radj), o,
                    mapping, levels, resident),
      "matching step launch");
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

// Every handler enqueues the same work for the same shapes, with no host
// synchronisation: safe to record in a command buffer (CUDA graph).  The
// attribute query of ResidentBlocks runs once per device and is no stream
// operation.
JM_EXPORT_HANDLER(
    jaxmatch_matching_init_cuda, jaxmatch::McmInitCuda,
    jaxmatch::BindMcmInit(ffi::Ffi::Bind()
                              .Ctx<ffi::PlatformStream<cudaStream_t>>()
                              .Ctx<ffi::DeviceOrdinal>()),
    {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(
    jaxmatch_matching_step_cuda, jaxmatch::McmStepCuda,
    jaxmatch::BindMcmStep(ffi::Ffi::Bind()
                              .Ctx<ffi::PlatformStream<cudaStream_t>>()
                              .Ctx<ffi::DeviceOrdinal>()),
    {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(
    jaxmatch_matching_solve_cuda, jaxmatch::McmSolveCuda,
    jaxmatch::BindMcmSolve(ffi::Ffi::Bind()
                               .Ctx<ffi::PlatformStream<cudaStream_t>>()
                               .Ctx<ffi::DeviceOrdinal>()),
    {ffi::Traits::kCmdBufferCompatible});
