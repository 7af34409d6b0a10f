// The k best assignments' FFI target (jaxmatch_lap_k_best; the CPU's
// handler in kbest_cpu.cc), its info slots and its operand checks.
//
// Operands: C [..., n, m] (float32, float64 or int32; +inf forbids a pair),
// row_cost [..., n] and col_cost [..., m] in C's dtype (finite with exits;
// without them row_cost is ignored and col_cost must be 0).  Attributes: k
// (>= 1) and exits (0: every row assigned, n <= m; 1: rows and columns may
// be left unassigned at their prices).  Results: assignments int32
// [..., k, n] (the column of each row, -1: unassigned; rows past the count
// -1), costs [..., k] in C's dtype (the objectives, nondecreasing; past
// the count the dtype's largest), info int32 [..., kKBestInfoLen].
#pragma once

#include <cstdint>
#include <string>

#include "common/ffi_helpers.h"
#include "lap/common/lap_state.h"
#include "lap/kbest/kbest_info.h"

namespace jaxmatch {

template <class Binding>
auto BindKBest(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Attr<int32_t>("k")
      .template Attr<int32_t>("exits");
}

struct KBestShape {
  int64_t batch;
  int n, m, k;
};

// Checks the operands, results and attributes of a k-best call.
inline ffi::Error CheckKBest(const ffi::AnyBuffer& C,
                             const ffi::AnyBuffer& row_cost,
                             const ffi::AnyBuffer& col_cost,
                             const ffi::AnyBuffer& assignments,
                             const ffi::AnyBuffer& costs,
                             const ffi::AnyBuffer& info, int32_t k,
                             int32_t exits, KBestShape* out) {
  const ffi::DataType cost = C.element_type();
  if (cost != ffi::DataType::F32 && cost != ffi::DataType::F64 &&
      cost != ffi::DataType::S32)
    return InvalidArgument("k best: costs must be float32, float64 or int32");
  auto dims = C.dimensions();
  if (dims.size() < 2)
    return InvalidArgument("k best: the cost matrix must have rank >= 2");
  const int64_t n = dims[dims.size() - 2], m = dims[dims.size() - 1];
  if (k < 1) return InvalidArgument("k best: k must be >= 1");
  if (exits != 0 && exits != 1)
    return InvalidArgument("k best: exits must be 0 or 1");
  if (!exits && n > m)
    return InvalidArgument("k best: without exits the rows must be <= columns");
  JM_RETURN_IF_ERROR(CheckIndexBound(n > m ? n : m, "k best: matrix"));
  JM_RETURN_IF_ERROR(CheckIndexBound(int64_t{k} * (2 * n + 2 * m + 3 + 2),
                                     "k best: k times the problem"));
  const int64_t batch = BatchSize(dims, 2);
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(row_cost, "row_cost", cost, batch,
                                         static_cast<std::size_t>(n)));
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(col_cost, "col_cost", cost, batch,
                                         static_cast<std::size_t>(m)));
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(assignments, "assignments",
                                         ffi::DataType::S32, batch * k,
                                         static_cast<std::size_t>(n)));
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(costs, "costs", cost, batch,
                                         static_cast<std::size_t>(k)));
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(info, "info", ffi::DataType::S32,
                                         batch, kKBestInfoLen));
  *out = KBestShape{batch, static_cast<int>(n), static_cast<int>(m), k};
  return ffi::Error::Success();
}

}  // namespace jaxmatch
