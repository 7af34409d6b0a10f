// XLA FFI operands of the sparse (CSR) LAP target, lap_csr_solve, shared by
// its CPU (sparse_cpu.cc) and CUDA (sparse_cuda.cc) handlers.
#pragma once

#include <string>

#include "common/ffi_helpers.h"
#include "lap/common/dense_ffi.h"
#include "lap/common/lap_state.h"

namespace jaxmatch {

//   sparse (CSR):  (indptr, indices, cost, col_for_row, row_for_col, u, v,
//                  info, edge_for_row, work, twork), attribute variant:
//                  kLapJv (the CPU only), kLapCsrTree, or kLapCsrAuto (JV on
//                  the CPU, the tree variant on a GPU)
//   unassigned:    lap_csr_solve_unassigned, the same with two more
//                  operands after cost: row_cost [..., n] and col_cost
//                  [..., m] in the cost dtype, the prices of leaving each
//                  row and column unassigned (CheckLapCsrPrices)
template <class Binding>
auto BindLapCsrSolve(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .RemainingRets()
      .template Attr<int32_t>("variant");
}

template <class Binding>
auto BindLapCsrSolveUnassigned(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .RemainingRets()
      .template Attr<int32_t>("variant");
}

// The shapes of a sparse (CSR) call: indptr int32 [..., n + 1], indices
// int32 [..., cap], cost [..., cap] (float32, float64 or int32); results
// col_for_row int32 [..., n], row_for_col int32 [..., m], u [..., n] and
// v [..., m] in the cost dtype, info int32 [..., kLapInfoLen], edge_for_row
// int32 [..., n], and the workspaces of LapWorkLayout(n, m, kLapCsrTree):
// work int32 [..., ilen] and twork [..., tlen] in the cost dtype; n <= m.
struct LapCsrShape {
  static constexpr int kResults = 8;
  int64_t batch = 0;
  int n = 0, m = 0, cap = 0;
  void* out[kResults] = {};
};

inline ffi::Error CheckLapCsr(const ffi::AnyBuffer& indptr,
                              const ffi::AnyBuffer& indices,
                              const ffi::AnyBuffer& cost,
                              const ffi::RemainingRets& rets, LapCsrShape* s) {
  JM_RETURN_IF_ERROR(CheckCostDtype(cost.element_type()));
  const auto pd = indptr.dimensions();
  const auto id = indices.dimensions();
  if (pd.size() < 1 || id.size() < 1 || pd[pd.size() - 1] < 1)
    return InvalidArgument(
        "indptr and indices must be [..., n + 1], [..., cap]");
  JM_RETURN_IF_ERROR(CheckIndexBound(pd[pd.size() - 1], "indptr"));
  JM_RETURN_IF_ERROR(CheckIndexBound(id[id.size() - 1], "indices"));
  s->n = static_cast<int>(pd[pd.size() - 1] - 1);
  s->cap = static_cast<int>(id[id.size() - 1]);
  s->batch = BatchSize(pd, 1);
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(indptr, "indptr", ffi::DataType::S32,
                                         s->batch, s->n + 1));
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(indices, "indices", ffi::DataType::S32,
                                         s->batch, s->cap));
  JM_RETURN_IF_ERROR(
      CheckTrailingBuffer(cost, "cost", cost.element_type(), s->batch, s->cap));
  if (rets.size() != LapCsrShape::kResults)
    return InvalidArgument("the sparse LAP has 8 results");
  auto rfc = rets.get<ffi::AnyBuffer>(1);
  if (rfc.has_error()) return rfc.error();
  const auto rd = (*rfc)->dimensions();
  if (rd.size() < 1) return InvalidArgument("row_for_col must be [..., m]");
  JM_RETURN_IF_ERROR(CheckIndexBound(rd[rd.size() - 1], "row_for_col"));
  s->m = static_cast<int>(rd[rd.size() - 1]);
  if (s->m < s->n) return InvalidArgument("the sparse LAP needs n <= m");
  const LapWorkLayout L(s->n, s->m, kLapCsrTree);
  const char* names[LapCsrShape::kResults] = {
      "col_for_row", "row_for_col",  "u",    "v",
      "info",        "edge_for_row", "work", "twork"};
  const ffi::DataType i32 = ffi::DataType::S32, t = cost.element_type();
  const ffi::DataType dtypes[LapCsrShape::kResults] = {i32, i32, t,   t,
                                                       i32, i32, i32, t};
  const int64_t lens[LapCsrShape::kResults] = {s->n,
                                               s->m,
                                               s->n,
                                               s->m,
                                               kLapInfoLen,
                                               s->n,
                                               static_cast<int64_t>(L.ilen),
                                               static_cast<int64_t>(L.tlen)};
  for (int k = 0; k < LapCsrShape::kResults; ++k) {
    auto r = rets.get<ffi::AnyBuffer>(k);
    if (r.has_error()) return r.error();
    JM_RETURN_IF_ERROR(CheckTrailingBuffer(**r, names[k], dtypes[k], s->batch,
                                           static_cast<std::size_t>(lens[k])));
    s->out[k] = (*r)->untyped_data();
  }
  return ffi::Error::Success();
}

// The prices of an unassigned-cost call, once CheckLapCsr has read the
// shape: row_cost [..., n] and col_cost [..., m] in the cost dtype.
inline ffi::Error CheckLapCsrPrices(const ffi::AnyBuffer& cost,
                                    const ffi::AnyBuffer& row_cost,
                                    const ffi::AnyBuffer& col_cost,
                                    const LapCsrShape& s) {
  JM_RETURN_IF_ERROR(
      CheckLapPrices(row_cost, "row_cost", cost.element_type(), s.batch, s.n));
  return CheckLapPrices(col_cost, "col_cost", cost.element_type(), s.batch,
                        s.m);
}

inline ffi::Error CheckLapCsrVariant(int32_t variant) {
  if (variant != kLapCsrAuto && variant != kLapJv && variant != kLapCsrTree)
    return InvalidArgument("unknown sparse LAP variant " +
                           std::to_string(variant));
  return ffi::Error::Success();
}

// The batch of a checked sparse call as the solvers see it.
template <class T>
LapCsrProblem<T> LapCsrProblemOf(const LapCsrShape& s,
                                 const ffi::AnyBuffer& indptr,
                                 const ffi::AnyBuffer& indices,
                                 const ffi::AnyBuffer& cost) {
  LapCsrProblem<T> p;
  p.batch = s.batch;
  p.n = s.n;
  p.m = s.m;
  p.cap = s.cap;
  p.indptr = static_cast<const int*>(indptr.untyped_data());
  p.indices = static_cast<const int*>(indices.untyped_data());
  p.cost = static_cast<const T*>(cost.untyped_data());
  p.base =
      LapBuffers<T>{static_cast<int*>(s.out[4]), static_cast<int*>(s.out[0]),
                    static_cast<int*>(s.out[1]), static_cast<T*>(s.out[2]),
                    static_cast<T*>(s.out[3]),   static_cast<int*>(s.out[6]),
                    static_cast<T*>(s.out[7])};
  p.edge_for_row = static_cast<int*>(s.out[5]);
  return p;
}

}  // namespace jaxmatch
