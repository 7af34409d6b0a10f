// Jonker and Volgenant's shortest augmenting paths (lap_jv.h) run by a team
// of GPU threads per problem: a warp (JvWarp) for batches of small
// problems, a block (JvBlock) for large ones.
//
// The algorithm is lap_jv.h's, step for step: column reduction with
// reduction transfer, one bounded pass of augmenting row reduction (square,
// finite costs) or the row-minima greedy start (rectangular, +inf entries),
// then Dijkstra from each free row.  The team splits every pass over the
// columns: thread t owns columns t, t + kSize, ...; each sequential decision
// (the least column, the second least, the next row to scan) is a team
// reduction whose result every thread holds, so the threads run the same
// control flow and thread 0 alone writes the scalars of the shared state.
// Duals and distances are kept in the wider type W (double for float costs,
// int64 for int32), as on the CPU.
//
// A warp keeps its state in shared memory (LapJvWarpLayout), the cost
// matrix too when it fits beside the state, and during a search each lane
// holds its columns' distances, prices and owners in registers
// (AugmentHeld), so a search step costs the next row's cost loads and one
// reduction: the path of one problem is latency, and a batch runs a problem
// per warp on every SM.  A block keeps as much of its state as fits in
// shared memory, the rest in the solve's global workspace (LapWorkLayout),
// which stays in L2, and spreads each step's row over its threads (held in
// registers too below 1024 columns).  From 1024 rows on GPUs with
// thread-block clusters (sm_90), a cluster of blocks (JvCluster) shares a
// problem: each step's row spreads over 16 SMs, and the reductions go
// through the blocks' shared memory.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "lap/lap_state.h"

