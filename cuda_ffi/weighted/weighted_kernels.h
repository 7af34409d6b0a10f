// Launchers of the CUDA weighted matching kernels.  Each enqueues work on
// `stream` and returns the launch status; nothing synchronises, nothing
// allocates, so the handlers that call them can be captured in CUDA graphs.
#pragma once

#include <cuda_runtime_api.h>

#include "weighted/weighted_state.h"

namespace jaxmatch {

// Threads per block of every weighted matching kernel.
constexpr int kWmThreads = 256;

// State cleared, the graph validated.  `resident_blocks`: blocks of
// kWmThreads the device holds at once (the grid's bound).
cudaError_t LaunchWmInit(cudaStream_t stream, const WmProblem& p,
                         int resident_blocks);

// Suitor to its end (method kWmSuitor), or `rounds` LD rounds (kWmLd; an
// even number); a no-op on a problem that is not running.
cudaError_t LaunchWmStep(cudaStream_t stream, const WmProblem& p, int method,
                         int rounds, int resident_blocks);

// b-Suitor (b_suitor_kernels.cu): the b-state cleared, the graph and b
// validated.
cudaError_t LaunchBmInit(cudaStream_t stream, const BmProblem& p,
                         int resident_blocks);

// b-Suitor's first pass and a bounded number of queue rounds; the result
// read off once the queue is empty.  A no-op on a problem that is not
// running.
cudaError_t LaunchBmStep(cudaStream_t stream, const BmProblem& p,
                         int resident_blocks);

}  // namespace jaxmatch
