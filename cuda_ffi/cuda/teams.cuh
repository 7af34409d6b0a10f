// CUDA teams: the workers that share one problem in the step templates of
// common/*_steps.h (the CPU's SerialTeam lives in common/jm_device.h).
#pragma once

namespace jaxmatch {

// The threads of one block work on one problem (fused solvers).
struct BlockTeam {
  static constexpr bool kRowOuter = false;
  __device__ int rank() const { return threadIdx.x; }
  __device__ int size() const { return blockDim.x; }
  __device__ void sync() const { __syncthreads(); }
  // OR of every thread's bits (each bit reduced separately); a barrier.
  __device__ int sync_or(int bits) const {
    int out = 0;
    for (int bit = 1; bit <= 2; bit <<= 1)
      if (__syncthreads_or(bits & bit)) out |= bit;
    return out;
  }
};

// The threads of one grid row (all blocks with the same blockIdx.y): stepped
// solvers, whose barriers are kernel boundaries.
struct GridRowTeam {
  static constexpr bool kRowOuter = false;
  __device__ int rank() const { return blockIdx.x * blockDim.x + threadIdx.x; }
  __device__ int size() const { return gridDim.x * blockDim.x; }
};

}  // namespace jaxmatch
