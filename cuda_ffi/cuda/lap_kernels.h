// Launchers of the CUDA Hungarian LAP kernels.  Each enqueues work on
// `stream` and returns the launch status; nothing synchronises, nothing
// allocates, so the handlers that call them can be captured in CUDA graphs.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace jaxmatch {

struct LapProblemShape {
  int64_t batch;
  int n, m;        // n <= m
  int variant;     // LapVariant
  int64_t ilen, tlen;
};

// Zero the state and run the initial reduction and greedy assignment.
template <class T>
cudaError_t LaunchLapInit(cudaStream_t stream, const LapProblemShape& s,
                          const T* C, int* istate, T* tstate);

// `iterations` iterations of the main loop, one kernel launch per step (the
// stepped solver; a problem spans gridDim.x blocks).
template <class T>
cudaError_t LaunchLapStep(cudaStream_t stream, const LapProblemShape& s,
                          const T* C, int* istate, T* tstate, int iterations);

// The whole solve in one launch: a thread block per problem (fused solver).
template <class T>
cudaError_t LaunchLapSolve(cudaStream_t stream, const LapProblemShape& s,
                           const T* C, int* istate, T* tstate);

}  // namespace jaxmatch
