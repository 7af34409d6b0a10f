// CUDA kernels of the split LAP (lap/split/split_steps.h).  The scan: a block
// per 32 columns, its warps taking every 8th pending row, then the warps'
// minima reduced in shared memory.  The update: fold and join over a grid of
// column threads (the least slack meeting in an atomic maximum in `info`),
// then the finish in one block.
#include "common/teams.cuh"
#include "lap/split/split_kernels.h"

namespace jaxmatch {
namespace {

constexpr int kScanWarps = 8;
constexpr int kColumnThreads = 256;
constexpr int kFinishThreads = 1024;

template <class T>
__global__ void __launch_bounds__(32 * kScanWarps)
    SplitScanKernel(const T* C, int nl, int m, const T* u, const T* row_D,
                    const int* plist, const int* info, T* best, int* arg) {
  __shared__ T s_best[kScanWarps][32];
  __shared__ int s_arg[kScanWarps][32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int j = blockIdx.x * 32 + lane;
  int count = info[kSplitCount];
  count = count < 0 ? 0 : (count > nl ? nl : count);
  T b = Num<T>::inf();
  int a = INT_MAX;
  if (j < m) {
    for (int k = warp; k < count; k += kScanWarps) {
      const int r = plist[k];
      split_scan_fold(split_scan_value(C, m, u, row_D, r, j), r, &b, &a);
    }
  }
  s_best[warp][lane] = b;
  s_arg[warp][lane] = a;
  __syncthreads();
  if (warp != 0 || j >= m) return;
  for (int w = 1; w < kScanWarps; ++w)
    split_scan_fold(s_best[w][lane], s_arg[w][lane], &b, &a);
  best[j] = b;
  arg[j] = a == INT_MAX ? INT_MAX : info[kSplitRow0] + a;
}

template <class T>
__device__ unsigned long long* SplitLeastWord(const LapSplitView<T>& p) {
  return reinterpret_cast<unsigned long long*>(p.info + kSplitLeast);
}

// fold on every column; each block's largest word into the least-slack
// word of `info`.
template <class T>
__global__ void __launch_bounds__(kColumnThreads)
    SplitFoldKernel(LapSplitView<T> p) {
  if (load_shared_scalar(p.info + kSplitStatus) != kLapRunning) return;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long w = j < p.m ? split_fold_column(p, j) : 0;
  w = BlockTeam{}.all_max(w);
  if (threadIdx.x != 0) return;
  if (w != 0) atomic_max_u64(SplitLeastWord(p), w);
  if (blockIdx.x == 0) p.info[kSplitCount] = 0;
}

// join on every column at the D of the least slack (none: infeasible, which
// the finish reports); a free tight column sets the end flag of `info`.
template <class T>
__global__ void __launch_bounds__(kColumnThreads)
    SplitJoinKernel(LapSplitView<T> p) {
  if (load_shared_scalar(p.info + kSplitStatus) != kLapRunning) return;
  const unsigned long long w = *SplitLeastWord(p);
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (w == 0 || j >= p.m) return;
  if (split_join_column(p, j, split_raised_D(*p.D, w))) p.info[kSplitEnd] = 1;
}

// finish, with the scratch words read and cleared for the next iteration.
template <class T>
__global__ void __launch_bounds__(kFinishThreads)
    SplitFinishKernel(LapSplitView<T> p) {
  if (load_shared_scalar(p.info + kSplitStatus) != kLapRunning) return;
  const BlockTeam team;
  const unsigned long long w = *SplitLeastWord(p);
  const bool phase_end = p.info[kSplitEnd] != 0;
  const bool infeasible = w == 0;
  const T D = infeasible ? *p.D : split_raised_D(*p.D, w);
  team.sync();  // every thread has read the scratch and D
  if (team.rank() == 0) {
    *SplitLeastWord(p) = 0;
    p.info[kSplitEnd] = 0;
  }
  split_finish(team, p, D, infeasible, phase_end);
}

}  // namespace

template <class T>
cudaError_t LaunchSplitScan(cudaStream_t stream, const T* C, int nl, int m,
                            const T* u, const T* row_D, const int* plist,
                            const int* info, T* best, int* arg) {
  const unsigned tiles = (m + 31) / 32;
  SplitScanKernel<T><<<tiles, 32 * kScanWarps, 0, stream>>>(
      C, nl, m, u, row_D, plist, info, best, arg);
  return cudaGetLastError();
}

template <class T>
cudaError_t LaunchSplitUpdate(cudaStream_t stream, const LapSplitView<T>& p) {
  const unsigned tiles = (p.m + kColumnThreads - 1) / kColumnThreads;
  SplitFoldKernel<T><<<tiles, kColumnThreads, 0, stream>>>(p);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  SplitJoinKernel<T><<<tiles, kColumnThreads, 0, stream>>>(p);
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  SplitFinishKernel<T><<<1, kFinishThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

#define JM_INSTANTIATE_SPLIT(T)                                             \
  template cudaError_t LaunchSplitScan<T>(cudaStream_t, const T*, int, int, \
                                          const T*, const T*, const int*,   \
                                          const int*, T*, int*);            \
  template cudaError_t LaunchSplitUpdate<T>(cudaStream_t,                   \
                                            const LapSplitView<T>&);
JM_INSTANTIATE_SPLIT(float)
JM_INSTANTIATE_SPLIT(double)
JM_INSTANTIATE_SPLIT(int32_t)
#undef JM_INSTANTIATE_SPLIT

}  // namespace jaxmatch
