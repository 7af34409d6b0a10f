// Cancellation of the CPU solves in flight.  An eager Python call that the
// user interrupts (Ctrl-C) calls jaxmatch_cancel_cpu_solves() (library.cc),
// which advances a process-wide epoch; every CPU solve that took a
// CancelToken before then stops at its next check (an iteration of the main
// loop, a JV search) with the iteration-limit status.  Solves that start
// afterwards are not affected.
#pragma once

#include <atomic>
#include <cstdint>

namespace jaxmatch {

inline std::atomic<uint64_t>& CancelEpoch() {
  static std::atomic<uint64_t> epoch{0};
  return epoch;
}

inline void CancelCpuSolves() {
  CancelEpoch().fetch_add(1, std::memory_order_relaxed);
}

// Taken when a solve starts; requested() once a cancellation came since.
class CancelToken {
 public:
  CancelToken() : start_(CancelEpoch().load(std::memory_order_relaxed)) {}
  bool requested() const {
    return CancelEpoch().load(std::memory_order_relaxed) != start_;
  }

 private:
  uint64_t start_;
};

}  // namespace jaxmatch
