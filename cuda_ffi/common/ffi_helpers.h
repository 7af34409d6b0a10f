// Helpers every FFI binding uses (CPU and CUDA, every family): exported
// handler symbols, errors, batch sizes, dtype dispatch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "xla/ffi/api/ffi.h"

// Handlers are the only exported symbols (the libraries build with hidden
// visibility); jaxmatch/_ffi.py looks them up with ctypes.
#define JM_EXPORT_HANDLER(fn, impl, ...)                               \
  extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* fn( \
      XLA_FFI_CallFrame* call_frame);                                  \
  XLA_FFI_DEFINE_HANDLER_SYMBOL(fn, impl, __VA_ARGS__)

namespace jaxmatch {

namespace ffi = xla::ffi;

#define JM_RETURN_IF_ERROR(expr)           \
  do {                                     \
    ::xla::ffi::Error _jm_err = (expr);    \
    if (_jm_err.failure()) return _jm_err; \
  } while (0)

inline ffi::Error InvalidArgument(const std::string& msg) {
  return ffi::Error(ffi::ErrorCode::kInvalidArgument, "jaxmatch: " + msg);
}

// Sides, index pointers, capacities and workspaces stay below this bound:
// the kernels index with int, and grid-stride loops add a stride to an
// index without wrapping.  Exported as COMMON_INDEX_BOUND (jaxmatch/_limits.py
// refuses larger sizes at trace time).
constexpr int64_t kIndexBound = int64_t{1} << 30;

// An error naming `what` when `size` reaches kIndexBound.
inline ffi::Error CheckIndexBound(int64_t size, const std::string& what) {
  if (size >= kIndexBound)
    return InvalidArgument(what + " too large for int32 indices");
  return ffi::Error::Success();
}

// Product of all dimensions but the last `trailing`.
template <class Dims>
inline int64_t BatchSize(const Dims& dims, int trailing) {
  int64_t b = 1;
  for (size_t k = 0; k + trailing < dims.size(); ++k) b *= dims[k];
  return b;
}

// Checks a [..., len] buffer: its dtype, its last dimension and that its
// leading dimensions hold `batch` elements.
inline ffi::Error CheckTrailingBuffer(const ffi::AnyBuffer& buf,
                                      const char* name, ffi::DataType dtype,
                                      int64_t batch, std::size_t len) {
  auto dims = buf.dimensions();
  if (buf.element_type() != dtype)
    return InvalidArgument(std::string(name) + " has the wrong dtype");
  if (dims.size() < 1 ||
      static_cast<std::size_t>(dims[dims.size() - 1]) != len ||
      BatchSize(dims, 1) != batch)
    return InvalidArgument(std::string(name) +
                           " has the wrong shape (expected [..., " +
                           std::to_string(len) + "] with " +
                           std::to_string(batch) + " batch elements)");
  return ffi::Error::Success();
}

// Calls f(T{}) with T the C++ type of a cost dtype.
template <class F>
inline ffi::Error DispatchCost(ffi::DataType dt, F&& f) {
  switch (dt) {
    case ffi::DataType::F32:
      return f(float{});
    case ffi::DataType::F64:
      return f(double{});
    case ffi::DataType::S32:
      return f(int32_t{});
    default:
      return InvalidArgument("unsupported cost dtype");
  }
}

}  // namespace jaxmatch
