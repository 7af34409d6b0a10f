// CPU back end of the Hungarian LAP solver: the step order of lap_steps.h run
// by a serial team, one batch member after another.
//
// Handlers (operands in lap_ffi.h):
//   jaxmatch_lap_init_cpu   initialisation
//   jaxmatch_lap_step_cpu   `iterations` iterations of the main loop
//   jaxmatch_lap_solve_cpu  the whole solve
#include <cstring>
#include <vector>

#include "lap/lap_ffi.h"
#include "lap/lap_steps.h"

namespace jaxmatch {
namespace {

// Runs every batch member serially: lap_init first when `init`, then
// `iterations` iterations of the main loop (all of them when < 0).
ffi::Error RunSerial(const ffi::AnyBuffer& C, const LapShape& s,
                     const LapStateData& state, bool init, int iterations) {
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    const LapProblem<T> problem = LapProblemOf<T>(s, C, state);
    const SerialTeam team;
    for (int64_t b = 0; b < s.batch; ++b) {
      LapView<T> p = problem.view(b);
      if (init) lap_init(team, p, s.variant);
      lap_solve_loop(team, p, s.variant, iterations);
    }
    return ffi::Error::Success();
  });
}

// Initialises every batch member and, when `solve`, runs its main loop to
// the end.
ffi::Error LapFromScratchCpu(ffi::AnyBuffer C, ffi::RemainingRets rets,
                             int32_t variant, bool solve) {
  LapShape s;
  LapStateData out;
  JM_RETURN_IF_ERROR(GetLapShape(C, variant, &s));
  JM_RETURN_IF_ERROR(CheckLapResults(s, C.element_type(), rets, &out));
  return RunSerial(C, s, out, /*init=*/true, solve ? -1 : 0);
}

ffi::Error LapInitCpu(ffi::AnyBuffer C, ffi::RemainingRets rets,
                      int32_t variant) {
  return LapFromScratchCpu(C, rets, variant, /*solve=*/false);
}

ffi::Error LapSolveCpu(ffi::AnyBuffer C, ffi::RemainingRets rets,
                       int32_t variant) {
  return LapFromScratchCpu(C, rets, variant, /*solve=*/true);
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

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

JM_EXPORT_HANDLER(jaxmatch_lap_init_cpu, jaxmatch::LapInitCpu,
                  jaxmatch::BindLapFromScratch(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_lap_step_cpu, jaxmatch::LapStepCpu,
                  jaxmatch::BindLapStep(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_lap_solve_cpu, jaxmatch::LapSolveCpu,
                  jaxmatch::BindLapFromScratch(ffi::Ffi::Bind()));

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
  const jaxmatch::LapWorkLayout L(n, m, variant);
  std::vector<int> work(L.ilen);
  std::vector<T> twork(L.tlen);
  const jaxmatch::LapBuffers<T> b{
      info,        cfr,         rfc, static_cast<T*>(u), static_cast<T*>(v),
      work.data(), twork.data()};
  jaxmatch::LapView<T> p(n, m, variant, static_cast<const T*>(C), b);
  const jaxmatch::SerialTeam team;
  jaxmatch::lap_init(team, p, variant);
  jaxmatch::lap_solve_loop(team, p, variant);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int jaxmatch_lap_solve_host(
    int dtype, int n, int m, int variant, const void* C, int* col_for_row,
    int* row_for_col, void* u, void* v, int* info) {
  if (n < 0 || m < n ||
      (variant != jaxmatch::kLapTree && variant != jaxmatch::kLapClassical))
    return 1;
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
