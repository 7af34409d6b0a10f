// The searches of TeamJv (lap/jv/jv_team.cuh, which includes this file at
// its end): Dijkstra from each free row, lap/jv/jv_cpu.h's Augment, its
// columns held in registers (AugmentHeld) or in memory (Augment); kE: with
// the rows' exits (TeamJv's kExits).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "lap/jv/jv_team.cuh"

namespace jaxmatch {

// Dijkstra from each free row in turn: kLapOptimal, kLapInfeasible, or
// kLapIterationLimit after `max_searches` (> 0) searches.
template <class T, class Team, int kHeld, bool kExits>
template <bool kE>
__device__ inline int TeamJv<T, Team, kHeld, kExits>::AugmentFreeRows(
    int count, int max_searches, int* augmentations) {
  *augmentations = 0;
  for (int k = 0; k < count; ++k) {
    if (max_searches > 0 && *augmentations >= max_searches)
      return kLapIterationLimit;
    ++*augmentations;
    if (!AugmentRow<kE>(rows_[k])) return kLapInfeasible;
  }
  return kLapOptimal;
}

// lap/jv/jv_cpu.h's Augment from free row f.
template <class T, class Team, int kHeld, bool kExits>
template <bool kE>
__device__ inline bool TeamJv<T, Team, kHeld, kExits>::AugmentRow(int f) {
  if constexpr (kHeld > 0)
    return AugmentHeld<kE>(f);
  else
    return Augment<kE>(f);
}

// Augment with each thread's kHeld columns (m <= kHeld kSize) held in
// registers: their distances, prices, owners and the owners'
// reduced costs c_ij - v_j.  The team's reduction carries the
// winning column's owner and reduced cost along (Team::LeastAfter), so a
// step starts on the next row's costs at once; only the predecessors (for
// the path) go to memory.  The same arithmetic as Augment, so the same
// distances; among columns at the last step's least distance the team
// may scan another first (Dijkstra's order holds either way).  kE: as
// Augment's.
template <class T, class Team, int kHeld, bool kExits>
template <bool kE>
__device__ inline bool TeamJv<T, Team, kHeld, kExits>::AugmentHeld(int f) {
  using Lead = jv_warp::Lead<W>;
  static_assert(kHeld <= 32, "the scanned columns are a 32-bit mask");
  const W inf = jv_warp::WideInf<W>();
  const Lead none{Key{inf, INT_MAX}, -1, W(0)};
  W d[kHeld], v[kHeld], tight[kHeld];
  int owner[kHeld];
  uint32_t scanned = 0;  // bit k: column k is scanned, or past m
  Lead best = none;
#pragma unroll
  for (int k = 0; k < kHeld; ++k) {
    const int j = me_ + k * kSize;
    const bool valid = j < m_;
    v[k] = valid ? v_[j] : W(0);
    owner[k] = valid ? y_[j] : -1;
    d[k] = valid ? Cost(f, j) - v[k] : inf;
    tight[k] = owner[k] >= 0 ? Cost(owner[k], j) - v[k] : W(0);
    const Key key{d[k], owner[k] < 0 ? j : j + m_};
    scanned |= static_cast<uint32_t>(!valid) << k;
    if (valid) pred_[j] = f;
    if (valid && key < best.key) best = Lead{key, owner[k], tight[k]};
  }
  W least = -inf;
  int end;
  ExitTrack<kE> exit{};
  if constexpr (kE) exit = {ExitCost(f), f};
  for (;;) {
    best = team_.LeastAfter(best, least);
    least = best.key.value;
    if constexpr (kE) {
      if (!(least < exit.value)) {
        least = exit.value;
        end = -1;
        break;
      }
    }
    if (!(least < inf)) return false;
    if (best.key.index < m_) {
      end = best.key.index;
      break;
    }
    const unsigned j1 = static_cast<unsigned>(best.key.index - m_);
    const int i = best.row;
    const W h = best.tight - least;
    if constexpr (kE) OfferExit(i, h, &exit);
    if (j1 % kSize == static_cast<unsigned>(me_))
      scanned |= uint32_t{1} << (j1 / kSize);
    const T* row = C_ + static_cast<size_t>(i) * m_;
    // Every load before the first store to pred_ (which may alias C_):
    // the loads overlap.
    W c[kHeld];
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      const int j = me_ + k * kSize;
      c[k] = static_cast<W>(row[j < m_ ? j : 0]);  // past m: any column
    }
    Lead lead[kHeld];
#pragma unroll
    for (int k = 0; k < kHeld; ++k) {
      const int j = me_ + k * kSize;
      const int column = j < m_ ? j : 0;
      const bool unscanned = !((scanned >> k) & 1);
      const W reduced = c[k] - v[k] - h;
      const bool lowers = unscanned & (reduced < d[k]);
      if (lowers) pred_[column] = i;
      d[k] = lowers ? reduced : d[k];
      const Lead mine{Key{d[k], owner[k] < 0 ? j : j + m_}, owner[k], tight[k]};
      lead[k] = unscanned ? mine : none;
    }
    // The least of the thread's leads, pairwise: a shorter chain than a
    // running minimum.
#pragma unroll
    for (int s = 1; s < kHeld; s *= 2) {
#pragma unroll
      for (int k = 0; k + s < kHeld; k += 2 * s)
        lead[k] = lead[k + s].key < lead[k].key ? lead[k + s] : lead[k];
    }
    best = lead[0];
  }
#pragma unroll
  for (int k = 0; k < kHeld; ++k) {
    const int j = me_ + k * kSize;
    if (j < m_ && ((scanned >> k) & 1)) v_[j] = v[k] + (d[k] - least);
  }
  team_.sync();
  if (me_ == 0) {
    if constexpr (kE)
      FlipPathOrExit(end, exit.index, f);
    else
      FlipAugmentingPath(end, f, pred_, x_, y_, [](int) {});
  }
  team_.sync();
  return true;
}

