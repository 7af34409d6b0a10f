// One LAP split over devices by rows (jaxmatch.solve_lap_split): the two
// steps of an iteration of the alternating forest, written once for every
// back end.  Each device holds a block of `nl` rows of the cost matrix;
// between the steps the devices exchange their column minima (XLA's
// all-gather, jaxmatch/lap/split.py).
//
//   scan    the least  c_ij - u_i + D_i  per column j over this device's
//           pending rows i (those that joined the forest last), with the
//           least row attaining it;
//   update  the devices' minima folded into the column keys; the total dual
//           change D raised to the least slack outside the forest; the
//           columns that become tight join it, and their rows (this
//           device's) become the next pending rows.  When a tight column is
//           free, the phase ends: the duals are settled, one augmenting path
//           per tree is flipped (trees are vertex-disjoint), float duals of
//           this device's matched rows are re-tightened from their costs,
//           and a new phase starts from every free row.
//
// The column state (keys, predecessors, prices, the matching) and the
// matching of rows are replicated: every device runs `update` on the same
// gathered minima, so they stay equal without more communication.  The row
// state (u, D_i, tree flags, the pending list) is this device's only.  A
// column's predecessor is the least row reaching its least key, so the
// result does not depend on the number of devices.
#pragma once

#include "lap/common/lap_state.h"

namespace jaxmatch {

// The int32 `info` vector of a split solve (one per device).
enum LapSplitInfo : int {
  kSplitStatus = 0,  // LapStatus; equal on every device
  kSplitIters = 1,   // iterations so far; equal on every device
  kSplitCount = 2,   // pending rows of this device (the head of `plist`)
  kSplitRow0 = 3,    // this device's first row
  // Scratch of a back end that runs the update in several passes (CUDA:
  // lap/split/split_kernels.cu), 0 between iterations: the least slack's
  // complemented sortable word (a 64-bit word in slots 4-5, 8-byte
  // aligned), and whether a free column became tight.
  kSplitLeast = 4,
  kSplitEnd = 6,
  kSplitInfoLen = 8,
};

// One device's part of a split solve.  Columns: m; rows: nl here, n_pad in
// all (n real, the rest padding of the last block); `parts` devices.
template <class T>
struct LapSplitView {
  int m, nl, n_pad, n, parts, max_iterations;
  const T* C;       // [nl, m] this device's rows
  const T* bests;   // [parts, m] each device's column minima (scan)
  const int* args;  // [parts, m] their rows (global; n_pad: none)
  T* key;           // [m] least c_ij - u_i + D_i over the forest's rows
  T* col_D;         // [m] D when the column joined the forest
  T* v;             // [m] column duals
  T* u;             // [nl] row duals
  T* row_D;         // [nl] D when the row joined the forest
  T* D;             // [1] the phase's total dual change
  int* parent;      // [m] the row reaching key[j]
  int* col_tree;    // [m] 1: in the forest
  int* rfc;         // [m] row of each column, -1 free
  int* root;        // [m] scratch: the root of an end column's tree
  int* cfr;         // [n_pad] column of each row, -1 free
  int* winner;      // [n_pad] scratch: a root's chosen end (INT_MAX: none)
  int* row_tree;    // [nl] 1: in the forest
  int* plist;       // [nl] pending rows (local indices), info[kSplitCount]
  int* info;        // [kSplitInfoLen]

