// CUDA kernel of the points sweep (lap_points_steps.h): a warp per row, a
// block of kPointsWarps rows whose points sit in shared memory.  Each lane
// keeps the least pairs of every 32nd column in registers; the warp then
// merges its 32 sorted lists k times through butterfly reductions.
#include "lap/lap_points_kernels.h"

namespace jaxmatch {
namespace {

constexpr int kPointsWarps = 8;
constexpr unsigned kFullMask = 0xffffffffu;

template <class T>
__global__ void __launch_bounds__(32 * kPointsWarps)
    PointsSweepKernel(const T* X, const T* u, const T* yt, const T* v, int b,
                      int d, int m, int k, int metric, T sign, int* cols,
                      T* cost, T* cost_max) {
  extern __shared__ unsigned char points_smem[];
  T* xs = reinterpret_cast<T*>(points_smem);  // [kPointsWarps, d]
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int row0 = blockIdx.x * kPointsWarps;
  const std::size_t base = static_cast<std::size_t>(row0) * d;
  for (int t = threadIdx.x; t < kPointsWarps * d; t += blockDim.x)
    xs[t] = row0 + t / d < b ? X[base + t] : T(0);
  __syncthreads();
  const int i = row0 + warp;
  if (i >= b) return;
  const T* x = xs + warp * d;
  PointsBest<T> best;
  best.clear();
  points_sweep_columns(&best, x, u[i], yt, v, m, d, metric, sign, lane, 32);
  T most = best.cost_max;
  for (int off = 16; off > 0; off >>= 1)
    most = points_nan_max(most, __shfl_xor_sync(kFullMask, most, off));
  const std::size_t out = static_cast<std::size_t>(i) * k;
  for (int q = 0; q < k; ++q) {
    T r = best.r[0];
    int j = best.j[0];
    for (int off = 16; off > 0; off >>= 1) {
      const T ro = __shfl_xor_sync(kFullMask, r, off);
      const int jo = __shfl_xor_sync(kFullMask, j, off);
      if (points_before(ro, jo, r, j)) {
        r = ro;
        j = jo;
      }
    }
    // Columns are distinct over the lanes: one lane holds the winner.
    if (best.j[0] == j) best.pop();
    if (lane == 0) {
      cols[out + q] = j;
      cost[out + q] =
          sign * points_cost(x, yt + j, d, static_cast<std::size_t>(m), metric);
    }
  }
  if (lane == 0) cost_max[i] = most;
}

}  // namespace

template <class T>
cudaError_t LaunchPointsSweep(cudaStream_t stream, const T* X, const T* u,
                              const T* yt, const T* v, int b, int d, int m,
                              int k, int metric, T sign, int* cols, T* cost,
                              T* cost_max) {
  if (b == 0) return cudaSuccess;
  const unsigned blocks = (b + kPointsWarps - 1) / kPointsWarps;
  const std::size_t smem = sizeof(T) * kPointsWarps * d;
  PointsSweepKernel<T><<<blocks, 32 * kPointsWarps, smem, stream>>>(
      X, u, yt, v, b, d, m, k, metric, sign, cols, cost, cost_max);
  return cudaGetLastError();
}

#define JM_INSTANTIATE_POINTS(T)                                               \
  template cudaError_t LaunchPointsSweep<T>(cudaStream_t, const T*, const T*,  \
                                            const T*, const T*, int, int, int, \
                                            int, int, T, int*, T*, T*);
JM_INSTANTIATE_POINTS(float)
JM_INSTANTIATE_POINTS(double)
#undef JM_INSTANTIATE_POINTS

}  // namespace jaxmatch
