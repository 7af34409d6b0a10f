// PTX of thread-block clusters (sm_90): mapping a shared variable into
// another block of the cluster, mbarriers and asynchronous stores to another
// block's shared memory (the cluster team of common/reduction_teams.cuh).
#pragma once

#include <cstdint>

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
namespace jaxmatch {

namespace jv_cluster {

__device__ __forceinline__ uint32_t SharedAddress(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// The address of the same shared variable in block `rank` of the cluster.
__device__ __forceinline__ uint32_t MapShared(uint32_t address, int rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(address), "r"(rank));
  return remote;
}
__device__ __forceinline__ void MbarrierInit(uint64_t* bar) {
  asm volatile(
      "mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(SharedAddress(bar))
      : "memory");
}
// The barrier's one arrival of its phase, expecting `bytes` of st.async.
__device__ __forceinline__ void MbarrierExpect(uint64_t* bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   SharedAddress(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void MbarrierWait(uint64_t* bar, unsigned phase) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "wait:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait;\n"
      "}\n" ::"r"(SharedAddress(bar)),
      "r"(phase)
      : "memory");
}
// 16 bytes to another block's shared memory, counted by its mbarrier.
__device__ __forceinline__ void StoreAsync(uint32_t remote, uint64_t lo,
                                           uint64_t hi, uint32_t remote_bar) {
  asm volatile(
      "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [%0], "
      "{%1, %2}, [%3];" ::"r"(remote),
      "l"(lo), "l"(hi), "r"(remote_bar)
      : "memory");
}

}  // namespace jv_cluster

}  // namespace jaxmatch
#endif
