// CUDA teams: the workers that share one problem in the step templates
// (<family>/<family>_steps.h; the CPU's SerialTeam is in common/device.h).
#pragma once

#include <climits>

#include <cooperative_groups.h>

namespace jaxmatch {

// The threads of one block work on one problem (fused solvers).
struct BlockTeam {
  static constexpr bool kRowOuter = false;
  __device__ int rank() const { return threadIdx.x; }
  __device__ int size() const { return blockDim.x; }
  // Barriers come after loops whose trip counts differ between the threads
  // of a warp; __syncwarp() first reconverges the warp, so the block-wide
  // barrier (an .aligned PTX barrier) is reached by whole warps.  Every block
  // barrier of a step template goes through here.
  __device__ void sync() const {
    __syncwarp();
    __syncthreads();
  }
  // Bitwise OR of every thread's `bits` (all 32 bits); a barrier.  The block
  // size is a multiple of 32, so every warp is whole.
  __device__ int sync_or(int bits) const {
    __shared__ int s_or;
    __syncwarp();
    const int warp_or = __reduce_or_sync(0xffffffffu, bits);
    __syncthreads();  // every thread has read the previous call's result
    if (threadIdx.x == 0) s_or = 0;
    __syncthreads();
    if ((threadIdx.x & 31) == 0 && warp_or) atomicOr(&s_or, warp_or);
    __syncthreads();
    return s_or;
  }
  // The largest of every thread's x, to every thread; a barrier.  Each warp
  // reduces with butterflies, then every thread combines the warps' results.
  __device__ unsigned long long all_max(unsigned long long x) const {
    __shared__ unsigned long long s_warp[32];
    __syncwarp();
#pragma unroll
    for (int d = 16; d > 0; d /= 2) {
      const unsigned long long y = __shfl_xor_sync(0xffffffffu, x, d);
      x = y > x ? y : x;
    }
    __syncthreads();  // every thread has read the previous call's results
    if ((threadIdx.x & 31) == 0) s_warp[threadIdx.x >> 5] = x;
    __syncthreads();
    x = s_warp[0];
    for (int w = 1; w < static_cast<int>(blockDim.x >> 5); ++w)
      x = s_warp[w] > x ? s_warp[w] : x;
    return x;
  }
  // The smallest of every thread's x, to every thread; a barrier.
  __device__ int all_min(int x) const {
    __shared__ int s_warp[32];
    __syncwarp();
    x = __reduce_min_sync(0xffffffffu, x);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) s_warp[threadIdx.x >> 5] = x;
    __syncthreads();
    x = s_warp[0];
    for (int w = 1; w < static_cast<int>(blockDim.x >> 5); ++w)
      x = s_warp[w] < x ? s_warp[w] : x;
    return x;
  }
  // Thread 0's x, to every thread; a barrier.
  __device__ unsigned long long from_first(unsigned long long x) const {
    __shared__ unsigned long long s_first;
    __syncwarp();
    __syncthreads();
    if (threadIdx.x == 0) s_first = x;
    __syncthreads();
    return s_first;
  }
};

// The threads of a thread-block cluster (sm_90 and newer; launched only
// there) work on one problem: blocks of kThreads threads, ranked block by
// block.  Its barrier is the cluster's (release, then acquire: earlier
// writes to global and shared memory are visible after it).  Its
// reductions combine each block's warps in the block's shared memory, then
// the blocks in block 0's, with one cluster barrier each.  Each kind of
// reduction cycles through three slots: call k resets the slot of call
// k + 1 before its barrier, when every reader of that slot (call k - 2)
// has passed the barrier of call k - 1.  Init() starts the slots.
template <int kThreads>
struct ClusterTeam {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps");
  static constexpr bool kRowOuter = false;
  mutable unsigned or_calls = 0, min_calls = 0;

  __device__ int rank() const {
    return static_cast<int>(cooperative_groups::this_cluster().block_rank()) *
               kThreads +
           static_cast<int>(threadIdx.x);
  }
  __device__ int size() const {
    return static_cast<int>(cooperative_groups::this_cluster().num_blocks()) *
           kThreads;
  }
  __device__ void sync() const {
    __syncwarp();
    cooperative_groups::this_cluster().sync();
  }
  // Before the first reduction: the slots of the first two calls of each
  // kind, then a barrier.
  __device__ void Init() const {
    if (threadIdx.x == 0)
      for (int k = 0; k < 2; ++k) {
        OrSlots().block[k] = OrSlots().cluster[k] = 0;
        MinSlots().block[k] = MinSlots().cluster[k] = INT_MAX;
      }
    sync();
  }
  // Bitwise OR of every thread's `bits`, to every thread; a barrier.
  __device__ int sync_or(int bits) const {
    return Reduce(OrSlots(), or_calls, 0, __reduce_or_sync(0xffffffffu, bits),
                  [](int* slot, int x) { atomicOr(slot, x); });
  }
  // The smallest of every thread's x, to every thread; a barrier.
  __device__ int all_min(int x) const {
    return Reduce(MinSlots(), min_calls, INT_MAX,
                  __reduce_min_sync(0xffffffffu, x),
                  [](int* slot, int y) { atomicMin(slot, y); });
  }

