// Teams of GPU threads that share one problem and every reduction's
// result: a warp (JvWarp), a block (JvBlock) and a thread-block cluster
// (JvCluster, sm_90).  Each holds the same control flow on every thread;
// a reduction (ArgMin, LeastAfter, Min, Max, Sum) returns the same value to
// every thread.  The JV team solver (lap/jv/jv_team.cuh) and its auction
// start (lap/jv/auction_team.cuh) run on them.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "common/cluster_ptx.cuh"
#include "common/warp_reduce.cuh"

namespace jaxmatch {

// The reductions that JvBlock and JvCluster share: a warp reduction, then
// the warps' results through the team's Combine(x, none, warp_reduce).
template <class Team>
struct JvCombiningTeam {
  template <class W>
  __device__ jv_warp::Key<W> ArgMin(jv_warp::Key<W> k) {
    return self().Combine(
        jv_warp::WarpArgMin(k), jv_warp::NoKey<W>(),
        [](jv_warp::Key<W> x) { return jv_warp::WarpArgMin(x); });
  }
  template <class W>
  __device__ jv_warp::Key<W> ArgMinFast(jv_warp::Key<W> k) {
    return self().Combine(
        jv_warp::WarpArgMinFast(k), jv_warp::NoKey<W>(),
        [](jv_warp::Key<W> x) { return jv_warp::WarpArgMinFast(x); });
  }
  template <class W>
  __device__ jv_warp::Lead<W> LeastAfter(const jv_warp::Lead<W>& l, W prev) {
    return self().Combine(
        jv_warp::WarpLeastAfter(l, prev),
        jv_warp::Lead<W>{jv_warp::NoKey<W>(), -1, 0},
        [](jv_warp::Lead<W> x) { return jv_warp::WarpLeast(x); });
  }
  template <class W>
  __device__ W Min(W x) {
    const jv_warp::Key<W> k =
        self().Combine(jv_warp::Key<W>{jv_warp::WarpMin(x), 0},
                       jv_warp::NoKey<W>(), [](jv_warp::Key<W> y) {
                         return jv_warp::Key<W>{jv_warp::WarpMin(y.value), 0};
                       });
    return k.value;
  }
  template <class W>
  __device__ W Max(W x) {
    return -Min<W>(-x);
  }
  // The sum over the team, the same on every thread: each warp's and the
  // warps' sums in a fixed order (no two threads round differently).
  template <class W>
  __device__ W Sum(W x) {
    const auto warp_sum = [](jv_warp::Key<W> k) {
      W s = k.value;
#pragma unroll
      for (int o = 16; o > 0; o /= 2)
        s += __shfl_down_sync(jv_warp::kFullMask, s, o);
      return jv_warp::Key<W>{__shfl_sync(jv_warp::kFullMask, s, 0), 0};
    };
    return self()
        .Combine(warp_sum(jv_warp::Key<W>{x, 0}), jv_warp::Key<W>{W(0), 0},
                 warp_sum)
        .value;
  }

 private:
  __device__ Team& self() { return *static_cast<Team*>(this); }
};

// The 32 lanes of a warp solve one problem (small problems, a batch
// spread over the SMs): every reduction is a few shuffles.
struct JvWarp {
  static constexpr int kSize = 32;
  __device__ static int rank() { return static_cast<int>(threadIdx.x & 31); }
  __device__ void sync() const { __syncwarp(); }
  template <class W>
  __device__ jv_warp::Key<W> ArgMin(jv_warp::Key<W> k) const {
    return jv_warp::WarpArgMin(k);
  }
  template <class W>
  __device__ jv_warp::Key<W> ArgMinFast(jv_warp::Key<W> k) const {
    return jv_warp::WarpArgMinFast(k);
  }
  template <class W>
  __device__ jv_warp::Lead<W> LeastAfter(const jv_warp::Lead<W>& l,
                                         W prev) const {
    return jv_warp::WarpLeastAfter(l, prev);
  }
  template <class W>
  __device__ void TwoLeast(jv_warp::Key<W>* first,
                           jv_warp::Key<W>* second) const {
    jv_warp::WarpTwoLeast(first, second);
  }
  template <class W>
  __device__ W Min(W x) const {
    return jv_warp::WarpMin(x);
  }
  template <class W>
  __device__ W Max(W x) const {
    return jv_warp::WarpMax(x);
  }
  __device__ bool All(bool p) const {
    return __all_sync(jv_warp::kFullMask, p);
  }
  // The sum over the warp (integers: any order gives the same sum).
  template <class W>
  __device__ W Sum(W x) const {
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
      x += __shfl_xor_sync(jv_warp::kFullMask, x, o);
    return x;
  }
  // How many lanes below this one have `flag` set; *total: how many have.
  __device__ int Enumerate(bool flag, int* total) const {
    const unsigned ballot = __ballot_sync(jv_warp::kFullMask, flag);
    *total = __popc(ballot);
    return __popc(ballot & ((1u << rank()) - 1));
  }
};

// The kThreads threads of a block solve one problem (large problems, whose
// search steps each scan thousands of columns).  A reduction is a warp
// reduction, one barrier, and a warp reduction of the warps' results.  Its
// scratch alternates between two halves (`parity`): a thread that reaches
// reduction r + 1's barrier has finished reading reduction r's half, so
// r + 2 may overwrite it without a second barrier.
template <int kThreads>
struct JvBlock : JvCombiningTeam<JvBlock<kThreads>> {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps");
  static constexpr int kSize = kThreads;
  static constexpr int kWarps = kThreads / 32;
  int parity = 0;