namespace jaxmatch {

namespace jv_warp {

constexpr unsigned kFullMask = 0xffffffffu;

template <class W>
__device__ __forceinline__ W WideInf() {
  if constexpr (std::is_floating_point<W>::value)
    return static_cast<W>(INFINITY);
  else
    return LLONG_MAX;
}

// x reduced over the warp by `better(y, x)` (y replaces x when better), to
// every lane.
template <class W, class Better>
__device__ __forceinline__ W WarpReduce(W x, Better better) {
#pragma unroll
  for (int s = 16; s > 0; s /= 2) {
    const W y = __shfl_xor_sync(kFullMask, x, s);
    x = better(y, x) ? y : x;
  }
  return x;
}

template <class W>
__device__ __forceinline__ W WarpMin(W x) {
  return WarpReduce(x, [](W y, W z) { return y < z; });
}

template <class W>
__device__ __forceinline__ W WarpMax(W x) {
  return WarpReduce(x, [](W y, W z) { return y > z; });
}

// A column key ordered by value, then by index.
template <class W>
struct Key {
  W value;
  int index;
  // Without branches: both comparisons are cheap.
  __device__ bool operator<(const Key& o) const {
    return (value < o.value) | ((value == o.value) & (index < o.index));
  }
};

// The least key over the warp, to every lane.
template <class W>
__device__ __forceinline__ Key<W> WarpArgMin(Key<W> k) {
  const W least = WarpMin(k.value);
  const int index = __reduce_min_sync(
      kFullMask, k.value == least ? k.index : static_cast<int>(INT_MAX));
  return Key<W>{least, index};
}

// An unsigned key monotone in x (x <= y gives key(x) <= key(y)), so the
// least key is that of the least x, ties of the key aside; equal x give
// equal keys.  A double's key is its high word (sign, exponent and 20
// fraction bits) put in unsigned order, the sign bit set when x >= 0 and
// the word negated when x < 0 (so -0 and +0 share a key): integer
// operations only.  An integer's key is the float rounded down from it.
template <class W>
__device__ __forceinline__ unsigned OrderedKey(W x) {
  if constexpr (std::is_floating_point<W>::value) {
    const unsigned hi = static_cast<unsigned>(__double2hiint(x));
    return (hi >> 31) ? 0u - hi : hi | 0x80000000u;
  } else {
    const unsigned u = __float_as_uint(__ll2float_rd(x));
    return u ^ ((u >> 31) ? 0xffffffffu : 0x80000000u);
  }
}

// The lane holding the least key over the warp, cheaper than WarpArgMin in
// a search: one integer reduction of OrderedKey, exact when one lane holds
// the least (distinct distances).  When several do, their distances are
// mostly equal outright (the augmenting row reduction leaves a row's two
// least columns tied): the least index among them is reduced while one
// broadcast tells whether they are equal; else WarpArgMin decides among
// those lanes.
template <class W>
__device__ __forceinline__ int WarpArgMinLane(Key<W> k) {
  const unsigned mine = OrderedKey(k.value);
  const unsigned least = __reduce_min_sync(kFullMask, mine);
  const bool holds = mine == least;
  const unsigned holders = __ballot_sync(kFullMask, holds);
  const int holder = 31 - __clz(holders);  // the highest one
  if ((holders & (holders - 1)) == 0) return holder;
  const int index = __reduce_min_sync(kFullMask, holds ? k.index : INT_MAX);
  const W value = __shfl_sync(kFullMask, k.value, holder);
  Key<W> best{value, index};
  if (!__all_sync(kFullMask, !holds || k.value == value))
    best = WarpArgMin(holds ? k : Key<W>{WideInf<W>(), INT_MAX});
  return 31 - __clz(__ballot_sync(kFullMask, holds && k.index == best.index));
}

// The least key over the warp, to every lane (WarpArgMinLane's).
template <class W>
__device__ __forceinline__ Key<W> WarpArgMinFast(Key<W> k) {
  const int src = WarpArgMinLane(k);
  return Key<W>{__shfl_sync(kFullMask, k.value, src),
                __shfl_sync(kFullMask, k.index, src)};
}

// A search's candidate column: its key, the row that owns it (-1: none)
// and that row's reduced cost there, c_ij - v_j.
template <class W>
struct Lead {
  Key<W> key;
  int row;
  W tight;
};

// Lane src's lead, to every lane.
template <class W>
__device__ __forceinline__ Lead<W> WarpLeadOf(const Lead<W>& l, int src) {
  // The row and the index first: the next step's loads wait on them.
  const int row = __shfl_sync(kFullMask, l.row, src);
  const int index = __shfl_sync(kFullMask, l.key.index, src);
  const W value = __shfl_sync(kFullMask, l.key.value, src);
  const W tight = __shfl_sync(kFullMask, l.tight, src);
  return Lead<W>{Key<W>{value, index}, row, tight};
}

// The lead of the least key over the warp, to every lane.
template <class W>
__device__ __forceinline__ Lead<W> WarpLeast(const Lead<W>& l) {
  return WarpLeadOf(l, WarpArgMinLane(l.key));
}

// A search step's least lead, to every lane, given the least distance
// `prev` of the search's last step (every open distance is at least
// that): when some lane's lead attains it, that lead is least without a
// reduction, and the first such lane's is taken, a free column's before
// the others (the path ends there); else WarpLeast's.  Most steps are
// such: a scanned row's other columns at its least reduced cost reach the
// same distance (2 of 3 steps on 100 x 100 Euclidean distances).
template <class W>
__device__ __forceinline__ Lead<W> WarpLeastAfter(const Lead<W>& l, W prev) {
  const bool at_prev = l.key.value == prev;
  const unsigned ties = __ballot_sync(kFullMask, at_prev);
  const unsigned free_ties = __ballot_sync(kFullMask, at_prev && l.row < 0);
  int src;
  if (ties != 0)
    src = __ffs(free_ties != 0 ? free_ties : ties) - 1;
  else
    src = WarpArgMinLane(l.key);
  return WarpLeadOf(l, src);
}

// The two least keys over the warp (first < second), to every lane, from
// each lane's two least: the least of the lanes' firsts, then the least of
// the others' firsts and the winner's second.
template <class W>
__device__ __forceinline__ void WarpTwoLeast(Key<W>* first, Key<W>* second) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int src = WarpArgMinLane(*first);
  const Key<W> rest = lane == src ? *second : *first;
  *first = Key<W>{__shfl_sync(kFullMask, first->value, src),
                  __shfl_sync(kFullMask, first->index, src)};
  *second = WarpArgMinFast(rest);
}

// The key that loses to every column's.
template <class W>
__device__ __forceinline__ Key<W> NoKey() {
  return Key<W>{WideInf<W>(), INT_MAX};
}

}  // namespace jv_warp

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
namespace jv_cluster {

__device__ __forceinline__ uint32_t SharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// The address of the same shared variable in block `rank` of the cluster.
__device__ __forceinline__ uint32_t MapShared(uint32_t address, int rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(address), "r"(rank));
  return remote;
}
__device__ __forceinline__ void MbarrierInit(uint64_t* bar) {
  asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(SharedAddress(bar))
      : "memory");
}
// The barrier's one arrival of its phase, expecting `bytes` of st.async.
__device__ __forceinline__ void MbarrierExpect(uint64_t* bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   SharedAddress(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void MbarrierWait(uint64_t* bar, unsigned phase) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait;\n"
      "}\n" ::"r"(SharedAddress(bar)),
      "r"(phase)
      : "memory");
}
// 16 bytes to another block's shared memory, counted by its mbarrier.
__device__ __forceinline__ void StoreAsync(uint32_t remote, uint64_t lo,
                                           uint64_t hi, uint32_t remote_bar) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [%0], "
      "{%1, %2}, [%3];" ::"r"(remote),
      "l"(lo), "l"(hi), "r"(remote_bar)
      : "memory");
}

}  // namespace jv_cluster

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

