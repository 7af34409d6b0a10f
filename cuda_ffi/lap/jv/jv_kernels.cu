// The GPU's Jonker-Volgenant solver (lap/jv/jv_team.cuh): one warp, alone in
// its block, per problem of a batch of small problems (LapJvInBlock false);
// else one block per problem, of up to kLapJvBlockThreads threads, or, from
// kLapJvClusterMinRows rows on GPUs with thread-block clusters, a cluster of
// blocks per problem.  The problem with unassigned costs (LapExitProblem)
// runs on the same warp and block kernels, instantiated for it.
#include <cuda_pipeline_primitives.h>

#include <cstdint>

#include "common/cluster_launch.h"
#include "lap/common/block_per_problem.h"
#include "lap/jv/auction_team.cuh"
#include "lap/jv/jv_kernels.h"
#include "lap/jv/jv_team.cuh"

namespace jaxmatch {
namespace {

// A batch type of the warp and block kernels: its cost dtype, and whether
// it has unassigned costs (TeamJv's kExits).
template <class P>
struct JvBatch;
template <class T>
struct JvBatch<LapProblem<T>> {
  using Cost = T;
  static constexpr bool kExits = false;
};
template <class T>
struct JvBatch<LapExitProblem<T>> {
  using Cost = T;
  static constexpr bool kExits = true;
};

// Problem b's unassigned costs.
template <class T>
__device__ JvExitCosts<T> ExitCostsOf(const LapExitProblem<T>& s, int64_t b) {
  return {s.row_cost + b * s.n, s.col_cost + b * s.m};
}

// The warp copies `count` entries from C to `staged` (shared memory, 16-byte
// aligned): asynchronous 16-byte copies (cp.async), all in flight at once,
// when C is aligned too, else one entry per lane at a time.
template <class T>
__device__ void StageCosts(T* staged, const T* C, size_t count) {
  const bool aligned = reinterpret_cast<uintptr_t>(C) % 16 == 0;
  const size_t vectors = aligned ? count * sizeof(T) / 16 : 0;
  for (size_t k = threadIdx.x; k < vectors; k += 32)
    __pipeline_memcpy_async(reinterpret_cast<int4*>(staged) + k,
                            reinterpret_cast<const int4*>(C) + k, 16);
  __pipeline_commit();
  for (size_t k = vectors * 16 / sizeof(T) + threadIdx.x; k < count; k += 32)
    staged[k] = C[k];
  __pipeline_wait_prior(0);
  __syncwarp();
}

// Problem b's info: the status, the number of searches and the rows
// assigned (`assigned` when the status is kLapOptimal), as lap/jv/jv_cpu.h's
// LapJvInfo writes them, and the rounds of an auction start (kNDual).
__device__ void WriteJvInfo(int* info, int status, int searches, int assigned,
                            int rounds) {
  for (int k = threadIdx.x; k < kLapInfoLen; k += 32) {
    int value = 0;
    if (k == kStatus) value = status;
    if (k == kIters || k == kNAugPhases) value = searches;
    if (k == kNDual) value = rounds;
    if (k == kNAssigned) value = status == kLapOptimal ? assigned : 0;
    info[k] = value;
  }
}

// Problem b's results from its solve `jv`, which ended with `status` after
// `searches` searches (and an auction's `rounds` before them).
template <class T, class Jv>
__device__ void WriteMember(const LapProblem<T>& s, int64_t b, const Jv& jv,
                            int status, int searches, int rounds = 0) {
  const LapBuffers<T> out = s.buffers(b);
  status = jv.Write(status, out.col_for_row, out.row_for_col, out.u, out.v);
  int assigned = s.n;
  if constexpr (Jv::kExitCosts) assigned = jv.AssignedRows();
  WriteJvInfo(out.info, status, searches, assigned, rounds);
}

// Problem b of the batch s (JvBatch) solved by the calling team from its
// cost matrix C and state; kWarm: from s.x0, s.v0; kHeld: TeamJv's.
template <class P, class Team, bool kWarm, int kHeld = 0,
          class T = typename JvBatch<P>::Cost>
__device__ void SolveMember(const P& s, int64_t b, const T* C,
                            const JvState<LapJvWide<T>>& state) {
  TeamJv<T, Team, kHeld, JvBatch<P>::kExits> jv(s.n, s.m, C, state);
  if constexpr (JvBatch<P>::kExits) jv.SetExitCosts(ExitCostsOf(s, b));
  int searches = 0;
  int status;
  if constexpr (kWarm)
    status =
        jv.SolveFrom(s.v0 + b * s.m, s.x0 + b * s.n, s.max_iters, &searches);
  else
    status = jv.Solve(s.max_iters, &searches);
  WriteMember(s, b, jv, status, searches);
}

// The batch s (JvBatch), a warp per problem.  kStaged: the cost matrix is
// copied into shared memory first.  kHeld: each lane holds up to kHeld
// columns in registers during a search (m <= 32 kHeld).
template <class P, bool kStaged, bool kWarm, int kHeld>
__global__ void __launch_bounds__(32) lap_jv_warp_kernel(P s) {
  using T = typename JvBatch<P>::Cost;
  using W = LapJvWide<T>;
  extern __shared__ __align__(16) unsigned char smem[];
  const LapJvWarpLayout L = LapJvWarpLayout::Of<T>(s.n, s.m);
  const JvState<W> state{reinterpret_cast<W*>(smem + L.v),
                         reinterpret_cast<W*>(smem + L.d),
                         reinterpret_cast<int*>(smem + L.pred),
                         reinterpret_cast<int*>(smem + L.y),
                         reinterpret_cast<int*>(smem + L.x),
                         reinterpret_cast<int*>(smem + L.rows)};
  const size_t size = static_cast<size_t>(s.n) * s.m;
  for (int64_t b = blockIdx.x; b < s.batch; b += gridDim.x) {
    const T* C = s.C + static_cast<size_t>(b) * size;
    if constexpr (kStaged) {
      T* staged = reinterpret_cast<T*>(smem + L.cost);
      StageCosts(staged, C, size);
      C = staged;
    }
    SolveMember<P, JvWarp, kWarm, kHeld>(s, b, C, state);
    __syncwarp();
  }
}

// Which of a block's JV arrays live in shared memory, the others in the
// member's workspace (LapWorkLayout's JV arrays): the prices and distances
// (read and written by every search step), and the columns' owners (read
// once a step, on the path to the next row).
enum JvBlockShared : int {
  kJvSharedNone = 0,
  kJvSharedPrices = 1,  // v, d
  kJvSharedOwners = 2,  // v, d, y
};

// The dynamic shared memory of a block's JV over m columns.
template <class T>
size_t JvBlockSharedBytes(int shared, int m) {
  const size_t prices = 2 * sizeof(LapJvWide<T>) * static_cast<size_t>(m);
  if (shared == kJvSharedNone) return 0;
  return shared == kJvSharedPrices ? prices : prices + sizeof(int) * m;
}

// The batch s (JvBatch), a block per problem.  kUnlessStarted: not the
// problems that lap_jv_start_kernel started (its count[0] 1), which a
// cluster finishes.
template <class P, bool kWarm, int kThreads, int kShared, int kHeld,
          bool kUnlessStarted>
__global__ void __launch_bounds__(kThreads) lap_jv_block_kernel(P s) {
  using T = typename JvBatch<P>::Cost;
  using W = LapJvWide<T>;
  extern __shared__ __align__(16) unsigned char smem[];
  const LapWorkLayout L = s.work_layout();
  const size_t size = static_cast<size_t>(s.n) * s.m;
  for (int64_t b = blockIdx.x; b < s.batch; b += gridDim.x) {
    const LapBuffers<T> out = s.buffers(b);
    if (kUnlessStarted && out.work[L.jv_count] == 1) continue;
    W* wide = kShared == kJvSharedNone ? reinterpret_cast<W*>(out.twork)
                                       : reinterpret_cast<W*>(smem);
    int* owners = kShared == kJvSharedOwners
                      ? reinterpret_cast<int*>(wide + 2 * s.m)
                      : out.work + L.jv_y;
    const JvState<W> state{wide,   wide + s.m,        out.work + L.jv_pred,
                           owners, out.work + L.jv_x, out.work + L.jv_rows};
    SolveMember<P, JvBlock<kThreads>, kWarm, kHeld>(
        s, b, s.C + static_cast<size_t>(b) * size, state);
    __syncthreads();
  }
}

// JV's state in problem b's workspace (LapWorkLayout's JV arrays, in L2),
// for a cluster, and the auction's scratch beside it.
template <class T>
__device__ JvState<LapJvWide<T>> ClusterState(const LapProblem<T>& s,
                                              int64_t b) {
  using W = LapJvWide<T>;
  const LapWorkLayout L = s.work_layout();
  const LapBuffers<T> out = s.buffers(b);
  W* wide = reinterpret_cast<W*>(out.twork);
  return JvState<W>{wide,
                    wide + s.m,
                    out.work + L.jv_pred,
                    out.work + L.jv_y,
                    out.work + L.jv_x,
                    out.work + L.jv_rows};
}
template <class T>
__device__ AuctionScratch ClusterScratch(const LapProblem<T>& s, int64_t b) {
  const LapWorkLayout L = s.work_layout();
  const LapBuffers<T> out = s.buffers(b);
  return AuctionScratch{
      reinterpret_cast<unsigned long long*>(out.twork + L.jv_bids),
      out.work + L.jv_list, out.work + L.jv_count};
}

// How a cluster's JV starts.
enum JvClusterStart : int {
  kJvColdStart = 0,    // JV's own: column reduction, augmenting row reduction
  kJvAfterStart = 1,   // from lap_jv_start_kernel's state (when it started)
  kJvOnlyStarted = 2,  // from its state; the problems it did not start left
};

// The start of a cluster's JV (ClusterAuction), a cluster of kBlocks blocks
// per problem: the auction (Run) unless kWarm without s.warm_auction; else,
// kWarm, from s.x0, s.v0 (StartFrom), below kLapJvClusterMinRows rows left
// to a block's JV.  Leaves the scratch's count[0] 1 when it started the
// problem, 0 when JV starts on its own (or from s.x0, s.v0 in a block), and
// count[1] the auction's rounds.  Square problems only.
template <class T, bool kWarm, int kThreads, int kBlocks>
__global__ void __launch_bounds__(kThreads)
    lap_jv_start_kernel(LapProblem<T> s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Team = JvCluster<kThreads, kBlocks>;
  const int64_t b = blockIdx.x / kBlocks;
  Team::Init();
  Team team;
  const AuctionScratch scratch = ClusterScratch(s, b);
  ClusterAuction<T, kThreads, kBlocks> start(
      s.n, s.C + static_cast<size_t>(b) * s.n * s.m, ClusterState(s, b),
      scratch, team);
  int rounds = 0;
  bool started = (!kWarm || s.warm_auction) && start.Run(&rounds);
  if (kWarm && !started && s.n >= kLapJvClusterMinRows) {
    start.StartFrom(s.v0 + b * s.m, s.x0 + b * s.n);
    started = true;
  }
  Team::Barrier();
  if (Team::rank() == 0) {
    scratch.count[0] = started ? 1 : 0;
    scratch.count[1] = rounds;
  }
  // No block leaves while another may still read its shared memory.
  Team::Barrier();
#endif
}

// A cluster of kBlocks blocks per problem (JvCluster): cluster c solves
// problem c, its state in the member's workspace; each thread holds kHeld
// columns during a search (m <= kHeld kThreads kBlocks).  kStart: JV's own
// start, or lap_jv_start_kernel's when it started the problem (else JV's
// own, or, kJvOnlyStarted, none: a block solves it).  Compiled for sm_90
// and newer; launched only there.
template <class T, int kStart, int kThreads, int kBlocks, int kHeld>
__global__ void __launch_bounds__(kThreads)
    lap_jv_cluster_kernel(LapProblem<T> s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Team = JvCluster<kThreads, kBlocks>;
  const int64_t b = blockIdx.x / kBlocks;
  const AuctionScratch scratch = ClusterScratch(s, b);
  // Every block of the cluster reads the same count, so all of them leave.
  if (kStart == kJvOnlyStarted && scratch.count[0] != 1) return;
  Team::Init();
  TeamJv<T, Team, kHeld> jv(s.n, s.m, s.C + static_cast<size_t>(b) * s.n * s.m,
                            ClusterState(s, b));
  int searches = 0, rounds = 0;
  int status;
  if (kStart != kJvColdStart && scratch.count[0] == 1) {
    rounds = scratch.count[1];
    status = jv.SolveFromKept(s.max_iters, &searches);
  } else {
    status = jv.Solve(s.max_iters, &searches);
  }
  WriteMember(s, b, jv, status, searches, rounds);
  // No block leaves while another may still read its shared memory.
  Team::Barrier();
#endif
}

// Launches `kernel` on a cluster of `blocks` blocks of `threads` threads
// per problem of s.
template <class T>
cudaError_t LaunchCluster(void (*kernel)(LapProblem<T>), int threads,
                          int blocks, cudaStream_t stream,
                          const LapProblem<T>& s) {
  return WithClusterConfig(dim3(static_cast<unsigned>(s.batch * blocks)),
                           threads, blocks, stream,
                           [&](const cudaLaunchConfig_t& config) {
                             return cudaLaunchKernelEx(&config, kernel, s);
                           });
}

// The start of a cluster's JV runs on its own cluster shape, wider than
// JV's: the auction's rounds scan many rows side by side, where JV's steps
// are one row each.  16 blocks of 1024 threads (Machol-Wien 1024^2 on an
// H100: 209 ms with JV's 8 x 128), else 8; *kernel null when neither fits
// every problem of the batch at once.
constexpr int kJvStartThreads = 1024;
template <class T, bool kWarm>
void PickJvStart(cudaStream_t stream, const LapProblem<T>& s,
                 void (**kernel)(LapProblem<T>), int* blocks) {
  *kernel = nullptr;
  auto* wide = lap_jv_start_kernel<T, kWarm, kJvStartThreads, 16>;
  int active = ClusterActive(wide, kJvStartThreads, 16, stream);
  if (active >= 1 && s.batch <= active) {
    *kernel = wide;
    *blocks = 16;
    return;
  }
  auto* narrow = lap_jv_start_kernel<T, kWarm, kJvStartThreads, 8>;
  active = ClusterActive(narrow, kJvStartThreads, 8, stream);
  if (active >= 1 && s.batch <= active) {
    *kernel = narrow;
    *blocks = 8;
  }
}

template <bool kWarm, bool kUnlessStarted, class P>
cudaError_t LaunchJvBlock(cudaStream_t stream, const P& s, int blocks);

// Launches lap_jv_cluster_kernel, a cluster per problem, after
// lap_jv_start_kernel when the problem has a start (kWarm, or the auction:
// square problems from kLapAuctionMinRows rows), and sets *launched; not
// when this device has no clusters (before sm_90), or fewer of this shape
// (or of a start's, kWarm) run at once than the batch has problems.
// kBlockUnstarted (below kLapJvClusterMinRows rows, where a block runs
// JV's own start faster than a cluster): only with the start; the cluster
// finishes the problems that the auction started, a block per problem
// (`blocks` blocks) the others.
template <class T, bool kWarm, int kThreads, int kBlocks, int kHeld,
          bool kBlockUnstarted = false>
cudaError_t TryLaunchJvCluster(cudaStream_t stream, const LapProblem<T>& s,
                               bool* launched, int blocks = 0) {
  *launched = false;
  bool clusters = false;
  cudaError_t e = DeviceHasClusters(&clusters);
  if (e != cudaSuccess) return e;
  if (!clusters) return cudaSuccess;
  void (*start)(LapProblem<T>) = nullptr;
  int start_blocks = 0;
  if ((kWarm && !kBlockUnstarted) || (s.n == s.m && s.n >= kLapAuctionMinRows))
    PickJvStart<T, kWarm>(stream, s, &start, &start_blocks);
  if ((kWarm || kBlockUnstarted) && start == nullptr) return cudaSuccess;
  void (*kernel)(LapProblem<T>);
  if constexpr (kBlockUnstarted)
    kernel = lap_jv_cluster_kernel<T, kJvOnlyStarted, kThreads, kBlocks, kHeld>;
  else
    kernel =
        start != nullptr
            ? lap_jv_cluster_kernel<T, kJvAfterStart, kThreads, kBlocks, kHeld>
            : lap_jv_cluster_kernel<T, kJvColdStart, kThreads, kBlocks, kHeld>;
  const int active = ClusterActive(kernel, kThreads, kBlocks, stream);
  if (active < 1 || s.batch > active) return cudaSuccess;
  if (start != nullptr) {
    e = LaunchCluster(start, kJvStartThreads, start_blocks, stream, s);
    if (e != cudaSuccess) return e;
  }
  e = LaunchCluster(kernel, kThreads, kBlocks, stream, s);
  if constexpr (kBlockUnstarted) {
    if (e == cudaSuccess) e = LaunchJvBlock<kWarm, true>(stream, s, blocks);
  }
  *launched = e == cudaSuccess;
  return e;
}

// Launches `kernel` (a block's JV) with `bytes` of dynamic shared memory
// and sets *launched, unless they do not fit this device's blocks beside
// the kernel's static shared memory.
template <class P>
cudaError_t TryLaunchJvBlock(void (*kernel)(P), int threads, size_t bytes,
                             cudaStream_t stream, const P& s, int blocks,
                             bool* launched) {
  *launched = false;
  int device = 0, optin = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                               device);
  cudaFuncAttributes attributes;
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&attributes, kernel);
  if (e != cudaSuccess) return e;
  if (bytes + attributes.sharedSizeBytes > static_cast<size_t>(optin))
    return cudaSuccess;
  if (bytes > kLapJvWarpSharedBytes) {
    e = cudaFuncSetAttribute(kernel,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(bytes));
    if (e != cudaSuccess) return e;
  }
  kernel<<<blocks, threads, bytes, stream>>>(s);
  *launched = true;
  return cudaGetLastError();
}

