// CPU back end of the Hungarian LAP solver: the step order of lap_steps.h run
// by a serial team, one batch member after another.
//
// Handlers (operands in lap_ffi.h):
//   jaxmatch_lap_init_cpu        initialisation
//   jaxmatch_lap_step_cpu        `iterations` iterations of the main loop
//   jaxmatch_lap_solve_cpu       the whole solve
//   jaxmatch_lap_solve_warm_cpu  JV from an earlier assignment and prices
//   jaxmatch_lap_csr_solve_cpu   sparse (CSR) costs: LAPJVsp, or the tree
//                                variant of lap_csr_steps.h
#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "common/cancel.h"
#include "lap/lap_csr_steps.h"
#include "lap/lap_ffi.h"
#include "lap/lap_jv.h"
#include "lap/lap_sparse_jv.h"
#include "lap/lap_steps.h"

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

// Below this many cost entries in a batch, JV solves its members on the
// calling thread (starting threads costs tens of microseconds).
constexpr int64_t kLapJvThreadedEntries = int64_t{1} << 16;

// JV on every batch member, the members spread over the host's cores;
// from the warm start x0 [batch, n] and v0 [batch, m] (lap_ffi.h) when
// given.
ffi::Error RunJv(const ffi::AnyBuffer& C, const LapShape& s,
                 const LapStateData& state, const ffi::AnyBuffer* x0,
                 const ffi::AnyBuffer* v0) {
  const CancelToken cancel;
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    const LapProblem<T> problem = LapProblemOf<T>(s, C, state);
    auto solve_member = [&](int64_t b) {
      LapView<T> p = problem.view(b);
      const int* x0_b =
          x0 ? static_cast<const int*>(x0->untyped_data()) + b * s.n : nullptr;
      const T* v0_b =
          v0 ? static_cast<const T*>(v0->untyped_data()) + b * s.m : nullptr;
      lap_jv_solve(p.C, p.n, p.m, p.max_iters, p.sc, p.col_for_row,
                   p.row_for_col, p.u, p.v, cancel, x0_b, v0_b);
    };
    const int64_t entries = s.batch * s.n * static_cast<int64_t>(s.m);
    const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
    const int64_t workers = std::min(cores, s.batch);
    if (workers < 2 || entries < kLapJvThreadedEntries) {
      for (int64_t b = 0; b < s.batch; ++b) solve_member(b);
      return ffi::Error::Success();
    }
    std::vector<std::thread> threads;
    for (int64_t w = 0; w < workers; ++w)
      threads.emplace_back([&, w] {
        for (int64_t b = w; b < s.batch; b += workers) solve_member(b);
      });
    for (auto& t : threads) t.join();
    return ffi::Error::Success();
  });
}

// Initialises every batch member, from the warm start x0, v0 (lap_ffi.h)
// when given, and, when `solve`, runs its main loop to the end (JV: the
// whole solve; it has no separate initialisation).
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
  if (variant == kLapJv) return RunJv(C, s, out, x0, v0);
  return RunSerial(C, s, out, /*init=*/true, solve ? -1 : 0, x0, v0);
}

// `auction` is the GPU's (lap_ffi.h); the CPU's JV has no auction start.
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

// Sparse (CSR) costs, each batch member in turn: JV (variant kLapJv or
// kLapCsrAuto), or the steps of the GPU's tree variant on a serial team
// (kLapCsrTree), stopped like the dense solves when cancelled.
ffi::Error LapCsrSolveCpu(ffi::AnyBuffer indptr, ffi::AnyBuffer indices,
                          ffi::AnyBuffer cost, ffi::RemainingRets rets,
                          int32_t variant) {
  LapCsrShape s;
  JM_RETURN_IF_ERROR(CheckLapCsrVariant(variant));
  JM_RETURN_IF_ERROR(CheckLapCsr(indptr, indices, cost, rets, &s));
  return DispatchCost(cost.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    const LapCsrProblem<T> problem =
        LapCsrProblemOf<T>(s, indptr, indices, cost);
    if (variant == kLapCsrTree) {
      const SerialTeam team;
      const CancelToken cancel;
      for (int64_t b = 0; b < s.batch; ++b) {
        LapCsrView<T> p = problem.view(b);
        lap_csr_init(team, p);
        while (lap_running(p)) {
          if (cancel.requested()) {
            p.sc[kStatus] = kLapIterationLimit;
            break;
          }
          lap_csr_iteration(team, p);
        }
        lap_csr_finish(team, p);
      }
      return ffi::Error::Success();
    }
    const LapBuffers<T>& o = problem.base;
    for (int64_t b = 0; b < s.batch; ++b)
      lap_csr_solve<T>(s.n, s.m, s.cap, problem.indptr + b * (s.n + 1),
                       problem.indices + b * s.cap, problem.cost + b * s.cap,
                       o.col_for_row + b * s.n, o.row_for_col + b * s.m,
                       o.u + b * s.n, o.v + b * s.m,
                       problem.edge_for_row + b * s.n,
                       o.info + b * kLapInfoLen);
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

JM_EXPORT_HANDLER(jaxmatch_lap_csr_solve_cpu, jaxmatch::LapCsrSolveCpu,
                  jaxmatch::BindLapCsrSolve(ffi::Ffi::Bind()));
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

// The lanes of the CPU JV's relaxation passes on this machine (lap_jv.h):
// kLapJvAvx2Lanes with AVX2, kLapJvBaselineLanes otherwise or with
// JAXMATCH_CPU_LANES=baseline.
extern "C" __attribute__((visibility("default"))) int jaxmatch_lap_jv_lanes() {
  return jaxmatch::LapJvLanesUseAvx2() ? jaxmatch::kLapJvAvx2Lanes
                                       : jaxmatch::kLapJvBaselineLanes;
}

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

// One sparse problem (CSR costs, n <= m rows and columns, float64) solved on
// the calling thread: the scipy drop-in min_weight_full_bipartite_matching.
// indptr [n + 1] (int64), indices [nnz], cost [nnz] (+inf: no edge); x0 [n]
// and v0 [m] a warm start (SparseLapJv::SolveFrom, square problems only), or
// both null; row_reduction_bound as SparseLapJv's (0: JV's); the results are
// col_for_row [n], row_for_col [m], u [n], v [m] and info [kLapInfoLen]
// (status, searches).  Returns 0, or 1 for invalid arguments (the caller
// validates the CSR).
extern "C" __attribute__((visibility("default"))) int
jaxmatch_sparse_lap_solve_host(int n, int m, const int64_t* indptr,
                               const int* indices, const double* cost,
                               const int* x0, const double* v0,
                               int row_reduction_bound, int* col_for_row,
                               int* row_for_col, double* u, double* v,
                               int* info) {
  if (n < 0 || m < n || (x0 == nullptr) != (v0 == nullptr) ||
      (x0 != nullptr && n != m) || row_reduction_bound < 0)
    return 1;
  for (int k = 0; k < jaxmatch::kLapInfoLen; ++k) info[k] = 0;
  jaxmatch::SparseLapJv jv(n, m, indptr, indices, cost, row_reduction_bound);
  int searches = 0;
  info[jaxmatch::kStatus] =
      x0 != nullptr ? jv.SolveFrom(x0, v0, &searches) : jv.Solve(&searches);
  info[jaxmatch::kIters] = searches;
  jv.Write(col_for_row, row_for_col, u, v);
  return 0;
}
