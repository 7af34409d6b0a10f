// CPU handler of the sparse (CSR) LAP target (operands in csr_ffi.h): JV
// for sparse costs (sparse_jv.h), or the tree variant of csr_steps.h on a
// serial team; and the host entry of the scipy drop-in.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/cancel.h"
#include "lap/sparse/csr_ffi.h"
#include "lap/sparse/csr_steps.h"
#include "lap/sparse/sparse_jv.h"

namespace jaxmatch {
namespace {

// Sparse (CSR) costs, each batch member in turn: JV (variant kLapJv or
// kLapCsrAuto), or the steps of the GPU's tree variant on a serial team
// (kLapCsrTree), stopped like the dense solves when cancelled.  With
// unassigned costs (row_cost and col_cost not null) every row and column
// may stay unassigned at its price.
ffi::Error RunLapCsrCpu(const ffi::AnyBuffer& indptr,
                        const ffi::AnyBuffer& indices,
                        const ffi::AnyBuffer& cost, ffi::RemainingRets& rets,
                        int32_t variant, const ffi::AnyBuffer* row_cost,
                        const ffi::AnyBuffer* col_cost) {
  LapCsrShape s;
  JM_RETURN_IF_ERROR(CheckLapCsrVariant(variant));
  JM_RETURN_IF_ERROR(CheckLapCsr(indptr, indices, cost, rets, &s));
  if (row_cost != nullptr)
    JM_RETURN_IF_ERROR(CheckLapCsrPrices(cost, *row_cost, *col_cost, s));
  return DispatchCost(cost.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    LapCsrProblem<T> problem = LapCsrProblemOf<T>(s, indptr, indices, cost);
    if (row_cost != nullptr) {
      problem.row_cost = static_cast<const T*>(row_cost->untyped_data());
      problem.col_cost = static_cast<const T*>(col_cost->untyped_data());
    }
    const T* rc = problem.row_cost;
    const T* cc = problem.col_cost;
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
                       problem.edge_for_row + b * s.n, o.info + b * kLapInfoLen,
                       rc == nullptr ? nullptr : rc + b * s.n,
                       cc == nullptr ? nullptr : cc + b * s.m);
    return ffi::Error::Success();
  });
}

ffi::Error LapCsrSolveCpu(ffi::AnyBuffer indptr, ffi::AnyBuffer indices,
                          ffi::AnyBuffer cost, ffi::RemainingRets rets,
                          int32_t variant) {
  return RunLapCsrCpu(indptr, indices, cost, rets, variant, nullptr, nullptr);
}

ffi::Error LapCsrSolveUnassignedCpu(ffi::AnyBuffer indptr,
                                    ffi::AnyBuffer indices, ffi::AnyBuffer cost,
                                    ffi::AnyBuffer row_cost,
                                    ffi::AnyBuffer col_cost,
                                    ffi::RemainingRets rets, int32_t variant) {
  return RunLapCsrCpu(indptr, indices, cost, rets, variant, &row_cost,
                      &col_cost);
}

}  // namespace
}  // namespace jaxmatch

namespace ffi = xla::ffi;