// A block per problem, about a column per thread: on an H100 256 threads
// solve 128 problems of 256 x 256 in 2.45 ms (1024 threads: 3.21 ms), 512
// threads 64 of 512 x 512 in 7.3 ms (8.5 ms); from 1024 columns 1024
// threads.  As much of the state as fits in shared memory.  Below 1024
// columns a search holds a thread's columns in registers (TeamJv's kHeld:
// 128 x 256^2 3.5 -> 3.2 ms on an H200); 1024 threads have too few
// registers for it (16 x 1024^2 29 -> 32 ms, 2048^2 rank one 3.97 -> 4.15
// s).  kUnlessStarted: the problems that lap_jv_start_kernel did not start
// (below 1024 columns).
template <bool kWarm, bool kUnlessStarted, class P>
cudaError_t LaunchJvBlock(cudaStream_t stream, const P& s, int blocks) {
  using T = typename JvBatch<P>::Cost;
  bool launched = false;
  cudaError_t e = cudaSuccess;
  constexpr int kT = kLapJvBlockThreads;
  const size_t owners = JvBlockSharedBytes<T>(kJvSharedOwners, s.m);
  if (s.m < 512) {
    e = TryLaunchJvBlock(
        lap_jv_block_kernel<P, kWarm, 256, kJvSharedOwners, 2, kUnlessStarted>,
        256, owners, stream, s, blocks, &launched);
  } else if (s.m < 1024) {
    e = TryLaunchJvBlock(
        lap_jv_block_kernel<P, kWarm, 512, kJvSharedOwners, 2, kUnlessStarted>,
        512, owners, stream, s, blocks, &launched);
  } else if constexpr (!kUnlessStarted) {
    e = TryLaunchJvBlock(
        lap_jv_block_kernel<P, kWarm, kT, kJvSharedOwners, 0, false>, kT,
        owners, stream, s, blocks, &launched);
    if (e == cudaSuccess && !launched)
      e = TryLaunchJvBlock(
          lap_jv_block_kernel<P, kWarm, kT, kJvSharedPrices, 0, false>, kT,
          JvBlockSharedBytes<T>(kJvSharedPrices, s.m), stream, s, blocks,
          &launched);
    if (e == cudaSuccess && !launched)
      e = TryLaunchJvBlock(
          lap_jv_block_kernel<P, kWarm, kT, kJvSharedNone, 0, false>, kT, 0,
          stream, s, blocks, &launched);
  }
  if (e == cudaSuccess && !launched) return cudaErrorInvalidConfiguration;
  return e;
}