  JM_HD T c(int r, int j) const {
    return C[static_cast<std::size_t>(r) * m + j];
  }
};

// Unsigned words ordered like the values of T (negative ones included), and
// back: team reductions of words then reduce values of any cost dtype.
JM_HD unsigned long long split_sortable(float x) {
  const unsigned b = static_cast<unsigned>(ordered_bits(x));
  return (b & 0x80000000u) ? static_cast<unsigned>(~b) : (b | 0x80000000u);
}
JM_HD unsigned long long split_sortable(double x) {
  const unsigned long long b = ordered_bits(x);
  return (b >> 63) ? ~b : (b | (1ull << 63));
}
JM_HD unsigned long long split_sortable(int x) {
  return static_cast<unsigned>(x) ^ 0x80000000u;
}
template <class T>
JM_HD T split_unsortable(unsigned long long w) {
  if constexpr (Num<T>::kIsInteger) {
    return static_cast<T>(static_cast<unsigned>(w) ^ 0x80000000u);
  } else if constexpr (sizeof(T) == 4) {
    const unsigned b = static_cast<unsigned>(w);
    return from_ordered_bits<T>((b & 0x80000000u) ? (b & 0x7fffffffu) : ~b);
  } else {
    return from_ordered_bits<T>((w >> 63) ? (w & ~(1ull << 63)) : ~w);
  }
}

// scan: the candidate of pending local row r for column j, and its fold into
// a column's running minimum (*best, *arg): the least value, then the least
// row, so the result does not depend on the order of the rows.
template <class T>
JM_HD T split_scan_value(const T* C, int m, const T* u, const T* row_D, int r,
                         int j) {
  return C[static_cast<std::size_t>(r) * m + j] - (u[r] - row_D[r]);
}
template <class T>
JM_HD void split_scan_fold(T val, int r, T* best, int* arg) {
  if (val < *best || (val == *best && r < *arg)) {
    *best = val;
    *arg = r;
  }
}

// The row of global index i on this device, or -1.
template <class T>
JM_HD int split_local_row(const LapSplitView<T>& p, int i) {
  const int il = i - p.info[kSplitRow0];
  return il >= 0 && il < p.nl ? il : -1;
}

// Appends local row il to the pending list.
template <class T>
JM_HD void split_push(LapSplitView<T>& p, int il) {
  p.plist[atomic_add_int(p.info + kSplitCount, 1)] = il;
}

// The end of a phase: settled duals, one flipped path per tree, float duals
// re-tightened, a new forest from every free row.  Returns whether a free
// real row is left (anywhere).
template <class T, class Team>
JM_HD bool split_augment(const Team& team, LapSplitView<T>& p, T D) {
  const int row0 = p.info[kSplitRow0];
  for (int il = team.rank(); il < p.nl; il += team.size())
    if (p.row_tree[il]) p.u[il] += D - p.row_D[il];
  for (int j = team.rank(); j < p.m; j += team.size()) {
    if (!p.col_tree[j]) continue;
    p.v[j] -= D - p.col_D[j];
    if (p.rfc[j] >= 0) continue;  // a free column in the forest: an end
    int col = j;
    for (;;) {
      const int row = p.parent[col];
      const int next = p.cfr[row];
      if (next < 0) {
        p.root[j] = row;
        break;
      }
      col = next;
    }
    atomic_min_int(p.winner + p.root[j], j);
  }
  team.sync();
  // Each tree's least end flips its path; paths of different trees share
  // no vertex, and only a path's own end is free, so flips never collide.
  for (int j = team.rank(); j < p.m; j += team.size()) {
    if (!p.col_tree[j] || p.rfc[j] >= 0 || p.winner[p.root[j]] != j) continue;
    int col = j;
    for (;;) {
      const int row = p.parent[col];
      const int next = p.cfr[row];
      p.rfc[col] = row;
      p.cfr[row] = col;
      if (next < 0) break;
      col = next;
    }
  }
  team.sync();
  if constexpr (!Num<T>::kIsInteger) {
    // Float duals: u_i + v_j == c_ij exactly on the matched pairs, from one
    // subtraction rather than a phase's accumulated roundings.
    for (int il = team.rank(); il < p.nl; il += team.size()) {
      const int col = p.cfr[row0 + il];
      if (col >= 0) p.u[il] = p.c(il, col) - p.v[col];
    }
  }
  for (int j = team.rank(); j < p.m; j += team.size()) {
    p.key[j] = Num<T>::inf();
    p.parent[j] = p.n_pad;
    p.col_tree[j] = 0;
    p.col_D[j] = T(0);
  }
  for (int i = team.rank(); i < p.n_pad; i += team.size())
    p.winner[i] = INT_MAX;
  if (team.rank() == 0) p.info[kSplitCount] = 0;
  team.sync();
  int free_left = 0;
  for (int i = team.rank(); i < p.n; i += team.size())
    if (p.cfr[i] < 0) free_left = 1;
  for (int il = team.rank(); il < p.nl; il += team.size()) {
    const bool free_row = row0 + il < p.n && p.cfr[row0 + il] < 0;
    p.row_tree[il] = free_row;
    p.row_D[il] = T(0);
    if (free_row) split_push(p, il);
  }
  return team.sync_or(free_left) != 0;
}

// update, in three parts (see the top of the file).  A back end runs `fold`
// on every column, then `join` on every column with the D it implies, then
// `finish` once; split_update below is the sequence for one team.
//
// fold, for column j: the devices' minima into key[j] and parent[j];
// returns the complemented sortable word of the column's slack key_j - v_j
// when it is outside the forest with a finite key, else 0 (the least slack
// is the largest word; 0 overall: no column can join, the problem is
// infeasible).
template <class T>
JM_HD unsigned long long split_fold_column(LapSplitView<T>& p, int j) {
  if (p.col_tree[j]) return 0;
  T b = p.bests[j];
  int a = p.args[j];
  for (int d = 1; d < p.parts; ++d) {
    const std::size_t k = static_cast<std::size_t>(d) * p.m + j;
    split_scan_fold(p.bests[k], p.args[k], &b, &a);
  }
  T key = p.key[j];
  if (b < key) {
    key = b;
    p.key[j] = b;
    p.parent[j] = a;
  }
  return key < Num<T>::inf() ? ~split_sortable(key - p.v[j]) : 0;
}

// The phase's total dual change after this iteration: the least slack
// (largest word `least_word`, nonzero) when it is above D0.
template <class T>
JM_HD T split_raised_D(T D0, unsigned long long least_word) {
  const T least = split_unsortable<T>(~least_word);
  return least > D0 ? least : D0;
}

// join, for column j: a tight column outside the forest joins it at D, and
// its matched row, if on this device, the pending list (whose count fold's
// caller has reset).  Returns 1 when the column is free (the phase ends).
template <class T>
JM_HD int split_join_column(LapSplitView<T>& p, int j, T D) {
  if (p.col_tree[j] || !(p.key[j] < Num<T>::inf()) || !(p.key[j] - p.v[j] <= D))
    return 0;
  p.col_tree[j] = 1;
  p.col_D[j] = D;
  const int i = p.rfc[j];
  if (i < 0) return 1;
  const int il = split_local_row(p, i);
  if (il >= 0) {
    p.row_tree[il] = 1;
    p.row_D[il] = D;
    split_push(p, il);
  }
  return 0;
}

// finish: at a phase end the augmentation (split_augment), then D, the
// iteration count and the status.
template <class T, class Team>
JM_HD void split_finish(const Team& team, LapSplitView<T>& p, T D,
                        bool infeasible, bool phase_end) {
  bool free_left = true;
  if (phase_end) free_left = split_augment(team, p, D);
  if (team.rank() == 0) {
    *p.D = phase_end ? T(0) : D;
    const int iters = p.info[kSplitIters] + 1;
    p.info[kSplitIters] = iters;
    int status = kLapRunning;
    if (infeasible)
      status = kLapInfeasible;
    else if (!free_left)
      status = kLapOptimal;
    else if (iters >= p.max_iterations)
      status = kLapIterationLimit;
    p.info[kSplitStatus] = status;
  }
}

// update: one iteration after the scans, by one team.  A no-op once the
// status is no longer running.
template <class T, class Team>
JM_HD void split_update(const Team& team, LapSplitView<T>& p) {
  if (load_shared_scalar(p.info + kSplitStatus) != kLapRunning) return;
  unsigned long long least_word = 0;
  for (int j = team.rank(); j < p.m; j += team.size()) {
    const unsigned long long w = split_fold_column(p, j);
    if (w > least_word) least_word = w;
  }
  if (team.rank() == 0) p.info[kSplitCount] = 0;
  least_word = team.all_max(least_word);  // a barrier
  const bool infeasible = least_word == 0;
  const T D = infeasible ? *p.D : split_raised_D(*p.D, least_word);
  int end = 0;
  for (int j = team.rank(); j < p.m && !infeasible; j += team.size())
    end |= split_join_column(p, j, D);
  const bool phase_end = team.sync_or(end) != 0;
  split_finish(team, p, D, infeasible, phase_end);
}

}  // namespace jaxmatch
