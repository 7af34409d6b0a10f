// A parallel Karp-Sipser initial matching (init == kMcmInitKarpSipser),
// written once for every team, like the solver's steps (matching_steps.h).
//
// Karp and Sipser: a vertex with one free neighbour can be matched to it
// without losing a maximum matching.  The degree of a free vertex here is
// the number of its free neighbours; it is kept in the workspace while the
// initial matching is built (columns in `root`, rows in `pred`; mcm_init_bfs
// and mcm_ks_finish_rows give both arrays back to the solver).  Rounds, each
// a team step followed by a barrier and one scalar transition:
//
//   cols   every free column of degree one takes its free row (CAS on
//          rmatch); repeated while a round matched something
//   rows   every free row of degree one takes its free column (CAS on
//          cmatch); repeated likewise
//   seed   the free columns of one slice (c % kMcmKsSlices) take their free
//          row of least degree (else their first free row), then cols again
//   done   after the last slice's cols and rows
//
// Matching a column of degree one lowers only the degrees of columns (its
// one free row leaves their neighbourhoods), and a row of degree one only
// those of rows, so `cols` and `rows` each run to a fixed point without
// feeding the other.  A worker whose decrement brings a free vertex of its
// own side to degree one follows it at once (up to kMcmKsChainCap links), so
// a path is matched by one worker in one round.  On a forest the rounds
// before the first seed match a maximum matching (every match is a degree-one
// match, and a forest without degree-one vertices has no edge left).
//
// Why the result is a valid matching on every interleaving: a vertex is
// claimed only by compare-and-swap from -1 on its match slot; the worker
// that starts from a vertex first locks the vertex's own slot (CAS from -1 to
// kMcmKsLocked), so it alone writes it; in one round only one side starts
// (columns in cols and seed, rows in rows), so a lock never blocks a claim
// and no two workers hold each other's vertex.  Degrees steer the choice of
// pairs only.  Pairs found through the row CSR are checked against the
// column CSR at the end (a row CSR that is not the transpose costs pairs,
// never validity); then every free column takes its first free row (the
// cheap matching), so the result is maximal.
#pragma once

#include <climits>

#include "matching/matching_state.h"

