// CUDA error plumbing and launch helpers shared by the CUDA bindings.
#pragma once

#include <atomic>
#include <string>

#include <cuda_runtime_api.h>

#include "common/ffi_helpers.h"

namespace jaxmatch {

inline ffi::Error CudaError(cudaError_t err, const char* what) {
  std::string message = std::string("jaxmatch: ") + what +
                        " failed: " + cudaGetErrorName(err) + ": " +
                        cudaGetErrorString(err);
  // The CUDA library holds no code this GPU can run: say where to look.
  if (err == cudaErrorNoKernelImageForDevice)
    message +=
        " (jaxmatch's CUDA library was not compiled for this GPU's "
        "architecture: `jaxmatch info` lists those it holds and how to build "
        "it for this GPU)";
  return ffi::Error(ffi::ErrorCode::kInternal, message);
}

inline ffi::Error CudaCheck(cudaError_t err, const char* what) {
  if (err != cudaSuccess) return CudaError(err, what);
  return ffi::Error::Success();
}

// The step handlers alias their state operands to their results; when XLA
// does not, copy first.
inline ffi::Error CopyIfNotAliased(cudaStream_t stream, const void* in,
                                   void* out, std::size_t bytes) {
  if (in == out || bytes == 0) return ffi::Error::Success();
  return CudaCheck(
      cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, stream),
      "state copy");
}

// Blocks of `threads` threads that device `dev` (the XLA device ordinal of
// the call, ffi::DeviceOrdinal) holds at once (all its SMs full), queried
// once per device and cached.  No stream call: safe while XLA captures the
// stream into a command buffer.
inline ffi::Error ResidentBlocks(int dev, int threads, int* blocks) {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> threads_on_device[kMaxDevices];
  int total = dev >= 0 && dev < kMaxDevices
                  ? threads_on_device[dev].load(std::memory_order_relaxed)
                  : 0;
  if (total == 0) {
    int sms = 0, per_sm = 0;
    JM_RETURN_IF_ERROR(CudaCheck(
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev),
        "cudaDeviceGetAttribute"));
    JM_RETURN_IF_ERROR(
        CudaCheck(cudaDeviceGetAttribute(
                      &per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev),
                  "cudaDeviceGetAttribute"));
    total = sms * per_sm;
    if (dev >= 0 && dev < kMaxDevices)
      threads_on_device[dev].store(total, std::memory_order_relaxed);
  }
  *blocks = total / threads > 0 ? total / threads : 1;
  return ffi::Error::Success();
}

}  // namespace jaxmatch
