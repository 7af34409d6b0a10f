// Launchers of the split LAP's CUDA kernels (lap/split/split_steps.h).  Each
// enqueues work on `stream` and returns the launch status; nothing
// synchronises or allocates, so the handlers can be captured in CUDA graphs.
#pragma once

#include <cuda_runtime_api.h>

#include "lap/split/split_steps.h"

namespace jaxmatch {

// scan: the least c_ij - (u_i - D_i) per column over the pending rows
// plist[0 .. info[kSplitCount]) of C [nl, m], and the least global row
// attaining it (INT_MAX: none), into best and arg [m].
template <class T>
cudaError_t LaunchSplitScan(cudaStream_t stream, const T* C, int nl, int m,
                            const T* u, const T* row_D, const int* plist,
                            const int* info, T* best, int* arg);

// update: fold and join over a grid of column threads, then finish in one
// block (three kernels).  p.info must be 8-byte aligned (its least-slack
// word).
template <class T>
cudaError_t LaunchSplitUpdate(cudaStream_t stream, const LapSplitView<T>& p);

}  // namespace jaxmatch
