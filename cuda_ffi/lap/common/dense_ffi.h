// Operands of the dense LAP handlers (dense_cpu.cc, dense_cuda.cc), shared
// by the CPU and CUDA bindings; the sparse target's are in
// lap/sparse/csr_ffi.h.
//
//   init, solve:  C -> state                      attr variant
//   step:         (C, state) -> state             attrs variant, iterations
//   unassigned:   (C, row_cost, col_cost) -> (col_for_row, row_for_col, u,
//                 v, info)                        attr max_iterations
//                 (CheckLapUnassigned)
//
// C is [..., n, m] (float32, float64 or int32) with n <= m (any n and m
// for unassigned costs); `state` is the
// seven buffers of lap/common/lap_state.h, in the order col_for_row,
// row_for_col, u, v, info, work, twork, each [..., len] with C's leading
// dimensions.  A step aliases its state operands to its results.
#pragma once

#include <array>
#include <string>

#include "common/ffi_helpers.h"
#include "lap/common/lap_state.h"

namespace jaxmatch {

inline ffi::Error CheckVariant(int32_t variant) {
  if (variant != kLapTree && variant != kLapClassical && variant != kLapJv)
    return InvalidArgument("unknown LAP variant " + std::to_string(variant));
  return ffi::Error::Success();
}

// The variants the stepped handlers (init, step) run: not JV, which runs
// as one fused call.
inline ffi::Error CheckSteppedVariant(int32_t variant, const char* where) {
  if (variant == kLapJv)
    return InvalidArgument(
        std::string("method 'jv' (Jonker-Volgenant) runs as one fused call; "
                    "not ") +
        where + ". Use method 'tree' or 'classical' there, or 'auto'.");
  return CheckVariant(variant);
}

inline ffi::Error CheckCostDtype(ffi::DataType dt) {
  if (dt != ffi::DataType::F32 && dt != ffi::DataType::F64 &&
      dt != ffi::DataType::S32)
    return InvalidArgument(
        "cost matrix dtype must be float32, float64 or int32");
  return ffi::Error::Success();
}

// The shapes of one call.
struct LapShape {
  int64_t batch = 0;
  int n = 0, m = 0, variant = kLapTree;
  int max_iters = 0;  // from-scratch calls: the iteration limit (0: default)
};

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
    return InvalidArgument(
        "kernels expect rows <= columns; the wrapper "
        "transposes tall matrices");
  JM_RETURN_IF_ERROR(CheckIndexBound(m, "matrix"));
  out->batch = BatchSize(dims, 2);
  out->n = static_cast<int>(n);
  out->m = static_cast<int>(m);
  out->variant = variant;
  return ffi::Error::Success();
}

// The state buffers of a call (operands or results), in order: their data
// and sizes once checked.
constexpr int kLapStateBuffers = 7;
struct LapStateData {
  void* data[kLapStateBuffers];
  std::size_t bytes[kLapStateBuffers];
};

// Checks the state buffers that get(k) returns (an ErrorOr<AnyBuffer>)
// against the call's shapes and records them in *out.
template <class Get>
ffi::Error CheckLapState(const LapShape& s, ffi::DataType cost,
                         std::size_t count, Get&& get, LapStateData* out) {
  if (count != kLapStateBuffers)
    return InvalidArgument("the LAP state has " +
                           std::to_string(kLapStateBuffers) + " buffers, got " +
                           std::to_string(count));
  const LapWorkLayout L(s.n, s.m, s.variant);
  static const char* const kNames[kLapStateBuffers] = {
      "col_for_row", "row_for_col", "u", "v", "info", "work", "twork"};
  const std::size_t lens[kLapStateBuffers] = {static_cast<std::size_t>(s.n),
                                              static_cast<std::size_t>(s.m),
                                              static_cast<std::size_t>(s.n),
                                              static_cast<std::size_t>(s.m),
                                              kLapInfoLen,
                                              L.ilen,
                                              L.tlen};
  const ffi::DataType S32 = ffi::DataType::S32;
  const ffi::DataType dtypes[kLapStateBuffers] = {S32, S32, cost, cost,
                                                  S32, S32, cost};
  for (int k = 0; k < kLapStateBuffers; ++k) {
    auto buf = get(k);
    if (buf.has_error()) return buf.error();
    JM_RETURN_IF_ERROR(
        CheckTrailingBuffer(*buf, kNames[k], dtypes[k], s.batch, lens[k]));
    out->data[k] = buf->untyped_data();
    out->bytes[k] = buf->size_bytes();
  }
  return ffi::Error::Success();
}

