// CUDA kernels of the Hungarian LAP solver: the steps of
// lap/hungarian/hungarian_steps.h run by CUDA teams.
//
//   fused:   lap_solve_kernel, one block per problem, lap_init and
//            lap_solve_loop with block barriers between steps;
//   stepped: one kernel per step over a grid (blocks_x, batch), so a large
//            problem is spread over many SMs; kernel boundaries are the
//            barriers; lap_ctrl_kernel runs the scalar transitions.
#include "common/teams.cuh"
#include "lap/hungarian/hungarian_kernels.h"
#include "lap/hungarian/hungarian_steps.h"

namespace jaxmatch {
namespace {

constexpr int kStepThreads = 256;
constexpr int kMaxGridY = 65535;
// The fused kernel: at most 512 threads, and at least two such blocks per SM,
// which caps it at 64 registers a thread.  Measured on an H100, one 5000^2
// int32 problem in global memory: 281 ms capped, 566 ms uncapped (95
// registers); the shared-memory kernels use 64 either way.
constexpr int kFusedMaxThreads = 512;
constexpr int kFusedMinBlocks = 2;
// A fused solve keeps its state in shared memory when it fits in the default
// 48 KiB (no opt-in attribute, which would be a non-stream call in a graph).
constexpr size_t kFusedSharedBytes = 48 * 1024;

enum StepId {
  kInitZero,
  kInitRows,
  kInitCols,
  kInitPropose,
  kInitAccept,
  kInitFinish,
  kInitZeroLists,
  kWarmPrices,
  kWarmKeep,
  kWarmAssign,
  kS1,
  kS2,
  kS3,
  kS4,
};

template <int kStep, class T, class Team>
__device__ __forceinline__ void RunStep(const Team& team, LapView<T>& p,
                                        const LapProblem<T>& s, int64_t b) {
  const int variant = s.variant;
  if constexpr (kStep == kInitZero)
    lap_init_zero(team, p, variant);
  else if constexpr (kStep == kInitRows)
    lap_init_rows(team, p);
  else if constexpr (kStep == kInitCols)
    lap_init_cols(team, p);
  else if constexpr (kStep == kInitPropose)
    lap_init_propose(team, p);
  else if constexpr (kStep == kInitAccept)
    lap_init_accept(team, p);
  else if constexpr (kStep == kInitFinish)
    lap_init_finish(team, p);
  else if constexpr (kStep == kInitZeroLists)
    lap_init_zero_lists(team, p);
  else if constexpr (kStep == kWarmPrices)
    lap_init_warm_prices(team, p, s.v0 + b * s.m);
  else if constexpr (kStep == kWarmKeep)
    lap_init_warm_keep(team, p, s.x0 + b * s.n);
  else if constexpr (kStep == kWarmAssign)
    lap_init_warm_assign(team, p);
  else if constexpr (kStep == kS1)
    lap_s1_setup(team, p, variant);
  else if constexpr (kStep == kS2)
    lap_s2_forward(team, p, variant);
  else if constexpr (kStep == kS3)
    lap_s3_mark(team, p, variant);
  else if constexpr (kStep == kS4)
    lap_s4_update(team, p, variant);
}

template <int kStep, class T>
__global__ void lap_step_kernel(LapProblem<T> s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    LapView<T> p = s.view(b);
    RunStep<kStep>(team, p, s, b);
  }
}

template <class T>
__global__ void lap_ctrl_kernel(LapProblem<T> s, int init, int max_iters) {
  const int64_t b = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (b >= s.batch) return;
  LapView<T> p = s.view(b);
  if (init)
    lap_ctrl_init(p, max_iters);
  else
    lap_ctrl_iteration(p, s.variant);
}

// Shared memory of a fused solve that keeps its state there: the cost-dtype
// arrays (u, v, twork), then the int32 ones (info, col_for_row, row_for_col,
// and work up to the classical zero lists, which stay in global memory).
struct FusedSharedLayout {
  size_t u, v, twork, t_end, info, cfr, rfc, work, bytes;
  template <class T>
  __host__ __device__ static FusedSharedLayout Of(const LapProblem<T>& s) {
    const LapWorkLayout L = s.work_layout();
    FusedSharedLayout f;
    f.u = 0;
    f.v = f.u + s.n * sizeof(T);
    f.twork = f.v + s.m * sizeof(T);
    f.t_end = (f.twork + L.tlen * sizeof(T) + 15) / 16 * 16;
    f.info = f.t_end;
    f.cfr = f.info + kLapInfoLen * sizeof(int);
    f.rfc = f.cfr + s.n * sizeof(int);
    f.work = f.rfc + s.m * sizeof(int);
    f.bytes = f.work + L.zidx * sizeof(int);
    return f;
  }
};

// The buffers of a fused solve that works in shared memory.
template <class T>
__device__ LapBuffers<T> SharedBuffers(const LapProblem<T>& s,
                                       unsigned char* smem) {
  const FusedSharedLayout f = FusedSharedLayout::Of(s);
  return LapBuffers<T>{reinterpret_cast<int*>(smem + f.info),
                       reinterpret_cast<int*>(smem + f.cfr),
                       reinterpret_cast<int*>(smem + f.rfc),
                       reinterpret_cast<T*>(smem + f.u),
                       reinterpret_cast<T*>(smem + f.v),
                       reinterpret_cast<int*>(smem + f.work),
                       reinterpret_cast<T*>(smem + f.twork)};
}

// Copies a finished shared-memory solve's results to global memory.
template <class T>
__device__ void CopyOut(const LapBuffers<T>& from, const LapBuffers<T>& to,
                        int n, int m) {
  for (int k = threadIdx.x; k < kLapInfoLen; k += blockDim.x)
    to.info[k] = from.info[k];
  for (int k = threadIdx.x; k < n; k += blockDim.x) {
    to.col_for_row[k] = from.col_for_row[k];
    to.u[k] = from.u[k];
  }
  for (int k = threadIdx.x; k < m; k += blockDim.x) {
    to.row_for_col[k] = from.row_for_col[k];
    to.v[k] = from.v[k];
  }
}

// The whole solve of problem b, from the warm start s.x0, s.v0 when kWarm.
// kShared is a template parameter so that every pointer of the view is a
// kernel parameter plus an offset, which the compiler recomputes instead of
// keeping ~20 pointers live (the fused kernel is register-bound); kWarm
// keeps the cold kernel free of the warm start's code.
template <bool kShared, bool kWarm, class T>
__device__ void FusedSolve(const LapProblem<T>& s, int64_t b,
                           unsigned char* smem) {
  const BlockTeam team;
  LapView<T> p(s.n, s.m, s.variant, s.C + static_cast<size_t>(b) * s.n * s.m,
               kShared ? SharedBuffers(s, smem) : s.buffers(b));
  p.zidx = s.buffers(b).work + s.work_layout().zidx;  // zero lists: global
  p.max_iters = s.max_iters;
  if constexpr (kWarm)
    lap_init(team, p, s.variant, s.x0 + b * s.n, s.v0 + b * s.m);
  else
    lap_init(team, p, s.variant);
  lap_solve_loop(team, p, s.variant);
}

template <bool kShared, bool kWarm, class T>
__global__ void __launch_bounds__(kFusedMaxThreads, kFusedMinBlocks)
    lap_solve_kernel(LapProblem<T> s) {
  extern __shared__ __align__(16) unsigned char smem[];
  for (int64_t b = blockIdx.x; b < s.batch; b += gridDim.x) {
    FusedSolve<kShared, kWarm>(s, b, smem);
    if (kShared) CopyOut(SharedBuffers(s, smem), s.buffers(b), s.n, s.m);
    BlockTeam().sync();
  }
}

dim3 StepGrid(int n, int m, int64_t batch) {
  const int work = m > n ? m : n;
  int bx = (work + kStepThreads - 1) / kStepThreads;
  if (bx < 1) bx = 1;
  const int by = batch < kMaxGridY ? static_cast<int>(batch) : kMaxGridY;
  return dim3(bx, by);
}

int CtrlBlocks(int64_t batch) { return static_cast<int>((batch + 127) / 128); }

template <int kStep, class T>
void LaunchStep(cudaStream_t stream, const LapProblem<T>& s) {
  lap_step_kernel<kStep, T>
      <<<StepGrid(s.n, s.m, s.batch), kStepThreads, 0, stream>>>(s);
}

}  // namespace

