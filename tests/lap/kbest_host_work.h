// A k-best crew's workspace in host vectors (lap/kbest/kbest_rank.h's
// KBestTeamWork, one per member), every entry set to `junk` (int32 arrays)
// or `poison` (wide arrays) so that a read before a write shows: for the
// host emulation (kbest_team_emulation.cc) and the kernel harness's serial
// reference (kbest_kernel_harness.cu).
#pragma once

#include <cstddef>
#include <vector>

#include "lap/kbest/kbest_rank.h"

namespace jaxmatch {

template <class W>
struct KBestHostWork {
  int n, m, members;
  // Each member's search arrays one after another (members m or n each).
  std::vector<int> ints, pred, state, list, cols, rows, children, child_total,
      queue, free_slots, found_rows, found_cols, order, slots, ctl;
  std::vector<W> wides, dist, keys, bounds, found, lows, lengths, peaks, least,
      second, ctl_wide;

  KBestHostWork(int n_, int m_, int k, int junk, W poison, int members_ = 1)
      : n(n_), m(m_), members(members_) {
    const KBestNodeLayout L{n, m};
    const std::size_t slot_count = KBestSlots(k, members);
    const std::size_t row_count = n, columns = m, best = k, crew = members;
    ints.assign(slot_count * L.ints(), junk);
    for (auto* v : {&pred, &state, &list}) v->assign(crew * columns, junk);
    cols.assign(columns, junk);
    rows.assign(crew * row_count, junk);
    for (auto* v : {&children, &child_total}) v->assign(row_count, junk);
    queue.assign(best, junk);
    free_slots.assign(slot_count, junk);
    found_rows.assign(best * row_count, junk);
    found_cols.assign(best * columns, junk);
    order.assign(best, junk);
    slots.assign(crew, junk);
    ctl.assign(kKBestCtlLen, junk);
    wides.assign(slot_count * L.wides(), poison);
    dist.assign(crew * columns, poison);
    keys.assign(best, poison);
    bounds.assign(row_count, poison);
    found.assign(best, poison);
    for (auto* v : {&lows, &lengths, &peaks}) v->assign(crew, poison);
    for (auto* v : {&least, &second}) v->assign(crew * row_count, poison);
    ctl_wide.assign(kKBestCtlWideLen, poison);
  }

  // Member `member`'s view: its own search arrays, the rest shared.
  KBestTeamWork<W> work(int member = 0) {
    const std::size_t cm = static_cast<std::size_t>(member) * m,
                      cn = static_cast<std::size_t>(member) * n;
    return KBestTeamWork<W>{
        ints.data(),
        wides.data(),
        KBestSearchWork<W>{dist.data() + cm, pred.data() + cm,
                           state.data() + cm, cols.data(), list.data() + cm,
                           rows.data() + cn},
        KBestRankWork<W>{queue.data(), keys.data(), free_slots.data(),
                         bounds.data(), children.data(), child_total.data()},
        KBestCrewWork<W>{slots.data(), lows.data(), lengths.data(),
                         peaks.data(), least.data(), second.data(), ctl.data(),
                         ctl_wide.data()},
        found_rows.data(),
        found_cols.data(),
        found.data(),
        order.data()};
  }
};

}  // namespace jaxmatch
