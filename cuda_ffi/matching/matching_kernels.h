// Launchers of the CUDA maximum-cardinality matching kernels.  Each enqueues
// work on `stream` and returns the launch status; nothing synchronises,
// nothing allocates, so the handlers that call them can be captured in CUDA
// graphs.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "matching/matching_state.h"

namespace jaxmatch {

// Threads per block of the stepped kernels.
constexpr int kMcmThreads = 256;

// Initial matching (none, cheap, a warm start or Karp-Sipser: up to
// kMcmKsSteppedRounds round kernels, then the greedy completion) and the
// first BFS array.  Karp-Sipser reads the problem's row CSR.
// `resident_blocks`: blocks of kMcmThreads the device holds at once (the MT
// grid's bound).
cudaError_t LaunchMcmInit(cudaStream_t stream, const McmProblem& p, int init,
                          const int* rm0, const int* cm0, int resident_blocks);

// One stepped call: a run of BFS levels with small frontiers in one block
// per problem, then `levels` BFS level kernels, then Alternate
// and FixMatching (each a no-op unless its phase is current).
cudaError_t LaunchMcmStep(cudaStream_t stream, const McmProblem& p,
                          const McmOptions& o, int mapping, int levels,
                          int resident_blocks);

// Initialisation and the whole solve in one launch, a block per problem.
cudaError_t LaunchMcmSolve(cudaStream_t stream, const McmProblem& p, int init,
                           const int* rm0, const int* cm0, const McmOptions& o);

}  // namespace jaxmatch
