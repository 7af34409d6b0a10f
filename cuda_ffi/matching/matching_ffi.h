// Operands of the matching handlers, shared by the CPU and CUDA bindings.
//
//   init:  (cxadj, cadj, rxadj, radj, rm0, cm0) -> state   attr init
//   solve: (cxadj, cadj, rxadj, radj, rm0, cm0) -> state   attrs init + the
//                                                          options
//   step:  (cxadj, cadj, rxadj, radj, state) -> state   attrs the options,
//                                                       levels, mapping,
//                                                       restart_levels
//
// The options are the attributes driver, bfs, max_phases, hybrid_depth,
// auto_free_divisor and keep_trees_divisor.  cxadj is
// int32 [..., n_cols + 1], cadj int32
// [..., nnz_cap] (the column CSR; entries past cxadj[n_cols] are padding),
// rxadj int32 [..., n_rows + 1] and radj int32 [..., rnnz_cap] the row CSR
// (read when init is Karp-Sipser or the ordered greedy, by the stepped CUDA
// solver's restart from the ordered greedy, and by the graft of kept trees),
// rm0 int32 [..., n_rows] and cm0 int32 [..., n_cols] a warm start (read
// only when init == given); the state is row_match [..., n_rows], col_match
// [..., n_cols], info [..., kMcmInfoLen] and work [..., McmWorkLayout::len],
// all int32.  Leading dimensions are batch and agree; a step aliases its
// state operands to its results.
#pragma once

#include <string>

#include "common/ffi_helpers.h"
#include "matching/matching_state.h"

