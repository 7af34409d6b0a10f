// A spin barrier for the host emulations' thread teams (*_emulation.cc):
// `count` threads wait until all have arrived, yielding while they spin.
#pragma once

#include <sched.h>

#include <atomic>

struct SpinBarrier {
  int count;
  std::atomic<int> waiting{0}, generation{0};
  explicit SpinBarrier(int c) : count(c) {}
  void wait() {
    const int gen = generation.load();
    if (waiting.fetch_add(1) + 1 == count) {
      waiting.store(0);
      generation.fetch_add(1);
      return;
    }
    while (generation.load() == gen) sched_yield();
  }
};
