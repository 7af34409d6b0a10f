// Launchers of the CUDA maximum-cardinality matching kernels.  Each enqueues
// work on `stream` and returns the launch status; nothing synchronises,
// nothing allocates, so the handlers that call them can be captured in CUDA
// graphs.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "../common/mcm_state.h"

namespace jaxmatch {

// Thread mapping of the stepped kernels (Deveci et al.): CT, a constant grid
// of 256 x 256 threads, each striding over many vertices; MT, about one
// thread per vertex.
enum McmMapping : int { kMcmMappingCt = 0, kMcmMappingMt = 1 };

struct McmProblem {
  int64_t batch;
  int nr, nc, cap;
  int64_t len;       // state length per problem
  const int* cxadj;  // [batch, nc + 1]
  const int* cadj;   // [batch, cap]
  int* state;        // [batch, len]
};

// Initial matching (none, cheap or a warm start) and the first BFS array.
cudaError_t LaunchMcmInit(cudaStream_t stream, const McmProblem& p, int init,
                          const int* rm0, const int* cm0);

// One stepped call: `levels` BFS level kernels, then Alternate and
// FixMatching (each a no-op unless its phase is current).
cudaError_t LaunchMcmStep(cudaStream_t stream, const McmProblem& p,
                          const McmOptions& o, int mapping, int levels);

// Initialisation and the whole solve in one launch, a block per problem.
cudaError_t LaunchMcmSolve(cudaStream_t stream, const McmProblem& p, int init,
                           const int* rm0, const int* cm0, const McmOptions& o);

}  // namespace jaxmatch
