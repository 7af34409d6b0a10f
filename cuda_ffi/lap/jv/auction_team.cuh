// Starts for a cluster's JV (lap/jv/jv_team.cuh's TeamJv with JvCluster) that
// leave the prices v and an assignment of rows at their least reduced cost
// in JV's state, for TeamJv::SolveFromKept to finish:
//
// Run: an epsilon-scaling Jacobi auction (Bertsekas), for square problems
// with finite costs: float ones from kLapAuctionAllMinRows rows, and float
// or integer ones from kLapAuctionMinRows when the rows' least columns are
// few (Machol-Wien, rank one: JV's column reduction leaves most rows free,
// and each search is long).  Every free row bids in each round: it scans its
// row for its two least reduced costs c_ij - v_j, w1 at column j1 (a free
// column first among ties) and w2, and offers to lower v_j1 by w2 - w1 +
// epsilon, after which j1 is within epsilon of its least.  Each column takes
// its lowest offer (a 64-bit atomicMin of the offer's OrderedKey and the row),
// and its owner, if any, becomes free.  A phase ends when at most
// LapAuctionPhaseEndRows(n) rows are free (its last rounds, a few rows
// outbidding each other, are most of a phase's rounds; JV's searches place
// the rows left over); the next starts from the prices with every row free and
// epsilon divided by kLapAuctionTheta, from a quarter of the cost scale
// (the spread, or the sum of the rows' gaps between their two least costs
// when smaller) down to kLapAuctionEpsFinal of it (integer costs: down to
// 1).  Then the rows not at their least reduced cost are freed (KeepTight)
// and bid for at most kLapAuctionFinalRounds rounds with epsilon 0 (a
// column taken only at a lower price or when free), which leaves the
// winners at their least.  KeepTight once more, and JV's searches place the
// rows left free.  A round costs a scan of each free row side by side, so
// the chain of sequential steps is shorter than JV's one scan a step
// (benchmarks/lap_step_model.py), but a round waits on its cluster
// barriers and dependent loads from L2: below 1024 rows it pays only
// where JV's searches are long (docs/benchmarks.md).  Run also replaces
// a warm start from the tree variant's duals (LapProblem::warm_auction).
//
// StartFrom: JV's warm start (TeamJv::SolveFrom's KeepMinimalRows) with
// every row checked at once, square problems.
//
// The rows are scanned by groups of warps of one block: a warp each when
// there are at least as many rows to scan as the cluster has warps, else
// up to a block each.  Rounds are ordered by cluster barriers; the state
// lives in global memory (L2).
#pragma once

#include <climits>
#include <cstdint>
#include <type_traits>

#include "lap/jv/jv_team.cuh"

namespace jaxmatch {

// The auction's arrays beside JV's state (global memory): each column's
// lowest offer of the round (kNoOffer: none), a second list of rows [n] and
// the two lists' lengths [2].  Defined for every architecture: the kernels
// that read them are compiled for all, their bodies only from sm_90.
struct AuctionScratch {
  unsigned long long* offers;
  int* list;
  int* count;
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

template <class T, int kThreads, int kBlocks>
class ClusterAuction {
 public:
  using W = LapJvWide<T>;
  using Team = JvCluster<kThreads, kBlocks>;
  using Key = jv_warp::Key<W>;
  static constexpr int kWarps = kThreads / 32;
  static constexpr int kTeamWarps = kWarps * kBlocks;
  static constexpr int kSize = Team::kSize;
  static constexpr unsigned long long kNoOffer = ~0ull;
  // Columns a thread loads at once in a scan (fewer where 1024 threads a
  // block leave 64 registers each).
  static constexpr int kChunk = kThreads >= 1024 ? 4 : 8;

  // An n x n problem `C` with JV's state `state` (its d and pred hold the
  // offers of a round, its rows the first list of rows).
  __device__ ClusterAuction(int n, const T* C, const JvState<W>& state,
                            const AuctionScratch& scratch, Team& team)
      : n_(n),
        C_(C),
        me_(Team::rank()),
        v_(state.v),
        offer_(state.d),
        offer_column_(state.pred),
        y_(state.y),
        x_(state.x),
        lists_{state.rows, scratch.list},
        offers_(scratch.offers),
        count_(scratch.count),
        team_(team) {}

