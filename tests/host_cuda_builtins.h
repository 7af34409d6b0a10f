// Host stand-ins for the CUDA built-ins that the kernels' steps call, for the
// host emulations (*_emulation.cc): sequentially consistent host atomics and
// fences, bit casts, and a yield for __nanosleep.  Include it before defining
// __CUDA_ARCH__ and including the steps.
#pragma once

#include <sched.h>

#include <cstring>

namespace {
int atomicAdd(int* p, int x) {
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
void __nanosleep(unsigned) { sched_yield(); }
}  // namespace
