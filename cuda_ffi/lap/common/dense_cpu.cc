// CPU handlers of the dense LAP targets (operands in dense_ffi.h).  The
// attribute `variant` picks the solver: the tree or classical Hungarian
// variant (the step order of lap/hungarian/hungarian_steps.h run by a serial
// team, one batch member after another, here), or JV (lap/jv/jv_cpu.cc).
//
//   jaxmatch_lap_init_cpu        initialisation
//   jaxmatch_lap_step_cpu        `iterations` iterations of the main loop
//   jaxmatch_lap_solve_cpu       the whole solve
//   jaxmatch_lap_solve_warm_cpu  the whole solve from an earlier assignment
//                                and prices
//   jaxmatch_lap_init_warm_cpu   initialisation from them
//   jaxmatch_lap_solve_unassigned_cpu  JV's whole solve with a price for
//                                each row and column left unassigned
//
// and the host entry of the eager NumPy drop-in (jaxmatch_lap_solve_host).
// The sparse target is in lap/sparse/sparse_cpu.cc.
#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "common/cancel.h"
#include "lap/common/dense_ffi.h"
#include "lap/hungarian/hungarian_steps.h"
#include "lap/jv/jv_cpu.h"
#include "lap/jv/jv_run_cpu.h"

namespace jaxmatch {
namespace {

// The main loop to its end, one iteration at a time so that a cancellation
// (common/cancel.h) stops it with the iteration-limit status.
template <class T>
void SolveCancellable(const SerialTeam& team, LapView<T>& p, int variant,
                      const CancelToken& cancel) {
  while (lap_running(p)) {
    if (cancel.requested()) {
      p.sc[kStatus] = kLapIterationLimit;
      return;
    }
    lap_solve_loop(team, p, variant, 1);
  }
}

// Runs every batch member serially: lap_init first when `init` (from the
// warm start x0, v0 when given), then `iterations` iterations of the main
// loop (all of them when < 0; those stop early when the solve is
// cancelled).
ffi::Error RunSerial(const ffi::AnyBuffer& C, const LapShape& s,
                     const LapStateData& state, bool init, int iterations,
                     const ffi::AnyBuffer* x0 = nullptr,
                     const ffi::AnyBuffer* v0 = nullptr) {
  const CancelToken cancel;
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    LapProblem<T> problem = LapProblemOf<T>(s, C, state);
    if (x0 != nullptr) SetLapWarm(*x0, *v0, &problem);
    const SerialTeam team;
    for (int64_t b = 0; b < s.batch; ++b) {
      LapView<T> p = problem.view(b);
      if (init && problem.x0 != nullptr)
        lap_init(team, p, s.variant, problem.x0 + b * s.n,
                 problem.v0 + b * s.m);
      else if (init)
        lap_init(team, p, s.variant);
      if (iterations < 0)
        SolveCancellable(team, p, s.variant, cancel);
      else
        lap_solve_loop(team, p, s.variant, iterations);
    }
    return ffi::Error::Success();
  });
}

// Initialises every batch member, from the warm start x0, v0
// (lap/common/dense_ffi.h) when given, and, when `solve`, runs its main loop to
// the end (JV: the whole solve; it has no separate initialisation).
ffi::Error LapStartCpu(ffi::AnyBuffer C, const ffi::AnyBuffer* x0,
                       const ffi::AnyBuffer* v0, ffi::RemainingRets rets,
                       int32_t variant, int32_t max_iterations, bool solve) {
  LapShape s;
  LapStateData out;
  if (!solve)
    JM_RETURN_IF_ERROR(CheckSteppedVariant(variant, "in a stepped solve"));
  JM_RETURN_IF_ERROR(
      CheckSolveStart(C, variant, max_iterations, rets, &s, &out));
  if (x0 != nullptr) {
    JM_RETURN_IF_ERROR(CheckLapWarm(s, C.element_type(), *x0, *v0));
  }
  if (variant == kLapJv) return RunJvCpu(C, s, out, x0, v0);
  return RunSerial(C, s, out, /*init=*/true, solve ? -1 : 0, x0, v0);
}

// `auction` is the GPU's (lap/common/dense_ffi.h); the CPU's JV has no auction
// start.
ffi::Error LapSolveWarmCpu(ffi::AnyBuffer C, ffi::AnyBuffer x0,
                           ffi::AnyBuffer v0, ffi::RemainingRets rets,
                           int32_t max_iterations, int32_t variant,
                           int32_t /*auction*/) {
  return LapStartCpu(C, &x0, &v0, rets, variant, max_iterations, true);
}

ffi::Error LapInitWarmCpu(ffi::AnyBuffer C, ffi::AnyBuffer x0,
                          ffi::AnyBuffer v0, ffi::RemainingRets rets,
                          int32_t max_iterations, int32_t variant,
                          int32_t /*auction*/) {
  return LapStartCpu(C, &x0, &v0, rets, variant, max_iterations, false);
}

ffi::Error LapInitCpu(ffi::AnyBuffer C, ffi::RemainingRets rets,
                      int32_t variant, int32_t max_iterations) {
  return LapStartCpu(C, nullptr, nullptr, rets, variant, max_iterations,
                     /*solve=*/false);
}

ffi::Error LapSolveCpu(ffi::AnyBuffer C, ffi::RemainingRets rets,
                       int32_t variant, int32_t max_iterations) {
  return LapStartCpu(C, nullptr, nullptr, rets, variant, max_iterations,
                     /*solve=*/true);
}