template <class T>
cudaError_t LaunchLapInit(cudaStream_t stream, const LapProblem<T>& s) {
  if (s.batch == 0) return cudaSuccess;
  LaunchStep<kInitZero>(stream, s);
  if (s.x0 != nullptr) {
    LaunchStep<kWarmPrices>(stream, s);
    LaunchStep<kWarmKeep>(stream, s);
    LaunchStep<kWarmAssign>(stream, s);
  } else {
    LaunchStep<kInitRows>(stream, s);
    LaunchStep<kInitCols>(stream, s);
  }
  for (int round = 0; round < kLapInitRounds; ++round) {
    LaunchStep<kInitPropose>(stream, s);
    LaunchStep<kInitAccept>(stream, s);
  }
  LaunchStep<kInitFinish>(stream, s);
  if (s.variant == kLapClassical) LaunchStep<kInitZeroLists>(stream, s);
  lap_ctrl_kernel<T><<<CtrlBlocks(s.batch), 128, 0, stream>>>(
      s, 1, lap_max_iters(s.max_iters, s.n, s.m));
  return cudaGetLastError();
}

template <class T>
cudaError_t LaunchLapStep(cudaStream_t stream, const LapProblem<T>& s,
                          int iterations) {
  if (s.batch == 0) return cudaSuccess;
  for (int it = 0; it < iterations; ++it) {
    LaunchStep<kS1>(stream, s);
    LaunchStep<kS2>(stream, s);
    LaunchStep<kS3>(stream, s);
    LaunchStep<kS4>(stream, s);
    lap_ctrl_kernel<T><<<CtrlBlocks(s.batch), 128, 0, stream>>>(s, 0, 0);
  }
  return cudaGetLastError();
}