// The state of one JV solve (shared or global memory): the prices v and the
// distances d (W [m]), the predecessors pred and owners y (int [m]), the
// assignment x and the list of free rows (int [n]).
template <class W>
struct JvState {
  W *v, *d;
  int *pred, *y, *x, *rows;
};

// One problem (n <= m, m <= 64 * Team::kSize) solved by the calling team
// (JvWarp or JvBlock); every thread of the team calls every member
// function.  `C` is the [n, m] cost matrix (global or shared memory).
// kHeld > 0: a search holds each thread's columns in registers
// (AugmentHeld; needs m <= kHeld * kSize and a team with LeastAfter), else in
// memory (Augment).
template <class T, class Team, int kHeld = 0>
class TeamJv {
 public:
  using W = LapJvWide<T>;
  using Key = jv_warp::Key<W>;
  static constexpr int kSize = Team::kSize;

  __device__ TeamJv(int n, int m, const T* C, const JvState<W>& state)
      : n_(n),
        m_(m),
        C_(C),
        me_(Team::rank()),
        v_(state.v),
        d_(state.d),
        pred_(state.pred),
        y_(state.y),
        x_(state.x),
        rows_(state.rows) {}

  // lap_jv.h's LapJv::Solve; kLapInvalidEntries (the state cleared) when a
  // cost is NaN or -inf.
  __device__ int Solve(int max_searches, int* augmentations) {
    Clear();
    const Entries entries = ScanEntries();
    if (!entries.valid) return kLapInvalidEntries;
    int free_count;
    if (n_ == m_ && entries.finite) {
      free_count = ColumnReduction();
      if (free_count > 0) free_count = AugmentingRowReduction(free_count);
    } else {
      free_count = RowMinimaGreedy();
    }
    return AugmentFreeRows(free_count, max_searches, augmentations);
  }

  // lap_jv.h's LapJv::SolveFrom: from the prices v0 [m] and the assignment
  // x0 [n] of an earlier solve (global memory).
  __device__ int SolveFrom(const T* v0, const int* x0, int max_searches,
                           int* augmentations) {
    const Entries entries = ScanEntries();
    if (!entries.valid) {
      Clear();
      return kLapInvalidEntries;
    }
    for (int j = me_; j < m_; j += kSize) {
      const W p = static_cast<W>(v0[j]);
      const bool finite = isfinite(static_cast<double>(v0[j]));
      v_[j] = !finite ? W(0) : (n_ < m_ && p > W(0) ? W(0) : p);
      y_[j] = -1;
    }
    for (int i = me_; i < n_; i += kSize) x_[i] = -1;
    team_.sync();
    KeepMinimalRows(x0);
    if (n_ < m_) ZeroUnassignedPrices();
    return FinishFromKept(entries.finite, max_searches, augmentations);
  }

  // The end of SolveFrom: from the prices v_ and the assignment x_, y_ in
  // the state, each assigned row at its least reduced cost (and, when
  // n < m, the free columns' prices 0), the free rows augmented;
  // kLapInvalidEntries (the state cleared) when a cost is NaN or -inf.
  __device__ int SolveFromKept(int max_searches, int* augmentations) {
    const Entries entries = ScanEntries();
    if (!entries.valid) {
      Clear();
      return kLapInvalidEntries;
    }
    return FinishFromKept(entries.finite, max_searches, augmentations);
  }

