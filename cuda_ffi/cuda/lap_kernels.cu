// CUDA kernels of the Hungarian LAP solver: the shared step templates
// (common/lap_steps.h) run by CUDA teams.
//
//   fused:   lap_solve_kernel, one block per problem, the whole solve with
//            __syncthreads between steps;
//   stepped: one kernel per step over a grid (blocks_x, batch), so a large
//            problem is spread over many SMs; kernel boundaries are the
//            barriers; lap_ctrl_kernel runs the scalar transitions.
#include "lap_kernels.h"

#include "../common/lap_steps.h"
#include "teams.cuh"

namespace jaxmatch {
namespace {

constexpr int kStepThreads = 256;
constexpr int kMaxGridY = 65535;
// The fused kernel keeps ~100-160 registers per thread live; 512 threads fit.
constexpr int kFusedMaxThreads = 512;
// A fused solve keeps its state in shared memory when it fits in the default
// 48 KiB (no opt-in attribute, which would be a non-stream call in a graph).
constexpr size_t kFusedSharedBytes = 48 * 1024;

template <class T>
__device__ LapView<T> ViewOf(const LapProblemShape& s, const T* C, int* is,
                             T* ts, int64_t b) {
  return LapView<T>(s.n, s.m, s.variant,
                    C + static_cast<size_t>(b) * s.n * s.m,
                    is + static_cast<size_t>(b) * s.ilen,
                    ts + static_cast<size_t>(b) * s.tlen);
}

enum StepId {
  kInitRows, kInitCols, kInitPropose, kInitAccept, kInitZeroLists,
  kS1, kS2, kS3, kS4,
};

template <int kStep, class T, class Team>
__device__ __forceinline__ void RunStep(const Team& team, LapView<T>& p,
                                        int variant) {
  if constexpr (kStep == kInitRows) lap_init_rows(team, p);
  else if constexpr (kStep == kInitCols) lap_init_cols(team, p);
  else if constexpr (kStep == kInitPropose) lap_init_propose(team, p);
  else if constexpr (kStep == kInitAccept) lap_init_accept(team, p);
  else if constexpr (kStep == kInitZeroLists) lap_init_zero_lists(team, p);
  else if constexpr (kStep == kS1) lap_s1_setup(team, p, variant);
  else if constexpr (kStep == kS2) lap_s2_forward(team, p, variant);
  else if constexpr (kStep == kS3) lap_s3_mark(team, p, variant);
  else if constexpr (kStep == kS4) lap_s4_update(team, p, variant);
}

template <int kStep, class T>
__global__ void lap_step_kernel(LapProblemShape s, const T* C, int* is,
                                T* ts) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    LapView<T> p = ViewOf(s, C, is, ts, b);
    RunStep<kStep>(team, p, s.variant);
  }
}

template <class T>
__global__ void lap_ctrl_kernel(LapProblemShape s, const T* C, int* is, T* ts,
                                int init, int max_iters) {
  const int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= s.batch) return;
  LapView<T> p = ViewOf(s, C, is, ts, b);
  if (init) lap_ctrl_init(p, max_iters);
  else lap_ctrl_iteration(p, s.variant);
}

// Bytes of the state a fused solve keeps in shared memory: the cost-dtype
// state, then every int32 array before the classical zero lists (zidx).
template <class T>
size_t FusedSharedBytes(const LapProblemShape& s) {
  LapLayout L(s.n, s.m, s.variant);
  const size_t t_bytes = (L.tlen * sizeof(T) + 15) / 16 * 16;
  return t_bytes + L.zidx * sizeof(int);
}

template <class T>
__global__ void __launch_bounds__(kFusedMaxThreads)
    lap_solve_kernel(LapProblemShape s, const T* C, int* is, T* ts,
                     int max_iters, int use_shared) {
  extern __shared__ __align__(16) unsigned char smem[];
  BlockTeam team;
  const LapLayout L(s.n, s.m, s.variant);
  const size_t t_bytes = (L.tlen * sizeof(T) + 15) / 16 * 16;
  for (int64_t b = blockIdx.x; b < s.batch; b += gridDim.x) {
    int* g_is = is + static_cast<size_t>(b) * s.ilen;
    T* g_ts = ts + static_cast<size_t>(b) * s.tlen;
    int* w_is = g_is;
    T* w_ts = g_ts;
    if (use_shared) {  // work on a zeroed copy in shared memory
      w_ts = reinterpret_cast<T*>(smem);
      w_is = reinterpret_cast<int*>(smem + t_bytes);
      for (size_t k = threadIdx.x; k < L.tlen; k += blockDim.x) w_ts[k] = T(0);
      for (size_t k = threadIdx.x; k < L.zidx; k += blockDim.x) w_is[k] = 0;
      __syncthreads();
    }
    LapView<T> p(s.n, s.m, s.variant, C + static_cast<size_t>(b) * s.n * s.m,
                 w_is, w_ts);
    p.zidx = g_is + L.zidx;  // zero lists (classical) always live in global
    const int v = s.variant;
    RunStep<kInitRows>(team, p, v);
    __syncthreads();
    RunStep<kInitCols>(team, p, v);
    __syncthreads();
    RunStep<kInitPropose>(team, p, v);
    __syncthreads();
    RunStep<kInitAccept>(team, p, v);
    __syncthreads();
    if (v == kLapClassical) {
      RunStep<kInitZeroLists>(team, p, v);
      __syncthreads();
    }
    if (threadIdx.x == 0) lap_ctrl_init(p, max_iters);
    __syncthreads();
    while (load_shared_scalar(p.sc + kStatus) == kLapRunning) {
      RunStep<kS1>(team, p, v);
      __syncthreads();
      RunStep<kS2>(team, p, v);
      __syncthreads();
      RunStep<kS3>(team, p, v);
      __syncthreads();
      RunStep<kS4>(team, p, v);
      __syncthreads();
      if (threadIdx.x == 0) lap_ctrl_iteration(p, v);
      __syncthreads();
    }
    if (use_shared) {
      for (size_t k = threadIdx.x; k < L.tlen; k += blockDim.x) g_ts[k] = w_ts[k];
      for (size_t k = threadIdx.x; k < L.zidx; k += blockDim.x) g_is[k] = w_is[k];
    }
    __syncthreads();
  }
}