// A warp per problem (m < kLapJvBlockMinColumns = 8 * 32), each lane
// holding kHeld columns in registers during a search.
template <bool kWarm, int kHeld, class P>
cudaError_t LaunchJvWarp(cudaStream_t stream, const P& s, int blocks) {
  using T = typename JvBatch<P>::Cost;
  static_assert(kLapJvBlockMinColumns <= 8 * 32, "a warp holds its columns");
  const LapJvWarpLayout L = LapJvWarpLayout::Of<T>(s.n, s.m);
  if (L.staged_bytes <= kLapJvWarpStagedBytes) {
    auto* kernel = lap_jv_warp_kernel<P, true, kWarm, kHeld>;
    if (L.staged_bytes > kLapJvWarpSharedBytes) {
      const cudaError_t e = cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
          static_cast<int>(kLapJvWarpStagedBytes));
      if (e != cudaSuccess) return e;
    }
    kernel<<<blocks, 32, L.staged_bytes, stream>>>(s);
  } else {
    lap_jv_warp_kernel<P, false, kWarm, kHeld>
        <<<blocks, 32, L.state_bytes, stream>>>(s);
  }
  return cudaGetLastError();
}

// A cluster of kBlocks blocks of kThreads threads per problem, each thread
// holding 1, 2, 4 or 8 columns (the fewest that cover m, at most
// kMaxHeld); not launched above kMaxHeld columns a thread.
template <class T, bool kWarm, int kThreads, int kBlocks, int kMaxHeld>
cudaError_t TryJvClusterShape(cudaStream_t stream, const LapProblem<T>& s,
                              bool* launched) {
  constexpr int kSize = kThreads * kBlocks;
  *launched = false;
  if (s.m <= kSize)
    return TryLaunchJvCluster<T, kWarm, kThreads, kBlocks, 1>(stream, s,
                                                              launched);
  if (s.m <= 2 * kSize)
    return TryLaunchJvCluster<T, kWarm, kThreads, kBlocks, 2>(stream, s,
                                                              launched);
  if constexpr (kMaxHeld >= 8) {
    if (s.m <= 4 * kSize)
      return TryLaunchJvCluster<T, kWarm, kThreads, kBlocks, 4>(stream, s,
                                                                launched);
    if (s.m <= 8 * kSize)
      return TryLaunchJvCluster<T, kWarm, kThreads, kBlocks, 8>(stream, s,
                                                                launched);
  }
  return cudaSuccess;
}

