// Hang detection for the kernel harnesses (tests/*/*_kernel_harness.cu).
#pragma once

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdlib>
#include <thread>

// Whether the work queued on `s` finished within the harness's limit: 3 s,
// or JAXMATCH_HARNESS_HANG_S seconds where set (compute-sanitizer's
// racecheck runs kernels orders of magnitude slower). A harness reports a
// launch that did not finish as a hang.
inline bool Finished(cudaStream_t s) {
  const char* env = std::getenv("JAXMATCH_HARNESS_HANG_S");
  const double seconds = env != nullptr ? std::atof(env) : 3.0;
  for (int i = 0; i < seconds * 100; ++i) {
    if (cudaStreamQuery(s) == cudaSuccess) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}