ffi::Error LapStepCpu(ffi::AnyBuffer C, ffi::RemainingArgs args,
                      ffi::RemainingRets rets, int32_t variant,
                      int32_t iterations) {
  LapShape s;
  LapStateData in, out;
  JM_RETURN_IF_ERROR(
      CheckLapStep(C, variant, args, rets, iterations, &s, &in, &out));
  for (int k = 0; k < kLapStateBuffers; ++k) {
    if (out.data[k] != in.data[k])
      std::memcpy(out.data[k], in.data[k], in.bytes[k]);
  }
  return RunSerial(C, s, out, /*init=*/false, iterations);
}

// Unassigned costs (operands in dense_ffi.h): JV's whole solve, any n and
// m (lap/jv/jv_cpu.cc).
ffi::Error LapSolveUnassignedCpu(ffi::AnyBuffer C, ffi::AnyBuffer row_cost,
                                 ffi::AnyBuffer col_cost,
                                 ffi::Result<ffi::AnyBuffer> col_for_row,
                                 ffi::Result<ffi::AnyBuffer> row_for_col,
                                 ffi::Result<ffi::AnyBuffer> u,
                                 ffi::Result<ffi::AnyBuffer> v,
                                 ffi::Result<ffi::AnyBuffer> info,
                                 int32_t max_iterations) {
  LapUnassignedShape s;
  JM_RETURN_IF_ERROR(CheckLapUnassigned(C, row_cost, col_cost, *col_for_row,
                                        *row_for_col, *u, *v, *info,
                                        max_iterations, &s));
  LapUnassignedBatch b;
  b.dtype = C.element_type();
  b.batch = s.batch;
  b.n = s.n;
  b.m = s.m;
  b.max_searches = max_iterations;
  b.C = C.untyped_data();
  b.row_cost = row_cost.untyped_data();
  b.col_cost = col_cost.untyped_data();
  b.col_for_row = static_cast<int*>(col_for_row->untyped_data());
  b.row_for_col = static_cast<int*>(row_for_col->untyped_data());
  b.u = u->untyped_data();
  b.v = v->untyped_data();
  b.info = static_cast<int*>(info->untyped_data());
  return RunJvUnassignedCpu(b);
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

JM_EXPORT_HANDLER(jaxmatch_lap_init_cpu, jaxmatch::LapInitCpu,
                  jaxmatch::BindLapFromScratch(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_lap_step_cpu, jaxmatch::LapStepCpu,
                  jaxmatch::BindLapStep(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_lap_solve_cpu, jaxmatch::LapSolveCpu,
                  jaxmatch::BindLapFromScratch(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_lap_solve_warm_cpu, jaxmatch::LapSolveWarmCpu,
                  jaxmatch::BindLapWarm(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_lap_init_warm_cpu, jaxmatch::LapInitWarmCpu,
                  jaxmatch::BindLapWarm(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_lap_solve_unassigned_cpu,
                  jaxmatch::LapSolveUnassignedCpu,
                  jaxmatch::BindLapUnassigned(ffi::Ffi::Bind()));

// ---------------------------------------------------------------- host entry
// One problem solved on the calling thread, without XLA: the eager NumPy
// drop-in (jaxmatch.linear_sum_assignment) calls this through ctypes, so it
// compiles nothing per shape and solves float64 input in float64.  C is
// [n, m] row-major with n <= m, in the dtype `dtype` (LapHostDtype); the
// results are col_for_row [n], row_for_col [m], u [n], v [m] (the cost
// dtype) and info [kLapInfoLen].  Returns 0, or 1 for invalid arguments.
namespace {

template <class T>
void SolveHost(int n, int m, int variant, const void* C, int* cfr, int* rfc,
               void* u, void* v, int* info) {
  if (variant == jaxmatch::kLapJv) {
    jaxmatch::lap_jv_solve(static_cast<const T*>(C), n, m, 0, info, cfr, rfc,
                           static_cast<T*>(u), static_cast<T*>(v));
    return;
  }
  const jaxmatch::LapWorkLayout L(n, m, variant);
  std::vector<int> work(L.ilen);
  std::vector<T> twork(L.tlen);
  const jaxmatch::LapBuffers<T> b{
      info,        cfr,         rfc, static_cast<T*>(u), static_cast<T*>(v),
      work.data(), twork.data()};
  jaxmatch::LapView<T> p(n, m, variant, static_cast<const T*>(C), b);
  const jaxmatch::SerialTeam team;
  const jaxmatch::CancelToken cancel;
  jaxmatch::lap_init(team, p, variant);
  jaxmatch::SolveCancellable(team, p, variant, cancel);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int jaxmatch_lap_solve_host(
    int dtype, int n, int m, int variant, const void* C, int* col_for_row,
    int* row_for_col, void* u, void* v, int* info) {
  if (n < 0 || m < n || jaxmatch::CheckVariant(variant).failure()) return 1;
  switch (dtype) {
    case jaxmatch::kLapHostFloat32:
      SolveHost<float>(n, m, variant, C, col_for_row, row_for_col, u, v, info);
      return 0;
    case jaxmatch::kLapHostFloat64:
      SolveHost<double>(n, m, variant, C, col_for_row, row_for_col, u, v, info);
      return 0;
    case jaxmatch::kLapHostInt32:
      SolveHost<int32_t>(n, m, variant, C, col_for_row, row_for_col, u, v,
                         info);
      return 0;
    default:
      return 1;
  }
}