// A cluster per problem from kLapJvClusterMinRows rows, when every problem
// of the batch gets a cluster at once (else a block per problem keeps more
// of them running): 8 blocks of 128 threads up to 2048 columns; above, 16
// blocks of 256 threads, or 8 where 16 do not fit.  On an H100
// (docs/benchmarks.md), against one block: Machol-Wien 1024^2 544 against
// 694 ms, U[0, 1) 2048^2 42 against 55 ms (16 x 256: 610 and 45 ms); U[0,
// 1) 10000^2 0.52 against 1.87 s, 5000^2 and squared distances of 4096
// points 2x faster (16 x 128 and 16 x 512 slower, 8 x 256 2.6x, 1.9x and
// 2x).  Below kLapJvClusterMinRows rows, from kLapAuctionMinRows, a single
// square problem's cluster runs only after the auction started it, else a
// block (`blocks`) solves it; a batch runs in blocks (with the start, 4 x
// 512^2 U[0, 1) took 3.8-3.9 against 3.6 ms).
template <bool kWarm, class T>
cudaError_t TryJvCluster(cudaStream_t stream, const LapProblem<T>& s,
                         int blocks, bool* launched) {
  *launched = false;
  if (s.n < kLapJvClusterMinRows) {
    static_assert(kLapJvClusterMinRows <= 8 * 128, "a column a thread");
    if (s.batch == 1 && (!kWarm || s.warm_auction))
      return TryLaunchJvCluster<T, kWarm, 128, 8, 1, true>(stream, s, launched,
                                                           blocks);
    return cudaSuccess;
  }
  if (s.m <= 2048)
    return TryJvClusterShape<T, kWarm, 128, 8, 2>(stream, s, launched);
  const cudaError_t e =
      TryJvClusterShape<T, kWarm, 256, 16, 8>(stream, s, launched);
  if (e != cudaSuccess || *launched) return e;
  return TryJvClusterShape<T, kWarm, 256, 8, 8>(stream, s, launched);
}

