// Launcher of the CUDA sparse (CSR) LAP kernel (csr_kernels.cu).  It
// enqueues work on `stream` and returns the launch status; nothing
// synchronises, nothing allocates (CUDA-graph safe).
#pragma once

#include <cuda_runtime_api.h>

#include "lap/common/lap_state.h"

namespace jaxmatch {

// The whole sparse (CSR) solve in one launch: a thread block per problem
// (lap/sparse/csr_steps.h; defined in lap/sparse/csr_kernels.cu).
template <class T>
cudaError_t LaunchLapCsrSolve(cudaStream_t stream, const LapCsrProblem<T>& p);

}  // namespace jaxmatch
