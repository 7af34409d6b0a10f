// The stored entries' check (wm_check_entries, weighted_steps.h) spread over
// the threads of a grid row: each warp takes one contiguous range of the
// entries, its lanes interleaved so that reads coalesce (each lane finds its
// first list by one binary search, then walks the lists), and adds its
// findings to the problem's with one atomic.
#pragma once

#include "weighted/weighted_steps.h"

namespace jaxmatch {

// Entries per thread at least: below that, fewer threads are launched.
constexpr int kWmCheckPerLane = 16;

// Threads that give each lane about kWmCheckPerLane of `cap` entries.
inline int64_t wm_check_threads(int cap) {
  return (static_cast<int64_t>(cap) + kWmCheckPerLane - 1) / kWmCheckPerLane;
}

// A bad entry sets *flag = value; the balance is added to *balance; given
// `copies`, a neighbour listed twice sets *copies = 1.  Every thread of the
// grid row calls it (blockDim.x a multiple of 32).
template <class View>
__device__ void wm_check_entries_grid(const View& p,
                                      unsigned long long* balance, int* flag,
                                      int value, int* copies = nullptr) {
  const int lane = threadIdx.x & 31;
  const int64_t warp =
      (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) >> 5;
  const int64_t warps = (gridDim.x * static_cast<int64_t>(blockDim.x)) >> 5;
  const int64_t stored = wm_stored(p);
  // Each warp's range: a multiple of 32 entries, the last one shorter.
  const int64_t per = ((stored + warps - 1) / warps + 31) / 32 * 32;
  const int64_t lo = warp * per;
  const int64_t hi = lo + per < stored ? lo + per : stored;
  WmEntryCheck c;
  if (lo < hi)
    wm_check_entries(p, static_cast<int>(lo) + lane, static_cast<int>(hi), 32,
                     c);
  for (int d = 16; d > 0; d /= 2)
    c.balance += __shfl_xor_sync(0xffffffffu, c.balance, d);
  const bool bad = __any_sync(0xffffffffu, c.bad);
  const bool listed_twice = __any_sync(0xffffffffu, c.copies);
  if (lane == 0) {
    if (c.balance != 0) atomicAdd(balance, c.balance);
    if (bad) *flag = value;
    if (listed_twice && copies != nullptr) *copies = 1;
  }
}

}  // namespace jaxmatch
