// Launcher of the CUDA Jonker-Volgenant LAP kernels (jv_kernels.cu).  It
// enqueues work on `stream` and returns the launch status; nothing
// synchronises, nothing allocates (CUDA-graph safe).
#pragma once

#include <cuda_runtime_api.h>

#include "lap/common/lap_state.h"

namespace jaxmatch {

// The whole solve by Jonker-Volgenant, a warp or a block per problem
// (lap/jv/jv_team.cuh; defined in lap/jv/jv_kernels.cu); the problem must fit
// (LapJvFits).
template <class T>
cudaError_t LaunchLapJvSolve(cudaStream_t stream, const LapProblem<T>& p);

}  // namespace jaxmatch