  // The auction, when at most half the rows have two least costs that tie
  // (an auction's offers there raise no price), from kLapAuctionAllMinRows
  // rows (float costs; integers in [0, 1000n) 8192^2 took 349 against 323
  // ms) or when the rows' least columns are few (at most n / 4 of them,
  // as on Machol-Wien and rank-one costs, where JV's column reduction
  // leaves most rows free and each search is long); returns false, the
  // problem left to JV's own start, on the other problems and when a cost
  // is not finite.  The rounds in *rounds.
  __device__ bool Run(int* rounds) {
    *rounds = 0;
    W lo = jv_warp::WideInf<W>(), hi = -lo;
    bool finite = true;
    const size_t size = static_cast<size_t>(n_) * n_;
    for (size_t k = me_; k < size; k += kSize) {
      const W c = static_cast<W>(C_[k]);
      finite &= isfinite(static_cast<double>(c));
      lo = c < lo ? c : lo;
      hi = c > hi ? c : hi;
    }
    if (!team_.All(finite)) return false;
    lo = team_.Min(lo);
    hi = team_.Max(hi);
    // Epsilon's scale: the cost spread, or the sum over the rows of the gap
    // between their two least costs when smaller (costs over many orders
    // of magnitude, whose least entries are all small).
    for (int j = me_; j < n_; j += kSize) {
      v_[j] = W(0);
      y_[j] = -1;
      offers_[j] = kNoOffer;
      offer_column_[j] = 0;  // 1: some row's least column
    }
    Team::Barrier();
    ForEachRow(
        n_, [](int slot) { return slot; },
        [&](int slot, int, Key first, Key second, W) {
          offer_[slot] = second.value - first.value;
          offer_column_[first.index] = 1;
        });
    Team::Barrier();
    W gaps = W(0), ties = W(0), least_columns = W(0);
    for (int i = me_; i < n_; i += kSize) {
      gaps += offer_[i];
      ties += offer_[i] == W(0) ? W(1) : W(0);
      least_columns += static_cast<W>(offer_column_[i]);
    }
    gaps = team_.Sum(gaps);
    ties = team_.Sum(ties);
    least_columns = team_.Sum(least_columns);
    const bool every =
        std::is_floating_point<T>::value && n_ >= kLapAuctionAllMinRows;
    if (2 * ties > static_cast<W>(n_) ||
        (!every && 4 * least_columns > static_cast<W>(n_)))
      return false;
    const W scale = gaps < hi - lo ? gaps : hi - lo;
    int rounds_left = kLapAuctionRoundsPerRow * n_;
    // scale > 0 (else every row would tie); an integer scale / 4 may be 0.
    for (W eps = scale / 4 > W(0) ? scale / 4 : scale;
         eps > static_cast<W>(kLapAuctionEpsFinal) * scale && rounds_left > 0;
         eps /= static_cast<W>(kLapAuctionTheta)) {
      for (int i = me_; i < n_; i += kSize) {
        x_[i] = -1;
        lists_[0][i] = i;
      }
      for (int j = me_; j < n_; j += kSize) y_[j] = -1;
      if (me_ == 0) count_[0] = n_;
      Team::Barrier();
      Rounds(eps, INT_MAX, &rounds_left, LapAuctionPhaseEndRows(n_));
    }
    // Epsilon 0 from the assignment, its rows not at their least reduced
    // cost freed; its winners are at their least.
    KeepAssignedTight();
    if (me_ == 0) count_[0] = 0;
    Team::Barrier();
    for (int base = 0; base < n_; base += kSize) {
      const int i = base + me_;
      Push(i < n_ && x_[i] < 0 ? i : -1, lists_[0], count_);
    }
    Team::Barrier();
    Rounds(W(0), kLapAuctionFinalRounds, &rounds_left);
    KeepAssignedTight();
    *rounds = kLapAuctionRoundsPerRow * n_ - rounds_left;
    return true;
  }

  // From the prices v0 [n] (0 where not finite) and the assignment x0 [n]
  // (-1: none; global memory): row i keeps x0[i] when that column is at
  // its least reduced cost and no lower row keeps it, as KeepMinimalRows.
  __device__ void StartFrom(const T* v0, const int* x0) {
    for (int j = me_; j < n_; j += kSize)
      v_[j] =
          isfinite(static_cast<double>(v0[j])) ? static_cast<W>(v0[j]) : W(0);
    KeepTight(x0);
  }

 private:
  // Rounds from the count_[0] rows of lists_[0] until at most `enough` are
  // free, at most max_rounds of them and *rounds_left in all.
  __device__ void Rounds(W eps, int max_rounds, int* rounds_left,
                         int enough = 0) {
    int p = 0;
    for (int round = 0; round < max_rounds && *rounds_left > 0; ++round) {
      const int k = *static_cast<volatile int*>(count_ + p);
      if (k <= enough) break;
      --*rounds_left;
      if (me_ == 0) count_[p ^ 1] = 0;
      Bid(lists_[p], k, eps);
      Team::Barrier();
      Resolve(lists_[p], k, lists_[p ^ 1], count_ + (p ^ 1));
      Team::Barrier();
      p ^= 1;
    }
  }

