// Operands of the weighted matching handlers, shared by the CPU and CUDA
// bindings.
//
//   init: (xadj, adj, key) -> state
//   step: (xadj, adj, key, state) -> state      attrs method, rounds
//
// xadj is int32 [..., n + 1], adj int32 [..., cap] (the symmetric CSR;
// entries past xadj[n] are padding), key uint32 [..., cap] (the order of
// each stored edge's weight, 0: never matched); the state is mate [..., n],
// mate_edge [..., n], info [..., kWmInfoLen] and work
// [..., WmWorkLayout::len], all int32.  Leading dimensions are batch and
// agree; a step aliases its state operands to its results.  A step runs
// Suitor to its end, or up to `rounds` LD rounds (an even number).
//
// b-matching (b-Suitor, b_suitor_steps.h):
//
//   b_init: (xadj, adj, key, b) -> b-state
//   b_step: (xadj, adj, key, b-state) -> b-state
//
// b is int32 [..., n]; the b-state is mark [..., cap], degree [..., n], info
// [..., kBmInfoLen] and work [..., BmWorkLayout::len], all int32.
#pragma once

#include <string>

#include "common/ffi_helpers.h"
#include "weighted/weighted_state.h"

namespace jaxmatch {

using WmIndexBuffer = ffi::Buffer<ffi::S32>;
using WmIndexResult = ffi::Result<WmIndexBuffer>;
using WmKeyBuffer = ffi::Buffer<ffi::U32>;

// The state buffers of a call, in order (operands or results).
struct WmState {
  WmIndexBuffer* mate;
  WmIndexBuffer* mate_edge;
  WmIndexBuffer* info;
  WmIndexBuffer* work;
};

struct WmShape {
  int64_t batch = 0;
  int n = 0, cap = 0;
};

template <class Buf>
ffi::Error WmCheckBuffer(const Buf& buf, const char* name, int64_t batch,
                         int64_t* last) {
  auto dims = buf.dimensions();
  if (dims.size() < 1)
    return InvalidArgument(std::string(name) + " must have rank >= 1");
  if (batch >= 0 && BatchSize(dims, 1) != batch)
    return InvalidArgument(std::string(name) +
                           " has batch dimensions different from xadj's");
  *last = dims[dims.size() - 1];
  return CheckIndexBound(*last, name);
}

// Shapes from the graph: n from xadj, the capacity from adj (key agrees).
inline ffi::Error GetWmShape(const WmIndexBuffer& xadj,
                             const WmIndexBuffer& adj, const WmKeyBuffer& key,
                             WmShape* s) {
  int64_t np1 = 0, cap = 0, kcap = 0;
  JM_RETURN_IF_ERROR(WmCheckBuffer(xadj, "xadj", -1, &np1));
  s->batch = BatchSize(xadj.dimensions(), 1);
  JM_RETURN_IF_ERROR(WmCheckBuffer(adj, "adj", s->batch, &cap));
  JM_RETURN_IF_ERROR(WmCheckBuffer(key, "key", s->batch, &kcap));
  if (np1 < 1) return InvalidArgument("xadj must have n + 1 >= 1 entries");
  if (kcap != cap)
    return InvalidArgument("key and adj must have the same length");
  s->n = static_cast<int>(np1 - 1);
  s->cap = static_cast<int>(cap);
  return ffi::Error::Success();
}

// Every state buffer has the shape the graph asks for.
inline ffi::Error CheckWmState(const WmShape& s, const WmState& st) {
  const WmIndexBuffer* bufs[4] = {st.mate, st.mate_edge, st.info, st.work};
  static const char* const kNames[4] = {"mate", "mate_edge", "info", "work"};
  const int64_t lens[4] = {s.n, s.n, kWmInfoLen,
                           static_cast<int64_t>(WmWorkLayout(s.n).len)};
  for (int k = 0; k < 4; ++k) {
    int64_t last = 0;
    JM_RETURN_IF_ERROR(WmCheckBuffer(*bufs[k], kNames[k], s.batch, &last));
    if (last != lens[k])
      return InvalidArgument(std::string(kNames[k]) +
                             " has the wrong length (expected " +
                             std::to_string(lens[k]) + ")");
  }
  return ffi::Error::Success();
}

inline ffi::Error CheckWmStep(int32_t method, int32_t rounds) {
  if (method != kWmSuitor && method != kWmLd)
    return InvalidArgument("unknown weighted matching method " +
                           std::to_string(method));
  if (rounds < 2 || rounds % 2 != 0)
    return InvalidArgument("rounds must be an even number >= 2");
  return ffi::Error::Success();
}

inline WmProblem WmProblemOf(const WmShape& s, const WmIndexBuffer& xadj,
                             const WmIndexBuffer& adj, const WmKeyBuffer& key,
                             const WmState& st) {
  return WmProblem{s.batch,
                   s.n,
                   s.cap,
                   xadj.typed_data(),
                   adj.typed_data(),
                   key.typed_data(),
                   st.mate->typed_data(),
                   st.mate_edge->typed_data(),
                   st.info->typed_data(),
                   st.work->typed_data()};
}

// Checks an init call and returns its problem.
inline ffi::Error PrepareWmInit(const WmIndexBuffer& xadj,
                                const WmIndexBuffer& adj,
                                const WmKeyBuffer& key, const WmState& out,
                                WmProblem* problem) {
  WmShape s;
  JM_RETURN_IF_ERROR(GetWmShape(xadj, adj, key, &s));
  JM_RETURN_IF_ERROR(CheckWmState(s, out));
  *problem = WmProblemOf(s, xadj, adj, key, out);
  return ffi::Error::Success();
}

// Checks a step call (options, state in and out), copies each state buffer
// to its result with copy(from, to, bytes) where XLA did not alias them, and
// returns the problem on the results.
template <class Copy>
ffi::Error PrepareWmStep(const WmIndexBuffer& xadj, const WmIndexBuffer& adj,
                         const WmKeyBuffer& key, const WmState& in,
                         const WmState& out, int32_t method, int32_t rounds,
                         WmProblem* problem, Copy&& copy) {
  JM_RETURN_IF_ERROR(CheckWmStep(method, rounds));
  WmShape s;
  JM_RETURN_IF_ERROR(GetWmShape(xadj, adj, key, &s));
  JM_RETURN_IF_ERROR(CheckWmState(s, in));
  JM_RETURN_IF_ERROR(CheckWmState(s, out));
  const WmIndexBuffer* from[4] = {in.mate, in.mate_edge, in.info, in.work};
  WmIndexBuffer* to[4] = {out.mate, out.mate_edge, out.info, out.work};
  for (int k = 0; k < 4; ++k) {
    if (to[k]->untyped_data() != from[k]->untyped_data())
      JM_RETURN_IF_ERROR(copy(from[k]->untyped_data(), to[k]->untyped_data(),
                              from[k]->size_bytes()));
  }
  *problem = WmProblemOf(s, xadj, adj, key, out);
  return ffi::Error::Success();
}

// ------------------------------------------------------------ b-matching

// Every b-state buffer has the shape the graph asks for.
inline ffi::Error CheckBmState(const WmShape& s, const WmState& st) {
  const WmIndexBuffer* bufs[4] = {st.mate, st.mate_edge, st.info, st.work};
  static const char* const kNames[4] = {"mark", "degree", "info", "work"};
  const int64_t lens[4] = {s.cap, s.n, kBmInfoLen,
                           static_cast<int64_t>(BmWorkLayout(s.n, s.cap).len)};
  for (int k = 0; k < 4; ++k) {
    int64_t last = 0;
    JM_RETURN_IF_ERROR(WmCheckBuffer(*bufs[k], kNames[k], s.batch, &last));
    if (last != lens[k])
      return InvalidArgument(std::string(kNames[k]) +
                             " has the wrong length (expected " +
                             std::to_string(lens[k]) + ")");
  }
  return ffi::Error::Success();
}

inline BmProblem BmProblemOf(const WmShape& s, const WmIndexBuffer& xadj,
                             const WmIndexBuffer& adj, const WmKeyBuffer& key,
                             const int* b, const WmState& st) {
  return BmProblem{s.batch,
                   s.n,
                   s.cap,
                   xadj.typed_data(),
                   adj.typed_data(),
                   key.typed_data(),
                   b,
                   st.mate->typed_data(),
                   st.mate_edge->typed_data(),
                   st.info->typed_data(),
                   st.work->typed_data()};
}

// Checks a b_init call (b is [..., n] with the graph's batch) and returns
// its problem.
inline ffi::Error PrepareBmInit(const WmIndexBuffer& xadj,
                                const WmIndexBuffer& adj,
                                const WmKeyBuffer& key, const WmIndexBuffer& b,
                                const WmState& out, BmProblem* problem) {
  WmShape s;
  JM_RETURN_IF_ERROR(GetWmShape(xadj, adj, key, &s));
  int64_t bn = 0;
  JM_RETURN_IF_ERROR(WmCheckBuffer(b, "b", s.batch, &bn));
  if (bn != s.n)
    return InvalidArgument("b must have n = " + std::to_string(s.n) +
                           " entries per graph, got " + std::to_string(bn));
  JM_RETURN_IF_ERROR(CheckBmState(s, out));
  *problem = BmProblemOf(s, xadj, adj, key, b.typed_data(), out);
  return ffi::Error::Success();
}

// Checks a b_step call, copies each state buffer to its result with
// copy(from, to, bytes) where XLA did not alias them, and returns the
// problem on the results.
template <class Copy>
ffi::Error PrepareBmStep(const WmIndexBuffer& xadj, const WmIndexBuffer& adj,
                         const WmKeyBuffer& key, const WmState& in,
                         const WmState& out, BmProblem* problem, Copy&& copy) {
  WmShape s;
  JM_RETURN_IF_ERROR(GetWmShape(xadj, adj, key, &s));
  JM_RETURN_IF_ERROR(CheckBmState(s, in));
  JM_RETURN_IF_ERROR(CheckBmState(s, out));
  const WmIndexBuffer* from[4] = {in.mate, in.mate_edge, in.info, in.work};
  WmIndexBuffer* to[4] = {out.mate, out.mate_edge, out.info, out.work};
  for (int k = 0; k < 4; ++k) {
    if (to[k]->untyped_data() != from[k]->untyped_data())
      JM_RETURN_IF_ERROR(copy(from[k]->untyped_data(), to[k]->untyped_data(),
                              from[k]->size_bytes()));
  }
  *problem = BmProblemOf(s, xadj, adj, key, nullptr, out);
  return ffi::Error::Success();
}

// The bindings, written out: a Binding can only be extended in place.
#define JM_WM_GRAPH                             \
  .template Arg<WmIndexBuffer>()     /* xadj */ \
      .template Arg<WmIndexBuffer>() /* adj */  \
      .template Arg<WmKeyBuffer>()   /* key */
#define JM_WM_STATE_RESULTS                          \
  .template Ret<WmIndexBuffer>()     /* mate */      \
      .template Ret<WmIndexBuffer>() /* mate_edge */ \
      .template Ret<WmIndexBuffer>() /* info */      \
      .template Ret<WmIndexBuffer>() /* work */

template <class Binding>
auto BindWmInit(Binding b) {
  return std::move(b) JM_WM_GRAPH JM_WM_STATE_RESULTS;
}

template <class Binding>
auto BindWmStep(Binding b) {
  return std::move(b) JM_WM_GRAPH
      .template Arg<WmIndexBuffer>() /* mate */
      .template Arg<WmIndexBuffer>() /* mate_edge */
      .template Arg<WmIndexBuffer>() /* info */
      .template Arg<WmIndexBuffer>() /* work */
      JM_WM_STATE_RESULTS.template Attr<int32_t>("method")
      .template Attr<int32_t>("rounds");
}

// b-matching: the state buffers are mark, degree, info, work.
template <class Binding>
auto BindBmInit(Binding b) {
  return std::move(b) JM_WM_GRAPH.template Arg<WmIndexBuffer>() /* b */
      JM_WM_STATE_RESULTS;
}

template <class Binding>
auto BindBmStep(Binding b) {
  return std::move(b) JM_WM_GRAPH
      .template Arg<WmIndexBuffer>() /* mark */
      .template Arg<WmIndexBuffer>() /* degree */
      .template Arg<WmIndexBuffer>() /* info */
      .template Arg<WmIndexBuffer>() /* work */
      JM_WM_STATE_RESULTS;
}

#undef JM_WM_GRAPH
#undef JM_WM_STATE_RESULTS

}  // namespace jaxmatch
