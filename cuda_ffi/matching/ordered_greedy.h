// The sequential greedy matching (each column, in index order, takes its
// first free row: the cheap matching of one worker) computed by a team in
// parallel rounds, init == kMcmInitGreedy; written once for every team.
//
// Why: the compare-and-swap cheap matching of many workers keeps no order,
// and leaves a share of columns free like that of a random maximal matching.
// On graphs whose numbering follows their geometry (meshes, Z-ordered points)
// the sequential greedy's free columns are few and sit next to free rows, so
// a solve from it runs a few short phases (docs/matching.md).
//
// Column c's choice is final once the row r it points at (its first row not
// taken) has no undecided column of lower index among its neighbours: no
// column before c can take r any more.  A round:
//
//   look    each undecided column of the window moves its pointer past the
//           taken rows (a column with none left is decided, unmatched),
//           then reads its row's lowest undecided neighbour through the row
//           CSR; it is a candidate when there is none below it
//   claim   (after a barrier) each candidate takes its row
//           (compare-and-swap), and is decided
//
// The window is [lo, lo + slots x workers), lo the lowest undecided column;
// columns below it are decided.  The lowest undecided column is always a
// candidate, so every round decides at least one column.  With a row CSR
// that is the transpose of the column CSR the candidates of one round have
// distinct rows and the result is the sequential greedy's, whatever the
// interleaving; with any other row CSR the compare-and-swap still keeps one
// column per row, so the result is a valid matching.  The rounds stop when
// they decide too few columns: after kMcmOgMinRounds, once lo falls below
// kMcmOgMinRate columns per round (a band matrix or a path is a chain of n
// dependent choices, one a round; spatially numbered meshes decide 40 or
// more a round); the columns still undecided then take their first free
// row by compare-and-swap, as in the cheap matching, so the result is
// maximal.
//
// Races that are harmless: a column's "decided" state (pointer -1) never
// reverts; a look reads it for neighbours of a free row only, and a column
// next to a free row cannot run out of rows in the same look.  Each row
// keeps a position in its list before which every column is decided; any
// worker's store of it is such a position.
#pragma once

#include <climits>

#include "matching/matching_state.h"

namespace jaxmatch {

// Window columns per worker.
constexpr int kMcmOgSlots = 8;
// The rounds go on while lo >= kMcmOgMinRate * rounds, or for the first
// kMcmOgMinRounds.
constexpr int kMcmOgMinRounds = 4096;
constexpr int kMcmOgMinRate = 4;

// Per column: the entry of its current row, -1 once decided (`bfs`, given
// back by mcm_init_bfs), and its last look (`root`, likewise).
// Per row: the position in its list (`pred`, given back as -1 by
// mcm_og_finish).
JM_HD int* mcm_og_col_entry(McmView& p) { return p.bfs; }
JM_HD int* mcm_og_row_entry(McmView& p) { return p.pred; }

// Pointers; the row CSR validated, each worker its share (the column CSR
// was validated by mcm_init_match).
template <class Team>
JM_HD void mcm_og_prepare(const Team& team, McmView& p) {
  int* ce = mcm_og_col_entry(p);
  int* re = mcm_og_row_entry(p);
  for (int c = team.rank(); c < p.nc; c += team.size()) {
    const bool live = p.cmatch[c] == -1 && mcm_column_pointers_ok(p, c) &&
                      p.cxadj[c] < p.cxadj[c + 1];
    ce[c] = live ? p.cxadj[c] : -1;
    p.root[c] = -1;
  }
  for (int r = team.rank(); r < p.nr; r += team.size())
    re[r] = mcm_pointers_ok(p.rxadj, p.rnnz_cap, r) ? p.rxadj[r] : 0;
  if (!mcm_csr_share_ok(team, p.rxadj, p.radj, p.nr, p.rnnz_cap, p.nc))
    p.sc[kMcmStatus] = kMcmBadGraph;
}

// Look: column c's candidate row (>= 0), or -1 (decided), or -(b + 2)
// when column b < c, undecided, is the lowest neighbour of its row.  A
// column blocked by b stays blocked while b is undecided (only b can take
// the row then), so its next look reads b's state and nothing else.
JM_HD int mcm_og_look(McmView& p, int c) {
  int* ce = mcm_og_col_entry(p);
  int* re = mcm_og_row_entry(p);
  int k = ce[c];
  if (k < 0) return -1;
  const int before = p.root[c];
  if (before <= -2 && ce[-2 - before] >= 0) return before;
  const int end = p.cxadj[c + 1];
  while (k < end && p.rmatch[p.cadj[k]] != -1) ++k;
  if (k == end) {
    ce[c] = -1;
    return -1;
  }
  ce[c] = k;
  const int r = p.cadj[k];
  int j = re[r];
  const int rend = p.rxadj[r + 1];
  while (j < rend && ce[p.radj[j]] < 0) ++j;
  re[r] = j;
  const int lowest = j < rend ? p.radj[j] : INT_MAX;
  return lowest >= c ? r : -2 - lowest;
}

// Claim: column c takes row r if it is still free.
JM_HD void mcm_og_claim(McmView& p, int c, int r) {
  if (atomic_cas_int(p.rmatch + r, -1, c) == -1) {
    p.cmatch[c] = r;
    mcm_og_col_entry(p)[c] = -1;
  }
}

// The undecided columns take their first free row (compare-and-swap); the
// row positions are given back.
template <class Team>
JM_HD void mcm_og_finish(const Team& team, McmView& p) {
  int* ce = mcm_og_col_entry(p);
  for (int c = team.rank(); c < p.nc; c += team.size()) {
    if (ce[c] < 0) continue;
    for (int k = ce[c]; k < p.cxadj[c + 1]; ++k) {
      const int r = p.cadj[k];
      if (p.rmatch[r] == -1 && atomic_cas_int(p.rmatch + r, -1, c) == -1) {
        p.cmatch[c] = r;
        break;
      }
    }
  }
  for (int r = team.rank(); r < p.nr; r += team.size()) p.pred[r] = -1;
}

// The whole ordered greedy matching for a team with barriers and all_min
// (one worker skips the rounds: its mcm_og_finish is the sequential loop).
// Expects mcm_init_clear and mcm_init_match done; returns the rounds run.
template <class Team>
JM_HD int mcm_og_init(const Team& team, McmView& p) {
  mcm_og_prepare(team, p);
  team.sync();
  if (load_shared_scalar(p.sc + kMcmStatus) == kMcmBadGraph) return 0;
  const int window = kMcmOgSlots * team.size();
  int lo = 0;
  int rounds = 0;
  while (team.size() > 1 && lo < p.nc &&
         (rounds < kMcmOgMinRounds || lo >= kMcmOgMinRate * rounds)) {
    ++rounds;
    int* candidate = p.root;  // given back by mcm_init_bfs
    for (int s = 0; s < kMcmOgSlots; ++s) {
      const int c = lo + team.rank() + s * team.size();
      if (c < p.nc) candidate[c] = mcm_og_look(p, c);
    }
    team.sync();
    int next = INT_MAX;
    for (int s = 0; s < kMcmOgSlots; ++s) {
      const int c = lo + team.rank() + s * team.size();
      if (c >= p.nc) break;
      if (candidate[c] >= 0) mcm_og_claim(p, c, candidate[c]);
      if (mcm_og_col_entry(p)[c] >= 0 && c < next) next = c;
    }
    next = team.all_min(next);
    lo = next != INT_MAX ? next : lo > p.nc - window ? p.nc : lo + window;
  }
  team.sync();
  mcm_og_finish(team, p);
  team.sync();
  return rounds;
}

}  // namespace jaxmatch
