// The CPU's JV on a batch (jv_cpu.h's LapJv per member), called by the
// dense LAP handlers (lap/common/dense_cpu.cc) for variant kLapJv and for
// unassigned costs; and the lanes of its passes on this machine.
#include <cstdint>

#include "common/cancel.h"
#include "common/cpu_parallel.h"
#include "lap/jv/jv_cpu.h"
#include "lap/jv/jv_run_cpu.h"

namespace jaxmatch {
namespace {

// Below this many cost entries in a batch, JV solves its members on the
// calling thread (starting threads costs tens of microseconds).
constexpr int64_t kLapJvThreadedEntries = int64_t{1} << 16;

}  // namespace

// JV on every batch member, the members spread over the host's cores;
// from the warm start x0 [batch, n] and v0 [batch, m] (lap/common/dense_ffi.h)
// when given.
ffi::Error RunJvCpu(const ffi::AnyBuffer& C, const LapShape& s,
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
    ForEachMemberOnCores(
        s.batch,
        s.batch * s.n * static_cast<int64_t>(s.m) >= kLapJvThreadedEntries,
        solve_member);
    return ffi::Error::Success();
  });
}

ffi::Error RunJvUnassignedCpu(const LapUnassignedBatch& in) {
  const CancelToken cancel;
  return DispatchCost(in.dtype, [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    const int64_t n = in.n, m = in.m;
    auto solve_member = [&](int64_t b) {
      lap_jv_solve_unassigned(static_cast<const T*>(in.C) + b * n * m,
                              static_cast<const T*>(in.row_cost) + b * n,
                              static_cast<const T*>(in.col_cost) + b * m, in.n,
                              in.m, in.max_searches, in.info + b * kLapInfoLen,
                              in.col_for_row + b * n, in.row_for_col + b * m,
                              static_cast<T*>(in.u) + b * n,
                              static_cast<T*>(in.v) + b * m, cancel);
    };
    ForEachMemberOnCores(in.batch, in.batch * n * m >= kLapJvThreadedEntries,
                         solve_member);
    return ffi::Error::Success();
  });
}

}  // namespace jaxmatch

// The lanes of the CPU JV's relaxation passes on this machine
// (lap/jv/jv_cpu.h): kLapJvAvx2Lanes with AVX2, kLapJvBaselineLanes otherwise
// or with JAXMATCH_CPU_LANES=baseline.
extern "C" __attribute__((visibility("default"))) int jaxmatch_lap_jv_lanes() {
  return jaxmatch::LapJvLanesUseAvx2() ? jaxmatch::kLapJvAvx2Lanes
                                       : jaxmatch::kLapJvBaselineLanes;
}