  // lap_jv.h's LapJv::Write: the assignment and the duals (global memory)
  // of a solve that ended with `status`; returns the problem's status:
  // kLapOverflow instead of kLapOptimal when a dual, or the total cost of
  // integer costs, does not fit T.  The assignment is -1 throughout unless
  // the status is kLapOptimal.
  __device__ int Write(int status, int* col_for_row, int* row_for_col, T* u,
                       T* v) const {
    W u_min = jv_warp::WideInf<W>(), u_max = -jv_warp::WideInf<W>();
    W v_min = jv_warp::WideInf<W>(), v_max = -jv_warp::WideInf<W>();
    for (int i = me_; i < n_; i += kSize) {
      const W r = RowDual(i);
      u_min = r < u_min ? r : u_min;
      u_max = r > u_max ? r : u_max;
    }
    for (int j = me_; j < m_; j += kSize) {
      v_min = v_[j] < v_min ? v_[j] : v_min;
      v_max = v_[j] > v_max ? v_[j] : v_max;
    }
    W shift = W(0);
    if constexpr (!std::is_floating_point<T>::value) {
      if (n_ == m_) {
        u_min = team_.Min(u_min);
        v_min = team_.Min(v_min);
        u_max = team_.Max(u_max);
        v_max = team_.Max(v_max);
        const W lo = static_cast<W>(INT_MIN), hi = static_cast<W>(INT_MAX);
        const W s_min = (lo - v_min) > (u_max - hi) ? lo - v_min : u_max - hi;
        const W s_max = (hi - v_max) < (u_min - lo) ? hi - v_max : u_min - lo;
        if (!(s_min > s_max || (s_min <= 0 && 0 <= s_max)))
          shift = s_min > 0 ? s_min : s_max;
      }
    }
    bool fits = true;
    W total = W(0);
    for (int i = me_; i < n_; i += kSize) {
      fits &= Store(RowDual(i) - shift, u + i);
      if (x_[i] >= 0) total += Cost(i, x_[i]);
    }
    for (int j = me_; j < m_; j += kSize) fits &= Store(v_[j] + shift, v + j);
    if constexpr (!std::is_floating_point<T>::value) {
      // |total| < n 2^31: no int64 overflow.
      total = team_.Sum(total);
      fits &=
          static_cast<W>(INT_MIN) <= total && total <= static_cast<W>(INT_MAX);
    }
    if (!team_.All(fits) && status == kLapOptimal) status = kLapOverflow;
    const bool optimal = status == kLapOptimal;
    for (int i = me_; i < n_; i += kSize) col_for_row[i] = optimal ? x_[i] : -1;
    for (int j = me_; j < m_; j += kSize) row_for_col[j] = optimal ? y_[j] : -1;
    return status;
  }

 private:
  __device__ W Cost(int i, int j) const {
    return static_cast<W>(C_[static_cast<size_t>(i) * m_ + j]);
  }
  __device__ W RowDual(int i) const {
    return x_[i] >= 0 ? Cost(i, x_[i]) - v_[x_[i]] : W(0);
  }
  __device__ static bool Store(W w, T* out) {
    if constexpr (!std::is_floating_point<T>::value) {
      if (w < static_cast<W>(INT_MIN) || w > static_cast<W>(INT_MAX))
        return false;
    }
    *out = static_cast<T>(w);
    return true;
  }

  // The prices 0 and nothing assigned.
  __device__ void Clear() {
    for (int j = me_; j < m_; j += kSize) v_[j] = W(0), y_[j] = -1;
    for (int i = me_; i < n_; i += kSize) x_[i] = -1;
    team_.sync();
  }

  // Whether the costs are valid (no NaN or -inf; +inf marks a forbidden
  // pair) and finite, in one pass: four entries a thread per iteration,
  // without an exit per entry, so that the loads overlap.
  struct Entries {
    bool valid, finite;
  };
  __device__ Entries ScanEntries() const {
    if constexpr (!std::is_floating_point<T>::value) {
      return Entries{true, true};
    } else {
      const size_t size = static_cast<size_t>(n_) * m_;
      bool valid = true, finite = true;
      const auto scan = [&](T c) {
        valid &= c > T(-INFINITY);  // false for NaN
        finite &= fabs(c) < T(INFINITY);
      };
      size_t k = me_;
      for (; k + 3 * kSize < size; k += 4 * kSize) {
        const T a = C_[k], b = C_[k + kSize], c = C_[k + 2 * kSize],
                d = C_[k + 3 * kSize];
        scan(a), scan(b), scan(c), scan(d);
      }
      for (; k < size; k += kSize) scan(C_[k]);
      valid = team_.All(valid);
      return Entries{valid, valid && team_.All(finite)};
    }
  }