// A block per problem of the batch s (JvBatch) from kLapJvBlockMinColumns
// columns (or when a warp's shared memory cannot hold the state), else a
// warp, each lane holding the fewest columns that cover m.
template <bool kWarm, class P>
cudaError_t LaunchJvTeams(cudaStream_t stream, const P& s, int blocks) {
  if (LapJvInBlock(s.n, s.m))
    return LaunchJvBlock<kWarm, false>(stream, s, blocks);
  if (s.m <= 32) return LaunchJvWarp<kWarm, 1>(stream, s, blocks);
  if (s.m <= 64) return LaunchJvWarp<kWarm, 2>(stream, s, blocks);
  if (s.m <= 128) return LaunchJvWarp<kWarm, 4>(stream, s, blocks);
  return LaunchJvWarp<kWarm, 8>(stream, s, blocks);
}

template <bool kWarm, class T>
cudaError_t LaunchJv(cudaStream_t stream, const LapProblem<T>& s) {
  const BlockPerProblem g(s.n, s.m, s.batch, 32);
  if ((!kWarm || s.n == s.m) && LapJvInBlock(s.n, s.m)) {
    bool launched = false;
    const cudaError_t e = TryJvCluster<kWarm>(stream, s, g.blocks, &launched);
    if (e != cudaSuccess || launched) return e;
  }
  return LaunchJvTeams<kWarm>(stream, s, g.blocks);
}