  // `row` (-1: none) appended to `list`, *count counting its entries; every
  // lane of the warp calls it.
  __device__ static void Push(int row, int* list, int* count) {
    const int lane = static_cast<int>(threadIdx.x & 31);
    const unsigned ballot = __ballot_sync(jv_warp::kFullMask, row >= 0);
    if (ballot == 0) return;
    const int leader = __ffs(ballot) - 1;
    int at = 0;
    if (lane == leader) at = atomicAdd(count, __popc(ballot));
    at = __shfl_sync(jv_warp::kFullMask, at, leader);
    if (row >= 0) list[at + __popc(ballot & ((1u << lane) - 1))] = row;
  }

  // The assignment's rows not at their least reduced cost freed.
  __device__ void KeepAssignedTight() {
    for (int i = me_; i < n_; i += kSize) lists_[1][i] = x_[i];
    KeepTight(lists_[1]);
  }

  // Each of the k rows of `list` offers for its least column.
  __device__ void Bid(const int* list, int k, W eps) {
    held_.row = -1;
    ForEachRow(
        k, [&](int slot) { return list[slot]; },
        [&](int slot, int i, Key first, Key second, W price) {
          const int j = first.index;
          const W gap = second.value < jv_warp::WideInf<W>()
                            ? second.value - first.value
                            : W(0);
          const W offer = price - gap - eps;
          offer_[slot] = offer;
          offer_column_[slot] = j;
          held_ = Held{i, j, offer};
          atomicMin(offers_ + j,
                    (static_cast<unsigned long long>(jv_warp::OrderedKey(offer))
                     << 32) |
                        static_cast<unsigned>(i));
        });
  }

  // The k offers of `list`: each column's lowest takes it when lower than
  // its price or when it is free; the rows left free (the other bidders,
  // the columns' former owners) go to `next`, *next_count counting them.
  // With at most a row a group (one sweep), each group's first thread
  // resolves its own offer (held_); else a thread an offer from memory.
  __device__ void Resolve(const int* list, int k, int* next, int* next_count) {
    if (k <= kTeamWarps / WarpsPerRow(k)) {
      if (held_.row >= 0) {
        const int free_row = Take(held_.row, held_.column, held_.offer);
        if (free_row >= 0) next[atomicAdd(next_count, 1)] = free_row;
      }
      return;
    }
    for (int base = 0; base < k; base += kSize) {
      const int slot = base + me_;
      int free_row = -1;
      if (slot < k)
        free_row = Take(list[slot], offer_column_[slot], offer_[slot]);
      Push(free_row, next, next_count);
    }
  }

  // Row i's offer for column j resolved: when the lowest, and lower than
  // j's price or j is free, i takes j.  Returns the row left free by it
  // (i, j's former owner, or -1).
  __device__ int Take(int i, int j, W offer) {
    // The three loads first, in flight together.
    const unsigned long long lowest = offers_[j];
    const int owner = y_[j];
    const W price = v_[j];
    if (static_cast<unsigned>(lowest) != static_cast<unsigned>(i)) return i;
    offers_[j] = kNoOffer;
    if (!(owner < 0 || offer < price)) return i;
    v_[j] = offer;
    y_[j] = i;
    x_[i] = j;
    if (owner >= 0) x_[owner] = -1;
    return owner;
  }

  // x_, y_ from x0 [n], v_ given: row i keeps j = x0[i] when c_ij - v_j is
  // its least reduced cost, the lowest such row when several name j.
  __device__ void KeepTight(const int* x0) {
    for (int j = me_; j < n_; j += kSize) y_[j] = INT_MAX;
    for (int i = me_; i < n_; i += kSize) x_[i] = -1;
    Team::Barrier();
    ForEachRow(
        n_, [](int slot) { return slot; },
        [&](int, int i, Key first, Key, W) {
          const int j = x0[i];
          if (j < 0 || j >= n_) return;
          const W mine =
              static_cast<W>(C_[static_cast<size_t>(i) * n_ + j]) - v_[j];
          if (mine < jv_warp::WideInf<W>() && !(first.value < mine))
            atomicMin(y_ + j, i);
        });
    Team::Barrier();
    for (int j = me_; j < n_; j += kSize) {
      const int i = y_[j];
      if (i == INT_MAX)
        y_[j] = -1;
      else
        x_[i] = j;
    }
    Team::Barrier();
  }