namespace jaxmatch {

enum McmKsStage : int {
  kMcmKsCols = 0,
  kMcmKsRows = 1,
  kMcmKsSeed = 2,
  kMcmKsDone = 3
};

// A match slot held by the worker that is matching its vertex.
constexpr int kMcmKsLocked = -3;
// Seed slices (more slices: closer to the sequential heuristic, more rounds).
constexpr int kMcmKsSlices = 4;
// Links a worker follows from one start in one round.
constexpr int kMcmKsChainCap = 256;
// Rounds the stepped CUDA initialisation launches (the CPU and the fused
// kernel run them to the end); what is left is matched greedily.
constexpr int kMcmKsSteppedRounds = 64;

JM_HD int* mcm_ks_col_degree(McmView& p) { return p.root; }
JM_HD int* mcm_ks_row_degree(McmView& p) { return p.pred; }

JM_HD bool mcm_ks_active(const McmView& p) {
  return load_shared_scalar(p.sc + kMcmStatus) != kMcmBadGraph &&
         load_shared_scalar(p.sc + kMcmKsStage) != kMcmKsDone;
}

// Degrees (every vertex starts free); the row CSR validated, each worker its
// share (kMcmBadGraph as for the columns, which mcm_init_match validated
// before; the rounds run only on a valid graph).
template <class Team>
JM_HD void mcm_ks_prepare(const Team& team, McmView& p) {
  if (team.rank() == 0) {
    p.sc[kMcmKsStage] = kMcmKsCols;
    p.sc[kMcmKsMatched] = 0;
    p.sc[kMcmKsSeedSlice] = 0;
  }
  int* dc = mcm_ks_col_degree(p);
  int* dr = mcm_ks_row_degree(p);
  for (int c = team.rank(); c < p.nc; c += team.size())
    dc[c] = mcm_column_pointers_ok(p, c) ? p.cxadj[c + 1] - p.cxadj[c] : 0;
  for (int r = team.rank(); r < p.nr; r += team.size())
    dr[r] = mcm_pointers_ok(p.rxadj, p.rnnz_cap, r)
                ? p.rxadj[r + 1] - p.rxadj[r]
                : 0;
  if (!mcm_csr_share_ok(team, p.rxadj, p.radj, p.nr, p.rnnz_cap, p.nc))
    p.sc[kMcmStatus] = kMcmBadGraph;
}

// Column c was matched: its rows lose a free neighbour.  Returns the first
// free row this brought to degree one, or -1.
JM_HD int mcm_ks_drop_rows(McmView& p, int c) {
  int* dr = mcm_ks_row_degree(p);
  int next = -1;
  for (int k = p.cxadj[c]; k < p.cxadj[c + 1]; ++k) {
    const int r = p.cadj[k];
    if (atomic_add_int(dr + r, -1) == 2 && next < 0 && p.rmatch[r] == -1)
      next = r;
  }
  return next;
}

// Row r was matched: its columns lose a free neighbour.  Returns the first
// free column this brought to degree one, or -1.
JM_HD int mcm_ks_drop_cols(McmView& p, int r) {
  int* dc = mcm_ks_col_degree(p);
  int next = -1;
  for (int k = p.rxadj[r]; k < p.rxadj[r + 1]; ++k) {
    const int c = p.radj[k];
    if (atomic_add_int(dc + c, -1) == 2 && next < 0 && p.cmatch[c] == -1)
      next = c;
  }
  return next;
}

// The first free row of column c that this worker claims for it, or -1.
JM_HD int mcm_ks_claim_row(McmView& p, int c) {
  for (int k = p.cxadj[c]; k < p.cxadj[c + 1]; ++k) {
    const int r = p.cadj[k];
    if (p.rmatch[r] == -1 && atomic_cas_int(p.rmatch + r, -1, c) == -1)
      return r;
  }
  return -1;
}

// The first free column of row r that this worker claims for it, or -1.
JM_HD int mcm_ks_claim_col(McmView& p, int r) {
  for (int k = p.rxadj[r]; k < p.rxadj[r + 1]; ++k) {
    const int c = p.radj[k];
    if (p.cmatch[c] == -1 && atomic_cas_int(p.cmatch + c, -1, r) == -1)
      return c;
  }
  return -1;
}

// Round `cols` from column c: lock c, match it to its free row, and follow
// the column the match brought to degree one.  Returns whether it matched.
JM_HD int mcm_ks_col_chain(McmView& p, int c) {
  int matched = 0;
  for (int n = 0; c >= 0 && n < kMcmKsChainCap; ++n) {
    if (atomic_cas_int(p.cmatch + c, -1, kMcmKsLocked) != -1) break;
    const int r = mcm_ks_claim_row(p, c);
    p.cmatch[c] = r;  // the pair, or -1: unlocked and free
    if (r < 0) break;
    matched = 1;
    mcm_ks_drop_rows(p, c);
    c = mcm_ks_drop_cols(p, r);
  }
  return matched;
}

// Round `rows` from row r, the mirror image of mcm_ks_col_chain.
JM_HD int mcm_ks_row_chain(McmView& p, int r) {
  int matched = 0;
  for (int n = 0; r >= 0 && n < kMcmKsChainCap; ++n) {
    if (atomic_cas_int(p.rmatch + r, -1, kMcmKsLocked) != -1) break;
    const int c = mcm_ks_claim_col(p, r);
    p.rmatch[r] = c;
    if (c < 0) break;
    matched = 1;
    mcm_ks_drop_cols(p, r);
    r = mcm_ks_drop_rows(p, c);
  }
  return matched;
}

// Round `seed` for free column c: its free row of least degree (the one
// with the fewest other chances), else its first free row.
JM_HD void mcm_ks_seed(McmView& p, int c) {
  const int* dr = mcm_ks_row_degree(p);
  int best = -1, best_degree = INT_MAX;
  for (int k = p.cxadj[c]; k < p.cxadj[c + 1]; ++k) {
    const int r = p.cadj[k];
    if (p.rmatch[r] == -1 && dr[r] < best_degree) {
      best = r;
      best_degree = dr[r];
    }
  }
  if (best < 0) return;
  int r = best;
  if (atomic_cas_int(p.rmatch + r, -1, c) != -1) r = mcm_ks_claim_row(p, c);
  if (r < 0) return;
  p.cmatch[c] = r;
  mcm_ks_drop_rows(p, c);
  mcm_ks_drop_cols(p, r);
}

// One round (the stage is the same for the whole team).  Returns 1 when this
// worker matched a pair in a degree-one round.
template <class Team>
JM_HD int mcm_ks_round(const Team& team, McmView& p) {
  if (!mcm_ks_active(p)) return 0;
  const int stage = load_shared_scalar(p.sc + kMcmKsStage);
  const int* dc = mcm_ks_col_degree(p);
  const int* dr = mcm_ks_row_degree(p);
  int matched = 0;
  if (stage == kMcmKsCols) {
    for (int c = team.rank(); c < p.nc; c += team.size())
      if (p.cmatch[c] == -1 && dc[c] == 1) matched |= mcm_ks_col_chain(p, c);
  } else if (stage == kMcmKsRows) {
    for (int r = team.rank(); r < p.nr; r += team.size())
      if (p.rmatch[r] == -1 && dr[r] == 1) matched |= mcm_ks_row_chain(p, r);
  } else {
    const int slice = load_shared_scalar(p.sc + kMcmKsSeedSlice);
    for (int c = team.rank(); c < p.nc; c += team.size())
      if (c % kMcmKsSlices == slice && p.cmatch[c] == -1 && dc[c] > 0)
        mcm_ks_seed(p, c);
  }
  return matched;
}

// The transition after a round; `matched` is the team's OR of its results.
JM_HD void mcm_ctrl_ks(McmView& p, int matched) {
  int* sc = p.sc;
  if (sc[kMcmStatus] == kMcmBadGraph) {
    sc[kMcmKsStage] = kMcmKsDone;
    return;
  }
  switch (sc[kMcmKsStage]) {
    case kMcmKsCols:
      if (!matched) sc[kMcmKsStage] = kMcmKsRows;
      break;
    case kMcmKsRows:
      if (!matched)
        sc[kMcmKsStage] =
            sc[kMcmKsSeedSlice] < kMcmKsSlices ? kMcmKsSeed : kMcmKsDone;
      break;
    case kMcmKsSeed:
      sc[kMcmKsSeedSlice] += 1;
      sc[kMcmKsStage] = kMcmKsCols;
      break;
    default:
      break;
  }
}

// Pairs that are not edges of the column CSR are dropped (column side; the
// rows follow in mcm_ks_finish_rows), and every free column takes its first
// free row: the matching becomes maximal.
template <class Team>
JM_HD void mcm_ks_finish_cols(const Team& team, McmView& p) {
  if (load_shared_scalar(p.sc + kMcmStatus) == kMcmBadGraph) return;
  for (int c = team.rank(); c < p.nc; c += team.size()) {
    const int r = p.cmatch[c];
    if (r >= 0) {
      bool edge = false;
      for (int k = p.cxadj[c]; k < p.cxadj[c + 1] && !edge; ++k)
        edge = p.cadj[k] == r;
      if (edge) continue;
      p.cmatch[c] = -1;  // its row stays taken until mcm_ks_finish_rows
    }
    p.cmatch[c] = mcm_ks_claim_row(p, c);
  }
}

// Rows whose column does not name them back become free; pred is given back
// to the solver (-1, as mcm_init_clear leaves it).
template <class Team>
JM_HD void mcm_ks_finish_rows(const Team& team, McmView& p) {
  for (int r = team.rank(); r < p.nr; r += team.size()) {
    const int c = p.rmatch[r];
    if (c >= 0 && p.cmatch[c] != r) p.rmatch[r] = -1;
    p.pred[r] = -1;
  }
}

// The whole Karp-Sipser initialisation for a team with barriers (the CPU
// and the fused kernel); expects mcm_init_clear and mcm_init_match done.
template <class Team>
JM_HD void mcm_ks_init(const Team& team, McmView& p) {
  mcm_ks_prepare(team, p);
  team.sync();
  while (mcm_ks_active(p)) {
    const int matched = team.sync_or(mcm_ks_round(team, p));
    if (team.rank() == 0) mcm_ctrl_ks(p, matched);
    team.sync();
  }
  mcm_ks_finish_cols(team, p);
  team.sync();
  mcm_ks_finish_rows(team, p);
  team.sync();
}

}  // namespace jaxmatch