  // Lists the free rows (x_ < 0) in rows_ in increasing order; returns
  // their number.
  __device__ int ListFreeRows() {
    int free_count = 0;
    for (int base = 0; base < n_; base += kSize) {
      const int i = base + me_;
      const bool is_free = i < n_ && x_[i] < 0;
      int total;
      const int before = team_.Enumerate(is_free, &total);
      if (is_free) rows_[free_count + before] = i;
      free_count += total;
    }
    team_.sync();
    return free_count;
  }

  // SolveFromKept's search, `finite`: every cost.
  __device__ int FinishFromKept(bool finite, int max_searches,
                                int* augmentations) {
    int free_count = ListFreeRows();
    if (n_ == m_ && free_count > 0 && finite)
      free_count = AugmentingRowReduction(free_count);
    return AugmentFreeRows(free_count, max_searches, augmentations);
  }

  // The least reduced cost c_ij - v_j of row i over the columns, excluding
  // `skip` (-1: none), with its column (the lowest among ties).
  __device__ Key RowLeast(int i, int skip) const {
    Key best{jv_warp::WideInf<W>(), INT_MAX};
    ForColumns([&](int j) {
      const Key k{Cost(i, j) - v_[j], j};
      best = (j != skip) & (k < best) ? k : best;
    });
    return team_.ArgMinFast(best);
  }

  // f(j) for each of the thread's columns j in turn: unrolled over a
  // team's kHeld columns a thread, so that their loads all issue first.
  template <class F>
  __device__ void ForColumns(F f) const {
    if constexpr (kHeld > 0) {
#pragma unroll
      for (int k = 0; k < kHeld; ++k)
        if (me_ + k * kSize < m_) f(me_ + k * kSize);
    } else {
      for (int j = me_; j < m_; j += kSize) f(j);
    }
  }

  // lap_jv.h's ColumnReduction; returns the number of free rows, listed in
  // rows_.  Column j takes its least row (ties: the cyclic order from row
  // j); a row chosen by several columns goes to the last of them, as in
  // lap_jv.h's descending pass.
  __device__ int ColumnReduction() {
    int* count = rows_;  // how many columns chose each row
    for (int i = me_; i < n_; i += kSize) count[i] = 0;
    team_.sync();
    for (int j = me_; j < m_; j += kSize) {
      // The rows in that cyclic order, the first least kept; in T (the
      // widening is exact and keeps the order).
      int arg = j % n_;
      T best = C_[static_cast<size_t>(arg) * m_ + j];
      for (int t = 1, i = arg; t < n_; ++t) {
        i = i + 1 == n_ ? 0 : i + 1;
        const T c = C_[static_cast<size_t>(i) * m_ + j];
        arg = c < best ? i : arg;
        best = c < best ? c : best;
      }
      v_[j] = static_cast<W>(best);
      pred_[j] = arg;
      atomicMax(x_ + arg, j);
      atomicAdd(count + arg, 1);
    }
    team_.sync();
    for (int j = me_; j < m_; j += kSize)
      y_[j] = x_[pred_[j]] == j ? pred_[j] : -1;
    team_.sync();
    // Row by row, as on the CPU: a later row's second least sees the
    // prices lowered for the rows before it.  count[i] is read before
    // rows_[free_count] (free_count <= i) is written.
    int free_count = 0;
    for (int i = 0; i < n_; ++i) {
      const int j = x_[i];
      const int chosen_by = count[i];
      team_.sync();
      if (j < 0) {
        if (me_ == 0) rows_[free_count] = i;
        ++free_count;
      } else if (chosen_by == 1) {
        const Key second = RowLeast(i, j);
        if (second.value < jv_warp::WideInf<W>() && me_ == 0)
          v_[j] -= second.value;
      }
      team_.sync();
    }
    return free_count;
  }

