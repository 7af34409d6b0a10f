// The CPU's JV on a batch of dense problems (jv_cpu.cc), for the dense LAP
// handlers (lap/common/dense_cpu.cc).
#pragma once

#include <cstdint>

#include "lap/common/dense_ffi.h"

namespace jaxmatch {

// JV on every batch member, the members spread over the host's cores;
// from the warm start x0 [batch, n] and v0 [batch, m] (dense_ffi.h) when
// given.
ffi::Error RunJvCpu(const ffi::AnyBuffer& C, const LapShape& s,
                    const LapStateData& state, const ffi::AnyBuffer* x0,
                    const ffi::AnyBuffer* v0);

// A checked batch of problems with unassigned costs: C [batch, n, m],
// row_cost [batch, n] and col_cost [batch, m] in the cost dtype `dtype`;
// the results col_for_row [batch, n], row_for_col [batch, m], u [batch, n]
// and v [batch, m] (the cost dtype), info [batch, kLapInfoLen].
struct LapUnassignedBatch {
  ffi::DataType dtype;
  int64_t batch;
  int n, m;
  int max_searches;  // 0: no limit
  const void* C;
  const void* row_cost;
  const void* col_cost;
  int* col_for_row;
  int* row_for_col;
  void* u;
  void* v;
  int* info;
};

// JV with unassigned costs (jv_cpu.h's lap_jv_solve_unassigned) on every
// batch member, spread over the host's cores as RunJvCpu's.
ffi::Error RunJvUnassignedCpu(const LapUnassignedBatch& b);

}  // namespace jaxmatch
