// Operands of the matching handlers, shared by the CPU and CUDA bindings.
//
//   init:  (cxadj, cadj, rm0, cm0) -> state          attr init
//   solve: (cxadj, cadj, rm0, cm0) -> state          attrs init, driver, bfs,
//                                                    max_phases
//   step:  (cxadj, cadj, state) -> state             attrs driver, bfs,
//                                                    max_phases, levels,
//                                                    mapping
//
// cxadj is int32 [..., n_cols + 1], cadj int32 [..., nnz_cap] (the column
// CSR; entries past cxadj[n_cols] are padding), rm0 int32 [..., n_rows] and
// cm0 int32 [..., n_cols] a warm start (read only when init == given), state
// int32 [..., McmLayout::len].  Leading dimensions are batch and agree.
#pragma once

#include <string>

#include "ffi_util.h"
#include "mcm_state.h"

namespace jaxmatch {

struct McmShape {
  int64_t batch = 0;
  int nr = 0, nc = 0, cap = 0;
  std::size_t len = 0;
};

inline ffi::Error CheckIndexBuffer(const ffi::AnyBuffer& buf, const char* name,
                                   int64_t batch, int64_t* last) {
  if (buf.element_type() != ffi::DataType::S32)
    return InvalidArgument(std::string(name) + " must be int32");
  auto dims = buf.dimensions();
  if (dims.size() < 1)
    return InvalidArgument(std::string(name) + " must have rank >= 1");
  if (batch >= 0 && BatchSize(dims, 1) != batch)
    return InvalidArgument(std::string(name) +
                           " has batch dimensions different from cxadj's");
  *last = dims[dims.size() - 1];
  if (*last >= (int64_t{1} << 30))
    return InvalidArgument(std::string(name) + " too large for int32 indices");
  return ffi::Error::Success();
}

// Shapes from the graph and the state buffer (n_rows from the state length).
inline ffi::Error GetMcmShape(const ffi::AnyBuffer& cxadj,
                              const ffi::AnyBuffer& cadj,
                              const ffi::AnyBuffer& state, McmShape* s) {
  int64_t ncp1 = 0, cap = 0, len = 0;
  JM_RETURN_IF_ERROR(CheckIndexBuffer(cxadj, "cxadj", -1, &ncp1));
  s->batch = BatchSize(cxadj.dimensions(), 1);
  JM_RETURN_IF_ERROR(CheckIndexBuffer(cadj, "cadj", s->batch, &cap));
  JM_RETURN_IF_ERROR(CheckIndexBuffer(state, "state", s->batch, &len));
  if (ncp1 < 1) return InvalidArgument("cxadj must have n_cols + 1 >= 1 entries");
  const int64_t nc = ncp1 - 1;
  const int64_t twice_nr = len - kMcmScalars - 4 * nc;
  if (twice_nr < 0 || twice_nr % 2 != 0)
    return InvalidArgument("state length does not fit the graph");
  s->nc = static_cast<int>(nc);
  s->nr = static_cast<int>(twice_nr / 2);
  s->cap = static_cast<int>(cap);
  s->len = McmLayout(s->nr, s->nc).len;
  return ffi::Error::Success();
}

// The warm start's shapes must match the graph's.
inline ffi::Error CheckWarmStart(const McmShape& s, const ffi::AnyBuffer& rm0,
                                 const ffi::AnyBuffer& cm0) {
  int64_t nr = 0, nc = 0;
  JM_RETURN_IF_ERROR(CheckIndexBuffer(rm0, "row_match", s.batch, &nr));
  JM_RETURN_IF_ERROR(CheckIndexBuffer(cm0, "col_match", s.batch, &nc));
  if (nr != s.nr || nc != s.nc)
    return InvalidArgument("warm start shapes do not match the graph");
  return ffi::Error::Success();
}

inline ffi::Error CheckMcmOptions(int32_t init, int32_t driver, int32_t bfs,
                                  int32_t max_phases) {
  if (init < kMcmInitNone || init > kMcmInitGiven)
    return InvalidArgument("unknown matching init " + std::to_string(init));
  if (driver < kMcmApfb || driver > kMcmAuto)
    return InvalidArgument("unknown matching driver " + std::to_string(driver));
  if (bfs != kMcmBfsPlain && bfs != kMcmBfsWr)
    return InvalidArgument("unknown BFS kernel " + std::to_string(bfs));
  if (max_phases < 1) return InvalidArgument("max_phases must be >= 1");
  return ffi::Error::Success();
}

// The stepped call's own attributes.  mapping: 0 = CT, 1 = MT (the CUDA
// grid; the CPU runs serially and ignores it).
inline ffi::Error CheckMcmStep(int32_t levels, int32_t mapping) {
  if (levels < 1) return InvalidArgument("levels must be >= 1");
  if (mapping != 0 && mapping != 1)
    return InvalidArgument("unknown thread mapping " + std::to_string(mapping));
  return ffi::Error::Success();
}

template <class Binding>
auto BindMcmInit(Binding b) {
  return std::move(b).template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Attr<int32_t>("init");
}

template <class Binding>
auto BindMcmSolve(Binding b) {
  return std::move(b).template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Attr<int32_t>("init")
      .template Attr<int32_t>("driver")
      .template Attr<int32_t>("bfs")
      .template Attr<int32_t>("max_phases");
}

template <class Binding>
auto BindMcmStep(Binding b) {
  return std::move(b).template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Arg<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Attr<int32_t>("driver")
      .template Attr<int32_t>("bfs")
      .template Attr<int32_t>("max_phases")
      .template Attr<int32_t>("levels")
      .template Attr<int32_t>("mapping");
}

}  // namespace jaxmatch
