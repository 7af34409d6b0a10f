// Helpers shared by the CPU and CUDA FFI bindings: shape checks that treat
// leading dimensions as batch, dtype dispatch, and error plumbing.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "xla/ffi/api/ffi.h"
#include "lap_state.h"

// Handlers are the only exported symbols (the libraries build with hidden
// visibility); jaxmatch/_lib.py looks them up with ctypes.
#define JM_EXPORT_HANDLER(fn, impl, ...)                          \
  extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* \
  fn(XLA_FFI_CallFrame* call_frame);                               \
  XLA_FFI_DEFINE_HANDLER_SYMBOL(fn, impl, __VA_ARGS__)

namespace jaxmatch {

namespace ffi = xla::ffi;

#define JM_RETURN_IF_ERROR(expr)            \
  do {                                      \
    ::xla::ffi::Error _jm_err = (expr);     \
    if (_jm_err.failure()) return _jm_err;  \
  } while (0)

inline ffi::Error InvalidArgument(const std::string& msg) {
  return ffi::Error(ffi::ErrorCode::kInvalidArgument, "jaxmatch: " + msg);
}

// Product of all dimensions but the last `trailing`.
template <class Dims>
inline int64_t BatchSize(const Dims& dims, int trailing) {
  int64_t b = 1;
  for (size_t k = 0; k + trailing < dims.size(); ++k) b *= dims[k];
  return b;
}

// Shapes of one LAP call: C is [..., n, m] with n <= m; the state buffers are
// [..., ilen] and [..., tlen] with the same leading dimensions.
struct LapShape {
  int64_t batch = 0;
  int n = 0, m = 0;
  LapLayout layout{0, 0, kLapTree};
};

inline ffi::Error CheckVariant(int32_t variant) {
  if (variant != kLapTree && variant != kLapClassical)
    return InvalidArgument("unknown LAP variant " + std::to_string(variant));
  return ffi::Error::Success();
}

inline ffi::Error CheckCostDtype(ffi::DataType dt) {
  if (dt != ffi::DataType::F32 && dt != ffi::DataType::F64 &&
      dt != ffi::DataType::S32)
    return InvalidArgument("cost matrix dtype must be float32, float64 or int32");
  return ffi::Error::Success();
}

inline ffi::Error GetLapShape(const ffi::AnyBuffer& C, int32_t variant,
                              LapShape* out) {
  JM_RETURN_IF_ERROR(CheckVariant(variant));
  JM_RETURN_IF_ERROR(CheckCostDtype(C.element_type()));
  auto dims = C.dimensions();
  if (dims.size() < 2)
    return InvalidArgument("cost matrix must have rank >= 2 (got rank " +
                           std::to_string(dims.size()) + ")");
  const int64_t n = dims[dims.size() - 2], m = dims[dims.size() - 1];
  if (n > m)
    return InvalidArgument("kernels expect rows <= columns; the wrapper "
                           "transposes tall matrices");
  if (m >= (int64_t{1} << 30))
    return InvalidArgument("matrix too large for int32 indices");
  out->batch = BatchSize(dims, 2);
  out->n = static_cast<int>(n);
  out->m = static_cast<int>(m);
  out->layout = LapLayout(out->n, out->m, variant);
  return ffi::Error::Success();
}

template <class Buf>
inline ffi::Error CheckStateBuffer(const Buf& buf, const LapShape& s,
                                   std::size_t len, ffi::DataType dtype,
                                   const char* name) {
  auto dims = buf.dimensions();
  if (buf.element_type() != dtype)
    return InvalidArgument(std::string(name) + " has the wrong dtype");
  if (dims.size() < 1 || static_cast<std::size_t>(dims[dims.size() - 1]) != len ||
      BatchSize(dims, 1) != s.batch)
    return InvalidArgument(std::string(name) + " has the wrong shape");
  return ffi::Error::Success();
}

inline ffi::Error CheckLapState(const LapShape& s, ffi::DataType cost_dtype,
                                const ffi::AnyBuffer& istate,
                                const ffi::AnyBuffer& tstate) {
  JM_RETURN_IF_ERROR(CheckStateBuffer(istate, s, s.layout.ilen,
                                      ffi::DataType::S32, "istate"));
  JM_RETURN_IF_ERROR(
      CheckStateBuffer(tstate, s, s.layout.tlen, cost_dtype, "tstate"));
  return ffi::Error::Success();
}

// The two handler signatures, shared by the CPU and CUDA bindings (a CUDA
// binding first adds the stream context):
//   from scratch:  C -> (istate, tstate)                     attr variant
//   step:          (C, istate, tstate) -> (istate, tstate)   attrs variant, iterations
template <class Binding>
auto BindLapFromScratch(Binding b) {
  return std::move(b).template Arg<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Attr<int32_t>("variant");
}

template <class Binding>
auto BindLapStep(Binding b) {
  return std::move(b).template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Attr<int32_t>("variant")
      .template Attr<int32_t>("iterations");
}

// Checks the operands of a step call (state in and out).
inline ffi::Error CheckLapStep(const ffi::AnyBuffer& C, int32_t variant,
                               const ffi::AnyBuffer& istate_in,
                               const ffi::AnyBuffer& tstate_in,
                               const ffi::AnyBuffer& istate,
                               const ffi::AnyBuffer& tstate,
                               int32_t iterations, LapShape* s) {
  JM_RETURN_IF_ERROR(GetLapShape(C, variant, s));
  JM_RETURN_IF_ERROR(CheckLapState(*s, C.element_type(), istate_in, tstate_in));
  JM_RETURN_IF_ERROR(CheckLapState(*s, C.element_type(), istate, tstate));
  if (iterations < 1) return InvalidArgument("iterations must be >= 1");
  return ffi::Error::Success();
}

// Calls f(T{}) with T the C++ type of a cost dtype.
template <class F>
inline ffi::Error DispatchCost(ffi::DataType dt, F&& f) {
  switch (dt) {
    case ffi::DataType::F32: return f(float{});
    case ffi::DataType::F64: return f(double{});
    case ffi::DataType::S32: return f(int32_t{});
    default: return InvalidArgument("unsupported cost dtype");
  }
}

}  // namespace jaxmatch
