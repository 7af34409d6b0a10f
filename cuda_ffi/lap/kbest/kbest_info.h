// The k best assignments' info slots (the info result of
// jaxmatch_lap_k_best, kbest_ffi.h), written by the CPU's handler and the
// GPU's kernel alike.
#pragma once

#include <cstdint>

namespace jaxmatch {

enum KBestInfo : int32_t {
  kKBestInfoStatus = 0,  // LapStatus: OPTIMAL, INFEASIBLE (no assignment),
                         // INVALID_ENTRIES, OVERFLOW (an int32 total)
  kKBestInfoCount = 1,   // how many assignments were found (<= k)
  kKBestInfoIters = 2,   // shortest-path searches run (the root's rows too)
  kKBestInfoLen = 3,
};

}  // namespace jaxmatch
