// Launchers of the CUDA Hungarian LAP kernels (hungarian_kernels.cu).  Each
// enqueues work on `stream` and returns the launch status; nothing
// synchronises, nothing allocates, so the handlers that call them can be
// captured in CUDA graphs.
#pragma once

#include <cuda_runtime_api.h>

#include "lap/common/block_per_problem.h"
#include "lap/common/lap_state.h"

namespace jaxmatch {

// The initialisation, one kernel launch per step (the stepped solver; a
// problem spans gridDim.x blocks).
template <class T>
cudaError_t LaunchLapInit(cudaStream_t stream, const LapProblem<T>& p);

// `iterations` iterations of the main loop, one kernel launch per step.
template <class T>
cudaError_t LaunchLapStep(cudaStream_t stream, const LapProblem<T>& p,
                          int iterations);

// The whole solve in one launch: a thread block per problem (fused solver).
template <class T>
cudaError_t LaunchLapSolve(cudaStream_t stream, const LapProblem<T>& p);

}  // namespace jaxmatch
