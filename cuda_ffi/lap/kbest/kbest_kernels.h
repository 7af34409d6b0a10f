// The launcher of the GPU's k best assignments (kbest_kernels.cu): a warp
// per problem runs kbest_steps.h's whole ranking, its nodes and queues in a
// device workspace.  It enqueues work on `stream` and returns the launch
// status; nothing synchronises, nothing allocates.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace jaxmatch {

// A batch of k-best problems (operands and results as kbest_ffi.h says):
// C [batch, n, m], row_cost [batch, n], col_cost [batch, m] (read only
// with exits), assignments [batch, k, n], costs [batch, k], info [batch,
// kKBestInfoLen].
template <class T>
struct KBestBatch {
  int64_t batch = 0;
  int n = 0, m = 0, k = 0;
  bool exits = false;
  const T* C = nullptr;
  const T* row_cost = nullptr;
  const T* col_cost = nullptr;
  int* assignments = nullptr;
  T* costs = nullptr;
  int* info = nullptr;
};

// Warps of a block (one, alone: a small batch spreads over every SM; at the
// kernel's 128 registers a thread an SM holds 16 warps whatever the block),
// and the most warps of a launch: each warp owns one workspace and solves
// problems b, b + warps, ... of the batch.
constexpr int kKBestWarpsPerBlock = 1;
constexpr int64_t kKBestMaxWarps = 8192;

// The warps a launch runs for `batch` problems (at most kKBestMaxWarps).
inline int64_t KBestWarps(int64_t batch) {
  return batch < kKBestMaxWarps ? batch : kKBestMaxWarps;
}

// The bytes of one warp's workspace for n x m problems and k: the ranking's
// (k + 2) nodes (2n + 2m + 4 int32 and m + 1 wide entries each), its
// search's and queue's arrays, and the found solutions before they are
// sorted (k (n + m) int32, k wide); each array 16-byte aligned.
template <class T>
std::size_t KBestWarpBytes(int n, int m, int k);

// The device workspace LaunchKBest needs: KBestWarps(batch) warps' worth.
template <class T>
std::size_t KBestScratchBytes(int64_t batch, int n, int m, int k);

// The whole ranking of every problem of `p`, a warp per problem; `scratch`:
// KBestScratchBytes bytes of device memory, 16-byte aligned, which the
// kernel uses until it ends on `stream`.
template <class T>
cudaError_t LaunchKBest(cudaStream_t stream, const KBestBatch<T>& p,
                        void* scratch);

}  // namespace jaxmatch
