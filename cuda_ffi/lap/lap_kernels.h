// Launchers of the CUDA Hungarian LAP kernels.  Each enqueues work on
// `stream` and returns the launch status; nothing synchronises, nothing
// allocates, so the handlers that call them can be captured in CUDA graphs.
#pragma once

#include <cuda_runtime_api.h>

#include "lap/lap_state.h"

namespace jaxmatch {

// The grid of a kernel that gives each problem of a batch one block: a warp
// multiple of threads, at least one warp, at most the larger side and
// max_threads; one block per problem up to 2^30 (blocks loop over the rest).
struct BlockPerProblem {
  int threads, blocks;
  BlockPerProblem(int n, int m, int64_t batch, int max_threads) {
    const int work = m > n ? m : n;
    threads = ((work + 31) / 32) * 32;
    if (threads < 32) threads = 32;
    if (threads > max_threads) threads = max_threads;
    blocks = static_cast<int>(batch < (int64_t{1} << 30) ? batch
                                                         : (int64_t{1} << 30));
  }
};

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

// The whole solve by Jonker-Volgenant, a warp or a block per problem
// (lap_jv_team.cuh; defined in lap_jv_kernels.cu); the problem must fit
// (LapJvFits).
template <class T>
cudaError_t LaunchLapJvSolve(cudaStream_t stream, const LapProblem<T>& p);

// The whole sparse (CSR) solve in one launch: a thread block per problem
// (lap_csr_steps.h; defined in lap_csr_kernels.cu).
template <class T>
cudaError_t LaunchLapCsrSolve(cudaStream_t stream, const LapCsrProblem<T>& p);

}  // namespace jaxmatch
