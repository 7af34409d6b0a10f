// Warp reductions over keyed values (a value and the index that holds it):
// the least, the two least, the lead of a sorted run, and sums, each to every
// lane; the building blocks of the reduction teams
// (common/reduction_teams.cuh). W is a wide value type (double or int64).
#pragma once

#include <climits>
#include <cmath>
#include <type_traits>

namespace jaxmatch {

namespace jv_warp {

constexpr unsigned kFullMask = 0xffffffffu;

template <class W>
__device__ __forceinline__ W WideInf() {
  if constexpr (std::is_floating_point<W>::value)
    return static_cast<W>(INFINITY);
  else
    return LLONG_MAX;
}

// x reduced over the warp by `better(y, x)` (y replaces x when better), to
// every lane.
template <class W, class Better>
__device__ __forceinline__ W WarpReduce(W x, Better better) {
#pragma unroll
  for (int s = 16; s > 0; s /= 2) {
    const W y = __shfl_xor_sync(kFullMask, x, s);
    x = better(y, x) ? y : x;
  }
  return x;
}

template <class W>
__device__ __forceinline__ W WarpMin(W x) {
  return WarpReduce(x, [](W y, W z) { return y < z; });
}

template <class W>
__device__ __forceinline__ W WarpMax(W x) {
  return WarpReduce(x, [](W y, W z) { return y > z; });
}

// A column key ordered by value, then by index.
template <class W>
struct Key {
  W value;
  int index;
  // Without branches: both comparisons are cheap.
  __device__ bool operator<(const Key& o) const {
    return (value < o.value) | ((value == o.value) & (index < o.index));
  }
};

// The least key over the warp, to every lane.
template <class W>
__device__ __forceinline__ Key<W> WarpArgMin(Key<W> k) {
  const W least = WarpMin(k.value);
  const int index = __reduce_min_sync(
      kFullMask, k.value == least ? k.index : static_cast<int>(INT_MAX));
  return Key<W>{least, index};
}

// An unsigned key monotone in x (x <= y gives key(x) <= key(y)), so the
// least key is that of the least x, ties of the key aside; equal x give
// equal keys.  A double's key is its high word (sign, exponent and 20
// fraction bits) put in unsigned order, the sign bit set when x >= 0 and
// the word negated when x < 0 (so -0 and +0 share a key): integer
// operations only.  An integer's key is the float rounded down from it.
template <class W>
__device__ __forceinline__ unsigned OrderedKey(W x) {
  if constexpr (std::is_floating_point<W>::value) {
    const unsigned hi = static_cast<unsigned>(__double2hiint(x));
    return (hi >> 31) ? 0u - hi : hi | 0x80000000u;
  } else {
    const unsigned u = __float_as_uint(__ll2float_rd(x));
    return u ^ ((u >> 31) ? 0xffffffffu : 0x80000000u);
  }
}

// The lane holding the least key over the warp, cheaper than WarpArgMin in
// a search: one integer reduction of OrderedKey, exact when one lane holds
// the least (distinct distances).  When several do, their distances are
// mostly equal outright (the augmenting row reduction leaves a row's two
// least columns tied): the least index among them is reduced while one
// broadcast tells whether they are equal; else WarpArgMin decides among
// those lanes.
template <class W>
__device__ __forceinline__ int WarpArgMinLane(Key<W> k) {
  const unsigned mine = OrderedKey(k.value);
  const unsigned least = __reduce_min_sync(kFullMask, mine);
  const bool holds = mine == least;
  const unsigned holders = __ballot_sync(kFullMask, holds);
  const int holder = 31 - __clz(holders);  // the highest one
  if ((holders & (holders - 1)) == 0) return holder;
  const int index = __reduce_min_sync(kFullMask, holds ? k.index : INT_MAX);
  const W value = __shfl_sync(kFullMask, k.value, holder);
  Key<W> best{value, index};
  if (!__all_sync(kFullMask, !holds || k.value == value))
    best = WarpArgMin(holds ? k : Key<W>{WideInf<W>(), INT_MAX});
  return 31 - __clz(__ballot_sync(kFullMask, holds && k.index == best.index));
}

// The least key over the warp, to every lane (WarpArgMinLane's).
template <class W>
__device__ __forceinline__ Key<W> WarpArgMinFast(Key<W> k) {
  const int src = WarpArgMinLane(k);
  return Key<W>{__shfl_sync(kFullMask, k.value, src),
                __shfl_sync(kFullMask, k.index, src)};
}

// A search's candidate column: its key, the row that owns it (-1: none)
// and that row's reduced cost there, c_ij - v_j.
template <class W>
struct Lead {
  Key<W> key;
  int row;
  W tight;
};

// Lane src's lead, to every lane.
template <class W>
__device__ __forceinline__ Lead<W> WarpLeadOf(const Lead<W>& l, int src) {
  // The row and the index first: the next step's loads wait on them.
  const int row = __shfl_sync(kFullMask, l.row, src);
  const int index = __shfl_sync(kFullMask, l.key.index, src);
  const W value = __shfl_sync(kFullMask, l.key.value, src);
  const W tight = __shfl_sync(kFullMask, l.tight, src);
  return Lead<W>{Key<W>{value, index}, row, tight};
}

// The lead of the least key over the warp, to every lane.
template <class W>
__device__ __forceinline__ Lead<W> WarpLeast(const Lead<W>& l) {
  return WarpLeadOf(l, WarpArgMinLane(l.key));
}

// A search step's least lead, to every lane, given the least distance
// `prev` of the search's last step (every open distance is at least
// that): when some lane's lead attains it, that lead is least without a
// reduction, and the first such lane's is taken, a free column's before
// the others (the path ends there); else WarpLeast's.  Most steps are
// such: a scanned row's other columns at its least reduced cost reach the
// same distance (2 of 3 steps on 100 x 100 Euclidean distances).
template <class W>
__device__ __forceinline__ Lead<W> WarpLeastAfter(const Lead<W>& l, W prev) {
  const bool at_prev = l.key.value == prev;
  const unsigned ties = __ballot_sync(kFullMask, at_prev);
  const unsigned free_ties = __ballot_sync(kFullMask, at_prev && l.row < 0);
  int src;
  if (ties != 0)
    src = __ffs(free_ties != 0 ? free_ties : ties) - 1;
  else
    src = WarpArgMinLane(l.key);
  return WarpLeadOf(l, src);
}

// The two least keys over the warp (first < second), to every lane, from
// each lane's two least: the least of the lanes' firsts, then the least of
// the others' firsts and the winner's second.
template <class W>
__device__ __forceinline__ void WarpTwoLeast(Key<W>* first, Key<W>* second) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int src = WarpArgMinLane(*first);
  const Key<W> rest = lane == src ? *second : *first;
  *first = Key<W>{__shfl_sync(kFullMask, first->value, src),
                  __shfl_sync(kFullMask, first->index, src)};
  *second = WarpArgMinFast(rest);
}

// The key that loses to every column's.
template <class W>
__device__ __forceinline__ Key<W> NoKey() {
  return Key<W>{WideInf<W>(), INT_MAX};
}

}  // namespace jv_warp

}  // namespace jaxmatch
