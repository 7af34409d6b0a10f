// CUDA kernels of the points sweep (lap/points/points_steps.h): a warp per row,
// a block of kPointsWarps rows whose points sit in shared memory.  Each lane
// keeps the least pairs of every 32nd column in registers; the warp then
// merges its 32 sorted lists k times through butterfly reductions.  Points
// of up to kPointsTiledMaxDim dimensions take a kernel whose block stages
// tiles of Y in shared memory for its warps.
#include "lap/points/points_kernels.h"

namespace jaxmatch {
namespace {

constexpr int kPointsWarps = 8;
constexpr unsigned kFullMask = 0xffffffffu;
// Points of at most kPointsTiledMaxDim dimensions: the block stages
// kPointsTileCols columns of Y and their prices in shared memory at a time,
// which its warps then read instead of each loading them (a multiple of 32,
// so a lane sees the same columns as in the untiled kernel).
constexpr int kPointsTiledMaxDim = 3;

// The warp's 32 lists of row i merged into its k outputs, and the row's
// largest |cost|.
template <class T>
__device__ void PointsWriteRow(PointsBest<T>& best, const T* x, int i, int lane,
                               const T* yt, int d, int m, int k, int metric,
                               T sign, int* cols, T* cost, T* cost_max) {
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

// The block's rows' points into xs [kPointsWarps, d] (zeros past row b),
// then a barrier; returns this warp's row.
template <class T>
__device__ int PointsStageRows(const T* X, int b, int d, T* xs) {
  const int row0 = blockIdx.x * kPointsWarps;
  const std::size_t base = static_cast<std::size_t>(row0) * d;
  for (int t = threadIdx.x; t < kPointsWarps * d; t += blockDim.x)
    xs[t] = row0 + t / d < b ? X[base + t] : T(0);
  __syncthreads();
  return row0 + (threadIdx.x >> 5);
}

// Any dimension: each warp loads Y's columns itself.
template <class T>
__global__ void __launch_bounds__(32 * kPointsWarps)
    PointsSweepKernel(const T* X, const T* u, const T* yt, const T* v, int b,
                      int d, int m, int k, int metric, T sign, int* cols,
                      T* cost, T* cost_max) {
  extern __shared__ unsigned char points_smem[];
  T* xs = reinterpret_cast<T*>(points_smem);  // [kPointsWarps, d]
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int i = PointsStageRows(X, b, d, xs);
  if (i >= b) return;
  const T* x = xs + warp * d;
  PointsBest<T> best;
  best.clear();
  points_sweep_columns(&best, x, u[i], yt, static_cast<std::size_t>(m), v, m, 0,
                       d, metric, sign, lane, 32);
  PointsWriteRow(best, x, i, lane, yt, d, m, k, metric, sign, cols, cost,
                 cost_max);
}

// D <= kPointsTiledMaxDim dimensions: Y's columns and prices staged in
// shared memory a tile at a time, the row's point in registers.
template <class T, int D>
__global__ void __launch_bounds__(32 * kPointsWarps)
    PointsSweepTiledKernel(const T* X, const T* u, const T* yt, const T* v,
                           int b, int m, int k, int metric, T sign, int* cols,
                           T* cost, T* cost_max) {
  static_assert(D >= 1 && D <= kPointsTiledMaxDim, "a tiled dimension");
  __shared__ T ys[(D + 1) * kPointsTileCols];  // D coordinates, then prices
  __shared__ T xs[kPointsWarps * D];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int i = PointsStageRows(X, b, D, xs);
  const bool real = i < b;  // every thread takes part in the staging
  T x[D];
  JM_UNROLL
  for (int q = 0; q < D; ++q) x[q] = xs[warp * D + q];
  const T ui = real ? u[i] : T(0);
  PointsBest<T> best;
  best.clear();
  for (int t0 = 0; t0 < m; t0 += kPointsTileCols) {
    const int count = min(kPointsTileCols, m - t0);
    __syncthreads();  // the previous tile is read
    for (int t = threadIdx.x; t < count; t += blockDim.x) {
      JM_UNROLL
      for (int q = 0; q < D; ++q)
        ys[q * kPointsTileCols + t] =
            yt[static_cast<std::size_t>(q) * m + t0 + t];
      ys[D * kPointsTileCols + t] = v[t0 + t];
    }
    __syncthreads();
    if (real)
      points_sweep_columns(&best, x, ui, ys, kPointsTileCols,
                           ys + D * kPointsTileCols, count, t0, D, metric, sign,
                           lane, 32);
  }
  if (!real) return;
  PointsWriteRow(best, xs + warp * D, i, lane, yt, D, m, k, metric, sign, cols,
                 cost, cost_max);
}

}  // namespace

template <class T>
cudaError_t LaunchPointsSweep(cudaStream_t stream, const T* X, const T* u,
                              const T* yt, const T* v, int b, int d, int m,
                              int k, int metric, T sign, int* cols, T* cost,
                              T* cost_max) {
  if (b == 0) return cudaSuccess;
  const unsigned blocks = (b + kPointsWarps - 1) / kPointsWarps;
  const unsigned threads = 32 * kPointsWarps;
  switch (d) {
    case 1:
      PointsSweepTiledKernel<T, 1><<<blocks, threads, 0, stream>>>(
          X, u, yt, v, b, m, k, metric, sign, cols, cost, cost_max);
      break;
    case 2:
      PointsSweepTiledKernel<T, 2><<<blocks, threads, 0, stream>>>(
          X, u, yt, v, b, m, k, metric, sign, cols, cost, cost_max);
      break;
    case 3:
      PointsSweepTiledKernel<T, 3><<<blocks, threads, 0, stream>>>(
          X, u, yt, v, b, m, k, metric, sign, cols, cost, cost_max);
      break;
    default:
      PointsSweepKernel<T>
          <<<blocks, threads, sizeof(T) * kPointsWarps * d, stream>>>(
              X, u, yt, v, b, d, m, k, metric, sign, cols, cost, cost_max);
  }
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
