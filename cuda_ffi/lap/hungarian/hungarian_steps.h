// The steps of the GPU Hungarian algorithm (Date & Nagi 2016), written once
// for every back end.
//
// Each step is a function of a Team (the workers sharing one problem) and a
// LapView (one problem's cost matrix and state).  A worker handles rows or
// columns rank, rank + size, ...; steps are separated by a team-wide barrier
// (team.sync(): a block barrier in the fused kernel, nothing on the serial
// CPU team; the stepped CUDA solver launches each step as its own kernel, so
// kernel boundaries are its barriers).  lap_init, lap_iteration and
// lap_solve_loop below are the step order, written once for the CPU handler
// and the fused kernel.  `lap_ctrl_*` steps run on a single
// worker and own every scalar transition, so data steps never race on a
// scalar they also read.
//
// Determinism: every choice the paper leaves to a race is made by an
// order-independent rule -- a column's predecessor is the row with the least
// (slack, row index); a tree's augmenting path ends at its least free column
// (atomicMin on claim[root]).  Results are therefore identical on every back
// end and every run.  Trees are vertex-disjoint (the paper's Proposition 1),
// so one claimed path per root gives vertex-disjoint augmenting paths.
//
// One iteration of the main loop is
//   s1_setup  s2_forward  s3_mark  s4_update  ctrl_iteration
// and a problem that is no longer running makes every step a no-op.
#pragma once

#include "lap/common/lap_state.h"

