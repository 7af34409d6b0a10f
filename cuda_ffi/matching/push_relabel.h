// Push-relabel maximum-cardinality matching on GPUs (G-PR: Deveci, Kaya,
// Ucar, Catalyurek, ICPP 2013), written once for every back end like the
// augmenting-path steps (matching_steps.h): each step is a function of a
// Team and an McmView, steps are separated by team-wide barriers, and
// `mcm_pr_ctrl_*` run on one worker and own the scalar transitions.
//
// Labels psi (psi_r = p.pred for rows, psi_c = p.bfs for columns) are lower
// bounds on the length of an alternating path to a free row; inf = n_rows +
// n_cols means "no such path".  The loop (the paper's Algorithm 7):
//
//   start:                 A_0 = A_1 = the free columns, ia = -1
//   relabel init, levels:  when loop == next_relabel (G-GR): exact labels by
//                          a BFS from the free rows, one level per step;
//                          next_relabel = loop + ceil(0.7 maxLevel); a
//                          relabel that reaches no free column -> fix
//   list:                  G-PR-INITKRNL (roll back lost pushes, mark the
//                          active columns ia[c] = loop); none left -> restart
//   shrink (after a relabel, with >= 512 slots; G-PR-SHRKRNL): the active
//                          slots of A_c compacted, in two steps (to A_p and
//                          back), so the pushes run over fewer slots
//   push:                  G-PR-PUSHKRNL over the active columns; loop += 1
//   restart:               the lists rebuilt from every free column (retired
//                          ones too), then a relabel
//   fix:                   FixMatching; status MAXIMUM (or PHASE_LIMIT when
//                          max_phases push iterations ran first)
//
// So a solve ends (MAXIMUM) only after a global relabel, an exact BFS from
// the free rows, reached no free column: no augmenting path is left (Berge),
// whatever the races did to the labels.  In the paper the loop ends when the
// list runs empty; here that triggers the restart, whose relabel certifies
// the end (it costs one relabel per solve when the labels were right).
//
// In iteration `loop` the current list is A_c = A_{loop & 1} and the
// previous one A_p = A_{(loop + 1) & 1}: swapping the two is the parity.
// The pushes race with plain loads and stores, as in the paper (no atomics,
// no locks); docs/matching.md argues why every interleaving ends with a
// valid maximum matching.
#pragma once

#include "matching/matching_state.h"