inline ffi::Error CheckLapResults(const LapShape& s, ffi::DataType cost,
                                  const ffi::RemainingRets& rets,
                                  LapStateData* out) {
  return CheckLapState(
      s, cost, rets.size(),
      [&](int k) -> ffi::ErrorOr<ffi::AnyBuffer> {
        auto r = rets.get<ffi::AnyBuffer>(k);
        if (r.has_error()) return ffi::Unexpected(r.error());
        return **r;
      },
      out);
}

// Operand 0 of a step is C; the state follows.
inline ffi::Error CheckLapOperands(const LapShape& s, ffi::DataType cost,
                                   const ffi::RemainingArgs& args,
                                   LapStateData* out) {
  return CheckLapState(
      s, cost, args.size(), [&](int k) { return args.get<ffi::AnyBuffer>(k); },
      out);
}

// The problem a call's buffers describe.
template <class T>
LapProblem<T> LapProblemOf(const LapShape& s, const ffi::AnyBuffer& C,
                           const LapStateData& d) {
  auto ints = [&](int k) { return static_cast<int*>(d.data[k]); };
  auto reals = [&](int k) { return static_cast<T*>(d.data[k]); };
  return LapProblem<T>{s.batch,
                       s.n,
                       s.m,
                       s.variant,
                       static_cast<const T*>(C.untyped_data()),
                       LapBuffers<T>{ints(4), ints(0), ints(1), reals(2),
                                     reals(3), ints(5), reals(6)},
                       s.max_iters};
}

// Handler signatures:
//   from scratch:  (C, RemainingRets state, variant, max_iterations)
//   step:          (C, RemainingArgs state, RemainingRets state, variant,
//                   iterations)
template <class Binding>
auto BindLapFromScratch(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()
      .RemainingRets()
      .template Attr<int32_t>("variant")
      .template Attr<int32_t>("max_iterations");
}

//   warm start:    (C, x0, v0, RemainingRets state, max_iterations,
//                  variant, auction): the whole solve (lap_solve_warm; any
//                  variant) or the stepped solve's initialisation
//                  (lap_init_warm; tree or classical); auction 1: the
//                  GPU's JV may start with its auction instead
//                  (LapProblem::warm_auction), 0: never
template <class Binding>
auto BindLapWarm(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .RemainingRets()
      .template Attr<int32_t>("max_iterations")
      .template Attr<int32_t>("variant")
      .template Attr<int32_t>("auction");
}

// The warm start's operands: x0 int32 [..., n] (the earlier column of each
// row, -1 none) and v0 [..., m] (column prices, the cost dtype).
inline ffi::Error CheckLapWarm(const LapShape& s, ffi::DataType cost,
                               const ffi::AnyBuffer& x0,
                               const ffi::AnyBuffer& v0) {
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(x0, "init col_for_row",
                                         ffi::DataType::S32, s.batch, s.n));
  return CheckTrailingBuffer(v0, "init v", cost, s.batch, s.m);
}

// Points the solve at a checked warm start.  JV takes every shape; the tree
// and classical variants start a rectangular problem cold (its duals need
// v <= 0, and 0 on the columns left free, which given prices do not keep).
template <class T>
void SetLapWarm(const ffi::AnyBuffer& x0, const ffi::AnyBuffer& v0,
                LapProblem<T>* p) {
  if (p->n != p->m && p->variant != kLapJv) return;
  p->x0 = static_cast<const int*>(x0.untyped_data());
  p->v0 = static_cast<const T*>(v0.untyped_data());
}

// A from-scratch call's iteration limit: 0 (the default bound) or positive.
inline ffi::Error SetMaxIterations(int32_t max_iterations, LapShape* s) {
  if (max_iterations < 0)
    return InvalidArgument("max_iterations must be >= 0 (0: the default)");
  s->max_iters = max_iterations;
  return ffi::Error::Success();
}

// The shapes, iteration limit and result buffers of a call that starts a
// solve (from scratch or warm).
inline ffi::Error CheckSolveStart(const ffi::AnyBuffer& C, int32_t variant,
                                  int32_t max_iterations,
                                  const ffi::RemainingRets& rets, LapShape* s,
                                  LapStateData* out) {
  JM_RETURN_IF_ERROR(GetLapShape(C, variant, s));
  JM_RETURN_IF_ERROR(SetMaxIterations(max_iterations, s));
  return CheckLapResults(*s, C.element_type(), rets, out);
}