  // lap_jv.h's RowMinimaGreedy (prices 0): each row in turn takes its least
  // column (ties: the first in the cyclic order from column i) when no
  // earlier row took it; returns the number of rows left free, listed in
  // rows_ in increasing order.  Row i takes column j exactly when i is the
  // least row whose least column is j, so the rows are not taken in turn:
  // each warp finds its rows' least columns (x_), the least row per column
  // wins it (atomicMin on y_, INT_MAX for none), and the others are listed.
  // Rows in turn would cost a team-wide reduction and two syncs each, most
  // of a block's solve of a 100 x 300 problem.
  __device__ int RowMinimaGreedy() {
    static_assert(kSize % 32 == 0, "whole warps");
    const int lane = me_ & 31, warps = kSize / 32;
    for (int j = me_; j < m_; j += kSize) y_[j] = INT_MAX;
    for (int i = me_ / 32; i < n_; i += warps) {
      const int start = i % m_;
      Key best{jv_warp::WideInf<W>(), INT_MAX};
      for (int j = lane; j < m_; j += 32) {
        const int rank = j >= start ? j - start : j - start + m_;
        const Key k{Cost(i, j), rank};
        if (k < best) best = k;
      }
      best = jv_warp::WarpArgMin(best);
      if (lane == 0) {
        const int j = best.index + start < m_ ? best.index + start
                                              : best.index + start - m_;
        x_[i] = best.value < jv_warp::WideInf<W>() ? j : -1;
      }
    }
    team_.sync();
    for (int i = me_; i < n_; i += kSize)
      if (x_[i] >= 0) atomicMin(&y_[x_[i]], i);
    team_.sync();
    for (int i = me_; i < n_; i += kSize)
      if (x_[i] >= 0 && y_[x_[i]] != i) x_[i] = -1;
    team_.sync();
    for (int j = me_; j < m_; j += kSize)
      if (y_[j] == INT_MAX) y_[j] = -1;
    return ListFreeRows();
  }

  // lap_jv.h's AugmentingRowReduction over rows_[0, count); returns the
  // number of rows left free, listed in rows_.
  __device__ int AugmentingRowReduction(int count) {
    int current = 0, kept = 0;
    int64_t visits = 0;
    while (current < count) {
      ++visits;
      const int i = rows_[current++];
      Key first{jv_warp::WideInf<W>(), INT_MAX}, second = first;
      ForColumns([&](int j) {
        const Key k{Cost(i, j) - v_[j], j};
        const bool below_first = k < first, below_second = k < second;
        second = below_first ? first : (below_second ? k : second);
        first = below_first ? k : first;
      });
      team_.TwoLeast(&first, &second);
      int j1 = first.index;
      const int j2 = second.index < m_ ? second.index : -1;
      // Every read of the shared state comes before the barrier: after it
      // thread 0 may already be writing y_[j2] (a block's warps run apart).
      int i0 = y_[j1];
      const int i2 = j2 >= 0 ? y_[j2] : -1;
      const W price = v_[j1];
      const W lowered = j2 >= 0 ? price - (second.value - first.value) : price;
      const bool lowers = lowered < price;
      team_.sync();
      if (visits < kLapJvReductionVisits * static_cast<int64_t>(count)) {
        if (lowers) {
          if (me_ == 0) v_[j1] = lowered;
        } else if (i0 >= 0 && j2 >= 0) {
          j1 = j2;
          i0 = i2;
        }
        if (i0 >= 0) {
          if (lowers) {
            --current;
            if (me_ == 0) rows_[current] = i0;
          } else {
            if (me_ == 0) rows_[kept] = i0;
            ++kept;
          }
        }
      } else if (i0 >= 0) {
        if (me_ == 0) rows_[kept] = i0;
        ++kept;
      }
      if (me_ == 0) {
        if (i0 >= 0) x_[i0] = -1;
        x_[i] = j1;
        y_[j1] = i;
      }
      team_.sync();
    }
    return kept;
  }

  // lap_jv.h's KeepMinimalRows: row i keeps x0[i] when no earlier row kept
  // it and it attains the row's least reduced cost.
  __device__ void KeepMinimalRows(const int* x0) {
    for (int i = 0; i < n_; ++i) {
      const int j = x0[i];
      if (j < 0 || j >= m_ || y_[j] >= 0) continue;
      const W mine = Cost(i, j) - v_[j];
      if (!(mine < jv_warp::WideInf<W>())) continue;
      const Key least = RowLeast(i, -1);
      team_.sync();
      if (!(least.value < mine) && me_ == 0) {
        x_[i] = j;
        y_[j] = i;
      }
      team_.sync();
    }
  }

