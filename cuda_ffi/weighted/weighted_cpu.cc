// CPU back end of the weighted matching solvers: the steps of
// weighted_steps.h run by a serial team, one batch member after another.
//
// Handlers (operands in weighted_ffi.h):
//   jaxmatch_weighted_init_cpu  state cleared, the graph validated
//   jaxmatch_weighted_step_cpu  Suitor to its end, or up to `rounds` LD
//                               rounds
//   jaxmatch_weighted_b_init_cpu  b-state cleared, the graph and b validated
//   jaxmatch_weighted_b_step_cpu  sequential b-Suitor to its end
#include <cstring>

#include "weighted/b_suitor_steps.h"
#include "weighted/weighted_ffi.h"
#include "weighted/weighted_steps.h"

namespace jaxmatch {
namespace {

ffi::Error WmInitCpu(WmIndexBuffer xadj, WmIndexBuffer adj, WmKeyBuffer key,
                     WmIndexResult mate, WmIndexResult mate_edge,
                     WmIndexResult info, WmIndexResult work) {
  WmProblem problem{};
  JM_RETURN_IF_ERROR(PrepareWmInit(
      xadj, adj, key, {&*mate, &*mate_edge, &*info, &*work}, &problem));
  for (int64_t b = 0; b < problem.batch; ++b) {
    WmView p = problem.view(b);
    wm_init_serial(p);
  }
  return ffi::Error::Success();
}

ffi::Error WmStepCpu(WmIndexBuffer xadj, WmIndexBuffer adj, WmKeyBuffer key,
                     WmIndexBuffer mate_in, WmIndexBuffer mate_edge_in,
                     WmIndexBuffer info_in, WmIndexBuffer work_in,
                     WmIndexResult mate, WmIndexResult mate_edge,
                     WmIndexResult info, WmIndexResult work, int32_t method,
                     int32_t rounds) {
  const WmState in{&mate_in, &mate_edge_in, &info_in, &work_in};
  const WmState out{&*mate, &*mate_edge, &*info, &*work};
  WmProblem problem{};
  JM_RETURN_IF_ERROR(
      PrepareWmStep(xadj, adj, key, in, out, method, rounds, &problem,
                    [](const void* from, void* to, std::size_t bytes) {
                      std::memcpy(to, from, bytes);
                      return ffi::Error::Success();
                    }));
  for (int64_t b = 0; b < problem.batch; ++b) {
    WmView p = problem.view(b);
    if (!wm_running(p)) continue;
    if (method == kWmSuitor)
      wm_suitor_serial(p);
    else
      wm_ld_rounds_serial(p, rounds);
  }
  return ffi::Error::Success();
}

ffi::Error BmInitCpu(WmIndexBuffer xadj, WmIndexBuffer adj, WmKeyBuffer key,
                     WmIndexBuffer b, WmIndexResult mark, WmIndexResult degree,
                     WmIndexResult info, WmIndexResult work) {
  BmProblem problem{};
  JM_RETURN_IF_ERROR(PrepareBmInit(
      xadj, adj, key, b, {&*mark, &*degree, &*info, &*work}, &problem));
  for (int64_t i = 0; i < problem.batch; ++i) {
    BmView p = problem.view(i);
    bm_init_serial(p, problem.b_of(i));
  }
  return ffi::Error::Success();
}

ffi::Error BmStepCpu(WmIndexBuffer xadj, WmIndexBuffer adj, WmKeyBuffer key,
                     WmIndexBuffer mark_in, WmIndexBuffer degree_in,
                     WmIndexBuffer info_in, WmIndexBuffer work_in,
                     WmIndexResult mark, WmIndexResult degree,
                     WmIndexResult info, WmIndexResult work) {
  const WmState in{&mark_in, &degree_in, &info_in, &work_in};
  const WmState out{&*mark, &*degree, &*info, &*work};
  BmProblem problem{};
  JM_RETURN_IF_ERROR(
      PrepareBmStep(xadj, adj, key, in, out, &problem,
                    [](const void* from, void* to, std::size_t bytes) {
                      std::memcpy(to, from, bytes);
                      return ffi::Error::Success();
                    }));
  for (int64_t i = 0; i < problem.batch; ++i) {
    BmView p = problem.view(i);
    bm_serial(p);
  }
  return ffi::Error::Success();
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

JM_EXPORT_HANDLER(jaxmatch_weighted_init_cpu, jaxmatch::WmInitCpu,
                  jaxmatch::BindWmInit(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_weighted_step_cpu, jaxmatch::WmStepCpu,
                  jaxmatch::BindWmStep(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_weighted_b_init_cpu, jaxmatch::BmInitCpu,
                  jaxmatch::BindBmInit(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_weighted_b_step_cpu, jaxmatch::BmStepCpu,
                  jaxmatch::BindBmStep(ffi::Ffi::Bind()));
