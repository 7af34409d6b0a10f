// Portability layer shared by the CPU (serial) and CUDA back ends.
//
// Every algorithm step in jaxmatch is written once, as a template over a
// "Team": the set of workers that cooperate on one problem.  On the CPU the
// team is a single serial worker; on CUDA it is the threads of one block (the
// fused solver) or of one grid row (the stepped solver).  The atomics below
// compile to CUDA atomics in device code and to plain operations on the host,
// where a team has exactly one worker.
#pragma once

#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define JM_HD __host__ __device__ __forceinline__
#else
#define JM_HD inline
#endif

// Unrolls the next loop in CUDA code (a lane's small arrays then stay in
// registers); nothing elsewhere.  JM_UNROLL_BY(n): n iterations at a time,
// so that their loads issue before the first is used.
#if defined(__CUDACC__)
#define JM_UNROLL _Pragma("unroll")
#define JM_PRAGMA(x) _Pragma(#x)
#define JM_UNROLL_BY(n) JM_PRAGMA(unroll n)
#else
#define JM_UNROLL
#define JM_UNROLL_BY(n)
#endif

namespace jaxmatch {

// ---------------------------------------------------------------- atomics
// Each returns nothing or the old value, as CUDA's do.  On the host they are
// plain read-modify-write: host teams are serial.

JM_HD int atomic_add_int(int* p, int x) {
#if defined(__CUDA_ARCH__)
  return atomicAdd(p, x);
#else
  int old = *p;
  *p = old + x;
  return old;
#endif
}

// Compare-and-swap: stores `val` when *p == cmp; returns the old value.
JM_HD int atomic_cas_int(int* p, int cmp, int val) {
#if defined(__CUDA_ARCH__)
  return atomicCAS(p, cmp, val);
#else
  int old = *p;
  if (old == cmp) *p = val;
  return old;
#endif
}

JM_HD void atomic_min_int(int* p, int x) {
#if defined(__CUDA_ARCH__)
  atomicMin(p, x);
#else
  if (x < *p) *p = x;
#endif
}

// Minimum of non-negative values.  IEEE floats and doubles that are >= +0
// order like their bit patterns read as signed integers, +inf included.
JM_HD void atomic_min_nonneg(float* p, float x) {
#if defined(__CUDA_ARCH__)
  atomicMin(reinterpret_cast<int*>(p), __float_as_int(x));
#else
  if (x < *p) *p = x;
#endif
}

JM_HD void atomic_min_nonneg(double* p, double x) {
#if defined(__CUDA_ARCH__)
  atomicMin(reinterpret_cast<long long*>(p), __double_as_longlong(x));
#else
  if (x < *p) *p = x;
#endif
}

JM_HD void atomic_min_nonneg(int* p, int x) { atomic_min_int(p, x); }

// atomic_min_int of the least x over the calling warp, by one of its lanes:
// every lane of the warp calls it (one atomic a warp where many workers
// lower one word).  On the host, the caller's x.
JM_HD void atomic_min_by_warp(int* p, int x) {
#if defined(__CUDA_ARCH__)
  __syncwarp();
  x = __reduce_min_sync(0xffffffffu, x);
  if ((threadIdx.x & 31) == 0) atomicMin(p, x);
#else
  atomic_min_int(p, x);
#endif
}

// atomic_add_int of the sum of x over the calling warp, by one of its lanes:
// every lane of the warp calls it.  On the host, the caller's x.
JM_HD void atomic_add_by_warp(int* p, int x) {
#if defined(__CUDA_ARCH__)
  __syncwarp();
  x = __reduce_add_sync(0xffffffffu, x);
  if ((threadIdx.x & 31) == 0 && x != 0) atomicAdd(p, x);
#else
  atomic_add_int(p, x);
#endif
}

// Adds lo to p[0] and hi to p[1] at once (p 8-byte aligned: on the GPU one
// 64-bit atomic add, the low word first in memory), the old values into
// *old_lo and *old_hi.  p[0] + lo must stay below 2^31 (no carry).
JM_HD void atomic_add_int_pair(int* p, int lo, int hi, int* old_lo,
                               int* old_hi) {
#if defined(__CUDA_ARCH__)
  const unsigned long long old = atomicAdd(
      reinterpret_cast<unsigned long long*>(p),
      (static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) |
          static_cast<unsigned>(lo));
  *old_lo = static_cast<int>(old & 0xffffffffu);
  *old_hi = static_cast<int>(old >> 32);
#else
  *old_lo = p[0];
  *old_hi = p[1];
  p[0] += lo;
  p[1] += hi;
#endif
}

#if defined(__CUDA_ARCH__)
// The sums of x and of y over the lanes of `mask` below `lane` (*x_below,
// *y_below) and over all of them (*x_total, *y_total); called together by
// exactly the lanes of mask.
JM_HD void warp_sums_below(unsigned mask, int lane, int x, int y, int* x_below,
                           int* y_below, int* x_total, int* y_total) {
  if (mask == 0xffffffffu) {
    int sx = x, sy = y;
    for (int d = 1; d < 32; d <<= 1) {
      const int tx = __shfl_up_sync(mask, sx, d);
      const int ty = __shfl_up_sync(mask, sy, d);
      if (lane >= d) {
        sx += tx;
        sy += ty;
      }
    }
    *x_total = __shfl_sync(mask, sx, 31);
    *y_total = __shfl_sync(mask, sy, 31);
    *x_below = sx - x;
    *y_below = sy - y;
    return;
  }
  int bx = 0, by = 0, ax = 0, ay = 0;
  for (unsigned m = mask; m != 0; m &= m - 1) {
    const int src = __ffs(m) - 1;
    const int tx = __shfl_sync(mask, x, src);
    const int ty = __shfl_sync(mask, y, src);
    if (src < lane) {
      bx += tx;
      by += ty;
    }
    ax += tx;
    ay += ty;
  }
  *x_below = bx;
  *y_below = by;
  *x_total = ax;
  *y_total = ay;
}
#endif

// atomic_add_int_pair by the lanes of a warp that call it together (any of
// them, converged at the call): one 64-bit add for all; in lane order, each
// lane's old values are those the add would have returned to it alone after
// the lanes below it (blocks of whole warps, one-dimensional).  On the host,
// the plain adds.
JM_HD void atomic_add_int_pair_by_warp(int* p, int lo, int hi, int* old_lo,
                                       int* old_hi) {
#if defined(__CUDA_ARCH__)
  const unsigned mask = __activemask();
  const int lane = threadIdx.x & 31;
  const int leader = __ffs(mask) - 1;
  int lo_below, hi_below, lo_total, hi_total;
  warp_sums_below(mask, lane, lo, hi, &lo_below, &hi_below, &lo_total,
                  &hi_total);
  int base_lo = 0, base_hi = 0;
  if (lane == leader)
    atomic_add_int_pair(p, lo_total, hi_total, &base_lo, &base_hi);
  *old_lo = __shfl_sync(mask, base_lo, leader) + lo_below;
  *old_hi = __shfl_sync(mask, base_hi, leader) + hi_below;
#else
  atomic_add_int_pair(p, lo, hi, old_lo, old_hi);
#endif
}

// Maximum of 64-bit unsigned words; returns the old value.
JM_HD unsigned long long atomic_max_u64(unsigned long long* p,
                                        unsigned long long x) {
#if defined(__CUDA_ARCH__)
  return atomicMax(p, x);
#else
  const unsigned long long old = *p;
  if (x > old) *p = x;
  return old;
#endif
}

// Acquire and release forms, at device scope, for locks and ownership
// counters: what a worker wrote before a release (a store or an atomic) is
// seen by the worker whose acquire reads that value, without a full fence
// (CUDA's __nv_atomic_* built-ins; host: plain operations).

// Compare-and-swap with acquire order (taking a lock); returns the old value.
JM_HD int atomic_cas_acquire_int(int* p, int cmp, int val) {
#if defined(__CUDA_ARCH__)
  __nv_atomic_compare_exchange_n(p, &cmp, val, false, __NV_ATOMIC_ACQUIRE,
                                 __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  return cmp;
#else
  return atomic_cas_int(p, cmp, val);
#endif
}

// A store with release order (releasing a lock).
JM_HD void store_release_int(int* p, int x) {
#if defined(__CUDA_ARCH__)
  __nv_atomic_store_n(p, x, __NV_ATOMIC_RELEASE, __NV_THREAD_SCOPE_DEVICE);
#else
  *p = x;
#endif
}

// An add with acquire and release order (handing a counted ownership on);
// returns the old value.
JM_HD int atomic_add_acq_rel_int(int* p, int x) {
#if defined(__CUDA_ARCH__)
  return __nv_atomic_fetch_add(p, x, __NV_ATOMIC_ACQ_REL,
                               __NV_THREAD_SCOPE_DEVICE);
#else
  return atomic_add_int(p, x);
#endif
}

// Maximum of 64-bit unsigned words with acquire and release order; returns
// the old value.
JM_HD unsigned long long atomic_max_acq_rel_u64(unsigned long long* p,
                                                unsigned long long x) {
#if defined(__CUDA_ARCH__)
  return __nv_atomic_fetch_max(p, x, __NV_ATOMIC_ACQ_REL,
                               __NV_THREAD_SCOPE_DEVICE);
#else
  return atomic_max_u64(p, x);
#endif
}

// Reads a scalar that other workers of the team may have written before the
// last barrier; volatile keeps the compiler from reusing a stale register.
JM_HD int load_shared_scalar(const int* p) {
  return *static_cast<const volatile int*>(p);
}
template <class T>
JM_HD T load_shared_value(const T* p) {
  return *static_cast<const volatile T*>(p);
}

// The bits of a value >= 0 (+inf included) as an unsigned integer of the
// same order, and back: a team's reductions of unsigned words then reduce
// costs of any dtype.
JM_HD unsigned long long ordered_bits(float x) {
  unsigned b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
JM_HD unsigned long long ordered_bits(double x) {
  unsigned long long b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
JM_HD unsigned long long ordered_bits(int x) {
  return static_cast<unsigned>(x);
}
template <class T>
JM_HD T from_ordered_bits(unsigned long long b) {
  if constexpr (sizeof(T) == 4) {
    const unsigned w = static_cast<unsigned>(b);
    T x;
    std::memcpy(&x, &w, sizeof x);
    return x;
  } else {
    T x;
    std::memcpy(&x, &b, sizeof x);
    return x;
  }
}

// ---------------------------------------------------------------- hashing
// A position in [0, n) drawn from the key x: murmur3's 32-bit finaliser (a
// bijection), scaled to n by its high bits.  n >= 1.
JM_HD int hashed_position(unsigned x, int n) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return static_cast<int>(
      (static_cast<unsigned long long>(x) * static_cast<unsigned>(n)) >> 32);
}

// A bijection of [0, n), to hand out work in an order spread over the
// labels: workers that run at once on consecutive labels of a graph numbered
// along its geometry meet in the same neighbourhoods.  An affine map
// modulo the power of two at or above n whose multiplier is that power over
// the golden ratio, made odd (Fibonacci hashing: i and i + k land far apart
// for every small k, not only for k = 1), cycle-walked into [0, n) (the
// power is below 2 n, so a walk is short).
struct ScrambledOrder {
  unsigned mask = 0;
  unsigned n;
  unsigned step;
  JM_HD explicit ScrambledOrder(int n_) : n(static_cast<unsigned>(n_)) {
    while (mask + 1 < n) mask = mask * 2 + 1;
    step =
        static_cast<unsigned>(
            (static_cast<unsigned long long>(mask) + 1) * 2654435769ull >> 32) |
        1u;
  }
  JM_HD int operator()(int i) const {
    unsigned x = static_cast<unsigned>(i);
    do {
      x = (x * step + 0x7F4A7C15u) & mask;
    } while (x >= n);
    return static_cast<int>(x);
  }
};

// ---------------------------------------------------------------- searches
// The last i in [lo, hi] with a[i] <= x, for a nondecreasing a with
// a[lo] <= x (binary search): the list that holds entry x of lists laid end
// to end, given their first entries.
JM_HD int last_at_most(const int* a, int lo, int hi, int x) {
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (a[mid] <= x)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// ---------------------------------------------------------------- teams
// A team of one worker (the CPU back end).  kRowOuter: the LAP's O(nm) scans
// loop rows outermost (cache-friendly on a CPU); a CUDA team loops columns
// outermost, a thread per column, for coalesced reads.  Every such scan is an
// order-independent reduction, so both orders give the same result.
struct SerialTeam {
  static constexpr bool kRowOuter = true;
  JM_HD int rank() const { return 0; }
  JM_HD int size() const { return 1; }
  JM_HD void sync() const {}
  JM_HD int sync_or(int bits) const { return bits; }
  // Reductions and broadcasts within a team that is one tile of lanes (the
  // weighted matching's vertex teams, common/teams.cuh's TileTeam): every
  // worker gets the result.
  JM_HD unsigned long long all_max(unsigned long long x) const { return x; }
  JM_HD int all_min(int x) const { return x; }
  JM_HD unsigned long long from_first(unsigned long long x) const { return x; }
  // The least (value, index) pair over the team, by value then index, to
  // every worker (lap/kbest/kbest_steps.h's searches): one worker holds it.
  template <class V>
  JM_HD void all_argmin(V* /*value*/, int* /*index*/) const {}
  // How many workers of lower rank hold `flag`, and in *total how many in
  // all: a team's stream compaction (lap/kbest/kbest_steps.h's lists).
  JM_HD int count_before(bool flag, int* total) const {
    *total = flag ? 1 : 0;
    return 0;
  }
};

// The tile of lanes that reads one list with this worker (matching/
// kept_trees.h's graft): the serial worker alone; on CUDA its warp
// (common/teams.cuh).
JM_HD SerialTeam warp_tile(const SerialTeam& team) { return team; }

// ---------------------------------------------------------------- numerics
// Num<T>: the arithmetic of reduced costs for one cost dtype.
//   inf()          the "no edge / not reached" slack value
//   reduced(c,u,v) max(0, (c - u) - v), saturated to inf() for integers
//   add(a, b, ovf) a + b, setting *ovf on integer overflow
//   add_compensated(hi, lo, d, ovf)
//                  *hi + *lo += d with the rounding error carried in *lo
//                  (floats: TwoSum, then renormalised so that *hi is the
//                  sum rounded to T); integers: *hi = add(*hi, d, ovf)
template <class T>
struct Num {
  static JM_HD T inf() { return static_cast<T>(INFINITY); }
  static JM_HD T reduced(T c, T u, T v) {
    T s = (c - u) - v;
    return s > T(0) ? s : T(0);
  }
  static JM_HD T add(T a, T b, int* /*ovf*/) { return a + b; }
  // A dual that takes thousands of updates d much smaller than itself loses
  // up to half an ulp of itself to each in plain arithmetic; a matched
  // pair's u_i + v_j then drifts off c_ij.  Carried in *lo, the sum stays
  // exact to an ulp of *lo.  Needs IEEE additions (no -ffast-math).
  static JM_HD void add_compensated(T* hi, T* lo, T d, int* /*ovf*/) {
    const T a = *hi, s = a + d;
    if (!is_finite(s)) {
      *hi = s;
      *lo = T(0);
      return;
    }
    const T bd = s - a;
    const T err = (a - (s - bd)) + (d - bd);
    const T l = *lo + err;
    const T t = s + l;
    *lo = l - (t - s);
    *hi = t;
  }
  static JM_HD bool is_finite(T x) { return x < inf() && x > -inf(); }
  static constexpr bool kIsInteger = false;
};

template <>
struct Num<int32_t> {
  static JM_HD int32_t inf() { return INT_MAX; }
  static JM_HD int32_t reduced(int32_t c, int32_t u, int32_t v) {
    long long s = static_cast<long long>(c) - u - v;
    if (s < 0) s = 0;
    return s >= INT_MAX ? INT_MAX : static_cast<int32_t>(s);
  }
  static JM_HD int32_t add(int32_t a, int32_t b, int* ovf) {
    long long s = static_cast<long long>(a) + b;
    if (s >= INT_MAX || s <= INT_MIN) {
      *ovf = 1;
      return a;
    }
    return static_cast<int32_t>(s);
  }
  static JM_HD void add_compensated(int32_t* hi, int32_t* /*lo*/, int32_t d,
                                    int* ovf) {
    *hi = add(*hi, d, ovf);
  }
  static JM_HD bool is_finite(int32_t) { return true; }
  static constexpr bool kIsInteger = true;
};

}  // namespace jaxmatch