// A block's state of the problem with unassigned costs: LapWorkLayout's JV
// arrays per problem, the int arrays (work) first, then the wide ones
// (twork) from a 256-byte boundary; nothing when a warp solves it.
template <class T>
struct ExitScratch {
  std::size_t work_bytes, bytes;
  ExitScratch(int64_t batch, int n, int m) {
    const LapWorkLayout L(n, m, kLapJv);
    const bool block = LapJvInBlock(n, m);
    work_bytes = block ? (batch * L.ilen * sizeof(int) + 255) / 256 * 256 : 0;
    bytes = block ? work_bytes + batch * L.tlen * sizeof(T) : 0;
  }
};

}  // namespace

template <class T>
std::size_t LapJvUnassignedScratchBytes(int64_t batch, int n, int m) {
  return ExitScratch<T>(batch, n, m).bytes;
}

template <class T>
cudaError_t LaunchLapJvUnassigned(cudaStream_t stream, LapExitProblem<T> s,
                                  void* scratch) {
  if (s.batch == 0) return cudaSuccess;
  if (!LapJvFits(s.n, s.m)) return cudaErrorInvalidValue;
  const ExitScratch<T> w(s.batch, s.n, s.m);
  if (w.bytes > 0 && scratch == nullptr) return cudaErrorInvalidValue;
  s.variant = kLapJv;
  s.x0 = nullptr;
  s.v0 = nullptr;
  s.base.work = static_cast<int*>(scratch);
  s.base.twork =
      w.bytes > 0
          ? reinterpret_cast<T*>(static_cast<char*>(scratch) + w.work_bytes)
          : nullptr;
  return LaunchJvTeams<false>(stream, s,
                              BlockPerProblem(s.n, s.m, s.batch, 32).blocks);
}

