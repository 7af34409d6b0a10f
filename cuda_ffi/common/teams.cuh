// CUDA teams: the workers that share one problem in the step templates
// (<family>/<family>_steps.h; the CPU's SerialTeam is in common/device.h).
#pragma once

namespace jaxmatch {

// The threads of one block work on one problem (fused solvers).
struct BlockTeam {
  static constexpr bool kRowOuter = false;
  __device__ int rank() const { return threadIdx.x; }
  __device__ int size() const { return blockDim.x; }
  // Barriers come after loops whose trip counts differ between the threads
  // of a warp; __syncwarp() first reconverges the warp, so the block-wide
  // barrier (an .aligned PTX barrier) is reached by whole warps.  Every block
  // barrier of a step template goes through here.
  __device__ void sync() const {
    __syncwarp();
    __syncthreads();
  }
  // Bitwise OR of every thread's `bits` (all 32 bits); a barrier.  The block
  // size is a multiple of 32, so every warp is whole.
  __device__ int sync_or(int bits) const {
    __shared__ int s_or;
    __syncwarp();
    const int warp_or = __reduce_or_sync(0xffffffffu, bits);
    __syncthreads();  // every thread has read the previous call's result
    if (threadIdx.x == 0) s_or = 0;
    __syncthreads();
    if ((threadIdx.x & 31) == 0 && warp_or) atomicOr(&s_or, warp_or);
    __syncthreads();
    return s_or;
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
