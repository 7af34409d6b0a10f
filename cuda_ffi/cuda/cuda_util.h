// CUDA error plumbing shared by the FFI bindings.
#pragma once

#include <string>

#include <cuda_runtime_api.h>

#include "../common/ffi_util.h"

namespace jaxmatch {

inline ffi::Error CudaError(cudaError_t err, const char* what) {
  return ffi::Error(ffi::ErrorCode::kInternal,
                    std::string("jaxmatch: ") + what + ": " +
                        cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

inline ffi::Error CudaCheck(cudaError_t err, const char* what) {
  if (err != cudaSuccess) return CudaError(err, what);
  return ffi::Error::Success();
}

// The step handlers alias their state operand to their result; when XLA
// does not, copy first.
inline ffi::Error CopyIfNotAliased(cudaStream_t stream, const ffi::AnyBuffer& in,
                                   ffi::AnyBuffer* out) {
  if (in.untyped_data() == out->untyped_data()) return ffi::Error::Success();
  return CudaCheck(
      cudaMemcpyAsync(out->untyped_data(), in.untyped_data(), in.size_bytes(),
                      cudaMemcpyDeviceToDevice, stream),
      "state copy failed");
}

}  // namespace jaxmatch