// Row i, scanned with h = u_i - (its distance), offers its exit at r_i - h.
template <class T, class Team, int kHeld, bool kExits>
__device__ inline void TeamJv<T, Team, kHeld, kExits>::OfferExit(
    int i, W h, Key* exit) const {
  const Key e{ExitCost(i) - h, i};
  *exit = e.value < exit->value ? e : *exit;
}

// Thread 0 flips the path from the free row f (kE): to the free column
// `end`, or, end < 0, to row exit_row's exit, its column passed down.
template <class T, class Team, int kHeld, bool kExits>
__device__ inline void TeamJv<T, Team, kHeld, kExits>::FlipPathOrExit(
    int end, int exit_row, int f) {
  if (end < 0) {
    end = x_[exit_row];
    x_[exit_row] = kExit;
    if (exit_row == f) return;
  }
  FlipAugmentingPath(end, f, pred_, x_, y_, [](int) {});
}

// lap/jv/jv_cpu.h's Augment: Dijkstra from free row f, one column scanned per
// step: the least unscanned distance, a free column first among ties (the
// path ends there), then the lowest index.  Each lane updates only its own
// columns (the k-th at bit k of its masks; m <= 2048, so k < 64) and finds
// its next candidate in the same pass, so a step is one pass over the
// lane's columns and one reduction.  kE: each scanned row offers its exit
// (OfferExit); the nearest ends the search unless a column is nearer.
template <class T, class Team, int kHeld, bool kExits>
template <bool kE>
__device__ inline bool TeamJv<T, Team, kHeld, kExits>::Augment(int f) {
  uint64_t scanned = 0, free_cols = 0;
  Key best{jv_warp::WideInf<W>(), INT_MAX};
  for (int j = me_, k = 0; j < m_; j += kSize, ++k) {
    const W dj = Cost(f, j) - v_[j];
    d_[j] = dj;
    pred_[j] = f;
    const bool is_free = y_[j] < 0;
    free_cols |= static_cast<uint64_t>(is_free) << k;
    const Key key{dj, is_free ? j : j + m_};
    if (key < best) best = key;
  }
  W least;
  int end;
  ExitTrack<kE> exit{};
  if constexpr (kE) exit = {ExitCost(f), f};
  for (;;) {
    best = team_.ArgMinFast(best);
    least = best.value;
    if constexpr (kE) {
      if (!(least < exit.value)) {
        least = exit.value;
        end = -1;
        break;
      }
    }
    if (!(least < jv_warp::WideInf<W>())) return false;
    if (best.index < m_) {
      end = best.index;
      break;
    }
    const int j1 = best.index - m_;
    const int i = y_[j1];
    const W h = Cost(i, j1) - v_[j1] - least;
    if constexpr (kE) OfferExit(i, h, &exit);
    if (j1 % kSize == me_) scanned |= uint64_t{1} << (j1 / kSize);
    best = Key{jv_warp::WideInf<W>(), INT_MAX};
    // Without branches: a lane's few columns are independent, so their
    // loads overlap, and the masks shift down a bit per column.
    uint64_t open_bits = ~scanned, free_bits = free_cols;
    for (int j = me_; j < m_; j += kSize, open_bits >>= 1, free_bits >>= 1) {
      const bool unscanned = open_bits & 1;
      const W reduced = Cost(i, j) - v_[j] - h;
      const W old = d_[j];
      const bool lowers = unscanned & (reduced < old);
      if (lowers) {
        d_[j] = reduced;
        pred_[j] = i;
      }
      const W dj = lowers ? reduced : old;
      const int index = (free_bits & 1) ? j : j + m_;
      const bool better =
          unscanned &
          ((dj < best.value) | ((dj == best.value) & (index < best.index)));
      best.value = better ? dj : best.value;
      best.index = better ? index : best.index;
    }
  }
  for (int j = me_, k = 0; j < m_; j += kSize, ++k)
    if ((scanned >> k) & 1) v_[j] += d_[j] - least;
  team_.sync();
  if (me_ == 0) {
    if constexpr (kE)
      FlipPathOrExit(end, exit.index, f);
    else
      FlipAugmentingPath(end, f, pred_, x_, y_, [](int) {});
  }
  team_.sync();
  return true;
}

}  // namespace jaxmatch
