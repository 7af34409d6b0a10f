// The CPU's JV on a batch of dense problems (jv_cpu.cc), for the dense LAP
// handlers (lap/common/dense_cpu.cc).
#pragma once

#include "lap/common/dense_ffi.h"

namespace jaxmatch {

// JV on every batch member, the members spread over the host's cores;
// from the warm start x0 [batch, n] and v0 [batch, m] (dense_ffi.h) when
// given.
ffi::Error RunJvCpu(const ffi::AnyBuffer& C, const LapShape& s,
                    const LapStateData& state, const ffi::AnyBuffer* x0,
                    const ffi::AnyBuffer* v0);

}  // namespace jaxmatch