// Unassigned costs (jaxmatch_lap_solve_unassigned):
//   (C [..., n, m], row_cost [..., n], col_cost [..., m]) ->
//   (col_for_row int32 [..., n], row_for_col int32 [..., m], u [..., n],
//    v [..., m], info int32 [..., kLapInfoLen])   attr max_iterations
// C float32, float64 or int32 of any n and m; the prices and the duals in
// C's dtype.  max_iterations: JV's searches (0: no limit).
struct LapUnassignedShape {
  int64_t batch = 0;
  int n = 0, m = 0;
};

// Handler signature: (C, row_cost, col_cost, col_for_row, row_for_col, u,
// v, info, max_iterations), the results as ffi::Result<ffi::AnyBuffer>.
template <class Binding>
auto BindLapUnassigned(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Attr<int32_t>("max_iterations");
}

// An unassigned-cost operand of the cost dtype `cost`, [..., len].
inline ffi::Error CheckLapPrices(const ffi::AnyBuffer& buf, const char* name,
                                 ffi::DataType cost, int64_t batch,
                                 int64_t len) {
  if (buf.element_type() != cost)
    return InvalidArgument(std::string(name) +
                           " must have the cost matrix's dtype");
  return CheckTrailingBuffer(buf, name, cost, batch,
                             static_cast<std::size_t>(len));
}

// Checks the operands, results and attribute of an unassigned-cost call.
inline ffi::Error CheckLapUnassigned(
    const ffi::AnyBuffer& C, const ffi::AnyBuffer& row_cost,
    const ffi::AnyBuffer& col_cost, const ffi::AnyBuffer& col_for_row,
    const ffi::AnyBuffer& row_for_col, const ffi::AnyBuffer& u,
    const ffi::AnyBuffer& v, const ffi::AnyBuffer& info, int32_t max_iterations,
    LapUnassignedShape* out) {
  const ffi::DataType cost = C.element_type();
  JM_RETURN_IF_ERROR(CheckCostDtype(cost));
  auto dims = C.dimensions();
  if (dims.size() < 2)
    return InvalidArgument("cost matrix must have rank >= 2 (got rank " +
                           std::to_string(dims.size()) + ")");
  const int64_t n = dims[dims.size() - 2], m = dims[dims.size() - 1];
  JM_RETURN_IF_ERROR(CheckIndexBound(n > m ? n : m, "matrix"));
  if (max_iterations < 0)
    return InvalidArgument("max_iterations must be >= 0 (0: no limit)");
  const int64_t batch = BatchSize(dims, 2);
  const ffi::DataType S32 = ffi::DataType::S32;
  JM_RETURN_IF_ERROR(CheckLapPrices(row_cost, "row_cost", cost, batch, n));
  JM_RETURN_IF_ERROR(CheckLapPrices(col_cost, "col_cost", cost, batch, m));
  JM_RETURN_IF_ERROR(
      CheckTrailingBuffer(col_for_row, "col_for_row", S32, batch, n));
  JM_RETURN_IF_ERROR(
      CheckTrailingBuffer(row_for_col, "row_for_col", S32, batch, m));
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(u, "u", cost, batch, n));
  JM_RETURN_IF_ERROR(CheckTrailingBuffer(v, "v", cost, batch, m));
  JM_RETURN_IF_ERROR(
      CheckTrailingBuffer(info, "info", S32, batch, kLapInfoLen));
  out->batch = batch;
  out->n = static_cast<int>(n);
  out->m = static_cast<int>(m);
  return ffi::Error::Success();
}

template <class Binding>
auto BindLapStep(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()
      .RemainingArgs()
      .RemainingRets()
      .template Attr<int32_t>("variant")
      .template Attr<int32_t>("iterations");
}

// Checks the operands of a step call (state in and out).
inline ffi::Error CheckLapStep(const ffi::AnyBuffer& C, int32_t variant,
                               const ffi::RemainingArgs& args,
                               const ffi::RemainingRets& rets,
                               int32_t iterations, LapShape* s,
                               LapStateData* in, LapStateData* out) {
  JM_RETURN_IF_ERROR(CheckSteppedVariant(variant, "in a stepped solve"));
  JM_RETURN_IF_ERROR(GetLapShape(C, variant, s));
  JM_RETURN_IF_ERROR(CheckLapOperands(*s, C.element_type(), args, in));
  JM_RETURN_IF_ERROR(CheckLapResults(*s, C.element_type(), rets, out));
  if (iterations < 1) return InvalidArgument("iterations must be >= 1");
  return ffi::Error::Success();
}

}  // namespace jaxmatch
