// The tables each family's FFI code lists in <family>/registrations.h, and
// that library.cc aggregates and exports (the model of jaxlib's
// registrations()): its FFI targets per platform, each the name XLA calls it
// by and its handler, and its named constants (status and option codes,
// info slots, limits).
#pragma once

#include <cstddef>
#include <cstdint>

#include "xla/ffi/api/c_api.h"

// Declares the handler `fn` that a binding defines with JM_EXPORT_HANDLER
// (common/ffi_helpers.h), for a family's table of targets.
#define JM_DECLARE_HANDLER(fn) \
  extern "C" XLA_FFI_Error* fn(XLA_FFI_CallFrame* call_frame)

namespace jaxmatch {

// One FFI target: the name XLA calls it by, and its handler.
struct FfiTarget {
  const char* name;
  XLA_FFI_Handler* handler;
};

// One named constant.
struct NamedConstant {
  const char* name;
  int64_t value;
};

// A family's table, by address and length.
template <class E>
struct TableRef {
  const E* data;
  int size;
};

template <class E, std::size_t N>
constexpr TableRef<E> Table(const E (&table)[N]) {
  return TableRef<E>{table, static_cast<int>(N)};
}

}  // namespace jaxmatch
