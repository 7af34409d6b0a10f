// Operands of the split LAP's handlers (lap/split/split_steps.h), shared by the
// CPU (lap/split/split_cpu.cc) and CUDA (lap/split/split_cuda.cc) bindings.
//
// jaxmatch_lap_split_scan(C, u, row_D, plist, info) -> best, arg
//   C [nl, m] (float32, float64 or int32), u and row_D [nl] (C's dtype),
//   plist [nl] and info [kSplitInfoLen] (int32); best [m] (C's dtype), arg
//   [m] (int32, global rows, INT_MAX where no pending row).
//
// jaxmatch_lap_split_update(C, bests, args, <state>) -> <state>
//   bests, args [parts, m]: every device's scan results (all-gathered);
//   <state>, in this order (results alias the operands):
//     key, col_D, v [m], u, row_D [nl], D [1]   (C's dtype)
//     parent, col_tree, rfc, root [m], cfr, winner [n_pad], row_tree,
//     plist [nl], info [kSplitInfoLen]           (int32)
//   with n_pad = parts * nl; attributes n (real rows, <= n_pad) and
//   max_iterations (>= 1).
#pragma once

#include <string>

#include "common/ffi_helpers.h"
#include "lap/split/split_steps.h"

namespace jaxmatch {

constexpr int kSplitStateBuffers = 15;

// int32 costs are solved exactly when every |C_ij| is below this bound: the
// split steps keep int32 duals, which stay within a few times the costs'
// range.  The caller checks it (larger ones report kLapOverflow).
constexpr int kSplitInt32CostBound = 1 << 28;

inline ffi::Error CheckSplitCost(const ffi::AnyBuffer& C, int* nl, int* m) {
  const ffi::DataType dt = C.element_type();
  if (dt != ffi::DataType::F32 && dt != ffi::DataType::F64 &&
      dt != ffi::DataType::S32)
    return InvalidArgument("split LAP costs must be float32, float64 or int32");
  auto dims = C.dimensions();
  if (dims.size() != 2)
    return InvalidArgument("split LAP costs must be [rows, columns]");
  if (dims[0] < 1 || dims[1] < 1)
    return InvalidArgument("split LAP block of unsupported shape");
  JM_RETURN_IF_ERROR(CheckIndexBound(dims[0], "split LAP block rows"));
  JM_RETURN_IF_ERROR(CheckIndexBound(dims[1], "split LAP block columns"));
  *nl = static_cast<int>(dims[0]);
  *m = static_cast<int>(dims[1]);
  return ffi::Error::Success();
}

inline ffi::Error CheckSplitBuffer(const ffi::AnyBuffer& buf, const char* name,
                                   ffi::DataType dtype, int64_t len) {
  return CheckTrailingBuffer(buf, name, dtype, 1,
                             static_cast<std::size_t>(len));
}

// The scan's operands.
struct LapSplitScanData {
  int nl = 0, m = 0;
  const void *C = nullptr, *u = nullptr, *row_D = nullptr;
  const int *plist = nullptr, *info = nullptr;
  void* best = nullptr;
  int* arg = nullptr;
};

inline ffi::Error CheckSplitScan(
    const ffi::AnyBuffer& C, const ffi::AnyBuffer& u,
    const ffi::AnyBuffer& row_D, const ffi::AnyBuffer& plist,
    const ffi::AnyBuffer& info, ffi::Result<ffi::AnyBuffer> best,
    ffi::Result<ffi::AnyBuffer> arg, LapSplitScanData* s) {
  JM_RETURN_IF_ERROR(CheckSplitCost(C, &s->nl, &s->m));
  const ffi::DataType t = C.element_type(), i32 = ffi::DataType::S32;
  JM_RETURN_IF_ERROR(CheckSplitBuffer(u, "u", t, s->nl));
  JM_RETURN_IF_ERROR(CheckSplitBuffer(row_D, "row_D", t, s->nl));
  JM_RETURN_IF_ERROR(CheckSplitBuffer(plist, "plist", i32, s->nl));
  JM_RETURN_IF_ERROR(CheckSplitBuffer(info, "info", i32, kSplitInfoLen));
  JM_RETURN_IF_ERROR(CheckSplitBuffer(*best, "best", t, s->m));
  JM_RETURN_IF_ERROR(CheckSplitBuffer(*arg, "arg", i32, s->m));
  s->C = C.untyped_data();
  s->u = u.untyped_data();
  s->row_D = row_D.untyped_data();
  s->plist = static_cast<const int*>(plist.untyped_data());
  s->info = static_cast<const int*>(info.untyped_data());
  s->best = best->untyped_data();
  s->arg = static_cast<int*>(arg->untyped_data());
  return ffi::Error::Success();
}

// The update's operands: the state's input and result buffers, in order.
struct LapSplitUpdateData {
  int nl = 0, m = 0, parts = 0, n = 0, max_iterations = 0;
  const void *C = nullptr, *bests = nullptr;
  const int* args = nullptr;
  const void* in[kSplitStateBuffers] = {};
  void* out[kSplitStateBuffers] = {};
  std::size_t bytes[kSplitStateBuffers] = {};
};

inline ffi::Error CheckSplitUpdate(const ffi::AnyBuffer& C,
                                   const ffi::AnyBuffer& bests,
                                   const ffi::AnyBuffer& args,
                                   const ffi::RemainingArgs& state,
                                   const ffi::RemainingRets& rets, int32_t n,
                                   int32_t max_iterations,
                                   LapSplitUpdateData* s) {
  JM_RETURN_IF_ERROR(CheckSplitCost(C, &s->nl, &s->m));
  const ffi::DataType t = C.element_type(), i32 = ffi::DataType::S32;
  auto bdims = bests.dimensions();
  if (bdims.size() != 2 || bdims[1] != s->m || bdims[0] < 1 ||
      int64_t{bdims[0]} * s->nl >= INT_MAX)
    return InvalidArgument("split LAP minima must be [devices, columns]");
  s->parts = static_cast<int>(bdims[0]);
  const int64_t n_pad = int64_t{s->parts} * s->nl;
  auto adims = args.dimensions();
  if (bests.element_type() != t || args.element_type() != i32 ||
      adims.size() != 2 || adims[0] != bdims[0] || adims[1] != s->m)
    return InvalidArgument(
        "split LAP minima: bests (C's dtype) and args (int32), both "
        "[devices, columns]");
  if (n < 1 || n > n_pad)
    return InvalidArgument("split LAP: n must be in [1, devices * rows]");
  if (max_iterations < 1)
    return InvalidArgument("split LAP: max_iterations must be >= 1");
  s->n = n;
  s->max_iterations = max_iterations;
  static const char* const kNames[kSplitStateBuffers] = {
      "key", "col_D",  "v",        "u",     "row_D",
      "D",   "parent", "col_tree", "rfc",   "root",
      "cfr", "winner", "row_tree", "plist", "info"};
  const int64_t lens[kSplitStateBuffers] = {
      s->m, s->m, s->m,  s->nl, s->nl, 1,     s->m,         s->m,
      s->m, s->m, n_pad, n_pad, s->nl, s->nl, kSplitInfoLen};
  if (state.size() != kSplitStateBuffers || rets.size() != kSplitStateBuffers)
    return InvalidArgument("split LAP update takes and returns " +
                           std::to_string(kSplitStateBuffers) + " buffers");
  for (int k = 0; k < kSplitStateBuffers; ++k) {
    const ffi::DataType dt = k < 6 ? t : i32;
    auto in = state.get<ffi::AnyBuffer>(k);
    if (in.has_error()) return in.error();
    auto out = rets.get<ffi::AnyBuffer>(k);
    if (out.has_error()) return out.error();
    JM_RETURN_IF_ERROR(CheckSplitBuffer(*in, kNames[k], dt, lens[k]));
    JM_RETURN_IF_ERROR(CheckSplitBuffer(**out, kNames[k], dt, lens[k]));
    s->in[k] = in->untyped_data();
    s->out[k] = (*out)->untyped_data();
    s->bytes[k] = in->size_bytes();
  }
  s->C = C.untyped_data();
  s->bests = bests.untyped_data();
  s->args = static_cast<const int*>(args.untyped_data());
  return ffi::Error::Success();
}

// The view of the update's result buffers (the state after any copy-in).
template <class T>
LapSplitView<T> SplitViewOf(const LapSplitUpdateData& s) {
  LapSplitView<T> p;
  p.m = s.m;
  p.nl = s.nl;
  p.parts = s.parts;
  p.n_pad = s.parts * s.nl;
  p.n = s.n;
  p.max_iterations = s.max_iterations;
  p.C = static_cast<const T*>(s.C);
  p.bests = static_cast<const T*>(s.bests);
  p.args = s.args;
  T* const* tp = reinterpret_cast<T* const*>(s.out);
  p.key = tp[0];
  p.col_D = tp[1];
  p.v = tp[2];
  p.u = tp[3];
  p.row_D = tp[4];
  p.D = tp[5];
  int* const* ip = reinterpret_cast<int* const*>(s.out);
  p.parent = ip[6];
  p.col_tree = ip[7];
  p.rfc = ip[8];
  p.root = ip[9];
  p.cfr = ip[10];
  p.winner = ip[11];
  p.row_tree = ip[12];
  p.plist = ip[13];
  p.info = ip[14];
  return p;
}

template <class Binding>
auto BindSplitScan(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()   // C
      .template Arg<ffi::AnyBuffer>()   // u
      .template Arg<ffi::AnyBuffer>()   // row_D
      .template Arg<ffi::AnyBuffer>()   // plist
      .template Arg<ffi::AnyBuffer>()   // info
      .template Ret<ffi::AnyBuffer>()   // best
      .template Ret<ffi::AnyBuffer>();  // arg
}

template <class Binding>
auto BindSplitUpdate(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()  // C
      .template Arg<ffi::AnyBuffer>()  // bests
      .template Arg<ffi::AnyBuffer>()  // args
      .RemainingArgs()
      .RemainingRets()
      .template Attr<int32_t>("n")
      .template Attr<int32_t>("max_iterations");
}

}  // namespace jaxmatch
