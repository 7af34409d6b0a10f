// The alternating-tree Hungarian algorithm on sparse (CSR) costs, written
// once for every back end: the GPU solver of jaxmatch.solve_lap on SparseCosts
// (one block per problem, lap/sparse/csr_kernels.cu) and the CPU's serial team
// (method="tree": the same steps, testable without a GPU).
//
// It is lap/hungarian/hungarian_steps.h's tree variant (a forest of alternating
// trees grown from every free row, many vertex-disjoint augmenting paths per
// phase) with the dense scans replaced by scans of the stored entries and the
// dual updates deferred to the end of each phase (see "one iteration" below).
//
// One problem has n rows and m >= n columns (the caller transposes a tall
// matrix).  Entries of +inf cost are absent edges (float costs); a pair
// stored twice costs the cheaper entry, which the least-key rule picks by
// itself.  Prices: u_i = min of row i's costs; on a square problem
// v_j = min_i (c_ij - u_i), on a rectangular one v = 0, and a column's price
// only drops once it is in a tree, which then matches it: v <= 0 with v = 0
// on the columns left free, the rectangular LP's dual certificate.
//
// Unassigned costs (LapCsrView::exits): every row also has a private exit
// column of cost row_cost_i, and the column prices start at col_cost (the
// implicit n x (m + n) problem of jaxmatch/lap/unassigned.py).  Then u_i
// starts at the least of row_cost_i and row i's c_ij - col_cost_j; a forest
// row's exit has the key rdist_i + row_cost_i - u_i (its price stays 0: it
// only ever ends a path), checked by lap_csr_s2_exits and claimed as column
// m + i (after every real column on ties); a row that takes its exit keeps
// it (no other row reaches that column, so no path passes it) with
// u_i = row_cost_i.  Prices stay <= col_cost, equal on the free columns;
// u_i <= row_cost_i since an exit's key is never below D: the duals of
// jaxmatch/lap/unassigned.py, and every row is assigned, to a column or
// its exit (never INFEASIBLE).
//
// Determinism: a column's predecessor is the least row of the latest
// frontier that reached its least key (two passes: an atomic minimum of the
// key, then of the row among those achieving it); everything else is
// lap/hungarian/hungarian_steps.h's order-independent rules, so every back end
// returns the same assignment and prices.
#pragma once

#include "lap/hungarian/hungarian_steps.h"

