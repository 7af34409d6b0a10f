// CUDA teams: the workers that share one problem in the step templates of
// common/*_steps.h (the CPU's SerialTeam lives in common/jm_device.h).
#pragma once

namespace jaxmatch {

// The threads of one block work on one problem (fused solvers).
struct BlockTeam {
  static constexpr bool kRowOuter = false;
  __device__ int rank() const { return threadIdx.x; }
  __device__ int size() const { return blockDim.x; }
  // Barriers come after loops whose trip counts differ between the threads
  // of a warp; __syncwarp() first reconverges the warp, so the block-wide
  // barrier (an .aligned PTX barrier) is reached by whole warps.  Without it
  // the H200 livelocked the fused matching solver: the 31 threads of a warp
  // with no work cycled through the barriers while the 32nd never ran.
  __device__ void sync() const {
    __syncwarp();
    __syncthreads();
  }
  // OR of every thread's bits (each bit reduced separately); a barrier.
  __device__ int sync_or(int bits) const {
    __syncwarp();
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
