// Whole solves of the augmenting-path matching drivers, from the steps of
// matching_steps.h and kept_trees.h (and push_relabel.h for G-PR): the
// initialisation, the fused loop of a team with barriers (the CPU, a thread
// block of the fused CUDA solver) and the serial stepped call.
#pragma once

#include "matching/kept_trees.h"
#include "matching/matching_steps.h"
#include "matching/push_relabel.h"

namespace jaxmatch {

// The initialisation and the fused loop, for a team whose barrier is
// `sync()` and whose OR reduction is `sync_or(x)` (both also barriers).
template <class Team>
JM_HD void mcm_init(const Team& team, McmView& p, int init, const int* rm0,
                    const int* cm0) {
  mcm_init_clear(team, p, init, rm0, cm0);
  team.sync();
  mcm_init_match(team, p, init, rm0);
  team.sync();
  if (init == kMcmInitCheap) {
    mcm_init_cheap(team, p);
    team.sync();
  }
  if (init == kMcmInitKarpSipser) mcm_ks_init(team, p);
  if (init == kMcmInitGreedy) mcm_og_init(team, p);
  mcm_init_bfs(team, p);
  team.sync();
  if (team.rank() == 0) mcm_ctrl_start_phase(p);
  team.sync();
}

// The end of a phase (kMcmAlternatePhase): Alternate, then FixMatching and
// the next phase's queue, from scratch (mcm_fix_and_restart) or, where the
// options keep trees, from the trees kept (kept_trees.h; from scratch when
// the rule says so); or the forest step of a phase from kept trees
// (kMcmRequeuePhase).  The CUDA stepped solver launches the same steps as
// kernels.
template <class Team>
JM_HD void mcm_end_phase(const Team& team, McmView& p, const McmOptions& o) {
  if (mcm_phase(p) == kMcmAlternatePhase) {
    mcm_alternate(team, p, o.bfs == kMcmBfsWr);
    team.sync();
    if (!mcm_keeps_trees(o, p.rxadj != nullptr)) {
      mcm_fix_and_restart(team, p);
      team.sync();
      if (team.rank() == 0) mcm_ctrl_restart(p, o);
      team.sync();
      return;
    }
    mcm_release(team, p);
    team.sync();
    if (team.rank() == 0) mcm_ctrl_release(p, o);
    team.sync();
    if (load_shared_scalar(p.sc + kMcmKeptLevel) > 0) {
      const int found = team.sync_or(mcm_graft(team, warp_tile(team), p));
      if (team.rank() == 0 && found) p.sc[kMcmGraftFound] = 1;
    }
  }
  mcm_requeue(team, p);  // kMcmRequeuePhase: after the above, or the forest
  team.sync();
  if (team.rank() == 0) mcm_ctrl_restart(p, o);
  team.sync();
}

template <class Team>
JM_HD void mcm_solve_loop(const Team& team, McmView& p, const McmOptions& o) {
  if (o.driver == kMcmPr) {
    mcm_pr_solve_loop(team, p, o);
    return;
  }
  const bool wr = o.bfs == kMcmBfsWr;
  const int lanes = mcm_lanes(team, p);
  while (mcm_running(p)) {
    if (mcm_phase(p) == kMcmBfsPhase) {
      const int flags =
          team.sync_or(mcm_level<false>(team, p, wr, lanes, mcm_level_at(p)));
      if (team.rank() == 0) mcm_ctrl_level<false>(p, o, flags);
      team.sync();
    } else {
      mcm_end_phase(team, p, o);
    }
  }
}

// One call of the stepped solver on a serial team: up to `levels` BFS
// levels, then, when the BFS of the phase has ended, Alternate + FixMatching.
// The CUDA back end launches the same sequence as kernels.
// For push-relabel: steps until `levels` push iterations and relabel levels
// ran (the list, relabel-init and fix steps are not counted).
inline void mcm_stepped_call_serial(McmView& p, const McmOptions& o,
                                    int levels) {
  const SerialTeam team;
  if (o.driver == kMcmPr) {
    for (int k = 0; k < levels && mcm_running(p);)
      k += mcm_pr_step(team, p, o) ? 1 : 0;
    return;
  }
  const bool wr = o.bfs == kMcmBfsWr;
  for (int k = 0; k < levels; ++k) {
    if (!mcm_running(p) || mcm_phase(p) != kMcmBfsPhase) break;
    const bool even = mcm_edges_even(p);
    const int flags = mcm_stepped_level(team, p, wr, 1, even);
    if (even)
      mcm_ctrl_level<true>(p, o, flags);
    else
      mcm_ctrl_level<false>(p, o, flags);
  }
  const int phase = mcm_phase(p);
  if (mcm_running(p) &&
      (phase == kMcmAlternatePhase || phase == kMcmRequeuePhase))
    mcm_end_phase(team, p, o);
}

}  // namespace jaxmatch
