// The CPU's JV on a batch (jv_cpu.h's LapJv per member), called by the
// dense LAP handlers (lap/common/dense_cpu.cc) for variant kLapJv; and the
// lanes of its passes on this machine.
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "common/cancel.h"
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

}  // namespace jaxmatch

// The lanes of the CPU JV's relaxation passes on this machine
// (lap/jv/jv_cpu.h): kLapJvAvx2Lanes with AVX2, kLapJvBaselineLanes otherwise
// or with JAXMATCH_CPU_LANES=baseline.
extern "C" __attribute__((visibility("default"))) int jaxmatch_lap_jv_lanes() {
  return jaxmatch::LapJvLanesUseAvx2() ? jaxmatch::kLapJvAvx2Lanes
                                       : jaxmatch::kLapJvBaselineLanes;
}