  // lap_jv.h's ZeroUnassignedPrices, with the columns to raise stacked in
  // pred_ (each column is pushed at most once: only assigned columns are
  // freed, and none is assigned meanwhile).
  __device__ void ZeroUnassignedPrices() {
    __shared__ int top;
    if (me_ == 0) {
      int t = 0;
      for (int j = 0; j < m_; ++j)
        if (y_[j] < 0) pred_[t++] = j;
      top = t;
    }
    team_.sync();
    while (top > 0) {
      const int j = pred_[top - 1];
      const bool raise = v_[j] != W(0);
      team_.sync();
      if (me_ == 0) {
        --top;
        v_[j] = W(0);
      }
      team_.sync();
      if (raise) {
        for (int r = me_; r < n_; r += kSize) {
          const int k = x_[r];
          if (k < 0 || !(Cost(r, j) < Cost(r, k) - v_[k])) continue;
          x_[r] = -1;
          y_[k] = -1;
          pred_[atomicAdd(&top, 1)] = k;
        }
      }
      team_.sync();
    }
  }

  // Dijkstra from each free row in turn: kLapOptimal, kLapInfeasible, or
  // kLapIterationLimit after `max_searches` (> 0) searches.
  __device__ int AugmentFreeRows(int count, int max_searches,
                                 int* augmentations) {
    *augmentations = 0;
    for (int k = 0; k < count; ++k) {
      if (max_searches > 0 && *augmentations >= max_searches)
        return kLapIterationLimit;
      ++*augmentations;
      if (!AugmentRow(rows_[k])) return kLapInfeasible;
    }
    return kLapOptimal;
  }

  // lap_jv.h's Augment from free row f.
  __device__ bool AugmentRow(int f) {
    if constexpr (kHeld > 0)
      return AugmentHeld(f);
    else
      return Augment(f);
  }