namespace jaxmatch {

using IndexBuffer = ffi::Buffer<ffi::S32>;
using IndexResult = ffi::Result<IndexBuffer>;

// The state buffers of a call, in order (operands or results).
struct McmState {
  IndexBuffer* row_match;
  IndexBuffer* col_match;
  IndexBuffer* info;
  IndexBuffer* work;
};

struct McmShape {
  int64_t batch = 0;
  int nr = 0, nc = 0, cap = 0;
  int rcap = 0;  // the row CSR's capacity (calls that read it)
};

inline ffi::Error CheckIndexBuffer(const IndexBuffer& buf, const char* name,
                                   int64_t batch, int64_t* last) {
  auto dims = buf.dimensions();
  if (dims.size() < 1)
    return InvalidArgument(std::string(name) + " must have rank >= 1");
  if (batch >= 0 && BatchSize(dims, 1) != batch)
    return InvalidArgument(std::string(name) +
                           " has batch dimensions different from cxadj's");
  *last = dims[dims.size() - 1];
  return CheckIndexBound(*last, name);
}

// Shapes from the graph (n_cols, capacity) and row_match (n_rows).
inline ffi::Error GetMcmShape(const IndexBuffer& cxadj, const IndexBuffer& cadj,
                              const IndexBuffer& row_match, McmShape* s) {
  int64_t ncp1 = 0, cap = 0, nr = 0;
  JM_RETURN_IF_ERROR(CheckIndexBuffer(cxadj, "cxadj", -1, &ncp1));
  s->batch = BatchSize(cxadj.dimensions(), 1);
  JM_RETURN_IF_ERROR(CheckIndexBuffer(cadj, "cadj", s->batch, &cap));
  JM_RETURN_IF_ERROR(CheckIndexBuffer(row_match, "row_match", s->batch, &nr));
  if (ncp1 < 1)
    return InvalidArgument("cxadj must have n_cols + 1 >= 1 entries");
  s->nc = static_cast<int>(ncp1 - 1);
  s->nr = static_cast<int>(nr);
  s->cap = static_cast<int>(cap);
  return ffi::Error::Success();
}

// Every state buffer has the shape the graph asks for.
inline ffi::Error CheckMcmState(const McmShape& s, const McmState& st) {
  const IndexBuffer* bufs[4] = {st.row_match, st.col_match, st.info, st.work};
  static const char* const kNames[4] = {"row_match", "col_match", "info",
                                        "work"};
  const int64_t lens[4] = {s.nr, s.nc, kMcmInfoLen,
                           static_cast<int64_t>(McmWorkLayout(s.nr, s.nc).len)};
  for (int k = 0; k < 4; ++k) {
    int64_t last = 0;
    JM_RETURN_IF_ERROR(CheckIndexBuffer(*bufs[k], kNames[k], s.batch, &last));
    if (last != lens[k])
      return InvalidArgument(std::string(kNames[k]) +
                             " has the wrong length (expected " +
                             std::to_string(lens[k]) + ")");
  }
  return ffi::Error::Success();
}

// The warm start's shapes must match the graph's.
inline ffi::Error CheckWarmStart(const McmShape& s, const IndexBuffer& rm0,
                                 const IndexBuffer& cm0) {
  int64_t nr = 0, nc = 0;
  JM_RETURN_IF_ERROR(CheckIndexBuffer(rm0, "row_match", s.batch, &nr));
  JM_RETURN_IF_ERROR(CheckIndexBuffer(cm0, "col_match", s.batch, &nc));
  if (nr != s.nr || nc != s.nc)
    return InvalidArgument("warm start shapes do not match the graph");
  return ffi::Error::Success();
}

// The row CSR's shapes must match the graph's; sets s->rcap.
inline ffi::Error CheckRowCsr(McmShape* s, const IndexBuffer& rxadj,
                              const IndexBuffer& radj) {
  int64_t nrp1 = 0, rcap = 0;
  JM_RETURN_IF_ERROR(CheckIndexBuffer(rxadj, "rxadj", s->batch, &nrp1));
  JM_RETURN_IF_ERROR(CheckIndexBuffer(radj, "radj", s->batch, &rcap));
  if (nrp1 != int64_t{s->nr} + 1)
    return InvalidArgument("rxadj must have n_rows + 1 entries");
  s->rcap = static_cast<int>(rcap);
  return ffi::Error::Success();
}

// The problem of a call; the row CSR is passed by the calls that read it.
inline McmProblem McmProblemOf(const McmShape& s, const IndexBuffer& cxadj,
                               const IndexBuffer& cadj, const McmState& st,
                               const IndexBuffer* rxadj = nullptr,
                               const IndexBuffer* radj = nullptr) {
  McmProblem p{s.batch,
               s.nr,
               s.nc,
               s.cap,
               cxadj.typed_data(),
               cadj.typed_data(),
               st.row_match->typed_data(),
               st.col_match->typed_data(),
               st.info->typed_data(),
               st.work->typed_data()};
  if (rxadj != nullptr) {
    p.rxadj = rxadj->typed_data();
    p.radj = radj->typed_data();
    p.rcap = s.rcap;
  }
  return p;
}

inline ffi::Error CheckInit(int32_t init) {
  if (init < kMcmInitNone || init > kMcmInitGreedy)
    return InvalidArgument("unknown matching init " + std::to_string(init));
  return ffi::Error::Success();
}

// The options from a handler's attributes (restart_levels: a step's own).
inline McmOptions McmOptionsOf(int32_t driver, int32_t bfs, int32_t max_phases,
                               int32_t hybrid_depth, int32_t auto_free_divisor,
                               int32_t keep_trees_divisor,
                               int32_t restart_levels = 0) {
  McmOptions o{driver, bfs, max_phases, hybrid_depth, auto_free_divisor};
  o.restart_levels = restart_levels;
  o.keep_trees_divisor = keep_trees_divisor;
  return o;
}

inline ffi::Error CheckMcmOptions(const McmOptions& o) {
  if (o.driver < kMcmApfb || o.driver > kMcmPr)
    return InvalidArgument("unknown matching driver " +
                           std::to_string(o.driver));
  if (o.bfs != kMcmBfsPlain && o.bfs != kMcmBfsWr)
    return InvalidArgument("unknown BFS kernel " + std::to_string(o.bfs));
  if (o.max_phases < 1) return InvalidArgument("max_phases must be >= 1");
  if (o.hybrid_depth < 1) return InvalidArgument("hybrid_depth must be >= 1");
  if (o.auto_free_divisor < 1)
    return InvalidArgument("auto_free_divisor must be >= 1");
  if (o.keep_trees_divisor < 0)
    return InvalidArgument("keep_trees_divisor must be >= 0");
  return ffi::Error::Success();
}

// The stepped call's own attributes.  mapping: 0 = CT, 1 = MT (the CUDA
// grid; the CPU runs serially and ignores it).
inline ffi::Error CheckMcmStep(int32_t levels, int32_t mapping,
                               int32_t restart_levels) {
  if (levels < 1) return InvalidArgument("levels must be >= 1");
  if (restart_levels < 0) return InvalidArgument("restart_levels must be >= 0");
  if (mapping != kMcmMappingCt && mapping != kMcmMappingMt)
    return InvalidArgument("unknown thread mapping " + std::to_string(mapping));
  return ffi::Error::Success();
}

// Checks a step call (options, state in and out) and copies each state
// buffer to its result with copy(from, to, bytes) where XLA did not alias
// them.
template <class Copy>
ffi::Error PrepareMcmStep(const IndexBuffer& cxadj, const IndexBuffer& cadj,
                          const IndexBuffer& rxadj, const IndexBuffer& radj,
                          const McmState& in, const McmState& out,
                          const McmOptions& o, int32_t levels, int32_t mapping,
                          McmShape* s, Copy&& copy) {
  JM_RETURN_IF_ERROR(CheckMcmOptions(o));
  JM_RETURN_IF_ERROR(CheckMcmStep(levels, mapping, o.restart_levels));
  JM_RETURN_IF_ERROR(GetMcmShape(cxadj, cadj, *in.row_match, s));
  JM_RETURN_IF_ERROR(CheckRowCsr(s, rxadj, radj));
  JM_RETURN_IF_ERROR(CheckMcmState(*s, in));
  JM_RETURN_IF_ERROR(CheckMcmState(*s, out));
  const IndexBuffer* from[4] = {in.row_match, in.col_match, in.info, in.work};
  IndexBuffer* to[4] = {out.row_match, out.col_match, out.info, out.work};
  for (int k = 0; k < 4; ++k) {
    if (to[k]->untyped_data() != from[k]->untyped_data())
      JM_RETURN_IF_ERROR(copy(from[k]->untyped_data(), to[k]->untyped_data(),
                              from[k]->size_bytes()));
  }
  return ffi::Error::Success();
}

// Checks a from-scratch call (init or solve: options, graph, row CSR, state,
// warm start) and returns its problem.
inline ffi::Error PrepareMcmFromScratch(
    const IndexBuffer& cxadj, const IndexBuffer& cadj, const IndexBuffer& rxadj,
    const IndexBuffer& radj, const IndexBuffer& rm0, const IndexBuffer& cm0,
    const McmState& st, int32_t init, const McmOptions* solve,
    McmProblem* problem) {
  JM_RETURN_IF_ERROR(CheckInit(init));
  if (solve) JM_RETURN_IF_ERROR(CheckMcmOptions(*solve));
  McmShape s;
  JM_RETURN_IF_ERROR(GetMcmShape(cxadj, cadj, *st.row_match, &s));
  JM_RETURN_IF_ERROR(CheckRowCsr(&s, rxadj, radj));
  JM_RETURN_IF_ERROR(CheckMcmState(s, st));
  JM_RETURN_IF_ERROR(CheckWarmStart(s, rm0, cm0));
  *problem = McmProblemOf(s, cxadj, cadj, st, &rxadj, &radj);
  return ffi::Error::Success();
}

// The bindings, written out: a Binding can only be extended in place.
#define JM_MCM_ROW_CSR                         \
  .template Arg<IndexBuffer>()     /* rxadj */ \
      .template Arg<IndexBuffer>() /* radj */
#define JM_MCM_STATE_RESULTS                       \
  .template Ret<IndexBuffer>()     /* row_match */ \
      .template Ret<IndexBuffer>() /* col_match */ \
      .template Ret<IndexBuffer>() /* info */      \
      .template Ret<IndexBuffer>() /* work */
#define JM_MCM_OPTIONS                             \
  .template Attr<int32_t>("driver")                \
      .template Attr<int32_t>("bfs")               \
      .template Attr<int32_t>("max_phases")        \
      .template Attr<int32_t>("hybrid_depth")      \
      .template Attr<int32_t>("auto_free_divisor") \
      .template Attr<int32_t>("keep_trees_divisor")

// init and solve: cxadj, cadj, rxadj, radj, rm0, cm0 (the row CSR comes
// between the column CSR and the warm start).
#define JM_MCM_FROM_SCRATCH_ARGS               \
  .template Arg<IndexBuffer>()     /* cxadj */ \
      .template Arg<IndexBuffer>() /* cadj */  \
      JM_MCM_ROW_CSR                           \
      .template Arg<IndexBuffer>() /* rm0 */   \
      .template Arg<IndexBuffer>() /* cm0 */

template <class Binding>
auto BindMcmInit(Binding b) {
  return std::move(b)
      JM_MCM_FROM_SCRATCH_ARGS JM_MCM_STATE_RESULTS.template Attr<int32_t>(
          "init");
}

template <class Binding>
auto BindMcmSolve(Binding b) {
  return std::move(b)
      JM_MCM_FROM_SCRATCH_ARGS JM_MCM_STATE_RESULTS.template Attr<int32_t>(
          "init") JM_MCM_OPTIONS;
}

template <class Binding>
auto BindMcmStep(Binding b) {
  return std::move(b) JM_MCM_FROM_SCRATCH_ARGS /* row_match, col_match */
      .template Arg<IndexBuffer>()             /* info */
      .template Arg<IndexBuffer>()             /* work */
      JM_MCM_STATE_RESULTS JM_MCM_OPTIONS.template Attr<int32_t>("levels")
      .template Attr<int32_t>("mapping")
      .template Attr<int32_t>("restart_levels");
}

#undef JM_MCM_FROM_SCRATCH_ARGS
#undef JM_MCM_ROW_CSR
#undef JM_MCM_STATE_RESULTS
#undef JM_MCM_OPTIONS

}  // namespace jaxmatch