namespace jaxmatch {

// ------------------------------------------------------------ initialisation

// Zeroes the scalars and the workspaces (lap/hungarian/hungarian_steps.h's);
// checks the pointers (non-decreasing from 0 to at most cap), else kFlagInput =
// kLapInvalidStructure.
template <class T, class Team>
JM_HD void lap_csr_init_zero(const Team& team, LapCsrView<T>& p) {
  lap_init_zero(team, p, kLapCsrTree);  // the lists are written before read
  if (team.rank() == 0) *p.capped = 0;
  team.sync();
  bool ok = true;
  for (int i = team.rank(); i <= p.n; i += team.size()) {
    if (i == 0) ok = p.indptr[0] == 0;
    if (i == p.n) ok = ok && p.indptr[p.n] >= 0 && p.indptr[p.n] <= p.cap;
    if (i < p.n) ok = ok && p.indptr[i] <= p.indptr[i + 1];
    if (!ok) p.sc[kFlagInput] = kLapInvalidStructure;
  }
}

// Checks the stored columns (in [0, m)) and costs (no NaN, no -inf), and
// the unassigned costs (finite).  A bad column wins over a bad cost: its
// store overwrites, the cost's compare-and-swap only fills an empty flag.
template <class T, class Team>
JM_HD void lap_csr_init_entries(const Team& team, LapCsrView<T>& p) {
  // Malformed pointers (init_zero) stop every worker; a bad cost another
  // worker flags meanwhile must not stop this one's column checks.
  if (load_shared_scalar(&p.sc[kFlagInput]) == kLapInvalidStructure) return;
  const int nnz = p.indptr[p.n];
  for (int k = team.rank(); k < nnz; k += team.size()) {
    const int j = p.indices[k];
    if (j < 0 || j >= p.m) p.sc[kFlagInput] = kLapInvalidStructure;
    const T c = p.cost[k];
    if (!Num<T>::kIsInteger && !(c == c && c > -Num<T>::inf()))
      atomic_cas_int(&p.sc[kFlagInput], 0, kLapInvalidEntries);
  }
  // Unassigned costs: every price finite.
  for (int k = team.rank(); p.exits() && k < p.n + p.m; k += team.size()) {
    const T c = k < p.n ? p.row_cost[k] : p.col_cost[k - p.n];
    if (!Num<T>::is_finite(c))
      atomic_cas_int(&p.sc[kFlagInput], 0, kLapInvalidEntries);
  }
}

// The least c_ij - col_cost_j of row i and its exit's cost (unassigned
// costs); sets *ovf when an int32 value does not fit.
template <class T>
JM_HD T lap_csr_least_priced(const LapCsrView<T>& p, int i, int* ovf) {
  if constexpr (Num<T>::kIsInteger) {
    long long best = p.row_cost[i];
    for (int k = p.indptr[i]; k < p.indptr[i + 1]; ++k) {
      const long long h =
          static_cast<long long>(p.cost[k]) - p.col_cost[p.indices[k]];
      if (h < best) best = h;
    }
    if (best <= -static_cast<long long>(INT_MAX)) {
      *ovf = 1;
      return T(0);
    }
    return static_cast<T>(best);
  } else {
    T best = p.row_cost[i];
    for (int k = p.indptr[i]; k < p.indptr[i + 1]; ++k) {
      if (!p.present(k)) continue;
      const T h = p.cost[k] - p.col_cost[p.indices[k]];
      if (h < best) best = h;
    }
    return best;
  }
}

// Row reduction u_i = least cost of row i (infeasible when it has no edge);
// clears the assignment; v = +inf (square: the column reduction below) or 0.
// With unassigned costs v = col_cost and u_i = lap_csr_least_priced (every
// row has its exit).
template <class T, class Team>
JM_HD void lap_csr_init_rows(const Team& team, LapCsrView<T>& p) {
  const bool bad = load_shared_scalar(&p.sc[kFlagInput]) != 0;
  for (int i = team.rank(); i < p.n; i += team.size()) {
    T best = Num<T>::inf();
    bool any = false;
    if (p.exits() && !bad) {
      int ovf = 0;
      best = lap_csr_least_priced(p, i, &ovf);
      if (ovf) p.sc[kFlagOverflow] = 1;
      any = true;
    } else if (!bad) {
      for (int k = p.indptr[i]; k < p.indptr[i + 1]; ++k) {
        if (!p.present(k)) continue;
        any = true;
        if (p.cost[k] < best) best = p.cost[k];
      }
    }
    if (!any) p.sc[kFlagInfeas] = 1;
    p.u[i] = any ? best : T(0);
    p.col_for_row[i] = INT_MAX;  // greedy proposals are min-reduced into this
    p.edge_for_row[i] = -1;
  }
  for (int j = team.rank(); j < p.m; j += team.size()) {
    p.row_for_col[j] = -1;
    p.v[j] = p.exits() ? p.col_cost[j] : p.n == p.m ? Num<T>::inf() : T(0);
    p.pred[j] = INT_MAX;
    p.cand[j] = INT_MAX;
  }
}

// Square problems: v_j = min_i (c_ij - u_i) >= 0 over column j's edges
// (col_flag marks the columns that have one; a column without is
// infeasible).
template <class T, class Team>
JM_HD void lap_csr_init_cols(const Team& team, LapCsrView<T>& p) {
  if (p.n != p.m || p.exits() || p.sc[kFlagInput] || p.sc[kFlagInfeas]) return;
  for (int i = team.rank(); i < p.n; i += team.size()) {
    const T ui = p.u[i];
    for (int k = p.indptr[i]; k < p.indptr[i + 1]; ++k) {
      if (!p.present(k)) continue;
      const int j = p.indices[k];
      atomic_min_nonneg(&p.v[j], Num<T>::reduced(p.cost[k], ui, T(0)));
      p.col_flag[j] = 1;
    }
  }
}

template <class T, class Team>
JM_HD void lap_csr_init_cols_check(const Team& team, LapCsrView<T>& p) {
  if (p.n != p.m || p.exits() || p.sc[kFlagInput] || p.sc[kFlagInfeas]) return;
  for (int j = team.rank(); j < p.m; j += team.size()) {
    if (!p.col_flag[j]) p.sc[kFlagInfeas] = 1;
    // An int32 reduction that saturated: 0 is a feasible price too.
    if (!(p.v[j] < Num<T>::inf())) p.v[j] = T(0);
    p.col_flag[j] = 0;
  }
}

JM_HD bool lap_csr_init_skipped(const int* sc) {
  return load_shared_scalar(&sc[kFlagInput]) ||
         load_shared_scalar(&sc[kFlagInfeas]) ||
         load_shared_scalar(&sc[kFlagOverflow]);
}

// Greedy matching on zero-slack edges, in kLapInitRounds rounds of
// propose + accept + reset.  Each free row proposes to the first free column
// of zero reduced cost in its list, read cyclically from position i mod
// (its length), so that equal costs spread the proposals; a column accepts
// its least proposing row.  The proposal waits in root[i] (s1 rewrites it).
template <class T, class Team>
JM_HD void lap_csr_init_propose(const Team& team, LapCsrView<T>& p) {
  if (lap_csr_init_skipped(p.sc)) return;
  for (int i = team.rank(); i < p.n; i += team.size()) {
    int pick = -1;
    const int lo = p.indptr[i], len = p.indptr[i + 1] - lo;
    if (p.col_for_row[i] == INT_MAX && len > 0) {
      const T ui = p.u[i];
      for (int t = 0, k = lo + i % len; t < len; ++t, ++k) {
        if (k == lo + len) k = lo;
        const int j = p.indices[k];
        if (p.row_for_col[j] < 0 && p.present(k) &&
            Num<T>::reduced(p.cost[k], ui, p.v[j]) == T(0)) {
          pick = j;
          break;
        }
      }
      if (pick >= 0) atomic_min_int(&p.pred[pick], i);
    }
    p.root[i] = pick;
  }
}

template <class T, class Team>
JM_HD void lap_csr_init_accept(const Team& team, LapCsrView<T>& p) {
  if (lap_csr_init_skipped(p.sc)) return;
  for (int i = team.rank(); i < p.n; i += team.size()) {
    const int j = p.root[i];
    if (j >= 0 && p.pred[j] == i) {
      p.col_for_row[i] = j;
      p.row_for_col[j] = i;
      atomic_add_int(&p.sc[kNAssigned], 1);
    }
  }
}

template <class T, class Team>
JM_HD void lap_csr_init_reset(const Team& team, LapCsrView<T>& p) {
  if (lap_csr_init_skipped(p.sc)) return;
  for (int i = team.rank(); i < p.n; i += team.size())
    if (p.root[i] >= 0) p.pred[p.root[i]] = INT_MAX;
}

// After the rounds: rows left free read -1 (all rows when the input was
// malformed, infeasible or overflowing); the scalars start the main loop.
template <class T, class Team>
JM_HD void lap_csr_init_finish(const Team& team, LapCsrView<T>& p) {
  const bool bad = lap_csr_init_skipped(p.sc);
  for (int i = team.rank(); i < p.n; i += team.size())
    if (bad || p.col_for_row[i] == INT_MAX) p.col_for_row[i] = -1;
  for (int i = team.rank(); i < p.n; i += team.size()) {
    if (bad) p.u[i] = T(0);
    p.root[i] = -1;
  }
  for (int j = team.rank(); j < p.m; j += team.size()) {
    if (bad) p.row_for_col[j] = -1;
    if (bad || !(p.v[j] < Num<T>::inf())) p.v[j] = T(0);
    p.slack[j] = Num<T>::inf();
    p.pred[j] = -1;
  }
}

template <class T>
JM_HD void lap_csr_ctrl_init(LapCsrView<T>& p) {
  // With exits a phase's distances also stop at the forest rows' exits.
  lap_ctrl_init(p,
                lap_max_iters(p.max_iters, p.n, p.m + (p.exits() ? p.n : 0)));
  if (p.sc[kFlagInput]) p.sc[kStatus] = p.sc[kFlagInput];
}

// ------------------------------------------------------------ one iteration
// A phase grows one forest from every free row at once, as Dijkstra's
// algorithm would from a super-source, until a tree reaches a free column;
// then every tree that did augments along its path.  The prices (u, v) stay
// those of the phase's start while it runs: a column's key is the length of
// its best path so far (rdist[i] + reduced cost from forest row i), D the
// distance the forest has grown to, and a column joins when its key is D;
// when the frontier dries up, D moves to the least key outside.  The phase's
// end applies D once to every vertex of the forest (u_i += D - rdist_i,
// v_j -= D - key_j), which is the dense tree variant's sequence of dual
// updates with a single rounding per vertex and phase, and touches only the
// forest's rows and the columns given a key (listed as they come), so an
// iteration costs the frontier's entries plus the keyed columns, not n + m.

// s1a: a new phase first clears the previous phase's forest and keys.
template <class T, class Team>
JM_HD void lap_csr_s1_clear(const Team& team, LapCsrView<T>& p) {
  if (!lap_running(p) || p.sc[kPhase] != kPhaseNeedTree) return;
  for (int k = team.rank(); k < p.sc[kOldForest]; k += team.size()) {
    const int i = p.forest[k];
    p.root[i] = -1;
  }
  for (int k = team.rank(); k < p.sc[kOldTouched]; k += team.size()) {
    const int j = p.touched[k];
    p.slack[j] = Num<T>::inf();
    p.pred[j] = -1;
    p.col_flag[j] = 0;
  }
}

// s1b: then plants a tree at every free row.
template <class T, class Team>
JM_HD void lap_csr_s1_plant(const Team& team, LapCsrView<T>& p) {
  if (!lap_running(p) || p.sc[kPhase] != kPhaseNeedTree) return;
  int* cur = p.list_cur();
  for (int i = team.rank(); i < p.n; i += team.size()) {
    if (p.col_for_row[i] >= 0) continue;
    p.claim[i] = INT_MAX;
    p.root[i] = i;
    p.rdist[i] = T(0);
    cur[atomic_add_int(&p.sc[kCntCur], 1)] = i;
    p.forest[atomic_add_int(&p.sc[kNForest], 1)] = i;
  }
}

// The key from forest row i of a cost c at column price v: rdist_i + its
// reduced cost at the phase's prices.  An int32 key that does not fit reads
// inf (beyond any distance the forest reaches first) and marks the phase:
// should the forest need to grow that far, the solve reports OVERFLOW, not
// INFEASIBLE.
template <class T>
JM_HD T lap_csr_key_at(LapCsrView<T>& p, int i, T c, T v) {
  const T r = Num<T>::reduced(c, p.u[i], v);
  int ovf = 0;
  const T key =
      r < Num<T>::inf() ? Num<T>::add(p.rdist[i], r, &ovf) : Num<T>::inf();
  if (Num<T>::kIsInteger && (ovf || !(key < Num<T>::inf()))) {
    *p.capped = 1;
    return Num<T>::inf();
  }
  return key;
}

// The key of entry k = (i, j) from forest row i.
template <class T>
JM_HD T lap_csr_key(LapCsrView<T>& p, int i, int k, int j) {
  return lap_csr_key_at(p, i, p.cost[k], p.v[j]);
}

// Calls visit(i, k, j, key) for every entry k = (i, j) of the frontier's
// rows whose column is outside the forest, with its key.
template <class T, class Team, class Visit>
JM_HD void lap_csr_frontier_entries(const Team& team, LapCsrView<T>& p,
                                    const Visit& visit) {
  const int* cur = p.list_cur();
  const int cnt = p.sc[kCntCur];
  for (int t = team.rank(); t < cnt; t += team.size()) {
    const int i = cur[t];
    for (int k = p.indptr[i]; k < p.indptr[i + 1]; ++k) {
      const int j = p.indices[k];
      if (p.col_flag[j] || !p.present(k)) continue;
      visit(i, k, j, lap_csr_key(p, i, k, j));
    }
  }
}

// s2a: every frontier row lowers the keys of the columns of its list outside
// the forest; a column's first key puts it on the touched list.
template <class T, class Team>
JM_HD void lap_csr_s2_keys(const Team& team, LapCsrView<T>& p) {
  if (!lap_running(p)) return;
  lap_csr_frontier_entries(team, p, [&](int, int, int j, T key) {
    if (!(key < p.slack[j])) return;
    if (p.pred[j] == -1 && atomic_cas_int(&p.pred[j], -1, -2) == -1)
      p.touched[atomic_add_int(&p.sc[kNTouched], 1)] = j;
    atomic_min_nonneg(&p.slack[j], key);
  });
}

// s2b: among the frontier rows achieving a column's new least key, the least
// one is its candidate predecessor.
template <class T, class Team>
JM_HD void lap_csr_s2_pred(const Team& team, LapCsrView<T>& p) {
  if (!lap_running(p)) return;
  lap_csr_frontier_entries(team, p, [&](int i, int, int j, T key) {
    if (key < Num<T>::inf() && key == p.slack[j]) atomic_min_int(&p.cand[j], i);
  });
}

// Column j (with its predecessor set) joins the forest: a free column bids
// for its tree's root; an assigned one brings its row into the tree and the
// next frontier `next`.  Returns that row, or -1.  lap_s3_mark does the
// same inline (a compute-sanitizer quirk, docs/design.md).
template <class T>
JM_HD int lap_join_forest(LapView<T>& p, int j, int* next) {
  p.col_flag[j] = 1;
  const int rt = p.root[p.pred[j]];
  const int r = p.row_for_col[j];
  if (r < 0) {
    atomic_min_int(&p.claim[rt], j);
    atomic_add_int(&p.sc[kNFree], 1);
    return -1;
  }
  p.root[r] = rt;
  next[atomic_add_int(&p.sc[kCntNext], 1)] = r;
  return r;
}

// The key of forest row i's exit (unassigned costs): rdist_i + row_cost_i -
// u_i (an exit's price stays 0).
template <class T>
JM_HD T lap_csr_exit_key(LapCsrView<T>& p, int i) {
  return lap_csr_key_at(p, i, p.row_cost[i], T(0));
}

// s2c (unassigned costs): a forest row whose exit's key is D bids for its
// tree's root with the exit (column m + i); the least key of the others goes
// to delta[0], where s3 starts its least key from.  The forest does not grow
// in this step; rows s3 adds are checked in the next iteration, at the same
// D (the frontier they form keeps D where it is).
template <class T, class Team>
JM_HD void lap_csr_s2_exits(const Team& team, LapCsrView<T>& p) {
  if (!lap_running(p) || !p.exits()) return;
  const T D = p.delta[1];
  T least = Num<T>::inf();
  for (int t = team.rank(); t < p.sc[kNForest]; t += team.size()) {
    const int i = p.forest[t];
    const T key = lap_csr_exit_key(p, i);
    if (key <= D) {
      atomic_min_int(&p.claim[p.root[i]], p.exit_of(i));
      atomic_add_int(&p.sc[kNFree], 1);
    } else if (key < least) {
      least = key;
    }
  }
  least = from_ordered_bits<T>(~team.all_max(~ordered_bits(least)));
  if (team.rank() == 0) p.delta[0] = least;
}

// s3: a touched column takes its candidate; one whose key is D joins the
// forest (a free one bids for its tree's root, an assigned one brings its
// row into the next frontier at distance D); the least key of the others is
// the next D (a team reduction: one write, not an atomic per column).
template <class T, class Team>
JM_HD void lap_csr_s3_mark(const Team& team, LapCsrView<T>& p) {
  if (!lap_running(p)) return;
  const T D = p.delta[1];
  int* next = p.list_next();
  // With exits, s2c left the least key of the forest's exits.
  T least = p.exits() ? p.delta[0] : Num<T>::inf();
  for (int t = team.rank(); t < p.sc[kNTouched]; t += team.size()) {
    const int j = p.touched[t];
    if (p.col_flag[j]) continue;
    if (p.cand[j] != INT_MAX) {
      p.pred[j] = p.cand[j];
      p.cand[j] = INT_MAX;
    }
    const T key = p.slack[j];
    if (!(key <= D)) {
      if (key < least) least = key;
      continue;
    }
    const int r = lap_join_forest(p, j, next);
    if (r >= 0) {
      p.rdist[r] = D;
      p.forest[atomic_add_int(&p.sc[kNForest], 1)] = r;
    }
  }
  least = from_ordered_bits<T>(~team.all_max(~ordered_bits(least)));
  if (team.rank() == 0) p.delta[0] = least;
}

// Augments along the path of forest row i's tree that ends at row i's exit:
// row i takes its exit, its column goes to that column's predecessor, and so
// on back to the root.
template <class T>
JM_HD void lap_csr_augment_exit(LapCsrView<T>& p, int i) {
  int cur = p.col_for_row[i];
  p.col_for_row[i] = p.exit_of(i);
  while (cur >= 0) {
    const int r = p.pred[cur];
    const int nxt = p.col_for_row[r];
    p.col_for_row[r] = cur;
    p.row_for_col[cur] = r;
    cur = nxt;
  }
  atomic_add_int(&p.sc[kNAug], 1);
}

// s4: when trees reached free columns, the phase ends: augment along every
// claimed path and apply D to the forest's prices.
template <class T, class Team>
JM_HD void lap_csr_s4_augment(const Team& team, LapCsrView<T>& p) {
  if (!lap_running(p) || p.sc[kNFree] == 0) return;
  const T D = p.delta[1];
  int* ovf = &p.sc[kFlagOverflow];
  for (int t = team.rank(); t < p.sc[kNTouched]; t += team.size()) {
    const int j = p.touched[t];
    if (!p.col_flag[j]) continue;
    lap_augment_from(p, j);
    p.add_v(j, p.slack[j] - D, ovf);
  }
  for (int t = team.rank(); t < p.sc[kNForest]; t += team.size()) {
    const int i = p.forest[t];
    if (p.exits() && p.claim[p.root[i]] == p.exit_of(i)) {
      lap_csr_augment_exit(p, i);
      p.u[i] = p.row_cost[i];  // tight on the exit, with no rounding
      p.ulo[i] = T(0);
    } else {
      p.add_u(i, D - p.rdist[i], ovf);
    }
  }
}

// The single-worker transition: lap/hungarian/hungarian_steps.h's, with D moved
// to the least key outside the forest when the frontier dries up, and the lists
// handed to the next phase's clearing when a phase ends.
template <class T>
JM_HD void lap_csr_ctrl_iteration(LapCsrView<T>& p) {
  int* sc = p.sc;
  if (sc[kStatus] != kLapRunning) return;
  const bool ends = sc[kNFree] > 0;
  if (!ends && sc[kCntNext] == 0) {
    if (p.delta[0] < Num<T>::inf())
      p.delta[1] = p.delta[0];
    else if (*p.capped)
      sc[kFlagOverflow] = 1;  // the next distance exists but does not fit
  }
  lap_ctrl_iteration(p, kLapTree);
  if (ends) {
    sc[kOldTouched] = sc[kNTouched];
    sc[kOldForest] = sc[kNForest];
    sc[kNTouched] = sc[kNForest] = 0;
    *p.capped = 0;
    p.delta[1] = T(0);
  }
}

// The position of each assigned row's entry (the cheapest of duplicates);
// a row on its exit reads -1.
template <class T, class Team>
JM_HD void lap_csr_finish(const Team& team, LapCsrView<T>& p) {
  if (load_shared_scalar(&p.sc[kFlagInput])) return;
  for (int i = team.rank(); i < p.n; i += team.size()) {
    if (p.col_for_row[i] >= p.m) p.col_for_row[i] = -1;  // an exit
    const int j = p.col_for_row[i];
    int best = -1;
    for (int k = p.indptr[i]; j >= 0 && k < p.indptr[i + 1]; ++k)
      if (p.indices[k] == j && p.present(k) &&
          (best < 0 || p.cost[k] < p.cost[best]))
        best = k;
    p.edge_for_row[i] = best;
  }
}

// ------------------------------------------------------------ step order

template <class T, class Team>
JM_HD void lap_csr_init(const Team& team, LapCsrView<T>& p) {
  lap_csr_init_zero(team, p);
  team.sync();
  lap_csr_init_entries(team, p);
  team.sync();
  lap_csr_init_rows(team, p);
  team.sync();
  lap_csr_init_cols(team, p);
  team.sync();
  lap_csr_init_cols_check(team, p);
  team.sync();
  for (int round = 0; round < kLapInitRounds; ++round) {
    lap_csr_init_propose(team, p);
    team.sync();
    lap_csr_init_accept(team, p);
    team.sync();
    lap_csr_init_reset(team, p);
    team.sync();
  }
  lap_csr_init_finish(team, p);
  team.sync();
  if (team.rank() == 0) lap_csr_ctrl_init(p);
  team.sync();
}

template <class T, class Team>
JM_HD void lap_csr_iteration(const Team& team, LapCsrView<T>& p) {
  lap_csr_s1_clear(team, p);
  team.sync();
  lap_csr_s1_plant(team, p);
  team.sync();
  lap_csr_s2_keys(team, p);
  team.sync();
  lap_csr_s2_pred(team, p);
  team.sync();
  lap_csr_s2_exits(team, p);
  team.sync();
  lap_csr_s3_mark(team, p);
  team.sync();
  lap_csr_s4_augment(team, p);
  team.sync();
  if (team.rank() == 0) lap_csr_ctrl_iteration(p);
  team.sync();
}

// The whole solve of one problem.
template <class T, class Team>
JM_HD void lap_csr_solve_tree(const Team& team, LapCsrView<T>& p) {
  lap_csr_init(team, p);
  while (lap_running(p)) lap_csr_iteration(team, p);
  lap_csr_finish(team, p);
  team.sync();
}

}  // namespace jaxmatch
