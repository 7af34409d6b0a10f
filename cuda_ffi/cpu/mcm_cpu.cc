// CPU back end of the maximum-cardinality matching solvers (APFB / APsB with
// GPUBFS / GPUBFS-WR): the shared step templates run by a serial team, one
// batch member after another.
//
// Handlers (operands in common/mcm_ffi.h):
//   jaxmatch_mcm_init_cpu   initial matching and the first BFS array
//   jaxmatch_mcm_step_cpu   one stepped call (up to `levels` BFS levels, then
//                           Alternate + FixMatching when the phase's BFS ended)
//   jaxmatch_mcm_solve_cpu  initialisation and the whole solve
#include <cstring>

#include "../common/mcm_ffi.h"
#include "../common/mcm_steps.h"

namespace jaxmatch {
namespace {

struct McmBuffers {
  const int* cxadj;
  const int* cadj;
  int* state;
};

McmView ViewOf(const McmShape& s, const McmBuffers& b, int64_t i) {
  return McmView(s.nr, s.nc, s.cap, b.cxadj + i * (s.nc + 1),
                 b.cadj + i * static_cast<int64_t>(s.cap),
                 b.state + i * static_cast<int64_t>(s.len));
}

ffi::Error McmFromScratchCpu(ffi::AnyBuffer cxadj, ffi::AnyBuffer cadj,
                             ffi::AnyBuffer rm0, ffi::AnyBuffer cm0,
                             ffi::Result<ffi::AnyBuffer> state, int32_t init,
                             const McmOptions* solve) {
  McmShape s;
  JM_RETURN_IF_ERROR(GetMcmShape(cxadj, cadj, *state, &s));
  JM_RETURN_IF_ERROR(CheckWarmStart(s, rm0, cm0));
  const McmBuffers b{static_cast<const int*>(cxadj.untyped_data()),
                     static_cast<const int*>(cadj.untyped_data()),
                     static_cast<int*>(state->untyped_data())};
  const int* rm = static_cast<const int*>(rm0.untyped_data());
  const int* cm = static_cast<const int*>(cm0.untyped_data());
  const SerialTeam team;
  for (int64_t i = 0; i < s.batch; ++i) {
    McmView p = ViewOf(s, b, i);
    mcm_init(team, p, init, rm + i * s.nr, cm + i * s.nc);
    if (solve) mcm_solve_loop(team, p, *solve);
  }
  return ffi::Error::Success();
}

ffi::Error McmInitCpu(ffi::AnyBuffer cxadj, ffi::AnyBuffer cadj,
                      ffi::AnyBuffer rm0, ffi::AnyBuffer cm0,
                      ffi::Result<ffi::AnyBuffer> state, int32_t init) {
  JM_RETURN_IF_ERROR(CheckMcmOptions(init, kMcmApfb, kMcmBfsWr, 1));
  return McmFromScratchCpu(cxadj, cadj, rm0, cm0, state, init, nullptr);
}

ffi::Error McmSolveCpu(ffi::AnyBuffer cxadj, ffi::AnyBuffer cadj,
                       ffi::AnyBuffer rm0, ffi::AnyBuffer cm0,
                       ffi::Result<ffi::AnyBuffer> state, int32_t init,
                       int32_t driver, int32_t bfs, int32_t max_phases) {
  JM_RETURN_IF_ERROR(CheckMcmOptions(init, driver, bfs, max_phases));
  const McmOptions o{driver, bfs, max_phases};
  return McmFromScratchCpu(cxadj, cadj, rm0, cm0, state, init, &o);
}

ffi::Error McmStepCpu(ffi::AnyBuffer cxadj, ffi::AnyBuffer cadj,
                      ffi::AnyBuffer state_in, ffi::Result<ffi::AnyBuffer> state,
                      int32_t driver, int32_t bfs, int32_t max_phases,
                      int32_t levels, int32_t mapping) {
  JM_RETURN_IF_ERROR(CheckMcmOptions(kMcmInitNone, driver, bfs, max_phases));
  JM_RETURN_IF_ERROR(CheckMcmStep(levels, mapping));
  McmShape s;
  JM_RETURN_IF_ERROR(GetMcmShape(cxadj, cadj, state_in, &s));
  JM_RETURN_IF_ERROR(GetMcmShape(cxadj, cadj, *state, &s));
  if (state->untyped_data() != state_in.untyped_data())
    std::memcpy(state->untyped_data(), state_in.untyped_data(),
                state_in.size_bytes());
  const McmBuffers b{static_cast<const int*>(cxadj.untyped_data()),
                     static_cast<const int*>(cadj.untyped_data()),
                     static_cast<int*>(state->untyped_data())};
  const McmOptions o{driver, bfs, max_phases};
  for (int64_t i = 0; i < s.batch; ++i) {
    McmView p = ViewOf(s, b, i);
    mcm_stepped_call_serial(p, o, levels);
  }
  return ffi::Error::Success();
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

JM_EXPORT_HANDLER(jaxmatch_mcm_init_cpu, jaxmatch::McmInitCpu,
                  jaxmatch::BindMcmInit(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_mcm_step_cpu, jaxmatch::McmStepCpu,
                  jaxmatch::BindMcmStep(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_mcm_solve_cpu, jaxmatch::McmSolveCpu,
                  jaxmatch::BindMcmSolve(ffi::Ffi::Bind()));