  // The warps a row for k rows: a block's when fewer rows than the
  // cluster has warps, down to one.
  __device__ static int WarpsPerRow(int k) {
    int g = kWarps;
    while (g > 1 && g * k > kTeamWarps) g /= 2;
    return g;
  }

  // The price v_j of the least key `first` among the lanes' `mine` (each
  // lane's least, whose price is mine_price), to every lane.
  __device__ static W PriceOfLeast(const Key& mine, W mine_price,
                                   const Key& first) {
    const unsigned holders =
        __ballot_sync(jv_warp::kFullMask, mine.index == first.index);
    return __shfl_sync(jv_warp::kFullMask, mine_price,
                       holders ? __ffs(holders) - 1 : 0);
  }

  // use(slot, i, first, second, price) by one thread of a group of warps
  // for each of k rows (row_of(slot), slot < k): first and second are row
  // i's two least reduced costs (ties: a free column, then the lower
  // index), price v_j of first's column.  Every thread of the cluster
  // calls it.
  template <class RowOf, class Use>
  __device__ void ForEachRow(int k, RowOf row_of, Use use) {
    __shared__ Key s_first[kWarps], s_second[kWarps];
    __shared__ W s_price[kWarps];
    const int lane = static_cast<int>(threadIdx.x & 31);
    const int block_warp = static_cast<int>(threadIdx.x >> 5);
    const int warp =
        static_cast<int>(__clusterRelativeBlockRank()) * kWarps + block_warp;
    const int g = WarpsPerRow(k);
    const int groups = kTeamWarps / g, group = warp / g, sub = warp % g;
    const int start = sub * 32 + lane, stride = g * 32;
    const int sweeps = (k + groups - 1) / groups;
    for (int sweep = 0; sweep < sweeps; ++sweep) {
      const int slot = sweep * groups + group;
      Key first = jv_warp::NoKey<W>(), second = first;
      W price = W(0);  // v_j of first's column
      const int i = slot < k ? row_of(slot) : -1;
      if (i >= 0) {
        const T* row = C_ + static_cast<size_t>(i) * n_;
        // kChunk columns' loads in flight at once, then their keys.
        for (int j0 = start; j0 < n_; j0 += kChunk * stride) {
          W cost[kChunk], v[kChunk];
          int owner[kChunk];
#pragma unroll
          for (int u = 0; u < kChunk; ++u) {
            const int j = j0 + u * stride;
            const bool valid = j < n_;
            cost[u] = valid ? static_cast<W>(row[j]) : jv_warp::WideInf<W>();
            v[u] = valid ? v_[j] : W(0);
            owner[u] = valid ? y_[j] : -1;
          }
#pragma unroll
          for (int u = 0; u < kChunk; ++u) {
            const int j = j0 + u * stride;
            const Key key{cost[u] - v[u], owner[u] < 0 ? j : j + n_};
            const bool below_first = key < first, below_second = key < second;
            second = below_first ? first : (below_second ? key : second);
            price = below_first ? v[u] : price;
            first = below_first ? key : first;
          }
        }
      }
      Key mine = first;
      jv_warp::WarpTwoLeast(&first, &second);
      price = PriceOfLeast(mine, price, first);
      if (g > 1) {
        if (lane == 0) {
          s_first[block_warp] = first;
          s_second[block_warp] = second;
          s_price[block_warp] = price;
        }
        __syncthreads();
        if (sub == 0) {
          const bool part = lane < g;
          first = part ? s_first[block_warp + lane] : jv_warp::NoKey<W>();
          second = part ? s_second[block_warp + lane] : jv_warp::NoKey<W>();
          price = part ? s_price[block_warp + lane] : W(0);
          mine = first;
          jv_warp::WarpTwoLeast(&first, &second);
          price = PriceOfLeast(mine, price, first);
        }
        __syncthreads();
      }
      // A column's key is its index, plus n when owned (free columns win
      // ties).
      if (first.index >= n_ && first.index < 2 * n_) first.index -= n_;
      if (i >= 0 && sub == 0 && lane == 0) use(slot, i, first, second, price);
    }
  }

  // A row's offer of the last sweep, held by its group's first thread
  // between Bid and Resolve (row -1: none).
  struct Held {
    int row, column;
    W offer;
  };

  int n_;
  const T* C_;
  int me_;
  W *v_, *offer_;
  int *offer_column_, *y_, *x_;
  int* lists_[2];
  unsigned long long* offers_;
  int* count_;
  Team& team_;
  Held held_{-1, -1, W(0)};
};

#endif

}  // namespace jaxmatch