namespace jaxmatch {

// The label of "unreachable": n_rows + n_cols.
JM_HD int mcm_pr_inf(const McmView& p) { return p.nr + p.nc; }

// The current (A_c) and previous (A_p) active-column lists of iteration
// `loop`.
JM_HD int* mcm_pr_list_cur(const McmView& p, int loop) {
  return (loop & 1) ? p.root : p.queue;
}
JM_HD int* mcm_pr_list_prev(const McmView& p, int loop) {
  return (loop & 1) ? p.queue : p.root;
}

// ------------------------------------------------------------ global relabel
// INITRELABEL: free rows 0, every other vertex inf.  A row counts as
// matched only when its column names it back: the relabel's BFS then runs
// on exactly the pairs FixMatching keeps (rows are consistent at every step
// boundary anyway; checking costs one load and makes the end's certificate
// independent of that argument).
template <class Team>
JM_HD void mcm_pr_relabel_init(const Team& team, McmView& p) {
  const int inf = mcm_pr_inf(p);
  for (int c = team.rank(); c < p.nc; c += team.size()) p.bfs[c] = inf;
  for (int r = team.rank(); r < p.nr; r += team.size()) {
    const int c = p.rmatch[r];
    p.pred[r] = (c < 0 || p.cmatch[c] != r) ? 0 : inf;
  }
}

// One level of the relabel BFS (G-GR-KRNL), read from the columns' side
// (only the column CSR is passed to a step): every unvisited column with a
// row of label `level` gets level + 1, and its matched row level + 2.  Each
// column writes its own label and its own row's, so the level has no races
// whose outcome matters (a row written here is at level + 2, never read as
// `level`).  Returns kMcmFlagPrAdded when a column was visited, and
// kMcmFlagPrFree when a visited column is free (an augmenting path is left).
constexpr int kMcmFlagPrAdded = 1;
constexpr int kMcmFlagPrFree = 2;

// Whether column v (>= 0) is matched: it names a row that names it back.
JM_HD bool mcm_pr_matched(const McmView& p, int v) {
  const int u = p.cmatch[v];
  return u >= 0 && p.rmatch[u] == v;
}

template <class Team>
JM_HD int mcm_pr_relabel_level(const Team& team, McmView& p) {
  const int inf = mcm_pr_inf(p);
  const int level = load_shared_scalar(p.sc + kMcmLevel);
  int flags = 0;
  for (int c = team.rank(); c < p.nc; c += team.size()) {
    if (p.bfs[c] != inf) continue;
    bool reached = false;
    for (int k = p.cxadj[c]; k < p.cxadj[c + 1] && !reached; ++k)
      reached = p.pred[p.cadj[k]] == level;
    if (!reached) continue;
    p.bfs[c] = level + 1;
    const int r = p.cmatch[c];
    if (r >= 0 && p.rmatch[r] == c)
      p.pred[r] = level + 2;
    else
      flags |= kMcmFlagPrFree;
    flags |= kMcmFlagPrAdded;
  }
  return flags;
}

// ------------------------------------------------------------ active lists
// The start (before the first relabel init): both lists hold the columns the
// initial matching left free (mcm_init_bfs queued them in queue[0, slots)),
// and no column is marked active yet.
template <class Team>
JM_HD void mcm_pr_start(const Team& team, McmView& p) {
  const int slots = load_shared_scalar(p.sc + kMcmInitialFree);
  for (int i = team.rank(); i < slots; i += team.size()) p.root[i] = p.queue[i];
  for (int c = team.rank(); c < p.nc; c += team.size()) p.ia[c] = -1;
}

// The restart (when the list ran empty): every free column, a retired one
// too (cmatch -2 becomes -1), is queued in A_p of the current iteration,
// whose list step then makes each active.  Expects sc[kMcmQTail] == 0; the
// transition takes the new slot count from it.
template <class Team>
JM_HD void mcm_pr_restart(const Team& team, McmView& p) {
  const int loop = load_shared_scalar(p.sc + kMcmNPhases);
  int* prev = mcm_pr_list_prev(p, loop);
  for (int c = team.rank(); c < p.nc; c += team.size()) {
    if (mcm_pr_matched(p, c)) continue;
    p.cmatch[c] = -1;
    prev[atomic_add_int(p.sc + kMcmQTail, 1)] = c;
  }
}

// G-PR-INITKRNL.  Slot i of A_p holds the column the slot pushed in the last
// iteration; A_c (written by that push) the column its push dislodged, or -1.
// If the push did not hold (another column took the row, or the push was
// skipped), the slot's column is active again and replaces the dislodged one
// (which the winner's slot lists).  Every column left in A_c is marked
// ia[c] = loop.  Returns kMcmFlagPrAdded when some slot is active.
template <class Team>
JM_HD int mcm_pr_list(const Team& team, McmView& p) {
  const int loop = load_shared_scalar(p.sc + kMcmNPhases);
  const int slots = load_shared_scalar(p.sc + kMcmInitialFree);
  int* cur = mcm_pr_list_cur(p, loop);
  const int* prev = mcm_pr_list_prev(p, loop);
  int flags = 0;
  for (int i = team.rank(); i < slots; i += team.size()) {
    const int v = prev[i];
    if (v < 0) continue;
    int a = v;
    if (mcm_pr_matched(p, v))
      a = cur[i];  // the push held
    else
      cur[i] = v;  // roll back
    if (a >= 0) {
      p.ia[a] = loop;
      flags |= kMcmFlagPrAdded;
    }
  }
  return flags;
}

// ------------------------------------------------------------ shrink
// G-PR-SHRKRNL, after a list step: the active columns of A_c (every slot's
// column is marked active, or the slot is -1) are appended to A_p, which the
// push would overwrite anyway, with an atomic counter (the paper uses a
// prefix sum; the order of the slots does not matter).  Expects
// sc[kMcmQTail] == 0.
template <class Team>
JM_HD void mcm_pr_shrink(const Team& team, McmView& p) {
  const int loop = load_shared_scalar(p.sc + kMcmNPhases);
  const int slots = load_shared_scalar(p.sc + kMcmInitialFree);
  const int* cur = mcm_pr_list_cur(p, loop);
  int* prev = mcm_pr_list_prev(p, loop);
  for (int i = team.rank(); i < slots; i += team.size()) {
    const int a = cur[i];
    if (a >= 0) prev[atomic_add_int(p.sc + kMcmQTail, 1)] = a;
  }
}

// ... and back: A_c[0, k) = A_p[0, k) for the k active columns (the next
// transition makes k the slot count).
template <class Team>
JM_HD void mcm_pr_shrunk(const Team& team, McmView& p) {
  const int loop = load_shared_scalar(p.sc + kMcmNPhases);
  const int k = load_shared_scalar(p.sc + kMcmQTail);
  int* cur = mcm_pr_list_cur(p, loop);
  const int* prev = mcm_pr_list_prev(p, loop);
  for (int j = team.rank(); j < k; j += team.size()) cur[j] = prev[j];
}

// ------------------------------------------------------------ push
// G-PR-PUSHKRNL, one worker per slot of A_c.  The active column v finds its
// neighbouring row u of least label (stopping at psi_c[v] - 1, the least a
// valid labelling allows).  psi_min >= inf: v is unmatchable and retires
// (cmatch[v] = -2, the slot empties).  Else, unless u's column w is itself
// active in this iteration (it pushed to u in this very iteration: v waits
// and is rolled back), v takes u (a single push when u was free, a double
// push dislodging w, which the slot lists in A_p for the next iteration) and
// the labels rise: psi_c[v] = psi_min + 1, psi_r[u] = psi_min + 2.
template <class Team>
JM_HD void mcm_pr_push(const Team& team, McmView& p) {
  const int inf = mcm_pr_inf(p);
  const int loop = load_shared_scalar(p.sc + kMcmNPhases);
  const int slots = load_shared_scalar(p.sc + kMcmInitialFree);
  int* cur = mcm_pr_list_cur(p, loop);
  int* prev = mcm_pr_list_prev(p, loop);
  for (int i = team.rank(); i < slots; i += team.size()) {
    const int v = cur[i];
    if (v < 0) {
      prev[i] = -1;
      continue;
    }
    const int floor = p.bfs[v] - 1;
    int psi_min = inf, u = -1;
    for (int k = p.cxadj[v]; k < p.cxadj[v + 1]; ++k) {
      const int r = p.cadj[k];
      const int psi = p.pred[r];
      if (psi < psi_min) {
        psi_min = psi;
        u = r;
        if (psi_min <= floor) break;
      }
    }
    if (psi_min >= inf) {
      p.cmatch[v] = -2;
      cur[i] = -1;
      prev[i] = -1;
      continue;
    }
    const int w = p.rmatch[u];
    if (w >= 0 && p.ia[w] == loop) continue;  // rolled back next iteration
    p.rmatch[u] = v;
    p.cmatch[v] = u;
    p.bfs[v] = psi_min + 1;
    p.pred[u] = psi_min + 2;
    prev[i] = w;
  }
}

// ------------------------------------------------------------ fix
// FixMatching on both sides: a column that does not name a row naming it back
// (retired -2, or its push lost) becomes free, and so would such a row (none
// is left at this point; the check is free).  Consistent pairs are written
// by neither loop, so the two loops may run side by side.
template <class Team>
JM_HD void mcm_pr_fix(const Team& team, McmView& p) {
  for (int c = team.rank(); c < p.nc; c += team.size())
    if (!mcm_pr_matched(p, c)) p.cmatch[c] = -1;
  for (int r = team.rank(); r < p.nr; r += team.size()) {
    const int c = p.rmatch[r];
    if (c >= 0 && p.cmatch[c] != r) p.rmatch[r] = -1;
  }
}

// ------------------------------------------------------------ control
// After the start: the first relabel's levels (the start step also ran the
// relabel init).
JM_HD void mcm_pr_ctrl_begin_relabel(McmView& p) {
  p.sc[kMcmLevel] = 0;
  p.sc[kMcmFound] = 0;
  p.sc[kMcmPhaseSlot] = kMcmPrRelabelPhase;
}

// After the start step: the schedule's scalars (kMcmNPhases and kMcmNLevels
// are 0 after the initialisation; the limit flag's slot held a Karp-Sipser
// stage, the queue's tail the initial free columns), then the first
// relabel's levels.
JM_HD void mcm_pr_ctrl_start(McmView& p) {
  p.sc[kMcmPrLimit] = 0;
  p.sc[kMcmPrShrinkDue] = 0;
  p.sc[kMcmPrNextRelabel] = 0;
  p.sc[kMcmQTail] = 0;  // for the restarts
  mcm_pr_ctrl_begin_relabel(p);
}

// After the restart: its slots, then the relabel.
JM_HD void mcm_pr_ctrl_restart(McmView& p) {
  p.sc[kMcmInitialFree] = load_shared_scalar(p.sc + kMcmQTail);
  p.sc[kMcmQTail] = 0;
  mcm_pr_ctrl_begin_relabel(p);
}

// After the start, a restart or a relabel init (`phase`: which ran).
JM_HD void mcm_pr_ctrl_relabel_init(McmView& p, int phase) {
  if (phase == kMcmBfsPhase)
    mcm_pr_ctrl_start(p);
  else if (phase == kMcmPrRestartPhase)
    mcm_pr_ctrl_restart(p);
  else
    mcm_pr_ctrl_begin_relabel(p);
}

// After a relabel level; `flags` is the team's OR of its results.  The BFS
// ends at the first level that visits no column: if it reached no free
// column the matching is maximum (fix); else maxLevel is that level, and the
// next relabel comes ceil(0.7 maxLevel) iterations on (at least 1).
JM_HD void mcm_pr_ctrl_relabel(McmView& p, int flags) {
  int* sc = p.sc;
  sc[kMcmNLevels] += 1;
  if (flags & kMcmFlagPrFree) sc[kMcmFound] = 1;
  if (flags & kMcmFlagPrAdded) {
    sc[kMcmLevel] += 2;
    return;
  }
  const long long max_level = sc[kMcmLevel];
  long long gap =
      (kMcmPrRelabelNum * max_level + kMcmPrRelabelDen - 1) / kMcmPrRelabelDen;
  if (gap < 1) gap = 1;
  const long long next = sc[kMcmNPhases] + gap;
  sc[kMcmPrMaxLevel] = static_cast<int>(max_level);
  sc[kMcmPrNextRelabel] =
      next < 0x7fffffff ? static_cast<int>(next) : 0x7fffffff;
  sc[kMcmPhaseSlot] = sc[kMcmFound] ? kMcmPrListPhase : kMcmPrFixPhase;
  sc[kMcmPrShrinkDue] = 1;
}

// After the list step: push when a column is active, else restart.
// The first list step after a relabel shrinks the lists when they are long.
JM_HD void mcm_pr_ctrl_list(McmView& p, int flags) {
  int* sc = p.sc;
  const bool shrink =
      sc[kMcmPrShrinkDue] && sc[kMcmInitialFree] >= kMcmPrShrinkMinSlots;
  sc[kMcmPrShrinkDue] = 0;
  if (!(flags & kMcmFlagPrAdded))
    sc[kMcmPhaseSlot] = kMcmPrRestartPhase;
  else
    sc[kMcmPhaseSlot] = shrink ? kMcmPrShrinkPhase : kMcmPrPushPhase;
}

// After the two shrink steps: the compacted slot count, then the push.
JM_HD void mcm_pr_ctrl_shrink(McmView& p) {
  p.sc[kMcmPhaseSlot] = kMcmPrShrunkPhase;
}
JM_HD void mcm_pr_ctrl_shrunk(McmView& p) {
  p.sc[kMcmInitialFree] = load_shared_scalar(p.sc + kMcmQTail);
  p.sc[kMcmQTail] = 0;
  p.sc[kMcmPhaseSlot] = kMcmPrPushPhase;
}

// After a push: the next iteration, a relabel first when it is due; the fix
// (status PHASE_LIMIT) once max_phases iterations ran.
JM_HD void mcm_pr_ctrl_push(McmView& p, const McmOptions& o) {
  int* sc = p.sc;
  sc[kMcmNPhases] += 1;
  if (sc[kMcmNPhases] >= o.max_phases) {
    sc[kMcmPrLimit] = 1;
    sc[kMcmPhaseSlot] = kMcmPrFixPhase;
  } else if (sc[kMcmNPhases] >= sc[kMcmPrNextRelabel]) {
    sc[kMcmPhaseSlot] = kMcmPrRelabelInitPhase;
  } else {
    sc[kMcmPhaseSlot] = kMcmPrListPhase;
  }
}

JM_HD void mcm_pr_ctrl_fix(McmView& p) {
  p.sc[kMcmStatus] = p.sc[kMcmPrLimit] ? kMcmPhaseLimit : kMcmDone;
}

// ------------------------------------------------------------ one step
// Runs the step of the current phase and its transition: the fused loop's
// body and the serial stepped call's unit.  Returns whether the step was a
// push or a relabel level (what a stepped call's budget counts).  Every
// worker must call it; the phase is read by all before rank 0 changes it.
template <class Team>
JM_HD bool mcm_pr_step(const Team& team, McmView& p, const McmOptions& o) {
  const int phase = mcm_phase(p);
  team.sync();  // every worker has read the phase
  bool counted = false;
  if (phase == kMcmBfsPhase || phase == kMcmPrRelabelInitPhase ||
      phase == kMcmPrRestartPhase) {
    if (phase == kMcmBfsPhase) mcm_pr_start(team, p);
    if (phase == kMcmPrRestartPhase) mcm_pr_restart(team, p);
    mcm_pr_relabel_init(team, p);
    team.sync();
    if (team.rank() == 0) mcm_pr_ctrl_relabel_init(p, phase);
  } else if (phase == kMcmPrRelabelPhase) {
    const int flags = team.sync_or(mcm_pr_relabel_level(team, p));
    if (team.rank() == 0) mcm_pr_ctrl_relabel(p, flags);
    counted = true;
  } else if (phase == kMcmPrListPhase) {
    const int flags = team.sync_or(mcm_pr_list(team, p));
    if (team.rank() == 0) mcm_pr_ctrl_list(p, flags);
  } else if (phase == kMcmPrShrinkPhase) {
    mcm_pr_shrink(team, p);
    team.sync();
    if (team.rank() == 0) mcm_pr_ctrl_shrink(p);
  } else if (phase == kMcmPrShrunkPhase) {
    mcm_pr_shrunk(team, p);
    team.sync();
    if (team.rank() == 0) mcm_pr_ctrl_shrunk(p);
  } else if (phase == kMcmPrPushPhase) {
    mcm_pr_push(team, p);
    team.sync();
    if (team.rank() == 0) mcm_pr_ctrl_push(p, o);
    counted = true;
  } else {
    mcm_pr_fix(team, p);
    team.sync();
    if (team.rank() == 0) mcm_pr_ctrl_fix(p);
  }
  team.sync();
  return counted;
}

template <class Team>
JM_HD void mcm_pr_solve_loop(const Team& team, McmView& p,
                             const McmOptions& o) {
  while (mcm_running(p)) mcm_pr_step(team, p, o);
}

}  // namespace jaxmatch
