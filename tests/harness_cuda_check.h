// CHECK_CUDA for the kernel harnesses (tests/*/*_kernel_harness.cu): a
// failed CUDA call prints where and why, and the harness exits with 2.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x)                                        \
  do {                                                       \
    cudaError_t e = (x);                                     \
    if (e != cudaSuccess) {                                  \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, \
                   cudaGetErrorString(e));                   \
      std::exit(2);                                          \
    }                                                        \
  } while (0)
