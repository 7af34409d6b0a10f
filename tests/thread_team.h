// A team of std::threads for the host emulations (*_emulation.cc): each
// worker a thread, its barriers and collectives through a spin barrier, as a
// warp's or a block's are; column-outer (kRowOuter false), as CUDA's teams.
// The collectives are those of common/teams.cuh that the emulated steps
// call: sync, sync_or, count_before, all_max, all_min, from_first and
// all_argmin.
#pragma once

#include <algorithm>
#include <cstring>
#include <vector>

#include "spin_barrier.h"

// What the workers of one team share.
struct ThreadTeamShared {
  explicit ThreadTeamShared(int lanes)
      : barrier(lanes), bits(lanes), values(lanes), indices(lanes) {}
  SpinBarrier barrier;
  std::vector<int> bits;
  std::vector<unsigned long long> values;
  std::vector<int> indices;
};

// Worker r of `lanes`.
struct ThreadTeam {
  static constexpr bool kRowOuter = false;
  int r, lanes;
  ThreadTeamShared* shared;
  int rank() const { return r; }
  int size() const { return lanes; }
  void sync() const { shared->barrier.wait(); }
  int sync_or(int bits) const {
    shared->bits[r] = bits;
    shared->barrier.wait();
    int out = 0;
    for (int i = 0; i < lanes; ++i) out |= shared->bits[i];
    shared->barrier.wait();
    return out;
  }
  // How many lower ranks raised `flag`; *total: how many did in all.
  int count_before(bool flag, int* total) const {
    shared->bits[r] = flag ? 1 : 0;
    shared->barrier.wait();
    int before = 0, all = 0;
    for (int i = 0; i < lanes; ++i) {
      all += shared->bits[i];
      if (i < r) before += shared->bits[i];
    }
    shared->barrier.wait();
    *total = all;
    return before;
  }
  unsigned long long all_max(unsigned long long x) const {
    shared->values[r] = x;
    shared->barrier.wait();
    unsigned long long out = shared->values[0];
    for (int i = 1; i < lanes; ++i) out = std::max(out, shared->values[i]);
    shared->barrier.wait();
    return out;
  }
  int all_min(int x) const {
    shared->bits[r] = x;
    shared->barrier.wait();
    int out = shared->bits[0];
    for (int i = 1; i < lanes; ++i) out = std::min(out, shared->bits[i]);
    shared->barrier.wait();
    return out;
  }
  // Rank 0's x, to every worker.
  unsigned long long from_first(unsigned long long x) const {
    shared->values[r] = x;
    shared->barrier.wait();
    const unsigned long long out = shared->values[0];
    shared->barrier.wait();
    return out;
  }
  // The least (value, index) of the workers', to every worker (a
  // butterfly's result, whatever the order).
  template <class V>
  void all_argmin(V* value, int* index) const {
    static_assert(sizeof(V) == sizeof(unsigned long long), "wide values");
    std::memcpy(&shared->values[r], value, sizeof(V));
    shared->indices[r] = *index;
    shared->barrier.wait();
    V best;
    std::memcpy(&best, &shared->values[0], sizeof(V));
    int at = shared->indices[0];
    for (int i = 1; i < lanes; ++i) {
      V v;
      std::memcpy(&v, &shared->values[i], sizeof(V));
      const int q = shared->indices[i];
      if (v < best || (v == best && q < at)) {
        best = v;
        at = q;
      }
    }
    shared->barrier.wait();
    *value = best;
    *index = at;
  }
};