  __device__ static int rank() { return static_cast<int>(threadIdx.x); }
  __device__ void sync() const {
    __syncwarp();
    __syncthreads();
  }
  template <class W>
  __device__ void TwoLeast(jv_warp::Key<W>* first, jv_warp::Key<W>* second) {
    __shared__ W s_value[2][2][kWarps];
    __shared__ int s_index[2][2][kWarps];
    __syncwarp();
    jv_warp::WarpTwoLeast(first, second);
    const int lane = Lane(), warp = Warp();
    if (lane == 0) {
      s_value[parity][0][warp] = first->value;
      s_index[parity][0][warp] = first->index;
      s_value[parity][1][warp] = second->value;
      s_index[parity][1][warp] = second->index;
    }
    __syncthreads();
    if (lane < kWarps) {
      *first =
          jv_warp::Key<W>{s_value[parity][0][lane], s_index[parity][0][lane]};
      *second =
          jv_warp::Key<W>{s_value[parity][1][lane], s_index[parity][1][lane]};
    } else {
      *first = *second = jv_warp::Key<W>{jv_warp::WideInf<W>(), INT_MAX};
    }
    parity ^= 1;
    jv_warp::WarpTwoLeast(first, second);
  }
  __device__ bool All(bool p) const {
    __syncwarp();
    return __syncthreads_and(p) != 0;
  }
  // How many threads below this one have `flag` set; *total: how many have.
  __device__ int Enumerate(bool flag, int* total) {
    __shared__ int s_count[2][kWarps];
    __syncwarp();
    const unsigned ballot = __ballot_sync(jv_warp::kFullMask, flag);
    const int lane = Lane(), warp = Warp();
    if (lane == 0) s_count[parity][warp] = __popc(ballot);
    __syncthreads();
    int before = __popc(ballot & ((1u << lane) - 1)), sum = 0;
    for (int w = 0; w < kWarps; ++w) {
      const int c = s_count[parity][w];
      if (w < warp) before += c;
      sum += c;
    }
    parity ^= 1;
    *total = sum;
    return before;
  }

 private:
  friend struct JvCombiningTeam<JvBlock>;
  __device__ static int Lane() { return static_cast<int>(threadIdx.x & 31); }
  __device__ static int Warp() { return static_cast<int>(threadIdx.x >> 5); }

  // The warps' results `k` (a Key or a Lead, each the same on every lane of
  // its warp) reduced by `warp_reduce`, to every thread; `none` loses to
  // every result.
  template <class X, class WarpReduce>
  __device__ X Combine(X k, X none, WarpReduce warp_reduce) {
    __shared__ X s[2][kWarps];
    const int lane = Lane(), warp = Warp();
    if (lane == 0) s[parity][warp] = k;
    __syncthreads();
    k = lane < kWarps ? s[parity][lane] : none;
    parity ^= 1;
    return warp_reduce(k);
  }
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// The kBlocks blocks of a thread-block cluster (sm_90), kThreads threads
// each, solve one problem (a large one, whose search steps of thousands of
// columns are too much work for one SM).  Rank
// b * kThreads + t is block b's thread t.  A reduction is JvBlock's within
// each block, then each block sends its result to every block's shared
// memory (st.async, counted by the receiver's mbarrier: no fence), and
// every warp reduces the blocks' results.  The solve's state lives in
// global memory (L2), ordered by sync()'s cluster barrier (release, then
// acquire).  Scratch and mbarriers alternate between two halves
// (`parity`): a block sends reduction r + 1 only after all its threads have
// read reduction r's results (JvBlock's barrier comes first), and sends
// r + 2 only after it has received every block's r + 1, so no half is
// written again before its readers are done.  Init() starts the problem.
template <int kThreads, int kBlocks>
struct JvCluster : JvCombiningTeam<JvCluster<kThreads, kBlocks>> {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps");
  static_assert(kBlocks <= 32, "a lane per block");
  static constexpr int kSize = kThreads * kBlocks;
  static constexpr int kWarps = kThreads / 32;
  int parity = 0;
  unsigned phases = 0;  // bit p: the phase of mbarrier p to wait for