template <class T>
cudaError_t LaunchLapJvSolve(cudaStream_t stream, const LapProblem<T>& s) {
  if (s.batch == 0) return cudaSuccess;
  if (!LapJvFits(s.n, s.m)) return cudaErrorInvalidValue;
  return s.x0 != nullptr ? LaunchJv<true>(stream, s)
                         : LaunchJv<false>(stream, s);
}

template cudaError_t LaunchLapJvSolve<float>(cudaStream_t,
                                             const LapProblem<float>&);
template cudaError_t LaunchLapJvSolve<double>(cudaStream_t,
                                              const LapProblem<double>&);
template cudaError_t LaunchLapJvSolve<int32_t>(cudaStream_t,
                                               const LapProblem<int32_t>&);
template std::size_t LapJvUnassignedScratchBytes<float>(int64_t, int, int);
template std::size_t LapJvUnassignedScratchBytes<double>(int64_t, int, int);
template std::size_t LapJvUnassignedScratchBytes<int32_t>(int64_t, int, int);
template cudaError_t LaunchLapJvUnassigned<float>(cudaStream_t,
                                                  LapExitProblem<float>, void*);
template cudaError_t LaunchLapJvUnassigned<double>(cudaStream_t,
                                                   LapExitProblem<double>,
                                                   void*);
template cudaError_t LaunchLapJvUnassigned<int32_t>(cudaStream_t,
                                                    LapExitProblem<int32_t>,
                                                    void*);

}  // namespace jaxmatch