  // Augment with each thread's kHeld columns (m <= kHeld kSize) held in
  // registers: their distances, prices, owners and the owners'
  // reduced costs c_ij - v_j.  The team's reduction carries the
  // winning column's owner and reduced cost along (Team::LeastAfter), so a
  // step starts on the next row's costs at once; only the predecessors (for
  // the path) go to memory.  The same arithmetic as Augment, so the same
  // distances; among columns at the last step's least distance the team
  // may scan another first (Dijkstra's order holds either way).
  __device__ bool AugmentHeld(int f) {
    using Lead = jv_warp::Lead<W>;
    static_assert(kHeld <= 32, "the scanned columns are a 32-bit mask");
    const W inf = jv_warp::WideInf<W>();
    const Lead none{Key{inf, INT_MAX}, -1, W(0)};
    W d[kHeld], v[kHeld], tight[kHeld];
    int owner[kHeld];
    uint32_t scanned = 0;  // bit k: column k is scanned, or past m
    Lead best = none;
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      const int j = me_ + k * kSize;
      const bool valid = j < m_;
      v[k] = valid ? v_[j] : W(0);
      owner[k] = valid ? y_[j] : -1;
      d[k] = valid ? Cost(f, j) - v[k] : inf;
      tight[k] = owner[k] >= 0 ? Cost(owner[k], j) - v[k] : W(0);
      const Key key{d[k], owner[k] < 0 ? j : j + m_};
      scanned |= static_cast<uint32_t>(!valid) << k;
      if (valid) pred_[j] = f;
      if (valid && key < best.key) best = Lead{key, owner[k], tight[k]};
    }
    W least = -inf;
    int end;
    for (;;) {
      best = team_.LeastAfter(best, least);
      least = best.key.value;
      if (!(least < inf)) return false;
      if (best.key.index < m_) {
        end = best.key.index;
        break;
      }
      const unsigned j1 = static_cast<unsigned>(best.key.index - m_);
      const int i = best.row;
      const W h = best.tight - least;
      if (j1 % kSize == static_cast<unsigned>(me_))
        scanned |= uint32_t{1} << (j1 / kSize);
      const T* row = C_ + static_cast<size_t>(i) * m_;
      // Every load before the first store to pred_ (which may alias C_):
      // the loads overlap.
      W c[kHeld];
#pragma unroll
      for (int k = 0; k < kHeld; ++k) {
        const int j = me_ + k * kSize;
        c[k] = static_cast<W>(row[j < m_ ? j : 0]);  // past m: any column
      }
      Lead lead[kHeld];
#pragma unroll
      for (int k = 0; k < kHeld; ++k) {
        const int j = me_ + k * kSize;
        const int column = j < m_ ? j : 0;
        const bool unscanned = !((scanned >> k) & 1);
        const W reduced = c[k] - v[k] - h;
        const bool lowers = unscanned & (reduced < d[k]);
        if (lowers) pred_[column] = i;
        d[k] = lowers ? reduced : d[k];
        const Lead mine{Key{d[k], owner[k] < 0 ? j : j + m_}, owner[k],
                        tight[k]};
        lead[k] = unscanned ? mine : none;
      }
      // The least of the thread's leads, pairwise: a shorter chain than a
      // running minimum.
#pragma unroll
      for (int s = 1; s < kHeld; s *= 2) {
#pragma unroll
        for (int k = 0; k + s < kHeld; k += 2 * s)
          lead[k] = lead[k + s].key < lead[k].key ? lead[k + s] : lead[k];
      }
      best = lead[0];
    }
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      const int j = me_ + k * kSize;
      if (j < m_ && ((scanned >> k) & 1)) v_[j] = v[k] + (d[k] - least);
    }
    team_.sync();
    if (me_ == 0) {
      FlipAugmentingPath(end, f, pred_, x_, y_, [](int) {});
    }
    team_.sync();
    return true;
  }

  // lap_jv.h's Augment: Dijkstra from free row f, one column scanned per
  // step: the least unscanned distance, a free column first among ties (the
  // path ends there), then the lowest index.  Each lane updates only its own
  // columns (the k-th at bit k of its masks; m <= 2048, so k < 64) and finds
  // its next candidate in the same pass, so a step is one pass over the
  // lane's columns and one reduction.
  __device__ bool Augment(int f) {
    uint64_t scanned = 0, free_cols = 0;
    Key best{jv_warp::WideInf<W>(), INT_MAX};
    for (int j = me_, k = 0; j < m_; j += kSize, ++k) {
      const W dj = Cost(f, j) - v_[j];
      d_[j] = dj;
      pred_[j] = f;
      const bool is_free = y_[j] < 0;
      free_cols |= static_cast<uint64_t>(is_free) << k;
      const Key key{dj, is_free ? j : j + m_};
      if (key < best) best = key;
    }
    W least;
    int end;
    for (;;) {
      best = team_.ArgMinFast(best);
      least = best.value;
      if (!(least < jv_warp::WideInf<W>())) return false;
      if (best.index < m_) {
        end = best.index;
        break;
      }
      const int j1 = best.index - m_;
      const int i = y_[j1];
      const W h = Cost(i, j1) - v_[j1] - least;
      if (j1 % kSize == me_) scanned |= uint64_t{1} << (j1 / kSize);
      best = Key{jv_warp::WideInf<W>(), INT_MAX};
      // Without branches: a lane's few columns are independent, so their
      // loads overlap, and the masks shift down a bit per column.
      uint64_t open_bits = ~scanned, free_bits = free_cols;
      for (int j = me_; j < m_; j += kSize, open_bits >>= 1, free_bits >>= 1) {
        const bool unscanned = open_bits & 1;
        const W reduced = Cost(i, j) - v_[j] - h;
        const W old = d_[j];
        const bool lowers = unscanned & (reduced < old);
        if (lowers) {
          d_[j] = reduced;
          pred_[j] = i;
        }
        const W dj = lowers ? reduced : old;
        const int index = (free_bits & 1) ? j : j + m_;
        const bool better =
            unscanned &
            ((dj < best.value) | ((dj == best.value) & (index < best.index)));
        best.value = better ? dj : best.value;
        best.index = better ? index : best.index;
      }
    }
    for (int j = me_, k = 0; j < m_; j += kSize, ++k)
      if ((scanned >> k) & 1) v_[j] += d_[j] - least;
    team_.sync();
    if (me_ == 0) {
      FlipAugmentingPath(end, f, pred_, x_, y_, [](int) {});
    }
    team_.sync();
    return true;
  }

  int n_, m_;
  const T* C_;
  int me_;  // this thread's rank in the team: it owns columns me_ + k kSize
  W *v_, *d_;
  int *pred_, *y_, *x_, *rows_;
  mutable Team team_;
};

}  // namespace jaxmatch
