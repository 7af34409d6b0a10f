// Launchers of the CUDA Jonker-Volgenant LAP kernels (jv_kernels.cu).  They
// enqueue work on `stream` and return the launch status; nothing
// synchronises, nothing allocates (CUDA-graph safe).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "lap/common/lap_state.h"

namespace jaxmatch {

// The whole solve by Jonker-Volgenant, a warp or a block per problem
// (lap/jv/jv_team.cuh; defined in lap/jv/jv_kernels.cu); the problem must fit
// (LapJvFits).
template <class T>
cudaError_t LaunchLapJvSolve(cudaStream_t stream, const LapProblem<T>& p);

// A batch of problems with unassigned costs (lap/jv/jv_cpu.h's
// lap_jv_solve_unassigned; n <= m): row_cost [batch, n] and col_cost
// [batch, m] are the prices of leaving a row or a column unassigned.  Its
// results are base's col_for_row, row_for_col, u, v and info; base.work and
// base.twork are set by LaunchLapJvUnassigned.
template <class T>
struct LapExitProblem : LapProblem<T> {
  const T* row_cost = nullptr;
  const T* col_cost = nullptr;
};

// The bytes of device scratch that LaunchLapJvUnassigned needs for a batch
// of `batch` n x m problems (0 when a warp solves each of them in shared
// memory; else a block's state, LapWorkLayout's JV arrays, per problem).
template <class T>
std::size_t LapJvUnassignedScratchBytes(int64_t batch, int n, int m);

// The whole solve of `p` (n <= m, LapJvFits) by JV with unassigned costs, a
// warp or a block per problem; `scratch`: LapJvUnassignedScratchBytes
// bytes of device memory, 16-byte aligned (null when that is 0), which
// the solve uses until it ends on `stream`.
template <class T>
cudaError_t LaunchLapJvUnassigned(cudaStream_t stream, LapExitProblem<T> p,
                                  void* scratch);

}  // namespace jaxmatch
