// The k best assignments' problem and nodes (lap/kbest/kbest_steps.h ranks
// them): the sums' dtype, one problem's data and its check, a node's
// layout, its copy and its exclusions.  Everything here compiles for the
// device (JM_HD).
//
// The problem.  n rows, m columns, costs C [n, m] (+inf: a forbidden pair),
// row prices r [n] and column prices c [m] (finite).  With exits, the
// objective of a partial assignment x is the sum of its pairs' costs plus
// r_i for every row left unassigned plus c_j for every column left
// unassigned.  Without exits (the plain LAP, n <= m, c = 0) every row is
// assigned.  It is the square problem of the n + m rows {real rows, a dummy
// row D_j per column} over the m + n columns {real columns, an exit column
// E_i per row}: (i, j) costs C_ij, (i, E_i) r_i, (D_j, j) c_j, (D_j, E_i) 0;
// a partial assignment is one of its perfect matchings up to the pairing of
// dummy rows with exit columns.  Its duals are kept as the column prices v
// [m] with the exits' and dummies' potentials 0, so that u_i + v_j <= C_ij,
// u_i <= r_i and v_j <= c_j, tight on the pairs, on the unassigned rows
// (u_i = r_i) and on the unassigned columns (v_j = c_j): the duals of
// jaxmatch/lap/unassigned.py.  The dummy rows and exit columns joined by
// zero-cost pairs are one node of the shortest-path searches, the zone:
// entered from a row's exit (the row leaves its column) or from an
// unassigned column (which becomes assigned); left to a row at its exit
// (which takes a column) or to an assigned column's dummy (the column
// becomes unassigned).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "common/device.h"

namespace jaxmatch {

// Sums and duals of cost dtype T: double for floats, int64 for int32.
template <class T>
using KBestWide = typename std::conditional<std::is_floating_point<T>::value,
                                            double, int64_t>::type;

template <class W>
JM_HD W KBestInf() {
  if (std::is_floating_point<W>::value)
    return std::numeric_limits<W>::infinity();
  return std::numeric_limits<W>::max() / 4;
}

// x[i]: a row left unassigned (at its exit), or not yet added (the root's
// solve adds the rows one at a time).
constexpr int kKBestExit = -1;
constexpr int kKBestNone = -2;
// pred[j]: reached from the zone (through its dummy row).
constexpr int kKBestZone = -1;

// One problem's data.  With exits false, r is ignored and c is 0 (null c:
// every column price 0).  Ct: C transposed [m, n], or null; where a team
// reads a row per worker (the rows' bounds) it reads Ct when there is one.
template <class T>
struct KBestProblem {
  int n, m;
  const T* C;  // [n, m]
  const T* r;  // [n]
  const T* c;  // [m], or null
  bool exits;
  const T* Ct = nullptr;  // [m, n], or null
  JM_HD KBestWide<T> cost(int i, int j) const {
    return static_cast<KBestWide<T>>(C[static_cast<int64_t>(i) * m + j]);
  }
  JM_HD KBestWide<T> col_price(int j) const {
    return c != nullptr ? static_cast<KBestWide<T>>(c[j]) : KBestWide<T>(0);
  }
};

// Whether every cost is a number above -inf (+inf forbids a pair) and,
// with exits, every price finite; the same on every worker.
template <class T, class Team>
JM_HD bool KBestValid(const Team& team, const KBestProblem<T>& P) {
  if (!std::is_floating_point<T>::value) return true;
  const double inf = std::numeric_limits<double>::infinity();
  const int64_t len = int64_t{P.n} * P.m;
  int bad = 0;
  for (int64_t e = team.rank(); e < len; e += team.size()) {
    const double x = static_cast<double>(P.C[e]);
    if (x != x || x == -inf) bad = 1;
  }
  if (P.exits) {
    for (int i = team.rank(); i < P.n; i += team.size()) {
      const double x = static_cast<double>(P.r[i]);
      if (!(x > -inf && x < inf)) bad = 1;
    }
    for (int j = team.rank(); j < P.m; j += team.size()) {
      const double x = static_cast<double>(P.c[j]);
      if (!(x > -inf && x < inf)) bad = 1;
    }
  }
  return team.sync_or(bad) == 0;
}

// An objective in the cost dtype: false when an int32 total does not fit
// (stored as the nearer int32 extreme).
template <class T>
JM_HD bool KBestStoreCost(KBestWide<T> total, T* out) {
  if (!std::is_floating_point<T>::value) {
    const KBestWide<T> lo = std::numeric_limits<T>::min(),
                       hi = std::numeric_limits<T>::max();
    if (total < lo || total > hi) {
      *out = total < 0 ? std::numeric_limits<T>::min()
                       : std::numeric_limits<T>::max();
      return false;
    }
  }
  *out = static_cast<T>(total);
  return true;
}

// The int32 and wide entries of one node (KBestNode): x [n], y [m],
// order [n], meta [2], then the exclusions excl [m + 2]; v [m], cost.
struct KBestNodeLayout {
  int n, m;
  // The entries every child copies (all but the exclusions).
  JM_HD int64_t core() const { return 2 * int64_t{n} + int64_t{m} + 2; }
  JM_HD int64_t ints() const { return core() + int64_t{m} + 2; }
  JM_HD int64_t wides() const { return int64_t{m} + 1; }
};

// A node: its solution x [n] (column, or kKBestExit) and y [m] (row, -1),
// its column prices v [m], its rows' order [n], its active count, and the
// values its last active row may not take (when `special`): excl[0] of
// them in excl[1..], m standing for the exit; and its cost.
template <class W>
struct KBestNode {
  int* x;
  int* y;
  int* order;
  int* meta;  // [0]: active rows, [1]: exclusions present
  int* excl;
  W* v;
  W* cost;
  JM_HD int& active() const { return meta[0]; }
  JM_HD int& special() const { return meta[1]; }
};

template <class W>
JM_HD KBestNode<W> KBestNodeAt(const KBestNodeLayout& L, int* ints, W* wides,
                               int k) {
  int* b = ints + k * L.ints();
  W* w = wides + k * L.wides();
  return KBestNode<W>{
      b, b + L.n, b + L.n + L.m, b + 2 * L.n + L.m, b + L.core(), w, w + L.m};
}

// Copies a node but its exclusions.
template <class W, class Team>
JM_HD void KBestCopyNode(const Team& team, const KBestNodeLayout& L,
                         const KBestNode<W>& to, const KBestNode<W>& from) {
  const int core = static_cast<int>(L.core()),
            wides = static_cast<int>(L.wides());
  JM_UNROLL_BY(4)
  for (int k = team.rank(); k < core; k += team.size()) to.x[k] = from.x[k];
  JM_UNROLL_BY(2)
  for (int k = team.rank(); k < wides; k += team.size()) to.v[k] = from.v[k];
  team.sync();
}

// Whether value j (a column, or m: the exit) is in the exclusion list.
JM_HD bool KBestExcluded(const int* excl, int j) {
  if (excl == nullptr) return false;
  for (int e = 1; e <= excl[0]; ++e)
    if (excl[e] == j) return true;
  return false;
}

}  // namespace jaxmatch