dim3 StepGrid(const LapProblemShape& s) {
  const int work = s.m > s.n ? s.m : s.n;
  int bx = (work + kStepThreads - 1) / kStepThreads;
  if (bx < 1) bx = 1;
  const int by = s.batch < kMaxGridY ? static_cast<int>(s.batch) : kMaxGridY;
  return dim3(bx, by);
}

int CtrlBlocks(const LapProblemShape& s) {
  return static_cast<int>((s.batch + 127) / 128);
}

template <int kStep, class T>
void LaunchStep(cudaStream_t stream, const LapProblemShape& s, const T* C,
                int* is, T* ts) {
  lap_step_kernel<kStep, T><<<StepGrid(s), kStepThreads, 0, stream>>>(s, C, is,
                                                                     ts);
}

template <class T>
cudaError_t ZeroStateAsync(cudaStream_t stream, const LapProblemShape& s,
                           int* is, T* ts) {
  cudaError_t err =
      cudaMemsetAsync(is, 0, sizeof(int) * s.ilen * s.batch, stream);
  if (err != cudaSuccess) return err;
  return cudaMemsetAsync(ts, 0, sizeof(T) * s.tlen * s.batch, stream);
}

}  // namespace

template <class T>
cudaError_t LaunchLapInit(cudaStream_t stream, const LapProblemShape& s,
                          const T* C, int* is, T* ts) {
  if (s.batch == 0) return cudaSuccess;
  cudaError_t err = ZeroStateAsync(stream, s, is, ts);
  if (err != cudaSuccess) return err;
  LaunchStep<kInitRows>(stream, s, C, is, ts);
  LaunchStep<kInitCols>(stream, s, C, is, ts);
  LaunchStep<kInitPropose>(stream, s, C, is, ts);
  LaunchStep<kInitAccept>(stream, s, C, is, ts);
  if (s.variant == kLapClassical) LaunchStep<kInitZeroLists>(stream, s, C, is, ts);
  lap_ctrl_kernel<T><<<CtrlBlocks(s), 128, 0, stream>>>(
      s, C, is, ts, 1, lap_default_max_iters(s.n, s.m));
  return cudaGetLastError();
}

template <class T>
cudaError_t LaunchLapStep(cudaStream_t stream, const LapProblemShape& s,
                          const T* C, int* is, T* ts, int iterations) {
  if (s.batch == 0) return cudaSuccess;
  for (int it = 0; it < iterations; ++it) {
    LaunchStep<kS1>(stream, s, C, is, ts);
    LaunchStep<kS2>(stream, s, C, is, ts);
    LaunchStep<kS3>(stream, s, C, is, ts);
    LaunchStep<kS4>(stream, s, C, is, ts);
    lap_ctrl_kernel<T><<<CtrlBlocks(s), 128, 0, stream>>>(s, C, is, ts, 0, 0);
  }
  return cudaGetLastError();
}

template <class T>
cudaError_t LaunchLapSolve(cudaStream_t stream, const LapProblemShape& s,
                           const T* C, int* is, T* ts) {
  if (s.batch == 0) return cudaSuccess;
  cudaError_t err = ZeroStateAsync(stream, s, is, ts);
  if (err != cudaSuccess) return err;
  const int work = s.m > s.n ? s.m : s.n;
  int threads = ((work + 31) / 32) * 32;
  if (threads < 32) threads = 32;
  if (threads > kFusedMaxThreads) threads = kFusedMaxThreads;
  const int64_t blocks64 =
      s.batch < (int64_t{1} << 30) ? s.batch : (int64_t{1} << 30);
  const size_t smem = FusedSharedBytes<T>(s);
  const int use_shared = smem <= kFusedSharedBytes;
  lap_solve_kernel<T><<<static_cast<int>(blocks64), threads,
                        use_shared ? smem : 0, stream>>>(
      s, C, is, ts, lap_default_max_iters(s.n, s.m), use_shared);
  return cudaGetLastError();
}

#define JM_INSTANTIATE(T)                                                     \
  template cudaError_t LaunchLapInit<T>(cudaStream_t, const LapProblemShape&, \
                                        const T*, int*, T*);                  \
  template cudaError_t LaunchLapStep<T>(cudaStream_t, const LapProblemShape&, \
                                        const T*, int*, T*, int);             \
  template cudaError_t LaunchLapSolve<T>(cudaStream_t,                        \
                                         const LapProblemShape&, const T*,    \
                                         int*, T*);
JM_INSTANTIATE(float)
JM_INSTANTIATE(double)
JM_INSTANTIATE(int32_t)
#undef JM_INSTANTIATE

}  // namespace jaxmatch
