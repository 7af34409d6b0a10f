// CPU back end of the maximum-cardinality matching solvers (APFB / APsB /
// hybrid with GPUBFS / GPUBFS-WR): the steps of matching_steps.h run by a
// serial team, one batch member after another.
//
// Handlers (operands in matching_ffi.h):
//   jaxmatch_matching_init_cpu   initial matching and the first BFS array
//   jaxmatch_matching_step_cpu   one stepped call (up to `levels` BFS levels,
//                                then Alternate + FixMatching when the
//                                phase's BFS ended)
//   jaxmatch_matching_solve_cpu  initialisation and the whole solve
#include <cstring>
#include <vector>

#include "matching/matching_ffi.h"
#include "matching/matching_solve.h"

namespace jaxmatch {
namespace {

ffi::Error McmFromScratchCpu(IndexBuffer cxadj, IndexBuffer cadj,
                             IndexBuffer rxadj, IndexBuffer radj,
                             IndexBuffer rm0, IndexBuffer cm0, McmState st,
                             int32_t init, const McmOptions* solve) {
  McmProblem problem{};
  JM_RETURN_IF_ERROR(PrepareMcmFromScratch(cxadj, cadj, rxadj, radj, rm0, cm0,
                                           st, init, solve, &problem));
  const int* rm = rm0.typed_data();
  const int* cm = cm0.typed_data();
  const SerialTeam team;
  for (int64_t i = 0; i < problem.batch; ++i) {
    McmView p = problem.view(i);
    mcm_init(team, p, init, rm + i * problem.nr, cm + i * problem.nc);
    if (solve) mcm_solve_loop(team, p, *solve);
  }
  return ffi::Error::Success();
}

ffi::Error McmInitCpu(IndexBuffer cxadj, IndexBuffer cadj, IndexBuffer rxadj,
                      IndexBuffer radj, IndexBuffer rm0, IndexBuffer cm0,
                      IndexResult rm, IndexResult cm, IndexResult info,
                      IndexResult work, int32_t init) {
  return McmFromScratchCpu(cxadj, cadj, rxadj, radj, rm0, cm0,
                           {&*rm, &*cm, &*info, &*work}, init, nullptr);
}

ffi::Error McmSolveCpu(IndexBuffer cxadj, IndexBuffer cadj, IndexBuffer rxadj,
                       IndexBuffer radj, IndexBuffer rm0, IndexBuffer cm0,
                       IndexResult rm, IndexResult cm, IndexResult info,
                       IndexResult work, int32_t init, int32_t driver,
                       int32_t bfs, int32_t max_phases, int32_t hybrid_depth,
                       int32_t auto_free_divisor, int32_t keep_trees_divisor) {
  const McmOptions o = McmOptionsOf(driver, bfs, max_phases, hybrid_depth,
                                    auto_free_divisor, keep_trees_divisor);
  return McmFromScratchCpu(cxadj, cadj, rxadj, radj, rm0, cm0,
                           {&*rm, &*cm, &*info, &*work}, init, &o);
}

ffi::Error McmStepCpu(IndexBuffer cxadj, IndexBuffer cadj, IndexBuffer rxadj,
                      IndexBuffer radj, IndexBuffer rm_in, IndexBuffer cm_in,
                      IndexBuffer info_in, IndexBuffer work_in, IndexResult rm,
                      IndexResult cm, IndexResult info, IndexResult work,
                      int32_t driver, int32_t bfs, int32_t max_phases,
                      int32_t hybrid_depth, int32_t auto_free_divisor,
                      int32_t keep_trees_divisor, int32_t levels,
                      int32_t mapping, int32_t restart_levels) {
  McmOptions o =
      McmOptionsOf(driver, bfs, max_phases, hybrid_depth, auto_free_divisor,
                   keep_trees_divisor, restart_levels);
  const McmState in{&rm_in, &cm_in, &info_in, &work_in};
  const McmState out{&*rm, &*cm, &*info, &*work};
  McmShape s;
  JM_RETURN_IF_ERROR(
      PrepareMcmStep(cxadj, cadj, rxadj, radj, in, out, o, levels, mapping, &s,
                     [](const void* from, void* to, std::size_t bytes) {
                       std::memcpy(to, from, bytes);
                       return ffi::Error::Success();
                     }));
  // The CPU's cheap matching is the sequential greedy: nothing to restart.
  o.restart_levels = 0;
  const McmProblem problem = McmProblemOf(s, cxadj, cadj, out, &rxadj, &radj);
  for (int64_t i = 0; i < s.batch; ++i) {
    McmView p = problem.view(i);
    mcm_stepped_call_serial(p, o, levels);
  }
  return ffi::Error::Success();
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

JM_EXPORT_HANDLER(jaxmatch_matching_init_cpu, jaxmatch::McmInitCpu,
                  jaxmatch::BindMcmInit(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_matching_step_cpu, jaxmatch::McmStepCpu,
                  jaxmatch::BindMcmStep(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_matching_solve_cpu, jaxmatch::McmSolveCpu,
                  jaxmatch::BindMcmSolve(ffi::Ffi::Bind()));

// ---------------------------------------------------------------- host entry
// One graph solved on the calling thread, without XLA: the eager drop-in
// (jaxmatch.maximum_bipartite_matching) calls this through ctypes, so it
// compiles nothing per shape.  cxadj [n_cols + 1] and cadj [cap] are the
// column CSR (duplicate rows in a column are allowed); the results are
// row_match [n_rows], col_match [n_cols] and info [kMcmInfoLen] (status:
// kMcmBadGraph for a malformed CSR).  Returns 0, or 1 for invalid options
// (init must be none or cheap: the host entry has no row CSR and no warm
// start).
extern "C" __attribute__((visibility("default"))) int
jaxmatch_matching_solve_host(int n_rows, int n_cols, int cap, const int* cxadj,
                             const int* cadj, int init, int driver, int bfs,
                             int max_phases, int hybrid_depth,
                             int auto_free_divisor, int* row_match,
                             int* col_match, int* info) {
  using namespace jaxmatch;
  const McmOptions o{driver, bfs, max_phases, hybrid_depth, auto_free_divisor};
  if (n_rows < 0 || n_cols < 0 || cap < 0 || CheckInit(init).failure() ||
      CheckMcmOptions(o).failure() ||
      (init != kMcmInitNone && init != kMcmInitCheap))
    return 1;
  std::vector<int> work(McmWorkLayout(n_rows, n_cols).len);
  std::vector<int> none_r(n_rows, -1), none_c(n_cols, -1);
  const McmProblem problem{1,    n_rows,    n_cols,    cap,  cxadj,
                           cadj, row_match, col_match, info, work.data()};
  McmView p = problem.view(0);
  const SerialTeam team;
  mcm_init(team, p, init, none_r.data(), none_c.data());
  mcm_solve_loop(team, p, o);
  return 0;
}