  __device__ static int rank() {
    return static_cast<int>(__clusterRelativeBlockRank()) * kThreads +
           static_cast<int>(threadIdx.x);
  }
  __device__ void sync() const {
    __syncwarp();
    Barrier();
  }
  // Every thread of the cluster arrives, and waits for the others; their
  // earlier writes (global and shared memory) are visible after it.
  __device__ static void Barrier() {
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
  }
  // Before the problem: initialises the exchange's barriers, then a cluster
  // barrier (no block sends to one not yet initialised).
  __device__ static void Init() {
    Exchange& x = Shared();
    if (threadIdx.x == 0) {
      for (int p = 0; p < 2; ++p) jv_cluster::MbarrierInit(&x.bar[p]);
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    Barrier();
  }

  template <class W>
  __device__ void TwoLeast(jv_warp::Key<W>* first, jv_warp::Key<W>* second) {
    using Key = jv_warp::Key<W>;
    struct Pair {
      Key first, second;
    };
    __shared__ Pair s[2][kWarps];
    __syncwarp();
    jv_warp::WarpTwoLeast(first, second);
    if (Lane() == 0) s[parity][Warp()] = Pair{*first, *second};
    __syncthreads();
    const Pair none{jv_warp::NoKey<W>(), jv_warp::NoKey<W>()};
    Pair mine = Lane() < kWarps ? s[parity][Lane()] : none;
    jv_warp::WarpTwoLeast(&mine.first, &mine.second);
    mine = Gather(mine, none);
    jv_warp::WarpTwoLeast(&mine.first, &mine.second);
    parity ^= 1;
    *first = mine.first;
    *second = mine.second;
  }
  __device__ bool All(bool p) {
    __syncwarp();
    const int block_all = __syncthreads_and(p) != 0;
    const int all = Gather(block_all, 1);
    parity ^= 1;
    return __all_sync(jv_warp::kFullMask, all != 0);
  }
  // How many threads below this one have `flag` set; *total: how many have.
  __device__ int Enumerate(bool flag, int* total) {
    __shared__ int s_count[2][kWarps];
    __syncwarp();
    const unsigned ballot = __ballot_sync(jv_warp::kFullMask, flag);
    if (Lane() == 0) s_count[parity][Warp()] = __popc(ballot);
    __syncthreads();
    int before = __popc(ballot & ((1u << Lane()) - 1)), sum = 0;
    for (int w = 0; w < kWarps; ++w) {
      const int c = s_count[parity][w];
      if (w < Warp()) before += c;
      sum += c;
    }
    const int count = Gather(sum, 0);
    const int block = static_cast<int>(__clusterRelativeBlockRank());
    parity ^= 1;
    *total = static_cast<int>(__reduce_add_sync(jv_warp::kFullMask, count));
    return before + static_cast<int>(__reduce_add_sync(
                        jv_warp::kFullMask, Lane() < block ? count : 0));
  }

 private:
  friend struct JvCombiningTeam<JvCluster>;
  static constexpr int kSlotBytes = 32;
  struct Exchange {
    alignas(16) unsigned char slot[2][kBlocks][kSlotBytes];
    uint64_t bar[2];
  };
  __device__ static Exchange& Shared() {
    __shared__ Exchange x;
    return x;
  }
  __device__ static int Lane() { return static_cast<int>(threadIdx.x & 31); }
  __device__ static int Warp() { return static_cast<int>(threadIdx.x >> 5); }

  // Every block's `mine` (the same on each of its threads), block b's to
  // lane b of every warp, `none` to the lanes past kBlocks.
  template <class X>
  __device__ X Gather(const X& mine, const X& none) {
    static_assert(sizeof(X) <= kSlotBytes, "a slot holds a result");
    constexpr int kBytes = (static_cast<int>(sizeof(X)) + 15) / 16 * 16;
    Exchange& x = Shared();
    const int p = parity;
    if (threadIdx.x == 0)
      jv_cluster::MbarrierExpect(&x.bar[p], kBlocks * kBytes);
    if (threadIdx.x < kBlocks) {
      uint64_t words[kBytes / 8] = {};
      memcpy(words, &mine, sizeof(X));
      const int block = static_cast<int>(__clusterRelativeBlockRank());
      const int to = static_cast<int>(threadIdx.x);
      const uint32_t slot = jv_cluster::MapShared(
          jv_cluster::SharedAddress(&x.slot[p][block][0]), to);
      const uint32_t bar =
          jv_cluster::MapShared(jv_cluster::SharedAddress(&x.bar[p]), to);
#pragma unroll
      for (int q = 0; q < kBytes / 16; ++q)
        jv_cluster::StoreAsync(slot + 16 * q, words[2 * q], words[2 * q + 1],
                               bar);
    }
    jv_cluster::MbarrierWait(&x.bar[p], (phases >> p) & 1u);
    phases ^= 1u << p;
    X got = none;
    if (Lane() < kBlocks) memcpy(&got, &x.slot[p][Lane()][0], sizeof(X));
    return got;
  }

  // The warps' results `k` (a Key or a Lead, each the same on every lane of
  // its warp) reduced by `warp_reduce`, to every thread; `none` loses to
  // every result.
  template <class X, class WarpReduce>
  __device__ X Combine(X k, X none, WarpReduce warp_reduce) {
    __shared__ X s[2][kWarps];
    if (Lane() == 0) s[parity][Warp()] = k;
    __syncthreads();
    k = warp_reduce(Lane() < kWarps ? s[parity][Lane()] : none);
    k = warp_reduce(Gather(k, none));
    parity ^= 1;
    return k;
  }
};
#endif

}  // namespace jaxmatch
