// The grid of the LAP kernels that give each problem of a batch one block
// (hungarian/, jv/, sparse/).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace jaxmatch {

// The grid of a kernel that gives each problem of a batch one block: a warp
// multiple of threads, at least one warp, at most the larger side and
// max_threads; one block per problem up to 2^30 (blocks loop over the rest).
struct BlockPerProblem {
  int threads, blocks;
  BlockPerProblem(int n, int m, int64_t batch, int max_threads) {
    const int work = m > n ? m : n;
    threads = ((work + 31) / 32) * 32;
    if (threads < 32) threads = 32;
    if (threads > max_threads) threads = max_threads;
    blocks = static_cast<int>(batch < (int64_t{1} << 30) ? batch
                                                         : (int64_t{1} << 30));
  }
};

}  // namespace jaxmatch
