// XLA FFI binding of the CUDA weighted matching kernels
// (weighted_kernels.cu) and b-Suitor's (b_suitor_kernels.cu).  Same operands as
// the CPU handlers (weighted_ffi.h).
#include <cuda_runtime_api.h>

#include "common/cuda_check.h"
#include "weighted/weighted_ffi.h"
#include "weighted/weighted_kernels.h"

namespace jaxmatch {
namespace {

ffi::Error WmInitCuda(cudaStream_t stream, int32_t device, WmIndexBuffer xadj,
                      WmIndexBuffer adj, WmKeyBuffer key, WmIndexResult mate,
                      WmIndexResult mate_edge, WmIndexResult info,
                      WmIndexResult work) {
  WmProblem problem{};
  JM_RETURN_IF_ERROR(PrepareWmInit(
      xadj, adj, key, {&*mate, &*mate_edge, &*info, &*work}, &problem));
  int resident = 0;
  JM_RETURN_IF_ERROR(ResidentBlocks(device, kWmThreads, &resident));
  return CudaCheck(LaunchWmInit(stream, problem, resident),
                   "weighted matching init launch");
}

ffi::Error WmStepCuda(cudaStream_t stream, int32_t device, WmIndexBuffer xadj,
                      WmIndexBuffer adj, WmKeyBuffer key, WmIndexBuffer mate_in,
                      WmIndexBuffer mate_edge_in, WmIndexBuffer info_in,
                      WmIndexBuffer work_in, WmIndexResult mate,
                      WmIndexResult mate_edge, WmIndexResult info,
                      WmIndexResult work, int32_t method, int32_t rounds) {
  const WmState in{&mate_in, &mate_edge_in, &info_in, &work_in};
  const WmState out{&*mate, &*mate_edge, &*info, &*work};
  WmProblem problem{};
  JM_RETURN_IF_ERROR(
      PrepareWmStep(xadj, adj, key, in, out, method, rounds, &problem,
                    [stream](const void* from, void* to, std::size_t bytes) {
                      return CopyIfNotAliased(stream, from, to, bytes);
                    }));
  int resident = 0;
  JM_RETURN_IF_ERROR(ResidentBlocks(device, kWmThreads, &resident));
  return CudaCheck(LaunchWmStep(stream, problem, method, rounds, resident),
                   "weighted matching step launch");
}

ffi::Error BmInitCuda(cudaStream_t stream, int32_t device, WmIndexBuffer xadj,
                      WmIndexBuffer adj, WmKeyBuffer key, WmIndexBuffer b,
                      WmIndexResult mark, WmIndexResult degree,
                      WmIndexResult info, WmIndexResult work) {
  BmProblem problem{};
  JM_RETURN_IF_ERROR(PrepareBmInit(
      xadj, adj, key, b, {&*mark, &*degree, &*info, &*work}, &problem));
  int resident = 0;
  JM_RETURN_IF_ERROR(ResidentBlocks(device, kWmThreads, &resident));
  return CudaCheck(LaunchBmInit(stream, problem, resident),
                   "b-matching init launch");
}

ffi::Error BmStepCuda(cudaStream_t stream, int32_t device, WmIndexBuffer xadj,
                      WmIndexBuffer adj, WmKeyBuffer key, WmIndexBuffer mark_in,
                      WmIndexBuffer degree_in, WmIndexBuffer info_in,
                      WmIndexBuffer work_in, WmIndexResult mark,
                      WmIndexResult degree, WmIndexResult info,
                      WmIndexResult work) {
  const WmState in{&mark_in, &degree_in, &info_in, &work_in};
  const WmState out{&*mark, &*degree, &*info, &*work};
  BmProblem problem{};
  JM_RETURN_IF_ERROR(
      PrepareBmStep(xadj, adj, key, in, out, &problem,
                    [stream](const void* from, void* to, std::size_t bytes) {
                      return CopyIfNotAliased(stream, from, to, bytes);
                    }));
  int resident = 0;
  JM_RETURN_IF_ERROR(ResidentBlocks(device, kWmThreads, &resident));
  return CudaCheck(LaunchBmStep(stream, problem, resident),
                   "b-matching step launch");
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

// Every handler enqueues the same work for the same shapes, with no host
// synchronisation: safe to record in a command buffer (CUDA graph).
JM_EXPORT_HANDLER(
    jaxmatch_weighted_init_cuda, jaxmatch::WmInitCuda,
    jaxmatch::BindWmInit(ffi::Ffi::Bind()
                             .Ctx<ffi::PlatformStream<cudaStream_t>>()
                             .Ctx<ffi::DeviceOrdinal>()),
    {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(
    jaxmatch_weighted_step_cuda, jaxmatch::WmStepCuda,
    jaxmatch::BindWmStep(ffi::Ffi::Bind()
                             .Ctx<ffi::PlatformStream<cudaStream_t>>()
                             .Ctx<ffi::DeviceOrdinal>()),
    {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(
    jaxmatch_weighted_b_init_cuda, jaxmatch::BmInitCuda,
    jaxmatch::BindBmInit(ffi::Ffi::Bind()
                             .Ctx<ffi::PlatformStream<cudaStream_t>>()
                             .Ctx<ffi::DeviceOrdinal>()),
    {ffi::Traits::kCmdBufferCompatible});
JM_EXPORT_HANDLER(
    jaxmatch_weighted_b_step_cuda, jaxmatch::BmStepCuda,
    jaxmatch::BindBmStep(ffi::Ffi::Bind()
                             .Ctx<ffi::PlatformStream<cudaStream_t>>()
                             .Ctx<ffi::DeviceOrdinal>()),
    {ffi::Traits::kCmdBufferCompatible});
