// CUDA kernels of the split LAP (lap_split_steps.h): the scan over a grid of
// (column, slice) threads plus a reduction of the slices, and the update in
// one block.
#include "common/teams.cuh"
#include "lap/lap_split_kernels.h"

namespace jaxmatch {
namespace {

constexpr int kScanThreads = 256;
constexpr int kUpdateThreads = 1024;

template <class T>
__global__ void SplitScanSlicesKernel(const T* C, int m, const T* u,
                                      const T* row_D, const int* plist,
                                      const int* info, T* part_best,
                                      int* part_arg) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  const int slice = blockIdx.y;
  T b = Num<T>::inf();
  int a = INT_MAX;
  split_scan_column(C, m, u, row_D, plist, slice, info[kSplitCount],
                    kSplitScanSlices, j, &b, &a);
  const std::size_t k = static_cast<std::size_t>(slice) * m + j;
  part_best[k] = b;
  part_arg[k] = a;
}

template <class T>
__global__ void SplitScanReduceKernel(int m, const int* info,
                                      const T* part_best, const int* part_arg,
                                      T* best, int* arg) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  T b = part_best[j];
  int a = part_arg[j];
  for (int slice = 1; slice < kSplitScanSlices; ++slice) {
    const std::size_t k = static_cast<std::size_t>(slice) * m + j;
    if (part_best[k] < b || (part_best[k] == b && part_arg[k] < a)) {
      b = part_best[k];
      a = part_arg[k];
    }
  }
  best[j] = b;
  arg[j] = a == INT_MAX ? INT_MAX : info[kSplitRow0] + a;
}

template <class T>
__global__ void __launch_bounds__(kUpdateThreads)
    SplitUpdateKernel(LapSplitView<T> p) {
  split_update(BlockTeam{}, p);
}

}  // namespace

template <class T>
cudaError_t LaunchSplitScan(cudaStream_t stream, const T* C, int nl, int m,
                            const T* u, const T* row_D, const int* plist,
                            const int* info, T* best, int* arg, T* part_best,
                            int* part_arg) {
  const unsigned tiles = (m + kScanThreads - 1) / kScanThreads;
  SplitScanSlicesKernel<T>
      <<<dim3(tiles, kSplitScanSlices), kScanThreads, 0, stream>>>(
          C, m, u, row_D, plist, info, part_best, part_arg);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  SplitScanReduceKernel<T><<<tiles, kScanThreads, 0, stream>>>(
      m, info, part_best, part_arg, best, arg);
  return cudaGetLastError();
}

template <class T>
cudaError_t LaunchSplitUpdate(cudaStream_t stream, const LapSplitView<T>& p) {
  SplitUpdateKernel<T><<<1, kUpdateThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

#define JM_INSTANTIATE_SPLIT(T)                                             \
  template cudaError_t LaunchSplitScan<T>(cudaStream_t, const T*, int, int, \
                                          const T*, const T*, const int*,   \
                                          const int*, T*, int*, T*, int*);  \
  template cudaError_t LaunchSplitUpdate<T>(cudaStream_t,                   \
                                            const LapSplitView<T>&);
JM_INSTANTIATE_SPLIT(float)
JM_INSTANTIATE_SPLIT(double)
JM_INSTANTIATE_SPLIT(int32_t)
#undef JM_INSTANTIATE_SPLIT

}  // namespace jaxmatch
