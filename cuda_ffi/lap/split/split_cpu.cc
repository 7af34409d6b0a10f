// CPU back end of the split LAP's steps (lap/split/split_steps.h): a serial
// team, one device's block at a time (XLA runs each CPU device's call apart).
// Operands: lap/split/split_ffi.h.
#include <algorithm>
#include <cstring>

#include "lap/split/split_ffi.h"

namespace jaxmatch {
namespace {

ffi::Error SplitScanCpu(ffi::AnyBuffer C, ffi::AnyBuffer u,
                        ffi::AnyBuffer row_D, ffi::AnyBuffer plist,
                        ffi::AnyBuffer info, ffi::Result<ffi::AnyBuffer> best,
                        ffi::Result<ffi::AnyBuffer> arg) {
  LapSplitScanData s;
  JM_RETURN_IF_ERROR(CheckSplitScan(C, u, row_D, plist, info, best, arg, &s));
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    const int count = s.info[kSplitCount];
    const int row0 = s.info[kSplitRow0];
    if (count < 0 || count > s.nl)
      return InvalidArgument("split LAP: corrupt pending count");
    const T* Ct = static_cast<const T*>(s.C);
    const T* ut = static_cast<const T*>(s.u);
    const T* Dt = static_cast<const T*>(s.row_D);
    T* bt = static_cast<T*>(s.best);
    std::fill(bt, bt + s.m, Num<T>::inf());
    std::fill(s.arg, s.arg + s.m, INT_MAX);
    // Row by row, each row's costs read in order.
    for (int k = 0; k < count; ++k) {
      const int r = s.plist[k];
      if (r < 0 || r >= s.nl)
        return InvalidArgument("split LAP: corrupt pending row");
      for (int j = 0; j < s.m; ++j)
        split_scan_fold(split_scan_value(Ct, s.m, ut, Dt, r, j), r, bt + j,
                        s.arg + j);
    }
    for (int j = 0; j < s.m; ++j)
      if (s.arg[j] != INT_MAX) s.arg[j] += row0;
    return ffi::Error::Success();
  });
}

ffi::Error SplitUpdateCpu(ffi::AnyBuffer C, ffi::AnyBuffer bests,
                          ffi::AnyBuffer args, ffi::RemainingArgs state,
                          ffi::RemainingRets rets, int32_t n,
                          int32_t max_iterations) {
  LapSplitUpdateData s;
  JM_RETURN_IF_ERROR(
      CheckSplitUpdate(C, bests, args, state, rets, n, max_iterations, &s));
  for (int k = 0; k < kSplitStateBuffers; ++k)
    if (s.in[k] != s.out[k]) std::memcpy(s.out[k], s.in[k], s.bytes[k]);
  return DispatchCost(C.element_type(), [&](auto zero) -> ffi::Error {
    using T = decltype(zero);
    LapSplitView<T> p = SplitViewOf<T>(s);
    split_update(SerialTeam{}, p);
    return ffi::Error::Success();
  });
}

}  // namespace
}  // namespace jaxmatch

JM_EXPORT_HANDLER(jaxmatch_lap_split_scan_cpu, jaxmatch::SplitScanCpu,
                  jaxmatch::BindSplitScan(jaxmatch::ffi::Ffi::Bind()));
JM_EXPORT_HANDLER(jaxmatch_lap_split_update_cpu, jaxmatch::SplitUpdateCpu,
                  jaxmatch::BindSplitUpdate(jaxmatch::ffi::Ffi::Bind()));