namespace {

// The fused kernel for the problem's shared-memory need (cold or warm).
template <bool kWarm, class T>
void LaunchFused(cudaStream_t stream, const LapProblem<T>& s) {
  const BlockPerProblem g(s.n, s.m, s.batch, kFusedMaxThreads);
  const size_t smem = FusedSharedLayout::Of(s).bytes;
  if (smem <= kFusedSharedBytes)
    lap_solve_kernel<true, kWarm, T><<<g.blocks, g.threads, smem, stream>>>(s);
  else
    lap_solve_kernel<false, kWarm, T><<<g.blocks, g.threads, 0, stream>>>(s);
}

}  // namespace

template <class T>
cudaError_t LaunchLapSolve(cudaStream_t stream, const LapProblem<T>& s) {
  if (s.batch == 0) return cudaSuccess;
  if (s.x0 != nullptr)
    LaunchFused<true>(stream, s);
  else
    LaunchFused<false>(stream, s);
  return cudaGetLastError();
}

#define JM_INSTANTIATE(T)                                                    \
  template cudaError_t LaunchLapInit<T>(cudaStream_t, const LapProblem<T>&); \
  template cudaError_t LaunchLapStep<T>(cudaStream_t, const LapProblem<T>&,  \
                                        int);                                \
  template cudaError_t LaunchLapSolve<T>(cudaStream_t, const LapProblem<T>&);
JM_INSTANTIATE(float)
JM_INSTANTIATE(double)
JM_INSTANTIATE(int32_t)
#undef JM_INSTANTIATE

}  // namespace jaxmatch