namespace jaxmatch {

template <class P>
JM_HD bool lap_running(const P& p) {
  return load_shared_scalar(p.sc + kStatus) == kLapRunning;
}

// ------------------------------------------------------------ initialisation

// Zeroes the scalars and the workspaces (all but the classical variant's
// zero lists, which are only read below their counts).  The duals' rounding
// errors are zeroed through their own pointers: the fused kernel keeps them
// in global memory when the rest of twork is in shared memory.
template <class T, class Team>
JM_HD void lap_init_zero(const Team& team, LapView<T>& p, int variant) {
  const LapWorkLayout L(p.n, p.m, variant);
  int* work = p.pred - L.pred;
  T* twork = p.slack - L.slack;
  for (int k = team.rank(); k < kLapInfoLen; k += team.size()) p.sc[k] = 0;
  for (std::size_t k = team.rank(); k < L.zidx; k += team.size()) work[k] = 0;
  for (std::size_t k = team.rank(); k < L.ulo; k += team.size())
    twork[k] = T(0);
  if constexpr (!Num<T>::kIsInteger) {  // integer duals are exact
    for (int i = team.rank(); i < p.n; i += team.size()) p.ulo[i] = T(0);
    for (int j = team.rank(); j < p.m; j += team.size()) p.vlo[j] = T(0);
  }
}

// Row reduction u_i = min_j c_ij; clear assignments.
template <class T, class Team>
JM_HD void lap_init_rows(const Team& team, LapView<T>& p) {
  for (int i = team.rank(); i < p.n; i += team.size()) {
    T best = Num<T>::inf();
    for (int j = 0; j < p.m; ++j) {
      T c = p.c(i, j);
      if (c < best) best = c;
    }
    if (!Num<T>::kIsInteger && !(best < Num<T>::inf())) p.sc[kFlagInfeas] = 1;
    p.u[i] = best;
    p.col_for_row[i] = INT_MAX;  // greedy proposals are min-reduced into this
  }
  for (int j = team.rank(); j < p.m; j += team.size()) p.row_for_col[j] = -1;
}

// Column reduction v_j = min_i (c_ij - u_i) when square; v = 0 otherwise, so
// that unassigned columns keep v_j = 0 (rectangular complementary slackness).
template <class T, class Team>
JM_HD void lap_init_cols(const Team& team, LapView<T>& p) {
  const bool square = p.n == p.m;
  for (int j = team.rank(); j < p.m; j += team.size()) {
    T best = T(0);
    if (square) {
      best = Num<T>::inf();
      if constexpr (!Team::kRowOuter) {
        for (int i = 0; i < p.n; ++i) {
          // For integers `reduced` clamps at 0, exact since c_ij >= u_i.
          T r = Num<T>::reduced(p.c(i, j), p.u[i], T(0));
          if (r < best) best = r;
        }
      }
    }
    p.v[j] = best;
  }
  if constexpr (Team::kRowOuter)
    if (square) {
      for (int i = 0; i < p.n; ++i)
        for (int j = 0; j < p.m; ++j) {
          T r = Num<T>::reduced(p.c(i, j), p.u[i], T(0));
          if (r < p.v[j]) p.v[j] = r;
        }
    }
  if (square) {
    for (int j = team.rank(); j < p.m; j += team.size()) {
      if (!(p.v[j] < Num<T>::inf())) {
        if (Num<T>::kIsInteger)
          p.sc[kFlagOverflow] = 1;
        else
          p.sc[kFlagInfeas] = 1;
      }
    }
  }
}

// Greedy matching on zero-slack edges, in kLapInitRounds rounds of
// propose + accept.  Each free column proposes to the first free row with a
// zero reduced cost in the cyclic order that starts at row j mod n, so that
// on ties the columns spread their proposals (a matrix of equal costs is
// matched in one round); a row accepts its least proposing column.  Rows
// assigned here are marked in row_flag (the main loop's setup rewrites it);
// free rows hold INT_MAX in col_for_row until lap_init_finish.
constexpr int kLapInitRounds = 4;

template <class T>
JM_HD bool lap_init_tight(const LapView<T>& p, int i, int j) {
  return p.c(i, j) < Num<T>::inf() &&
         Num<T>::reduced(p.c(i, j), p.u[i], p.v[j]) == T(0);
}

// The position of row i in column j's cyclic order.
JM_HD int lap_init_rank(int i, int j, int n) {
  const int k = i - j % n;
  return k < 0 ? k + n : k;
}

template <class T, class Team>
JM_HD void lap_init_propose(const Team& team, LapView<T>& p) {
  if (p.sc[kFlagInfeas] || p.sc[kFlagOverflow] || p.n == 0) return;
  if constexpr (Team::kRowOuter) {
    for (int j = 0; j < p.m; ++j) p.pred[j] = -1;
    for (int i = 0; i < p.n; ++i) {
      if (p.row_flag[i]) continue;
      for (int j = 0; j < p.m; ++j)
        if (p.row_for_col[j] < 0 && lap_init_tight(p, i, j) &&
            (p.pred[j] < 0 ||
             lap_init_rank(i, j, p.n) < lap_init_rank(p.pred[j], j, p.n)))
          p.pred[j] = i;
    }
  } else {
    for (int j = team.rank(); j < p.m; j += team.size()) {
      int pick = -1;
      if (p.row_for_col[j] < 0) {
        const int start = j % p.n;
        for (int k = 0; k < p.n; ++k) {
          const int i = start + k < p.n ? start + k : start + k - p.n;
          if (!p.row_flag[i] && lap_init_tight(p, i, j)) {
            pick = i;
            break;
          }
        }
      }
      p.pred[j] = pick;
    }
  }
  for (int j = team.rank(); j < p.m; j += team.size())
    if (p.pred[j] >= 0) atomic_min_int(&p.col_for_row[p.pred[j]], j);
}

template <class T, class Team>
JM_HD void lap_init_accept(const Team& team, LapView<T>& p) {
  if (p.sc[kFlagInfeas] || p.sc[kFlagOverflow] || p.n == 0) return;
  for (int j = team.rank(); j < p.m; j += team.size()) {
    const int i = p.pred[j];
    if (i >= 0 && p.col_for_row[i] == j) {
      p.row_for_col[j] = i;
      p.row_flag[i] = 1;
      atomic_add_int(&p.sc[kNAssigned], 1);
    }
    p.pred[j] = -1;
  }
}

// After the rounds: rows left free read -1 (all rows when the input was
// found infeasible or overflowing).
template <class T, class Team>
JM_HD void lap_init_finish(const Team& team, LapView<T>& p) {
  const bool bad = p.sc[kFlagInfeas] || p.sc[kFlagOverflow];
  for (int i = team.rank(); i < p.n; i += team.size())
    if (bad || p.col_for_row[i] == INT_MAX) p.col_for_row[i] = -1;
  if (bad)
    for (int j = team.rank(); j < p.m; j += team.size()) p.row_for_col[j] = -1;
}

// Classical variant: the zero-slack adjacency, one row-compressed list per
// row (ELL layout, capacity m): zidx[i*m + k], k < zcnt[i].
// Appends to row i's zero list every column j with tight(i, j).  zcnt must
// be zero.  List order may differ between back ends; nothing depends on it.
template <class T, class Team, class Tight>
JM_HD void lap_build_zero_lists(const Team& team, LapView<T>& p,
                                const Tight& tight) {
  auto visit = [&](int i, int j) {
    if (p.c(i, j) < Num<T>::inf() && tight(i, j)) {
      int k = atomic_add_int(&p.zcnt[i], 1);
      p.zidx[static_cast<std::size_t>(i) * p.m + k] = j;
    }
  };
  if constexpr (Team::kRowOuter) {
    for (int i = 0; i < p.n; ++i)
      for (int j = 0; j < p.m; ++j) visit(i, j);
  } else {
    for (int j = team.rank(); j < p.m; j += team.size())
      for (int i = 0; i < p.n; ++i) visit(i, j);
  }
}

template <class T, class Team>
JM_HD void lap_init_zero_lists(const Team& team, LapView<T>& p) {
  if (p.sc[kFlagInfeas] || p.sc[kFlagOverflow]) return;
  lap_build_zero_lists(team, p, [&](int i, int j) {
    return Num<T>::reduced(p.c(i, j), p.u[i], p.v[j]) == T(0);
  });
}

// ------------------------------------------------------------ warm start
// A square problem started from an earlier solve's column prices v0 and
// assignment x0 (any prices are duals of a square LAP once the row duals
// are their least reduced costs): v = v0, u_i = min_j (c_ij - v_j); row i
// keeps x0[i] when that pair is tight and no lower row keeps the column;
// the greedy rounds then run as in a cold start.  int32 prices are clamped
// to +-2^29 so that u fits int32 for entries within the documented
// headroom (|c| < 2^30); a row dual that still does not fit is an overflow.
constexpr int32_t kLapWarmIntPrice = 1 << 29;

template <class T>
JM_HD T lap_warm_price(T v0) {
  if constexpr (Num<T>::kIsInteger) {
    return v0 > kLapWarmIntPrice
               ? kLapWarmIntPrice
               : (v0 < -kLapWarmIntPrice ? -kLapWarmIntPrice : v0);
  } else {
    return Num<T>::is_finite(v0) ? v0 : T(0);
  }
}

template <class T, class Team>
JM_HD void lap_init_warm_prices(const Team& team, LapView<T>& p, const T* v0) {
  for (int i = team.rank(); i < p.n; i += team.size()) {
    bool any = false;
    if constexpr (Num<T>::kIsInteger) {
      long long best = 0;
      for (int j = 0; j < p.m; ++j) {
        const long long r =
            static_cast<long long>(p.c(i, j)) - lap_warm_price(v0[j]);
        if (!any || r < best) best = r;
        any = true;
      }
      if (best <= INT_MIN || best >= INT_MAX) p.sc[kFlagOverflow] = 1;
      p.u[i] = static_cast<T>(best <= INT_MIN || best >= INT_MAX ? 0 : best);
    } else {
      T best = Num<T>::inf();
      for (int j = 0; j < p.m; ++j) {
        const T r = p.c(i, j) - lap_warm_price(v0[j]);
        if (r < best) best = r;
      }
      any = best < Num<T>::inf();
      p.u[i] = any ? best : T(0);
    }
    if (!any) p.sc[kFlagInfeas] = 1;
    p.col_for_row[i] = INT_MAX;  // greedy proposals are min-reduced into this
  }
  for (int j = team.rank(); j < p.m; j += team.size()) {
    p.v[j] = lap_warm_price(v0[j]);
    p.row_for_col[j] = -1;
    p.pred[j] = INT_MAX;  // the least row keeping column j
  }
}

template <class T, class Team>
JM_HD void lap_init_warm_keep(const Team& team, LapView<T>& p, const int* x0) {
  if (p.sc[kFlagInfeas] || p.sc[kFlagOverflow]) return;
  for (int i = team.rank(); i < p.n; i += team.size()) {
    const int j = x0[i];
    if (j >= 0 && j < p.m && lap_init_tight(p, i, j))
      atomic_min_int(&p.pred[j], i);
  }
}

template <class T, class Team>
JM_HD void lap_init_warm_assign(const Team& team, LapView<T>& p) {
  for (int j = team.rank(); j < p.m; j += team.size()) {
    const int i = p.pred[j];
    p.pred[j] = -1;
    if (i == INT_MAX || p.sc[kFlagInfeas] || p.sc[kFlagOverflow]) continue;
    p.row_for_col[j] = i;
    p.col_for_row[i] = j;
    p.row_flag[i] = 1;
    atomic_add_int(&p.sc[kNAssigned], 1);
  }
}

template <class T>
JM_HD void lap_ctrl_init(LapView<T>& p, int max_iters) {
  p.sc[kMaxIters] = max_iters;
  p.sc[kPhase] = kPhaseNeedTree;
  p.sc[kListSel] = 0;
  p.sc[kCntCur] = p.sc[kCntNext] = p.sc[kNFree] = p.sc[kNAug] = 0;
  p.sc[kNTree] = 0;
  p.delta[0] = Num<T>::inf();
  if (p.sc[kFlagInfeas])
    p.sc[kStatus] = kLapInfeasible;
  else if (p.sc[kFlagOverflow])
    p.sc[kStatus] = kLapOverflow;
  else if (p.sc[kNAssigned] == p.n)
    p.sc[kStatus] = kLapOptimal;
  else
    p.sc[kStatus] = kLapRunning;
}

// ------------------------------------------------------------ one iteration

// s1: on a fresh phase, plant a tree at every free row.  Classical: a pending
// dual update is applied here, after s3 has rebuilt the zero lists from the
// old duals.
template <class T, class Team>
JM_HD void lap_s1_setup(const Team& team, LapView<T>& p, int variant) {
  if (!lap_running(p)) return;
  const int phase = p.sc[kPhase];
  if (phase == kPhaseNeedTree) {
    int* cur = p.list_cur();
    for (int i = team.rank(); i < p.n; i += team.size()) {
      p.claim[i] = INT_MAX;
      if (p.col_for_row[i] < 0) {
        p.row_flag[i] = 1;
        p.root[i] = i;
        cur[atomic_add_int(&p.sc[kCntCur], 1)] = i;
        if (variant == kLapClassical)
          p.tree_list[atomic_add_int(&p.sc[kNTree], 1)] = i;
      } else {
        p.row_flag[i] = 0;
        p.root[i] = -1;
      }
    }
    for (int j = team.rank(); j < p.m; j += team.size()) {
      p.slack[j] = Num<T>::inf();
      p.pred[j] = variant == kLapClassical ? INT_MAX : -1;
      p.col_flag[j] = 0;
    }
  } else if (phase == kPhaseRescan) {  // classical, after a dual update
    const T d = p.delta[0];
    int* ovf = &p.sc[kFlagOverflow];
    for (int i = team.rank(); i < p.n; i += team.size())
      if (p.row_flag[i]) p.add_u(i, d, ovf);
    for (int j = team.rank(); j < p.m; j += team.size())
      if (p.col_flag[j]) p.add_v(j, -d, ovf);
  }
}

// s2, alternating tree: every unreached column takes the least slack over the
// frontier rows.  Classical: every frontier row marks the unreached columns of
// its zero list (predecessor = least row).  Classical dual phase: delta = the
// least slack between tree rows and unreached columns.
template <class T, class Team>
JM_HD void lap_s2_forward(const Team& team, LapView<T>& p, int variant) {
  if (!lap_running(p)) return;
  const int phase = p.sc[kPhase];
  if (variant == kLapTree) {
    const int* cur = p.list_cur();
    const int cnt = p.sc[kCntCur];
    if constexpr (Team::kRowOuter) {
      for (int k = 0; k < cnt; ++k) {
        const int i = cur[k];
        const T ui = p.u[i];
        const T* ci = p.C + static_cast<std::size_t>(i) * p.m;
        for (int j = 0; j < p.m; ++j) {
          if (p.col_flag[j]) continue;
          const T s = Num<T>::reduced(ci[j], ui, p.v[j]);
          if (s < p.slack[j] ||
              (s == p.slack[j] && s < Num<T>::inf() &&
               static_cast<unsigned>(i) < static_cast<unsigned>(p.pred[j]))) {
            p.slack[j] = s;
            p.pred[j] = i;
          }
        }
      }
    } else {
      for (int j = team.rank(); j < p.m; j += team.size()) {
        if (p.col_flag[j]) continue;
        T best = p.slack[j];
        int arg = p.pred[j];
        const T vj = p.v[j];
        for (int k = 0; k < cnt; ++k) {
          const int i = cur[k];
          const T s = Num<T>::reduced(p.c(i, j), p.u[i], vj);
          if (s < best ||
              (s == best && s < Num<T>::inf() &&
               static_cast<unsigned>(i) < static_cast<unsigned>(arg))) {
            best = s;
            arg = i;
          }
        }
        p.slack[j] = best;
        p.pred[j] = arg;
      }
    }
    return;
  }
  if (phase == kPhaseDual) {
    const int ntree = p.sc[kNTree];
    for (int i = team.rank(); i < p.n; i += team.size()) p.zcnt[i] = 0;
    if constexpr (Team::kRowOuter) {
      T best = Num<T>::inf();
      for (int k = 0; k < ntree; ++k) {
        const int i = p.tree_list[k];
        for (int j = 0; j < p.m; ++j) {
          if (p.col_flag[j]) continue;
          const T s = Num<T>::reduced(p.c(i, j), p.u[i], p.v[j]);
          if (s < best) best = s;
        }
      }
      if (best < Num<T>::inf()) atomic_min_nonneg(&p.delta[0], best);
    } else {
      for (int j = team.rank(); j < p.m; j += team.size()) {
        if (p.col_flag[j]) continue;
        T best = Num<T>::inf();
        for (int k = 0; k < ntree; ++k) {
          const int i = p.tree_list[k];
          const T s = Num<T>::reduced(p.c(i, j), p.u[i], p.v[j]);
          if (s < best) best = s;
        }
        if (best < Num<T>::inf()) atomic_min_nonneg(&p.delta[0], best);
      }
    }
    return;
  }
  const bool rescan = phase == kPhaseRescan;
  const int* rows = rescan ? p.tree_list : p.list_cur();
  const int cnt = rescan ? p.sc[kNTree] : p.sc[kCntCur];
  for (int k = team.rank(); k < cnt; k += team.size()) {
    const int i = rows[k];
    const int* z = p.zidx + static_cast<std::size_t>(i) * p.m;
    const int nz = p.zcnt[i];
    for (int e = 0; e < nz; ++e) {
      const int j = z[e];
      if (!p.col_flag[j]) atomic_min_int(&p.pred[j], i);
    }
  }
}

// s3: columns that became reachable at zero slack join the forest.  A reached
// free column bids for its tree's root; a reached assigned column activates
// its row for the next frontier.  Tree variant: also delta = least positive
// slack.  Classical dual phase: rebuild the zero lists from the old duals and
// delta (s1 applies delta afterwards).
template <class T, class Team>
JM_HD void lap_s3_mark(const Team& team, LapView<T>& p, int variant) {
  if (!lap_running(p)) return;
  if (variant == kLapClassical && p.sc[kPhase] == kPhaseDual) {
    const T d = p.delta[0];
    if (!(d < Num<T>::inf())) return;
    lap_build_zero_lists(team, p, [&](int i, int j) {
      const bool row_in = p.row_flag[i] != 0, col_in = p.col_flag[j] != 0;
      if (row_in && !col_in)  // slack drops by d
        return Num<T>::reduced(p.c(i, j), p.u[i], p.v[j]) <= d;
      if (row_in == col_in)  // slack unchanged
        return Num<T>::reduced(p.c(i, j), p.u[i], p.v[j]) == T(0);
      return false;  // slack grows by d
    });
    return;
  }
  int* next = p.list_next();
  for (int j = team.rank(); j < p.m; j += team.size()) {
    if (p.col_flag[j]) continue;
    bool reached;
    if (variant == kLapTree) {
      const T s = p.slack[j];
      reached = s == T(0);
      if (!reached && s < Num<T>::inf()) atomic_min_nonneg(&p.delta[0], s);
    } else {
      reached = p.pred[j] != INT_MAX;
    }
    if (!reached) continue;
    p.col_flag[j] = 1;
    const int rt = p.root[p.pred[j]];
    const int r = p.row_for_col[j];
    if (r < 0) {
      atomic_min_int(&p.claim[rt], j);
      atomic_add_int(&p.sc[kNFree], 1);
    } else {
      p.row_flag[r] = 1;
      p.root[r] = rt;
      next[atomic_add_int(&p.sc[kCntNext], 1)] = r;
      if (variant == kLapClassical)
        p.tree_list[atomic_add_int(&p.sc[kNTree], 1)] = r;
    }
  }
}

// Augments along the claimed path that ends at free column j, if j is the
// one its tree claimed.
template <class T>
JM_HD void lap_augment_from(LapView<T>& p, int j) {
  if (!p.col_flag[j] || p.row_for_col[j] >= 0) return;
  if (p.claim[p.root[p.pred[j]]] != j) return;
  int cur = j;
  for (;;) {
    const int i = p.pred[cur];
    const int nxt = p.col_for_row[i];
    p.col_for_row[i] = cur;
    p.row_for_col[cur] = i;
    if (nxt < 0) break;
    cur = nxt;
  }
  atomic_add_int(&p.sc[kNAug], 1);
}

// s4: augment along the claimed path of every tree that reached a free
// column (reverse + augmentation passes; the walk flips the path in place), or
// -- tree variant, when the frontier is empty -- the dual update.
template <class T, class Team>
JM_HD void lap_s4_update(const Team& team, LapView<T>& p, int variant) {
  if (!lap_running(p)) return;
  if (variant == kLapClassical && p.sc[kPhase] == kPhaseDual) return;
  if (p.sc[kNFree] > 0) {
    for (int j = team.rank(); j < p.m; j += team.size()) lap_augment_from(p, j);
    return;
  }
  if (variant != kLapTree || p.sc[kCntNext] != 0) return;
  const T d = p.delta[0];
  if (!(d < Num<T>::inf())) return;
  int* ovf = &p.sc[kFlagOverflow];
  for (int i = team.rank(); i < p.n; i += team.size())
    if (p.row_flag[i]) p.add_u(i, d, ovf);
  for (int j = team.rank(); j < p.m; j += team.size()) {
    if (p.col_flag[j])
      p.add_v(j, -d, ovf);
    else if (p.slack[j] < Num<T>::inf())
      p.slack[j] = p.slack[j] - d;
  }
}

// The single-worker transition at the end of an iteration.
template <class T>
JM_HD void lap_ctrl_iteration(LapView<T>& p, int variant) {
  int* sc = p.sc;
  if (sc[kStatus] != kLapRunning) return;
  const int phase = sc[kPhase];
  sc[kIters] += 1;
  int next_phase = kPhaseSearch;
  if (variant == kLapClassical && phase == kPhaseDual) {
    sc[kNDual] += 1;
    if (!(p.delta[0] < Num<T>::inf())) sc[kStatus] = kLapInfeasible;
    next_phase = kPhaseRescan;
    sc[kCntCur] = 0;
  } else if (sc[kNFree] > 0) {
    sc[kNAssigned] += sc[kNAug];
    sc[kNAugPhases] += 1;
    if (sc[kNAssigned] >= p.n) sc[kStatus] = kLapOptimal;
    next_phase = kPhaseNeedTree;
    sc[kCntCur] = 0;
    sc[kNTree] = 0;
  } else if (sc[kCntNext] == 0) {
    if (variant == kLapTree) {
      sc[kNDual] += 1;
      if (!(p.delta[0] < Num<T>::inf())) sc[kStatus] = kLapInfeasible;
      next_phase = kPhaseSearch;
    } else {
      next_phase = kPhaseDual;
    }
    sc[kCntCur] = 0;
  } else {
    sc[kListSel] ^= 1;
    sc[kCntCur] = sc[kCntNext];
  }
  sc[kCntNext] = 0;
  sc[kNFree] = 0;
  sc[kNAug] = 0;
  sc[kPhase] = next_phase;
  if (next_phase != kPhaseRescan) p.delta[0] = Num<T>::inf();
  if (sc[kFlagOverflow]) sc[kStatus] = kLapOverflow;
  if (sc[kStatus] == kLapRunning && sc[kIters] >= sc[kMaxIters])
    sc[kStatus] = kLapIterationLimit;
}

// A safe bound on iterations: at most n augmenting phases, each of at most
// 2m + 2 iterations of the tree variant (3m + 3 classical).
JM_HD int lap_default_max_iters(int n, int m) {
  long long b = static_cast<long long>(n + 1) * (3LL * m + 4) + 16;
  return b > INT_MAX ? INT_MAX : static_cast<int>(b);
}

// The iteration limit of a solve: the caller's, else the default bound.
JM_HD int lap_max_iters(int requested, int n, int m) {
  return requested > 0 ? requested : lap_default_max_iters(n, m);
}

// ------------------------------------------------------------ step order
// The initialisation: reductions (or, with x0 and v0, a square problem's
// warm start), greedy assignment, (classical) zero lists.
template <class T, class Team>
JM_HD void lap_init(const Team& team, LapView<T>& p, int variant,
                    const int* x0 = nullptr, const T* v0 = nullptr) {
  lap_init_zero(team, p, variant);
  team.sync();
  if (x0 != nullptr) {
    lap_init_warm_prices(team, p, v0);
    team.sync();
    lap_init_warm_keep(team, p, x0);
    team.sync();
    lap_init_warm_assign(team, p);
    team.sync();
  } else {
    lap_init_rows(team, p);
    team.sync();
    lap_init_cols(team, p);
    team.sync();
  }
  for (int round = 0; round < kLapInitRounds; ++round) {
    lap_init_propose(team, p);
    team.sync();
    lap_init_accept(team, p);
    team.sync();
  }
  lap_init_finish(team, p);
  team.sync();
  if (variant == kLapClassical) {
    lap_init_zero_lists(team, p);
    team.sync();
  }
  if (team.rank() == 0) lap_ctrl_init(p, lap_max_iters(p.max_iters, p.n, p.m));
  team.sync();
}

// One iteration of the main loop (a no-op once the problem has finished).
template <class T, class Team>
JM_HD void lap_iteration(const Team& team, LapView<T>& p, int variant) {
  lap_s1_setup(team, p, variant);
  team.sync();
  lap_s2_forward(team, p, variant);
  team.sync();
  lap_s3_mark(team, p, variant);
  team.sync();
  lap_s4_update(team, p, variant);
  team.sync();
  if (team.rank() == 0) lap_ctrl_iteration(p, variant);
  team.sync();
}

// The main loop: to the end when `iterations` < 0, else at most that many
// iterations.
template <class T, class Team>
JM_HD void lap_solve_loop(const Team& team, LapView<T>& p, int variant,
                          int iterations = -1) {
  for (int it = 0; iterations < 0 || it < iterations; ++it) {
    if (!lap_running(p)) break;
    lap_iteration(team, p, variant);
  }
}

}  // namespace jaxmatch
