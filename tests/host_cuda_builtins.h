// Host stand-ins for the CUDA built-ins that the kernels' steps call, for the
// host emulations (*_emulation.cc): sequentially consistent host atomics and
// fences (and the __nv_atomic_* forms with their orders), bit casts, a yield
// for __nanosleep, and warps of one thread (each host thread is lane 0 of its
// own warp, so a warp's collective is its own value).  Include it before
// defining __CUDA_ARCH__ and including the steps.
#pragma once

#include <sched.h>

#include <cstring>

namespace {
int atomicAdd(int* p, int x) {
  return __atomic_fetch_add(p, x, __ATOMIC_SEQ_CST);
}
unsigned long long atomicAdd(unsigned long long* p, unsigned long long x) {
  return __atomic_fetch_add(p, x, __ATOMIC_SEQ_CST);
}
int atomicCAS(int* p, int cmp, int val) {
  __atomic_compare_exchange_n(p, &cmp, val, false, __ATOMIC_SEQ_CST,
                              __ATOMIC_SEQ_CST);
  return cmp;
}
template <class T>
T atomicMin(T* p, T x) {
  T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (x < old &&
         !__atomic_compare_exchange_n(p, &old, x, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST)) {
  }
  return old;
}
unsigned long long atomicMax(unsigned long long* p, unsigned long long x) {
  unsigned long long old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (x > old &&
         !__atomic_compare_exchange_n(p, &old, x, false, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST)) {
  }
  return old;
}
int __float_as_int(float f) {
  int i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}
long long __double_as_longlong(double f) {
  long long i;
  std::memcpy(&i, &f, sizeof i);
  return i;
}
void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

// The __nv_atomic_* built-ins with their memory orders (scope: the process).
#define __NV_ATOMIC_RELAXED __ATOMIC_RELAXED
#define __NV_ATOMIC_ACQUIRE __ATOMIC_ACQUIRE
#define __NV_ATOMIC_RELEASE __ATOMIC_RELEASE
#define __NV_ATOMIC_ACQ_REL __ATOMIC_ACQ_REL
#define __NV_THREAD_SCOPE_DEVICE 0
template <class T>
bool __nv_atomic_compare_exchange_n(T* p, T* expected, T desired, bool weak,
                                    int success, int failure, int) {
  return __atomic_compare_exchange_n(p, expected, desired, weak, success,
                                     failure);
}
template <class T>
void __nv_atomic_store_n(T* p, T x, int order, int) {
  __atomic_store_n(p, x, order);
}
template <class T>
T __nv_atomic_fetch_add(T* p, T x, int order, int) {
  return __atomic_fetch_add(p, x, order);
}
template <class T>
T __nv_atomic_fetch_max(T* p, T x, int order, int) {
  T old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (x > old && !__atomic_compare_exchange_n(p, &old, x, false, order,
                                                 __ATOMIC_RELAXED)) {
  }
  return old;
}
void __nanosleep(unsigned) { sched_yield(); }

struct HostThreadIndex {
  unsigned x = 0, y = 0, z = 0;
};
const HostThreadIndex threadIdx;
void __syncwarp(unsigned = 0xffffffffu) {}
int __reduce_min_sync(unsigned, int x) { return x; }
int __reduce_add_sync(unsigned, int x) { return x; }
unsigned __activemask() { return 1u; }
int __ffs(unsigned x) { return __builtin_ffs(static_cast<int>(x)); }
template <class T>
T __shfl_sync(unsigned, T x, int) {
  return x;
}
template <class T>
T __shfl_up_sync(unsigned, T x, unsigned) {
  return x;
}
}  // namespace
