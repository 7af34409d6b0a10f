// The CPU's k best assignments (kbest_rank.h's ranking by one SerialTeam),
// one problem per core at a time:
//   jaxmatch_lap_k_best_cpu   operands and results in kbest_ffi.h
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "common/cpu_parallel.h"
#include "common/device.h"
#include "common/ffi_helpers.h"
#include "lap/kbest/kbest_ffi.h"
#include "lap/kbest/kbest_rank.h"

namespace jaxmatch {
namespace {

// One thread's workspace, kept across the problems it solves (grown, never
// shrunk, never cleared: the ranking initialises what it reads).
template <class W>
struct KBestScratch {
  std::vector<int> ints, pred, state, cols, list, rows, children, child_total,
      queue, free_slots, order_out, order_cols, rank;
  std::vector<W> wides, dist, bounds, found, keys;
  // The crew's words, for a crew of one.
  int slot[1], ctl[kKBestCtlLen];
  W low[1], length[1], peak[1], ctl_wide[kKBestCtlWideLen];
  void Fit(const KBestNodeLayout& L, int k) {
    const size_t slots = KBestSlots(k, 1), n = L.n, m = L.m;
    Grow(&ints, slots * L.ints());
    Grow(&wides, slots * L.wides());
    for (auto* v : {&pred, &state, &cols, &list}) Grow(v, m);
    Grow(&dist, m);
    for (auto* v : {&rows, &children, &child_total}) Grow(v, n);
    Grow(&bounds, n);
    Grow(&found, k);
    Grow(&keys, k);
    Grow(&queue, k);
    Grow(&rank, k);
    Grow(&free_slots, slots);
    Grow(&order_out, static_cast<size_t>(k) * n);
    Grow(&order_cols, static_cast<size_t>(k) * m);
  }
  template <class V>
  static void Grow(std::vector<V>* v, size_t len) {
    if (v->size() < len) v->resize(len);
  }
};

template <class W>
KBestScratch<W>& ThreadScratch() {
  thread_local KBestScratch<W> scratch;
  return scratch;
}

// Solves one problem into its outputs: assign [k, n], costs [k], info.
template <class T>
void KBestSolveOne(const KBestProblem<T>& P, int k, int* assign, T* costs,
                   int* info) {
  using W = KBestWide<T>;
  const int n = P.n, m = P.m;
  std::fill(assign, assign + int64_t{k} * n, -1);
  std::fill(costs, costs + k,
            std::numeric_limits<T>::has_infinity
                ? std::numeric_limits<T>::infinity()
                : std::numeric_limits<T>::max());
  info[kKBestInfoCount] = 0;
  info[kKBestInfoIters] = 0;
  const SerialTeam team;
  if (!KBestValid(team, P)) {
    info[kKBestInfoStatus] = kLapInvalidEntries;
    return;
  }
  const KBestNodeLayout L{n, m};
  KBestScratch<W>& s = ThreadScratch<W>();
  s.Fit(L, k);
  const KBestSearchWork<W> sw{s.dist.data(), s.pred.data(), s.state.data(),
                              s.cols.data(), s.list.data(), s.rows.data()};
  const KBestRankWork<W> rw{s.queue.data(),      s.keys.data(),
                            s.free_slots.data(), s.bounds.data(),
                            s.children.data(),   s.child_total.data()};
  const int* order_out = s.order_out.data();
  const W* found = s.found.data();
  const KBestCrewWork<W> cw{s.slot,  s.low,   s.length, s.peak,
                            nullptr, nullptr, s.ctl,    s.ctl_wide};
  const int count = KBestRank(team, SerialCrew{}, P, k, s.ints.data(),
                              s.wides.data(), sw, rw, cw, s.order_out.data(),
                              s.order_cols.data(), &info[kKBestInfoIters]);
  KBestObjectives(team, P, count, s.order_out.data(), s.order_cols.data(),
                  s.found.data());
  info[kKBestInfoCount] = count;
  info[kKBestInfoStatus] = count > 0 ? kLapOptimal : kLapInfeasible;
  // In order of the objectives summed afresh (ties keep the order found;
  // floating sums may round the ranking's keys differently).
  int* rank = s.rank.data();
  std::iota(rank, rank + count, 0);
  std::stable_sort(rank, rank + count,
                   [&](int a, int b) { return found[a] < found[b]; });
  for (int t = 0; t < count; ++t) {
    const int from = rank[t];
    std::copy(order_out + int64_t{from} * n, order_out + int64_t{from + 1} * n,
              assign + int64_t{t} * n);
    if (!KBestStoreCost<T>(found[from], &costs[t]))
      info[kKBestInfoStatus] = kLapOverflow;
  }
}

ffi::Error KBestCpu(ffi::AnyBuffer C, ffi::AnyBuffer row_cost,
                    ffi::AnyBuffer col_cost,
                    ffi::Result<ffi::AnyBuffer> assignments,
                    ffi::Result<ffi::AnyBuffer> costs,
                    ffi::Result<ffi::AnyBuffer> info, int32_t k,
                    int32_t exits) {
  KBestShape s;
  JM_RETURN_IF_ERROR(CheckKBest(C, row_cost, col_cost, *assignments, *costs,
                                *info, k, exits, &s));
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    const int64_t n = s.n, m = s.m;
    const T* Cd = static_cast<const T*>(C.untyped_data());
    const T* rd = static_cast<const T*>(row_cost.untyped_data());
    const T* cd = static_cast<const T*>(col_cost.untyped_data());
    int* ad = static_cast<int*>(assignments->untyped_data());
    T* kd = static_cast<T*>(costs->untyped_data());
    int* id = static_cast<int*>(info->untyped_data());
    auto solve = [&](int64_t b) {
      const KBestProblem<T> P{s.n,
                              s.m,
                              Cd + b * n * m,
                              rd + b * n,
                              exits ? cd + b * m : nullptr,
                              exits != 0};
      KBestSolveOne(P, s.k, ad + b * s.k * n, kd + b * s.k,
                    id + b * kKBestInfoLen);
    };
    ForEachMemberOnCores(s.batch, /*threaded=*/true, solve);
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace jaxmatch

JM_EXPORT_HANDLER(jaxmatch_lap_k_best_cpu, jaxmatch::KBestCpu,
                  jaxmatch::BindKBest(xla::ffi::Ffi::Bind()));
