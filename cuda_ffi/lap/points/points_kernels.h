// Launcher of the points sweep's CUDA kernel (lap/points/points_steps.h).  It
// enqueues work on `stream` and returns the launch status; nothing
// synchronises or allocates.
#pragma once

#include <cuda_runtime_api.h>

#include "lap/points/points_steps.h"

namespace jaxmatch {

// For each of the b rows of X [b, d]: the k least (r, j) over the m points of
// YT [d, m] into cols [b, k], their signed costs into cost [b, k], and the
// row's largest |cost| into cost_max [b]; d <= kPointsMaxDim, 1 <= k <=
// min(kPointsMaxK, m).
template <class T>
cudaError_t LaunchPointsSweep(cudaStream_t stream, const T* X, const T* u,
                              const T* yt, const T* v, int b, int d, int m,
                              int k, int metric, T sign, int* cols, T* cost,
                              T* cost_max);

}  // namespace jaxmatch
