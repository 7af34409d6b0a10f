// The GPU's Jonker-Volgenant solver (lap_jv_warp.cuh): one warp, alone in
// its block, per problem of a batch.
#include "lap/lap_jv_warp.cuh"
#include "lap/lap_kernels.h"

namespace jaxmatch {
namespace {

// Problem b's info: the status and the number of searches, as lap_jv.h's
// lap_jv_solve writes them.
__device__ void WriteJvInfo(int* info, int status, int searches, int n) {
  for (int k = threadIdx.x; k < kLapInfoLen; k += 32) {
    int value = 0;
    if (k == kStatus) value = status;
    if (k == kIters || k == kNAugPhases) value = searches;
    if (k == kNAssigned) value = status == kLapOptimal ? n : 0;
    info[k] = value;
  }
}

// kStaged: the cost matrix is copied into shared memory first; kWarm: the
// solve starts from s.x0, s.v0.
template <class T, bool kStaged, bool kWarm>
__global__ void __launch_bounds__(32) lap_jv_warp_kernel(LapProblem<T> s) {
  extern __shared__ __align__(16) unsigned char smem[];
  const LapJvWarpLayout L = LapJvWarpLayout::Of<T>(s.n, s.m);
  const size_t size = static_cast<size_t>(s.n) * s.m;
  for (int64_t b = blockIdx.x; b < s.batch; b += gridDim.x) {
    const T* C = s.C + static_cast<size_t>(b) * size;
    if constexpr (kStaged) {
      T* staged = reinterpret_cast<T*>(smem + L.cost);
      for (size_t k = threadIdx.x; k < size; k += 32) staged[k] = C[k];
      __syncwarp();
      C = staged;
    }
    WarpJv<T> jv(s.n, s.m, C, smem);
    int searches = 0;
    int status;
    if constexpr (kWarm)
      status =
          jv.SolveFrom(s.v0 + b * s.m, s.x0 + b * s.n, s.max_iters, &searches);
    else
      status = jv.Solve(s.max_iters, &searches);
    const LapBuffers<T> out = s.buffers(b);
    if (!jv.Write(out.col_for_row, out.row_for_col, out.u, out.v) &&
        status == kLapOptimal)
      status = kLapOverflow;
    WriteJvInfo(out.info, status, searches, s.n);
    __syncwarp();
  }
}

template <bool kWarm, class T>
cudaError_t LaunchJv(cudaStream_t stream, const LapProblem<T>& s) {
  const LapJvWarpLayout L = LapJvWarpLayout::Of<T>(s.n, s.m);
  const BlockPerProblem g(s.n, s.m, s.batch, 32);
  if (L.staged_bytes <= kLapJvWarpStagedBytes) {
    auto* kernel = lap_jv_warp_kernel<T, true, kWarm>;
    if (L.staged_bytes > kLapJvWarpSharedBytes) {
      const cudaError_t e = cudaFuncSetAttribute(
          kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
          static_cast<int>(kLapJvWarpStagedBytes));
      if (e != cudaSuccess) return e;
    }
    kernel<<<g.blocks, 32, L.staged_bytes, stream>>>(s);
  } else {
    lap_jv_warp_kernel<T, false, kWarm>
        <<<g.blocks, 32, L.state_bytes, stream>>>(s);
  }
  return cudaGetLastError();
}

}  // namespace

template <class T>
cudaError_t LaunchLapJvSolve(cudaStream_t stream, const LapProblem<T>& s) {
  if (s.batch == 0) return cudaSuccess;
  if (!LapJvWarpFits<T>(s.n, s.m)) return cudaErrorInvalidValue;
  return s.x0 != nullptr ? LaunchJv<true>(stream, s)
                         : LaunchJv<false>(stream, s);
}

template cudaError_t LaunchLapJvSolve<float>(cudaStream_t,
                                             const LapProblem<float>&);
template cudaError_t LaunchLapJvSolve<double>(cudaStream_t,
                                              const LapProblem<double>&);
template cudaError_t LaunchLapJvSolve<int32_t>(cudaStream_t,
                                               const LapProblem<int32_t>&);

}  // namespace jaxmatch
