// CK(call): the CUDA error check of the standalone programs (the kernel
// harnesses in tests/ and the probes in tools/), which have no ffi::Error to
// return: print the error and the line, exit with status 2.  The library
// itself reports errors through common/cuda_check.h.
#pragma once

#include <cstdio>
#include <cstdlib>

#include <cuda_runtime_api.h>

#define CK(x)                                                               \
  do {                                                                      \
    cudaError_t e = (x);                                                    \
    if (e != cudaSuccess) {                                                 \
      std::printf("CUDA %s at line %d\n", cudaGetErrorString(e), __LINE__); \
      std::exit(2);                                                         \
    }                                                                       \
  } while (0)