JM_EXPORT_HANDLER(jaxmatch_lap_csr_solve_cpu, jaxmatch::LapCsrSolveCpu,
                  jaxmatch::BindLapCsrSolve(ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_lap_csr_solve_unassigned_cpu,
                  jaxmatch::LapCsrSolveUnassignedCpu,
                  jaxmatch::BindLapCsrSolveUnassigned(ffi::Ffi::Bind()));

namespace jaxmatch {
namespace {

// The CSR of the transpose of an n x m CSR matrix, without its infinite
// (absent) entries: a counting sort by column, each column's rows in
// increasing order.  The arrays are zeroed before the scatter fills them:
// their pages, touched first in order, fault in several times faster than
// in the scatter's order.
struct TransposedCsr {
  std::vector<int64_t> indptr;
  std::vector<int> indices;
  std::vector<double> cost;

  TransposedCsr(int n, int m, const int64_t* ptr, const int* idx,
                const double* c)
      : indptr(m + 1, 0) {
    const int64_t nnz = ptr[n];
    for (int64_t e = 0; e < nnz; ++e)
      if (c[e] != INFINITY) ++indptr[idx[e] + 1];
    for (int j = 0; j < m; ++j) indptr[j + 1] += indptr[j];
    indices.resize(indptr[m]);
    cost.resize(indptr[m]);
    std::vector<int64_t> next(indptr.begin(), indptr.end() - 1);
    for (int i = 0; i < n; ++i) {
      for (int64_t e = ptr[i]; e < ptr[i + 1]; ++e) {
        if (c[e] == INFINITY) continue;
        const int64_t at = next[idx[e]]++;
        indices[at] = i;
        cost[at] = c[e];
      }
    }
  }
};

// A problem of more rows than columns solved without its transpose when
// every column can take a row of its least cost, all distinct (the rows
// taken greedily, in order; integer costs tie often enough): then u = 0 and
// v = the column minima solve the dual of the rectangular LP whose columns
// are all matched (reduced costs c_ij - v_j >= 0, zero on the matching, and
// u <= 0 with u = 0 on the rows left out).  Writes the assignment and
// returns true, or returns false (the outputs then undefined) when a
// column found no row.
bool TallByColumnMinima(int n, int m, const int64_t* ptr, const int* idx,
                        const double* c, int* col_for_row, int* row_for_col,
                        double* u, double* v) {
  for (int j = 0; j < m; ++j) {
    v[j] = INFINITY;
    row_for_col[j] = -1;
  }
  const int64_t nnz = ptr[n];
  for (int64_t e = 0; e < nnz; ++e)
    if (c[e] < v[idx[e]]) v[idx[e]] = c[e];
  int matched = 0;
  for (int i = 0; i < n; ++i) {
    col_for_row[i] = -1;
    u[i] = 0.0;
    if (matched == m) continue;
    for (int64_t e = ptr[i]; e < ptr[i + 1]; ++e) {
      const int j = idx[e];
      if (row_for_col[j] < 0 && c[e] == v[j] && c[e] != INFINITY) {
        row_for_col[j] = i;
        col_for_row[i] = j;
        ++matched;
        break;
      }
    }
  }
  return matched == m;
}

}  // namespace
}  // namespace jaxmatch

// One sparse problem (CSR costs, float64) solved on the calling thread: the
// scipy drop-in min_weight_full_bipartite_matching.  indptr [n + 1]
// (int64), indices [nnz], cost [nnz] (+inf: no edge); x0 [n] and v0 [m] a
// warm start (SparseLapJv::SolveFrom, square problems only), or both null;
// row_reduction_bound as SparseLapJv's (0: JV's); the results are
// col_for_row [n], row_for_col [m], u [n], v [m] and info [kLapInfoLen]
// (status, searches).  A problem of more rows than columns (n > m) is
// solved by its column minima when they suffice (TallByColumnMinima), else
// through its transpose, built here: every column is matched, and a row
// left out has col_for_row -1 and u 0 (the duals of the rectangular LP
// with the sides swapped: u <= 0).  Returns 0, or 1 for invalid
// arguments (the caller validates the CSR; the solver numbers entries in
// int, so indptr[n] must fit one).
extern "C" __attribute__((visibility("default"))) int
jaxmatch_sparse_lap_solve_host(int n, int m, const int64_t* indptr,
                               const int* indices, const double* cost,
                               const int* x0, const double* v0,
                               int row_reduction_bound, int* col_for_row,
                               int* row_for_col, double* u, double* v,
                               int* info) {
  if (n < 0 || m < 0 || (x0 == nullptr) != (v0 == nullptr) ||
      (x0 != nullptr && n != m) || row_reduction_bound < 0 ||
      indptr[n] > std::numeric_limits<int>::max())
    return 1;
  for (int k = 0; k < jaxmatch::kLapInfoLen; ++k) info[k] = 0;
  int searches = 0;
  if (n > m && jaxmatch::TallByColumnMinima(n, m, indptr, indices, cost,
                                            col_for_row, row_for_col, u, v)) {
    info[jaxmatch::kStatus] = jaxmatch::kLapOptimal;
  } else if (n > m) {  // the transpose's rows are the columns
    const jaxmatch::TransposedCsr t(n, m, indptr, indices, cost);
    jaxmatch::SparseLapJv jv(m, n, t.indptr.data(), t.indices.data(),
                             t.cost.data(), row_reduction_bound);
    info[jaxmatch::kStatus] = jv.Solve(&searches);
    jv.Write(row_for_col, col_for_row, v, u);
  } else {
    jaxmatch::SparseLapJv jv(n, m, indptr, indices, cost, row_reduction_bound);
    info[jaxmatch::kStatus] =
        x0 != nullptr ? jv.SolveFrom(x0, v0, &searches) : jv.Solve(&searches);
    jv.Write(col_for_row, row_for_col, u, v);
  }
  info[jaxmatch::kIters] = searches;
  return 0;
}
