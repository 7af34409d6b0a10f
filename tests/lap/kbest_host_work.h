// A k-best team's workspace in host vectors (lap/kbest/kbest_steps.h's
// KBestTeamWork), every entry set to `junk` (int32 arrays) or `poison` (wide
// arrays) so that a read before a write shows: for the host emulation
// (kbest_team_emulation.cc) and the kernel harness's serial reference
// (kbest_kernel_harness.cu).
#pragma once

#include <cstddef>
#include <vector>

#include "lap/kbest/kbest_steps.h"

namespace jaxmatch {

template <class W>
struct KBestHostWork {
  std::vector<int> ints, pred, state, cols, queue, free_slots, found_rows,
      found_cols, order;
  std::vector<W> wides, dist, keys, bounds, found;

  KBestHostWork(int n, int m, int k, int junk, W poison) {
    const KBestNodeLayout L{n, m};
    const std::size_t slots = static_cast<std::size_t>(k) + 2;
    const std::size_t rows = n, columns = m, best = k;
    ints.assign(slots * L.ints(), junk);
    for (auto* v : {&pred, &state, &cols}) v->assign(columns, junk);
    queue.assign(best, junk);
    free_slots.assign(slots, junk);
    found_rows.assign(best * rows, junk);
    found_cols.assign(best * columns, junk);
    order.assign(best, junk);
    wides.assign(slots * L.wides(), poison);
    dist.assign(columns, poison);
    keys.assign(best, poison);
    bounds.assign(rows, poison);
    found.assign(best, poison);
  }

  KBestTeamWork<W> work() {
    return KBestTeamWork<W>{
        ints.data(),
        wides.data(),
        KBestSearchWork<W>{dist.data(), pred.data(), state.data(), cols.data()},
        KBestRankWork<W>{queue.data(), keys.data(), free_slots.data(),
                         bounds.data()},
        found_rows.data(),
        found_cols.data(),
        found.data(),
        order.data()};
  }
};

}  // namespace jaxmatch
