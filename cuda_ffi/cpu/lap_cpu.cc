// CPU back end of the Hungarian LAP solver: the shared step templates run by
// a serial team, one batch member after another.
//
// Handlers (exported with XLA_FFI_DEFINE_HANDLER_SYMBOL, loaded with ctypes):
//   jaxmatch_lap_init_cpu   C -> (istate, tstate)              initialisation
//   jaxmatch_lap_step_cpu   (C, istate, tstate) -> (istate, tstate)
//                           `iterations` iterations of the main loop
//   jaxmatch_lap_solve_cpu  C -> (istate, tstate)              whole solve
#include <cstring>

#include "../common/ffi_util.h"
#include "../common/lap_steps.h"

namespace jaxmatch {
namespace {

template <class T>
LapView<T> ViewOf(const LapShape& s, int variant, const T* C, int* is, T* ts,
                  int64_t b) {
  return LapView<T>(s.n, s.m, variant,
                    C + static_cast<std::size_t>(b) * s.n * s.m,
                    is + static_cast<std::size_t>(b) * s.layout.ilen,
                    ts + static_cast<std::size_t>(b) * s.layout.tlen);
}

template <class T>
void InitOne(LapView<T>& p, int variant) {
  SerialTeam team;
  lap_init_rows(team, p);
  lap_init_cols(team, p);
  lap_init_propose(team, p);
  lap_init_accept(team, p);
  if (variant == kLapClassical) lap_init_zero_lists(team, p);
  lap_ctrl_init(p, lap_default_max_iters(p.n, p.m));
}

template <class T>
void IterateOne(LapView<T>& p, int variant) {
  SerialTeam team;
  lap_s1_setup(team, p, variant);
  lap_s2_forward(team, p, variant);
  lap_s3_mark(team, p, variant);
  lap_s4_update(team, p, variant);
  lap_ctrl_iteration(p, variant);
}

void ZeroState(const LapShape& s, void* is, void* ts, std::size_t tbytes) {
  std::memset(is, 0, sizeof(int) * s.layout.ilen * s.batch);
  std::memset(ts, 0, tbytes * s.layout.tlen * s.batch);
}

// Initialises the state of every batch member and, when `solve`, runs the
// main loop to the end.
ffi::Error LapFromScratchCpu(ffi::AnyBuffer C, ffi::Result<ffi::AnyBuffer> istate,
                             ffi::Result<ffi::AnyBuffer> tstate,
                             int32_t variant, bool solve) {
  LapShape s;
  JM_RETURN_IF_ERROR(GetLapShape(C, variant, &s));
  JM_RETURN_IF_ERROR(CheckLapState(s, C.element_type(), *istate, *tstate));
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    ZeroState(s, istate->untyped_data(), tstate->untyped_data(), sizeof(T));
    for (int64_t b = 0; b < s.batch; ++b) {
      auto p = ViewOf<T>(s, variant, static_cast<const T*>(C.untyped_data()),
                         static_cast<int*>(istate->untyped_data()),
                         static_cast<T*>(tstate->untyped_data()), b);
      InitOne(p, variant);
      while (solve && p.sc[kStatus] == kLapRunning) IterateOne(p, variant);
    }
    return ffi::Error::Success();
  });
}

ffi::Error LapInitCpu(ffi::AnyBuffer C, ffi::Result<ffi::AnyBuffer> istate,
                      ffi::Result<ffi::AnyBuffer> tstate, int32_t variant) {
  return LapFromScratchCpu(C, istate, tstate, variant, /*solve=*/false);
}

ffi::Error LapSolveCpu(ffi::AnyBuffer C, ffi::Result<ffi::AnyBuffer> istate,
                       ffi::Result<ffi::AnyBuffer> tstate, int32_t variant) {
  return LapFromScratchCpu(C, istate, tstate, variant, /*solve=*/true);
}

ffi::Error LapStepCpu(ffi::AnyBuffer C, ffi::AnyBuffer istate_in,
                      ffi::AnyBuffer tstate_in,
                      ffi::Result<ffi::AnyBuffer> istate,
                      ffi::Result<ffi::AnyBuffer> tstate, int32_t variant,
                      int32_t iterations) {
  LapShape s;
  JM_RETURN_IF_ERROR(CheckLapStep(C, variant, istate_in, tstate_in, *istate,
                                  *tstate, iterations, &s));
  if (istate->untyped_data() != istate_in.untyped_data())
    std::memcpy(istate->untyped_data(), istate_in.untyped_data(),
                istate_in.size_bytes());
  if (tstate->untyped_data() != tstate_in.untyped_data())
    std::memcpy(tstate->untyped_data(), tstate_in.untyped_data(),
                tstate_in.size_bytes());
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    for (int64_t b = 0; b < s.batch; ++b) {
      auto p = ViewOf<T>(s, variant, static_cast<const T*>(C.untyped_data()),
                         static_cast<int*>(istate->untyped_data()),
                         static_cast<T*>(tstate->untyped_data()), b);
      for (int it = 0; it < iterations && p.sc[kStatus] == kLapRunning; ++it)
        IterateOne(p, variant);
    }
    return ffi::Error::Success();
  });
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
