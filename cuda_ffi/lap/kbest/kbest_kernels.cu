// The GPU's k best assignments: one fused kernel for the whole batch, a
// block per problem whose warps are a crew (kbest_rank.h): each warp a
// common/teams.cuh TileTeam<32>, the crew's barrier the block's.  The chief
// warp pops, bounds and lists; the crew searches a pop's children a warp
// each; the chief then orders the found solutions by their objectives
// summed afresh (stable, as the CPU's std::stable_sort) and writes the
// results (KBestSolveTeam), with no host round trip.  Each block owns one
// workspace (KBestCrewLayout) in the device scratch memory and solves the
// problems b, b + crews, ... of the batch.
#include <cooperative_groups.h>

#include <cstdint>

#include "common/device.h"
#include "common/teams.cuh"
#include "lap/kbest/kbest_info.h"
#include "lap/kbest/kbest_kernels.h"
#include "lap/kbest/kbest_rank.h"

namespace jaxmatch {
namespace {

namespace cg = cooperative_groups;
using KBestWarp = TileTeam<32>;

// The warps of a block, a crew: member() the calling warp.
template <int kWarps>
struct KBestBlockCrew {
  __device__ int size() const { return kWarps; }
  __device__ int member() const { return static_cast<int>(threadIdx.x) / 32; }
  __device__ void sync() const {
    __syncwarp();
    __syncthreads();
  }
};

// Byte offsets of one crew's arrays in its workspace, and its size; every
// array 16-byte aligned.  The shared arrays first, then each member's
// search arrays (`member` bytes apart).
struct KBestCrewLayout {
  // Wide entries (W): the nodes' KBestSlots (m + 1), the queue's keys k,
  // the rows' bounds n, the found objectives k, the members' children's
  // bounds, lengths and peaks, their parts of the rows' bounds (least and
  // second, n each), the chief's wide words.
  std::size_t wides, keys, bounds, found, lows, lengths, peaks, least, second,
      ctl_wide;
  // int32: the nodes' KBestSlots (2n + 2m + 4), the open columns m, the
  // queue k, the free slots KBestSlots, the children and their lists'
  // lengths n each, the found solutions k n and their columns' rows k m,
  // the sorted order k, the members' slots, the chief's words.
  std::size_t ints, cols, queue, free_slots, children, child_total, found_rows,
      found_cols, order, slots, ctl;
  // Cost dtype (T): the costs transposed, m n.
  std::size_t ct;
  // Each member's: distances m (W), predecessors, states, its list m and
  // rows n (int32), from its base.
  std::size_t dist, pred, state, list, rows, member;
  int warps;
  std::size_t bytes;

