// CPU handler of the sparse (CSR) LAP target (operands in csr_ffi.h): JV
// for sparse costs (sparse_jv.h), or the tree variant of csr_steps.h on a
// serial team; and the host entry of the scipy drop-in.
#include <cstdint>
#include <limits>

#include "common/cancel.h"
#include "lap/sparse/csr_ffi.h"
#include "lap/sparse/csr_steps.h"
#include "lap/sparse/sparse_jv.h"

namespace jaxmatch {
namespace {

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

// One sparse problem (CSR costs, n <= m rows and columns, float64) solved on
// the calling thread: the scipy drop-in min_weight_full_bipartite_matching.
// indptr [n + 1] (int64), indices [nnz], cost [nnz] (+inf: no edge); x0 [n]
// and v0 [m] a warm start (SparseLapJv::SolveFrom, square problems only), or
// both null; row_reduction_bound as SparseLapJv's (0: JV's); the results are
// col_for_row [n], row_for_col [m], u [n], v [m] and info [kLapInfoLen]
// (status, searches).  Returns 0, or 1 for invalid arguments (the caller
// validates the CSR; the solver numbers entries in int, so indptr[n] must
// fit one).
extern "C" __attribute__((visibility("default"))) int
jaxmatch_sparse_lap_solve_host(int n, int m, const int64_t* indptr,
                               const int* indices, const double* cost,
                               const int* x0, const double* v0,
                               int row_reduction_bound, int* col_for_row,
                               int* row_for_col, double* u, double* v,
                               int* info) {
  if (n < 0 || m < n || (x0 == nullptr) != (v0 == nullptr) ||
      (x0 != nullptr && n != m) || row_reduction_bound < 0 ||
      indptr[n] > std::numeric_limits<int>::max())
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
