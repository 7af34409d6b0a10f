// CUDA kernel of the sparse (CSR) LAP solver: lap/sparse/csr_steps.h's whole
// solve, one thread block per problem.  A module of its own, apart from the
// dense kernels of lap/hungarian/hungarian_kernels.cu.
#include "common/teams.cuh"
#include "lap/common/block_per_problem.h"
#include "lap/sparse/csr_kernels.h"
#include "lap/sparse/csr_steps.h"

namespace jaxmatch {
namespace {

// As the dense fused kernel: at most 512 threads, two blocks per SM.
constexpr int kCsrMaxThreads = 512;
constexpr int kCsrMinBlocks = 2;

template <class T>
__global__ void __launch_bounds__(kCsrMaxThreads, kCsrMinBlocks)
    lap_csr_solve_kernel(LapCsrProblem<T> s) {
  const BlockTeam team;
  for (int64_t b = blockIdx.x; b < s.batch; b += gridDim.x) {
    LapCsrView<T> p = s.view(b);
    lap_csr_solve_tree(team, p);
  }
}

}  // namespace

template <class T>
cudaError_t LaunchLapCsrSolve(cudaStream_t stream, const LapCsrProblem<T>& s) {
  if (s.batch == 0) return cudaSuccess;
  const BlockPerProblem g(s.n, s.m, s.batch, kCsrMaxThreads);
  lap_csr_solve_kernel<T><<<g.blocks, g.threads, 0, stream>>>(s);
  return cudaGetLastError();
}

#define JM_INSTANTIATE(T)                                 \
  template cudaError_t LaunchLapCsrSolve<T>(cudaStream_t, \
                                            const LapCsrProblem<T>&);
JM_INSTANTIATE(float)
JM_INSTANTIATE(double)
JM_INSTANTIATE(int32_t)
#undef JM_INSTANTIATE

}  // namespace jaxmatch