  template <class T, class W>
  static KBestCrewLayout Of(int n, int m, int k, int warps) {
    const KBestNodeLayout L{n, m};
    const std::size_t slots = KBestSlots(k, warps), crew = warps;
    std::size_t at = 0;
    auto take = [&at](std::size_t count, std::size_t size) {
      const std::size_t start = at;
      at += (count * size + 15) / 16 * 16;
      return start;
    };
    KBestCrewLayout o;
    o.wides = take(slots * L.wides(), sizeof(W));
    o.keys = take(k, sizeof(W));
    o.bounds = take(n, sizeof(W));
    o.found = take(k, sizeof(W));
    o.lows = take(crew, sizeof(W));
    o.lengths = take(crew, sizeof(W));
    o.peaks = take(crew, sizeof(W));
    o.least = take(crew * n, sizeof(W));
    o.second = take(crew * n, sizeof(W));
    o.ctl_wide = take(kKBestCtlWideLen, sizeof(W));
    o.ints = take(slots * L.ints(), sizeof(int));
    o.cols = take(m, sizeof(int));
    o.queue = take(k, sizeof(int));
    o.free_slots = take(slots, sizeof(int));
    o.children = take(n, sizeof(int));
    o.child_total = take(n, sizeof(int));
    o.found_rows = take(static_cast<std::size_t>(k) * n, sizeof(int));
    o.found_cols = take(static_cast<std::size_t>(k) * m, sizeof(int));
    o.order = take(k, sizeof(int));
    o.slots = take(crew, sizeof(int));
    o.ctl = take(kKBestCtlLen, sizeof(int));
    o.ct = take(static_cast<std::size_t>(m) * n, sizeof(T));
    const std::size_t shared = at;
    at = 0;
    o.dist = take(m, sizeof(W));
    o.pred = take(m, sizeof(int));
    o.state = take(m, sizeof(int));
    o.list = take(m, sizeof(int));
    o.rows = take(n, sizeof(int));
    o.member = at;
    for (std::size_t* member_offset :
         {&o.dist, &o.pred, &o.state, &o.list, &o.rows})
      *member_offset += shared;
    o.warps = warps;
    o.bytes = shared + crew * o.member;
    return o;
  }
};

// Problem b of p, by the crew, in its workspace `work` (KBestCrewLayout
// L): the chief transposes the costs (the rows' bounds read them, every
// member's after the crew's first barrier of the ranking), then every warp
// takes its part (KBestSolveTeam).
template <class T, class Crew>
__device__ void KBestSolveMember(const KBestWarp& team, const Crew& crew,
                                 const KBestBatch<T>& p, int64_t b,
                                 const KBestCrewLayout& L,
                                 unsigned char* work) {
  using W = KBestWide<T>;
  const int n = p.n, m = p.m, k = p.k;
  auto at = [work](std::size_t offset) { return work + offset; };
  const T* C = p.C + b * n * m;
  T* Ct = reinterpret_cast<T*>(at(L.ct));
  if (crew.member() == 0) {
    const int64_t len = int64_t{n} * m;
    for (int64_t e = team.rank(); e < len; e += team.size())
      Ct[(e % m) * n + e / m] = C[e];
    team.sync();
  }
  const KBestProblem<T> P{
      n,       m, C, p.row_cost + b * n, p.exits ? p.col_cost + b * m : nullptr,
      p.exits, Ct};
  const std::size_t mine = crew.member() * L.member;
  const KBestTeamWork<W> w{
      reinterpret_cast<int*>(at(L.ints)),
      reinterpret_cast<W*>(at(L.wides)),
      KBestSearchWork<W>{reinterpret_cast<W*>(at(L.dist + mine)),
                         reinterpret_cast<int*>(at(L.pred + mine)),
                         reinterpret_cast<int*>(at(L.state + mine)),
                         reinterpret_cast<int*>(at(L.cols)),
                         reinterpret_cast<int*>(at(L.list + mine)),
                         reinterpret_cast<int*>(at(L.rows + mine))},
      KBestRankWork<W>{reinterpret_cast<int*>(at(L.queue)),
                       reinterpret_cast<W*>(at(L.keys)),
                       reinterpret_cast<int*>(at(L.free_slots)),
                       reinterpret_cast<W*>(at(L.bounds)),
                       reinterpret_cast<int*>(at(L.children)),
                       reinterpret_cast<int*>(at(L.child_total))},
      KBestCrewWork<W>{
          reinterpret_cast<int*>(at(L.slots)), reinterpret_cast<W*>(at(L.lows)),
          reinterpret_cast<W*>(at(L.lengths)),
          reinterpret_cast<W*>(at(L.peaks)), reinterpret_cast<W*>(at(L.least)),
          reinterpret_cast<W*>(at(L.second)), reinterpret_cast<int*>(at(L.ctl)),
          reinterpret_cast<W*>(at(L.ctl_wide))},
      reinterpret_cast<int*>(at(L.found_rows)),
      reinterpret_cast<int*>(at(L.found_cols)),
      reinterpret_cast<W*>(at(L.found)),
      reinterpret_cast<int*>(at(L.order))};
  // The crew's barrier at its end: the workspace is the next member's.
  KBestSolveTeam(team, crew, P, k, w, p.assignments + b * k * n,
                 p.costs + b * k, p.info + b * kKBestInfoLen);
}

template <class T, int kWarps>
__global__ void __launch_bounds__(32 * kWarps, 1)
    kbest_crew_kernel(KBestBatch<T> p, KBestCrewLayout L, int64_t crews,
                      unsigned char* scratch) {
  const KBestWarp team(cg::tiled_partition<32>(cg::this_thread_block()));
  const KBestBlockCrew<kWarps> crew;
  if (static_cast<int64_t>(blockIdx.x) >= crews) return;  // the whole block
  unsigned char* work = scratch + blockIdx.x * L.bytes;
  for (int64_t b = blockIdx.x; b < p.batch; b += crews)
    KBestSolveMember(team, crew, p, b, L, work);
}

}  // namespace

cudaError_t KBestPlan(int device, int64_t batch, int* warps) {
  int sms = 0;
  const cudaError_t e =
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  *warps = e == cudaSuccess ? KBestCrewWarps(batch, sms) : 1;
  return e;
}

template <class T>
std::size_t KBestCrewBytes(int n, int m, int k, int warps) {
  return KBestCrewLayout::Of<T, KBestWide<T>>(n, m, k, warps).bytes;
}

template <class T>
std::size_t KBestScratchBytes(int64_t batch, int n, int m, int k, int warps) {
  return static_cast<std::size_t>(KBestCrews(batch)) *
         KBestCrewBytes<T>(n, m, k, warps);
}

template <class T>
cudaError_t LaunchKBest(cudaStream_t stream, const KBestBatch<T>& p,
                        void* scratch) {
  if (p.batch == 0) return cudaSuccess;
  if (scratch == nullptr || p.k < 1 || p.n < 0 || p.m < 0)
    return cudaErrorInvalidValue;
  const KBestCrewLayout L =
      KBestCrewLayout::Of<T, KBestWide<T>>(p.n, p.m, p.k, p.crew);
  const int64_t crews = KBestCrews(p.batch);
  const int blocks = static_cast<int>(crews);
  auto* work = static_cast<unsigned char*>(scratch);
  switch (L.warps) {
    case 1:
      kbest_crew_kernel<T, 1><<<blocks, 32, 0, stream>>>(p, L, crews, work);
      break;
    case 2:
      kbest_crew_kernel<T, 2><<<blocks, 64, 0, stream>>>(p, L, crews, work);
      break;
    case 4:
      kbest_crew_kernel<T, 4><<<blocks, 128, 0, stream>>>(p, L, crews, work);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

#define JM_KBEST_INSTANTIATE(T)                                           \
  template std::size_t KBestCrewBytes<T>(int, int, int, int);             \
  template std::size_t KBestScratchBytes<T>(int64_t, int, int, int, int); \
  template cudaError_t LaunchKBest<T>(cudaStream_t, const KBestBatch<T>&, \
                                      void*);
JM_KBEST_INSTANTIATE(float)
JM_KBEST_INSTANTIATE(double)
JM_KBEST_INSTANTIATE(int32_t)
#undef JM_KBEST_INSTANTIATE

}  // namespace jaxmatch
