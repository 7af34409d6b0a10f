// The launcher of the GPU's k best assignments (kbest_kernels.cu): a crew
// of warps per problem runs kbest_rank.h's whole ranking, its nodes and
// queues in a device workspace.  It enqueues work on `stream` and returns the
// launch status; nothing synchronises, nothing allocates.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace jaxmatch {

// A batch of k-best problems (operands and results as kbest_ffi.h says):
// C [batch, n, m], row_cost [batch, n], col_cost [batch, m] (read only
// with exits), assignments [batch, k, n], costs [batch, k], info [batch,
// kKBestInfoLen]; the warps of each problem's crew (1, 2 or 4: KBestPlan).
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
  int crew = 1;
};

// The warps of the crew (a block) that ranks each problem of a batch of
// `batch` on a GPU of `sms` SMs: the first rule whose bound the batch
// meets, else 1.  A crew searches a node's children side by side
// (kbest_rank.h); that pays while the batch leaves SMs idle, and costs once
// the problems fill them, where a crew's searches past the bound take other
// problems' turns (measured on the H200: docs/benchmarks.md, "The k best
// assignments").
struct KBestCrewRule {
  int64_t most_problems_per_sm;  // up to this many problems an SM
  int warps;
};
constexpr KBestCrewRule kKBestCrewRules[] = {{2, 4}, {4, 2}};
inline int KBestCrewWarps(int64_t batch, int sms) {
  for (const KBestCrewRule& rule : kKBestCrewRules)
    if (batch <= rule.most_problems_per_sm * sms) return rule.warps;
  return 1;
}

// The crew's warps for a batch of `batch` on device `device` (its SM count
// queried; no stream call): into *warps.
cudaError_t KBestPlan(int device, int64_t batch, int* warps);

// The most crews (blocks) of a launch: each owns one workspace and solves
// problems b, b + crews, ... of the batch.
constexpr int64_t kKBestMaxCrews = 8192;

// The crews a launch runs for `batch` problems.
inline int64_t KBestCrews(int64_t batch) {
  return batch < kKBestMaxCrews ? batch : kKBestMaxCrews;
}

// The bytes of the workspace of one crew of `warps` for n x m problems and k:
// the ranking's KBestSlots nodes (2n + 2m + 4 int32 and m + 1 wide entries
// each), the queue's and the pop's arrays, the found solutions before they
// are sorted (k (n + m) int32, k wide), the costs transposed (n m of the
// cost dtype), and each member's search arrays (4 m + n) and parts of the
// rows' bounds (2 n wide); each array 16-byte aligned.
template <class T>
std::size_t KBestCrewBytes(int n, int m, int k, int warps);

// The device workspace LaunchKBest needs: KBestCrews(batch) crews' worth.
template <class T>
std::size_t KBestScratchBytes(int64_t batch, int n, int m, int k, int warps);

// The whole ranking of every problem of `p`, a crew of p.crew warps per
// problem; `scratch`: KBestScratchBytes(..., p.crew) bytes of device
// memory, 16-byte aligned, which the kernel uses until it ends on `stream`.
template <class T>
cudaError_t LaunchKBest(cudaStream_t stream, const KBestBatch<T>& p,
                        void* scratch);

}  // namespace jaxmatch
