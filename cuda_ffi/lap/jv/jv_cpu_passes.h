// The passes of the CPU's JV (jv_cpu.h) over every column, written once
// for lanes of GCC's vector extensions: relaxation of a row, the least of a
// row's reduced costs or of the search's keys, finding a key, and column
// reduction's minima.  Each pass is a struct of its arguments whose
// Run<kLanes>() is its body; InLanes runs it compiled for AVX2 where the CPU
// has it, else for the baseline.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "lap/common/lap_state.h"

namespace jaxmatch {

// JM_LAP_JV_AVX2: JV's passes in lanes (column reduction, relaxation,
// minima) are also compiled for AVX2 and run so where the CPU has it
// (LapJvLanesUseAvx2).
#if defined(__x86_64__) && defined(__GNUC__)
#define JM_LAP_JV_AVX2 1
#else
#define JM_LAP_JV_AVX2 0
#endif

// Whether the AVX2 build of the passes runs: where the CPU has AVX2, unless
// the environment's JAXMATCH_CPU_LANES is "baseline" (read once; the tests
// run the baseline build this way).
inline bool LapJvLanesUseAvx2() {
#if JM_LAP_JV_AVX2
  static const bool use = [] {
    const char* lanes = std::getenv("JAXMATCH_CPU_LANES");
    if (lanes != nullptr && std::strcmp(lanes, "baseline") == 0) return false;
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return use;
#else
  return false;
#endif
}

// A vector of kLanes lanes of X (GCC's vector extensions): JV's passes run
// in lanes over contiguous arrays of 8-byte duals and distances.
// Four lanes fill AVX2's registers; the baseline build runs two on AArch64
// and one elsewhere (SSE2 has no 64-bit comparison, which GCC would emulate
// lane by lane).
template <class X, int kLanes>
struct LapJvVec {
  typedef X type __attribute__((vector_size(kLanes * sizeof(X))));
};
constexpr int kLapJvAvx2Lanes = 4;
#if defined(__aarch64__)
constexpr int kLapJvBaselineLanes = 2;  // NEON compares 64-bit lanes.
#else
constexpr int kLapJvBaselineLanes = 1;
#endif

// The passes of LapJv<T> (jv_cpu.h): W is its dual type.
template <class T>
struct LapJvPasses {
  using W = LapJvWide<T>;

  static W Inf() {
    return std::numeric_limits<W>::has_infinity
               ? std::numeric_limits<W>::infinity()
               : std::numeric_limits<W>::max();
  }

  // The vectors of a pass in kLanes lanes: distances and prices, costs, and
  // comparison masks (also column indices and predecessor rows).  One lane
  // is plain scalars, which GCC compiles better than vectors of one.
  template <int kLanes>
  struct Lanes {
    static constexpr bool kScalar = kLanes == 1;
    template <class X>
    using Of =
        typename std::conditional<kScalar, X,
                                  typename LapJvVec<X, kLanes>::type>::type;
    using Vec = Of<W>;
    using Costs = Of<T>;
    using Mask = Of<int64_t>;
    template <class To, class From>
    __attribute__((always_inline)) static To Convert(From x) {
      if constexpr (kScalar)
        return static_cast<To>(x);
      else
        return __builtin_convertvector(x, To);
    }
    template <class V>
    __attribute__((always_inline)) static auto Get(const V& v, int l) {
      if constexpr (kScalar)
        return v;
      else
        return v[l];
    }
    __attribute__((always_inline)) static Mask Iota() {
      Mask lane{};
      if constexpr (!kScalar)
        for (int l = 0; l < kLanes; ++l) lane[l] = l;
      return lane;
    }
    // Per lane, the least value seen, the least of the others and the
    // column of the least: adds the values t of the columns `index`.
    __attribute__((always_inline)) static void Track(Vec t, Mask index,
                                                     Vec& best, Vec& second,
                                                     Mask& at) {
      const Vec above = t > best ? t : best;
      second = above < second ? above : second;
      at = t < best ? index : at;
      best = t < best ? t : best;
    }
  };

  // The least distance seen by a pass, the least of the others (equal to it
  // when tied), and the first column holding it.
  struct Least {
    W value;
    W second;
    int at;
    void Add(W d, int j) {
      second = std::min(second, std::max(d, value));
      at = d < value || (d == value && j < at) ? j : at;
      value = std::min(value, d);
    }
    void Add(const Least& o) {
      Add(o.second, o.at);
      Add(o.value, o.at);
    }
  };

  static W NegInf() {
    return std::numeric_limits<W>::has_infinity
               ? -std::numeric_limits<W>::infinity()
               : std::numeric_limits<W>::min();
  }

  // Each pass below is a struct of its arguments whose Run<kLanes>() is its
  // body.  InLanes runs it compiled for AVX2 where the CPU has it, else for
  // the baseline: Run is always inlined, so it is built for the target of
  // the function that calls it.
#if JM_LAP_JV_AVX2
  template <class Pass>
  __attribute__((noinline,
                 target("avx2"))) static auto InLanesAvx2(const Pass& pass) {
    return pass.template Run<kLapJvAvx2Lanes>();
  }
#endif
  template <class Pass>
  __attribute__((noinline)) static auto InLanesBaseline(const Pass& pass) {
    return pass.template Run<kLapJvBaselineLanes>();
  }
  template <class Pass>
  static auto InLanes(const Pass& pass) {
#if JM_LAP_JV_AVX2
    if (LapJvLanesUseAvx2()) return InLanesAvx2(pass);
#endif
    return InLanesBaseline(pass);
  }

  // One relaxation pass through row i over every column: a column's key is
  // its distance while it is outside the search's list, and -inf (NegInf)
  // once it joined; outside the list each key is lowered to the reduced
  // cost row[j] - price[j] - h where that is less, and pred[j] (8 bytes
  // wide, as the lanes' masks) set to i.  Returns whether a key reached
  // `least`: that column joins the list (JoinLeast).  With kTrack the pass
  // also finds the least key outside the list (*next).  Columns in the list
  // are skipped by their key, not by a branch, so that the pass runs in
  // lanes over contiguous arrays.
  template <bool kTrack>
  struct Relax {
    const T* row;
    W h;
    W least;
    int i;
    int m;
    const W* price;
    W* key;
    int64_t* pred;
    Least* next;

    template <int kLanes>
    __attribute__((always_inline)) inline bool Run() const {
      using L = Lanes<kLanes>;
      using Vec = typename L::Vec;
      using Costs = typename L::Costs;
      using Mask = typename L::Mask;
      const T* __restrict row = this->row;
      const W* __restrict price = this->price;
      W* __restrict key = this->key;
      int64_t* __restrict pred = this->pred;
      const Vec inf = Vec{} + Inf(), neg_inf = Vec{} + NegInf();
      const Vec hv = Vec{} + h, least_v = Vec{} + least;
      const Mask iv = Mask{} + int64_t{i};
      // Two sets of lanes take alternate vectors, halving the chain of
      // dependent comparisons that tracking the least builds; `index`
      // holds the lanes' columns.
      Vec best[2] = {inf, inf}, second[2] = {inf, inf};
      Mask at[2] = {Mask{} + int64_t{m}, Mask{} + int64_t{m}};
      Mask index = L::Iota(), hit = {};
      auto step = [&](int j, int set) __attribute__((always_inline)) {
        Costs c;
        Vec p, d;
        Mask r;
        std::memcpy(&c, row + j, sizeof c);
        std::memcpy(&p, price + j, sizeof p);
        std::memcpy(&d, key + j, sizeof d);
        std::memcpy(&r, pred + j, sizeof r);
        const Vec reduced = L::template Convert<Vec>(c) - p - hv;
        const Mask lower = reduced < d;
        const Vec lowered = lower ? reduced : d;
        r = lower ? iv : r;
        std::memcpy(key + j, &lowered, sizeof lowered);
        std::memcpy(pred + j, &r, sizeof r);
        // Outside the list keys exceed `least`; in it they are -inf.
        hit |= lowered == least_v;
        if (kTrack)
          L::Track(lowered == neg_inf ? inf : lowered, index, best[set],
                   second[set], at[set]);
        index += kLanes;
      };
      int j = 0;
      for (; j + 2 * kLanes <= m; j += 2 * kLanes) {
        step(j, 0);
        step(j + kLanes, 1);
      }
      if (j + kLanes <= m) {
        step(j, 0);
        j += kLanes;
      }
      Least found{Inf(), Inf(), m};
      bool any = false;
      for (int l = 0; l < kLanes; ++l) {
        any |= L::Get(hit, l) != 0;
        for (int set = 0; set < 2 && kTrack; ++set)
          found.Add(Least{L::Get(best[set], l), L::Get(second[set], l),
                          static_cast<int>(L::Get(at[set], l))});
      }
      for (; j < m; ++j) {
        const W reduced = static_cast<W>(row[j]) - price[j] - h;
        if (reduced < key[j]) {
          key[j] = reduced;
          pred[j] = i;
          any |= reduced == least;
        }
        if (kTrack && key[j] != NegInf()) found.Add(key[j], j);
      }
      if (kTrack) *next = found;
      return any;
    }
  };

  // The least of the values row[j] - price[j] (row null: key[j]) over the
  // columns j != skip whose key is not -inf (key null: all), the least of
  // the others and the first column holding it; one pass in lanes.
  struct LeastOf {
    const T* row;
    const W* price;
    const W* key;
    int skip;
    int m;

    template <int kLanes>
    __attribute__((always_inline)) inline Least Run() const {
      using L = Lanes<kLanes>;
      using Vec = typename L::Vec;
      using Costs = typename L::Costs;
      using Mask = typename L::Mask;
      const Vec inf = Vec{} + Inf(), neg_inf = Vec{} + NegInf();
      const Mask skip_v = Mask{} + int64_t{skip};
      Vec best = inf, second = inf;
      Mask at = Mask{} + int64_t{m}, index = L::Iota();
      auto value = [&](int j) __attribute__((always_inline)) {
        Vec t{};
        if (row != nullptr) {
          Costs c;
          Vec p;
          std::memcpy(&c, row + j, sizeof c);
          std::memcpy(&p, price + j, sizeof p);
          t = L::template Convert<Vec>(c) - p;
        }
        if (key != nullptr) {
          Vec d;
          std::memcpy(&d, key + j, sizeof d);
          t = d == neg_inf ? inf : (row != nullptr ? t : d);
        }
        return t;
      };
      int j = 0;
      for (; j + kLanes <= m; j += kLanes, index += kLanes) {
        const Vec t = value(j);
        L::Track(index == skip_v ? inf : t, index, best, second, at);
      }
      Least found{Inf(), Inf(), m};
      for (int l = 0; l < kLanes; ++l)
        found.Add(Least{L::Get(best, l), L::Get(second, l),
                        static_cast<int>(L::Get(at, l))});
      for (; j < m; ++j) {
        if (j == skip || (key != nullptr && key[j] == NegInf())) continue;
        found.Add(row != nullptr ? static_cast<W>(row[j]) - price[j] : key[j],
                  j);
      }
      return found;
    }
  };

  // The first column j >= from whose key is `value`, or m (in lanes).
  struct FindKey {
    const W* key;
    int from;
    int m;
    W value;

    template <int kLanes>
    __attribute__((always_inline)) inline int Run() const {
      using L = Lanes<kLanes>;
      using Vec = typename L::Vec;
      const Vec v = Vec{} + value;
      int j = from;
      for (; j + kLanes <= m; j += kLanes) {
        Vec d;
        std::memcpy(&d, key + j, sizeof d);
        const auto equal = d == v;
        bool any = false;
        for (int l = 0; l < kLanes; ++l) any |= L::Get(equal, l) != 0;
        if (any) break;
      }
      for (; j < m; ++j)
        if (key[j] == value) return j;
      return m;
    }
  };

  // Column reduction's minima (square problems, n = m): for every column j
  // the least cost best[j] and its row argbest[j], ties going to the first
  // row in the cyclic order that starts at row j; row by row, in lanes.
  struct ColumnMinima {
    const T* C;
    int n;
    W* best;
    int64_t* argbest;

    template <int kLanes>
    __attribute__((always_inline)) inline void Run() const {
      using L = Lanes<kLanes>;
      using Vec = typename L::Vec;
      using Costs = typename L::Costs;
      using Mask = typename L::Mask;
      W* __restrict best = this->best;
      int64_t* __restrict argbest = this->argbest;
      const Mask zero{}, n_v = Mask{} + int64_t{n};
      for (int i = 0; i < n; ++i) {
        const T* __restrict row = C + static_cast<int64_t>(i) * n;
        const Mask i_v = Mask{} + int64_t{i};
        Mask j_v = L::Iota();
        int j = 0;
        for (; j + kLanes <= n; j += kLanes, j_v += kLanes) {
          Costs c;
          Vec b;
          Mask a;
          std::memcpy(&c, row + j, sizeof c);
          std::memcpy(&b, best + j, sizeof b);
          std::memcpy(&a, argbest + j, sizeof a);
          const Vec cost = L::template Convert<Vec>(c);
          // The rows' places in column j's cyclic order.
          Mask rank_i = i_v - j_v, rank_a = a - j_v;
          rank_i = rank_i < zero ? rank_i + n_v : rank_i;
          rank_a = rank_a < zero ? rank_a + n_v : rank_a;
          const Mask take = (cost < b) | ((cost == b) & (rank_i < rank_a));
          b = take ? cost : b;
          a = take ? i_v : a;
          std::memcpy(best + j, &b, sizeof b);
          std::memcpy(argbest + j, &a, sizeof a);
        }
        for (; j < n; ++j) {
          const W cost = static_cast<W>(row[j]);
          auto rank = [&](int64_t r) { return r >= j ? r - j : r - j + n; };
          if (cost < best[j] ||
              (cost == best[j] && rank(i) < rank(argbest[j]))) {
            best[j] = cost;
            argbest[j] = i;
          }
        }
      }
    }
  };
};

}  // namespace jaxmatch