 private:
  struct Slots {
    int block[3];    // this block's warps
    int cluster[3];  // the blocks, in block 0's
  };
  __device__ static Slots& OrSlots() {
    __shared__ Slots slots;
    return slots;
  }
  __device__ static Slots& MinSlots() {
    __shared__ Slots slots;
    return slots;
  }
  template <class Combine>
  __device__ int Reduce(Slots& slots, unsigned& calls, int identity,
                        int warp_value, Combine combine) const {
    namespace cg = cooperative_groups;
    const cg::cluster_group cluster = cg::this_cluster();
    const int k = static_cast<int>(calls % 3);
    const int next = static_cast<int>((calls + 1) % 3);
    ++calls;
    if (threadIdx.x == 0) {
      slots.block[next] = identity;
      slots.cluster[next] = identity;
    }
    if ((threadIdx.x & 31) == 0) combine(&slots.block[k], warp_value);
    __syncthreads();
    if (threadIdx.x == 0)
      combine(cluster.map_shared_rank(&slots.cluster[k], 0), slots.block[k]);
    sync();
    return *cluster.map_shared_rank(&slots.cluster[k], 0);
  }
};

// The threads of one grid row (all blocks with the same blockIdx.y): stepped
// solvers, whose barriers are kernel boundaries.
struct GridRowTeam {
  static constexpr bool kRowOuter = false;
  __device__ int rank() const { return blockIdx.x * blockDim.x + threadIdx.x; }
  __device__ int size() const { return gridDim.x * blockDim.x; }
};

// The kLanes threads of one tile of a warp (kLanes a power of two <= 32)
// work on one vertex: they read its neighbour list interleaved and combine
// their findings with butterfly (shuffle-xor) reductions.  Tiles of a warp
// run independently; every lane of a tile takes the same branches.
template <int kLanes>
struct TileTeam {
  cooperative_groups::thread_block_tile<kLanes, void> tile;
  __device__ explicit TileTeam(
      cooperative_groups::thread_block_tile<kLanes, void> t)
      : tile(t) {}
  __device__ int rank() const { return tile.thread_rank(); }
  __device__ int size() const { return kLanes; }
  // The tile's barrier (and memory ordering between its lanes).
  __device__ void sync() const { tile.sync(); }
  // Bitwise OR of every lane's `bits`, to every lane.
  __device__ int sync_or(int bits) const {
#pragma unroll
    for (int d = kLanes / 2; d > 0; d /= 2) bits |= tile.shfl_xor(bits, d);
    return bits;
  }
  // How many lanes of lower rank hold `flag`, and in *total how many in
  // all (a ballot).
  __device__ int count_before(bool flag, int* total) const {
    const unsigned bits = tile.ballot(flag);
    *total = __popc(bits);
    return __popc(bits & ((1u << tile.thread_rank()) - 1u));
  }
  // The least (value, index) pair over the tile, ordered by value then by
  // index (a total order: no NaN), to every lane.
  template <class V>
  __device__ void all_argmin(V* value, int* index) const {
    V v = *value;
    int i = *index;
#pragma unroll
    for (int d = kLanes / 2; d > 0; d /= 2) {
      const V ov = tile.shfl_xor(v, d);
      const int oi = tile.shfl_xor(i, d);
      if (ov < v || (ov == v && oi < i)) {
        v = ov;
        i = oi;
      }
    }
    *value = v;
    *index = i;
  }
  __device__ unsigned long long all_max(unsigned long long x) const {
#pragma unroll
    for (int d = kLanes / 2; d > 0; d /= 2) {
      const unsigned long long y = tile.shfl_xor(x, d);
      x = y > x ? y : x;
    }
    return x;
  }
  __device__ int all_min(int x) const {
#pragma unroll
    for (int d = kLanes / 2; d > 0; d /= 2) {
      const int y = tile.shfl_xor(x, d);
      x = y < x ? y : x;
    }
    return x;
  }
  __device__ unsigned long long from_first(unsigned long long x) const {
    return tile.shfl(x, 0);
  }
};

// The warp of a worker of a team of whole warps (a block's, a grid row's)
// as a TileTeam: lanes that read one list (matching/kept_trees.h's graft;
// the CPU's serial worker is its own tile, common/device.h).
template <class Team>
__device__ TileTeam<32> warp_tile(const Team&) {
  return TileTeam<32>(cooperative_groups::tiled_partition<32>(
      cooperative_groups::this_thread_block()));
}

}  // namespace jaxmatch
