// The GPU's k best assignments: one fused kernel for the whole batch, a
// warp per problem (common/teams.cuh's TileTeam<32>) running kbest_steps.h's
// ranking from the root's solve to the k-th output with no host round trip;
// then the warp orders the found solutions by their objectives summed afresh
// (stable, as the CPU's std::stable_sort) and writes the results
// (KBestSolveTeam).  Each warp
// owns one workspace (KBestWarpLayout) in the device scratch memory and
// solves the problems b, b + warps, ... of the batch.
#include <cooperative_groups.h>

#include <cstdint>

#include "common/device.h"
#include "common/teams.cuh"
#include "lap/kbest/kbest_info.h"
#include "lap/kbest/kbest_kernels.h"
#include "lap/kbest/kbest_steps.h"

namespace jaxmatch {
namespace {

namespace cg = cooperative_groups;
using KBestWarp = TileTeam<32>;

// Byte offsets of one warp's arrays in its workspace, and its size; every
// array 16-byte aligned.
struct KBestWarpLayout {
  // Wide entries (W): the nodes' (k + 2) (m + 1), the search's distances
  // m, the queue's keys k, the rows' bounds n, the found objectives k.
  std::size_t wides, dist, keys, bounds, found;
  // int32: the nodes' (k + 2) (2n + 2m + 4), the search's pred, state and
  // cols m each, the queue k, the free slots k + 2, the found solutions
  // k n and their columns' rows k m, the sorted order k.
  std::size_t ints, pred, state, cols, queue, free_slots, found_rows,
      found_cols, order;
  std::size_t bytes;

  template <class W>
  static KBestWarpLayout Of(int n, int m, int k) {
    const KBestNodeLayout L{n, m};
    const std::size_t slots = static_cast<std::size_t>(k) + 2;
    std::size_t at = 0;
    auto take = [&at](std::size_t count, std::size_t size) {
      const std::size_t start = at;
      at += (count * size + 15) / 16 * 16;
      return start;
    };
    KBestWarpLayout o;
    o.wides = take(slots * L.wides(), sizeof(W));
    o.dist = take(m, sizeof(W));
    o.keys = take(k, sizeof(W));
    o.bounds = take(n, sizeof(W));
    o.found = take(k, sizeof(W));
    o.ints = take(slots * L.ints(), sizeof(int));
    o.pred = take(m, sizeof(int));
    o.state = take(m, sizeof(int));
    o.cols = take(m, sizeof(int));
    o.queue = take(k, sizeof(int));
    o.free_slots = take(slots, sizeof(int));
    o.found_rows = take(static_cast<std::size_t>(k) * n, sizeof(int));
    o.found_cols = take(static_cast<std::size_t>(k) * m, sizeof(int));
    o.order = take(k, sizeof(int));
    o.bytes = at;
    return o;
  }
};

// Problem b of p, by the warp, in its workspace `work` (KBestWarpLayout L).
template <class T>
__device__ void KBestSolveMember(const KBestWarp& team, const KBestBatch<T>& p,
                                 int64_t b, const KBestWarpLayout& L,
                                 unsigned char* work) {
  using W = KBestWide<T>;
  const int n = p.n, m = p.m, k = p.k;
  const KBestProblem<T> P{n,
                          m,
                          p.C + b * n * m,
                          p.row_cost + b * n,
                          p.exits ? p.col_cost + b * m : nullptr,
                          p.exits};
  auto at = [work](std::size_t offset) { return work + offset; };
  const KBestTeamWork<W> w{
      reinterpret_cast<int*>(at(L.ints)),
      reinterpret_cast<W*>(at(L.wides)),
      KBestSearchWork<W>{reinterpret_cast<W*>(at(L.dist)),
                         reinterpret_cast<int*>(at(L.pred)),
                         reinterpret_cast<int*>(at(L.state)),
                         reinterpret_cast<int*>(at(L.cols))},
      KBestRankWork<W>{reinterpret_cast<int*>(at(L.queue)),
                       reinterpret_cast<W*>(at(L.keys)),
                       reinterpret_cast<int*>(at(L.free_slots)),
                       reinterpret_cast<W*>(at(L.bounds))},
      reinterpret_cast<int*>(at(L.found_rows)),
      reinterpret_cast<int*>(at(L.found_cols)),
      reinterpret_cast<W*>(at(L.found)),
      reinterpret_cast<int*>(at(L.order))};
  // The barrier at its end: the workspace is the next member's.
  KBestSolveTeam(team, P, k, w, p.assignments + b * k * n, p.costs + b * k,
                 p.info + b * kKBestInfoLen);
}

template <class T>
__global__ void __launch_bounds__(32 * kKBestWarpsPerBlock)
    kbest_warp_kernel(KBestBatch<T> p, KBestWarpLayout L, int64_t warps,
                      unsigned char* scratch) {
  const KBestWarp team(cg::tiled_partition<32>(cg::this_thread_block()));
  const int64_t warp =
      static_cast<int64_t>(blockIdx.x) * kKBestWarpsPerBlock + threadIdx.x / 32;
  if (warp >= warps) return;  // the whole warp
  unsigned char* work = scratch + warp * L.bytes;
  for (int64_t b = warp; b < p.batch; b += warps)
    KBestSolveMember(team, p, b, L, work);
}

}  // namespace

template <class T>
std::size_t KBestWarpBytes(int n, int m, int k) {
  return KBestWarpLayout::Of<KBestWide<T>>(n, m, k).bytes;
}

template <class T>
std::size_t KBestScratchBytes(int64_t batch, int n, int m, int k) {
  return static_cast<std::size_t>(KBestWarps(batch)) *
         KBestWarpBytes<T>(n, m, k);
}

template <class T>
cudaError_t LaunchKBest(cudaStream_t stream, const KBestBatch<T>& p,
                        void* scratch) {
  if (p.batch == 0) return cudaSuccess;
  if (scratch == nullptr || p.k < 1 || p.n < 0 || p.m < 0)
    return cudaErrorInvalidValue;
  const KBestWarpLayout L = KBestWarpLayout::Of<KBestWide<T>>(p.n, p.m, p.k);
  const int64_t warps = KBestWarps(p.batch);
  const int blocks =
      static_cast<int>((warps + kKBestWarpsPerBlock - 1) / kKBestWarpsPerBlock);
  kbest_warp_kernel<T><<<blocks, 32 * kKBestWarpsPerBlock, 0, stream>>>(
      p, L, warps, static_cast<unsigned char*>(scratch));
  return cudaGetLastError();
}

#define JM_KBEST_INSTANTIATE(T)                                           \
  template std::size_t KBestWarpBytes<T>(int, int, int);                  \
  template std::size_t KBestScratchBytes<T>(int64_t, int, int, int);      \
  template cudaError_t LaunchKBest<T>(cudaStream_t, const KBestBatch<T>&, \
                                      void*);
JM_KBEST_INSTANTIATE(float)
JM_KBEST_INSTANTIATE(double)
JM_KBEST_INSTANTIATE(int32_t)
#undef JM_KBEST_INSTANTIATE

}  // namespace jaxmatch
