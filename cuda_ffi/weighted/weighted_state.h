// State of one approximate weighted matching problem on a general graph
// (Suitor, Manne and Halappanavar; locally dominant matching).  It travels
// through XLA as four named int32 buffers, each [..., len] with the graph's
// leading dimensions:
//
//   mate      [n]               the vertex matched to each vertex, -1 free
//   mate_edge [n]               the CSR position of edge (u, mate[u]), -1
//   info      [kWmInfoLen]      scalars (WmScalar): status, counters
//   work      [WmWorkLayout::len]  offer (as n uint64), cand, cand_edge, heavy
//
// and the workspace arrays mean:
//   offer     [n]  Suitor: the best proposal vertex v holds, packed as
//                  (key << 32) | proposer; 0 when none
//   cand      [n]  LD: the heaviest free neighbour of v this round, -1 none
//   cand_edge [n]  LD: the CSR position of v's candidate; Suitor: the CSR
//                  position of v's latest proposal in v's list
//   heavy     [n]  the vertices of degree above wm_heavy_degree, which CUDA
//                  processes with whole blocks (info[kWmHeavy] entries, in
//                  no particular order)
//
// The graph is the symmetric CSR (xadj [n + 1], adj [cap]; every edge stored
// from both ends) with one uint32 key per stored edge: the order of the
// weights (0: never matched).  Edges are totally ordered by (key, larger
// endpoint, smaller endpoint); a vertex comparing two of its edges, or two
// proposals, compares (key, other endpoint), which is the same order.
//
// Only C++ knows the workspace layout; Python asks the library for its
// length and reads info through the slots the library exports.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/device.h"

namespace jaxmatch {

enum WmMethod : int { kWmSuitor = 0, kWmLd = 1 };

enum WmStatus : int {
  kWmRunning = 0,
  kWmDominant = 1,  // done: the locally dominant matching
  kWmBadGraph = 2,  // malformed CSR (validated constructors never give one)
  kWmInvalidWeights = 3,  // NaN weights (set by the Python wrapper)
  kWmOverflow = 4,  // an integer total weight outside its dtype (set by the
                    // Python wrapper)
  kWmInvalidCapacity = 5,  // b-matching: a negative b (only possible for a
                           // traced b; the eager wrapper raises)
};

enum WmScalar : int {
  kWmStatus = 0,
  kWmRounds = 1,     // LD rounds; Suitor passes over the vertices
  kWmAnyCand0 = 2,   // LD: a vertex found a candidate (rounds of parity 0)
  kWmAnyCand1 = 3,   // ... (parity 1)
  kWmProposals = 4,  // Suitor: proposals that took (initial and re-proposals)
  kWmHeavy = 5,      // vertices listed in `heavy`
  kWmBalance = 6,    // init: the stored entries' hash balance (a 64-bit
                     // word: slots 6 and 7, weighted_steps.h)
  kWmInfoLen = 8,
};
static_assert(kWmBalance % 2 == 0 && kWmInfoLen % 2 == 0,
              "the balance word is 8-byte aligned in every member");

// Offsets into one problem's int32 workspace; `offer` is 8-byte aligned when
// the workspace is (its length is even).
struct WmWorkLayout {
  std::size_t offer, cand, cand_edge, heavy, len;
  JM_HD explicit WmWorkLayout(int n) {
    offer = 0;
    cand = offer + 2 * static_cast<std::size_t>(n);
    cand_edge = cand + n;
    heavy = cand_edge + n;
    len = heavy + n;
    len += len & 1;
  }
};

using WmOffer = unsigned long long;

JM_HD WmOffer wm_pack(uint32_t key, int id) {
  return (static_cast<WmOffer>(key) << 32) | static_cast<uint32_t>(id);
}
JM_HD int wm_id(WmOffer x) { return static_cast<int>(x & 0xffffffffu); }
JM_HD uint32_t wm_key(WmOffer x) { return static_cast<uint32_t>(x >> 32); }

// Workers per vertex on CUDA: the power of two at or above the average
// degree (capacity / n), between 4 and 32 (a tile of a warp).
JM_HD int wm_lanes(int n, int cap) {
  const int64_t avg = n > 0 ? (static_cast<int64_t>(cap) + n - 1) / n : 1;
  int lanes = 4;
  while (lanes < 32 && lanes < avg) lanes *= 2;
  return lanes;
}

// Strides of its tile beyond which a vertex's list is left to a whole block:
// a hub left to a tile keeps the grid waiting on one warp (power-law graphs).
constexpr int kWmHeavyStrides = 16;

// The degree above which a vertex is listed in `heavy`.
JM_HD int wm_heavy_degree(int n, int cap) {
  return kWmHeavyStrides * wm_lanes(n, cap);
}

// One problem: the graph and its state.
struct WmView {
  int n, cap;
  const int* xadj;
  const int* adj;
  const uint32_t* key;
  int* sc;
  int* mate;
  int* mate_edge;
  WmOffer* offer;
  int* cand;
  int* cand_edge;
  int* heavy;
};

// A batch of graphs with equal shapes and their states: the operands of one
// call, each [batch, len].  view(b) is problem b.
struct WmProblem {
  int64_t batch;
  int n, cap;
  const int* xadj;      // [batch, n + 1]
  const int* adj;       // [batch, cap]
  const uint32_t* key;  // [batch, cap]
  int* mate;            // [batch, n]
  int* mate_edge;       // [batch, n]
  int* info;            // [batch, kWmInfoLen]
  int* work;            // [batch, WmWorkLayout::len]

  JM_HD WmView view(int64_t b) const {
    const WmWorkLayout L(n);
    int* w = work + b * static_cast<int64_t>(L.len);
    return WmView{n,
                  cap,
                  xadj + b * (n + 1),
                  adj + b * cap,
                  key + b * cap,
                  info + b * kWmInfoLen,
                  mate + b * n,
                  mate_edge + b * n,
                  reinterpret_cast<WmOffer*>(w + L.offer),
                  w + L.cand,
                  w + L.cand_edge,
                  w + L.heavy};
  }
};

// ------------------------------------------------------------ b-matching
// State of one b-Suitor problem (b_suitor_steps.h): four int32 buffers, each
// [..., len] with the graph's leading dimensions,
//
//   mark    [cap]             per stored entry: 0 unmatched, 1 matched, 2
//                             matched and the entry's column above its row
//                             (each edge once, for sums)
//   degree  [n]               the matched edges at each vertex
//   info    [kBmInfoLen]      scalars (BmScalar)
//   work    [BmWorkLayout::len]
//
// and the workspace holds:
//   vertex  [n] BmVertex  each vertex's record (32 bytes, one cache line
//                         sector: what an install at v touches, and the
//                         floor a scan reads, lie together)
//   heap    [cap] uint64  S(v): the proposals v holds, packed (key << 32) |
//                         proposer, a binary min-heap of hsize entries at
//                         heap[hoff] = heap[xadj[v]] (hcap <= deg(v) slots
//                         there, so the heaps tile the stored entries: the
//                         workspace depends on n and cap only)
//   heavy   [n]           the vertices of degree above wm_heavy_degree
//                         (info[kBmHeavy] of them), for whole blocks on CUDA
//   queue   [2][n]        owned vertices left to the next round: the one
//                         being read (info[kBmQueueSel]) and the one written
enum BmScalar : int {
  kBmStatus = 0,        // a WmStatus
  kBmRounds = 1,        // passes: the first over every vertex, then the queue's
  kBmProposals = 2,     // proposals that took
  kBmHeavy = 3,         // vertices listed in `heavy`
  kBmPhase = 4,         // 0 until the first pass is done
  kBmQueueSel = 5,      // the queue being read (0 or 1)
  kBmQueueLen0 = 6,     // entries in queue 0
  kBmQueueLen1 = 7,     // entries in queue 1
  kBmDrained = 8,       // every proposal made: the result can be read off
  kBmBadGraph = 9,      // init: the CSR is malformed
  kBmBadCapacity = 10,  // init: a negative b
  kBmCopies = 11,       // init: some list stores a neighbour more than once
  kBmBalance = 12,      // init: the stored entries' hash balance (a 64-bit
                        // word: slots 12 and 13, weighted_steps.h)
  kBmInfoLen = 14,
};
static_assert(kBmBalance % 2 == 0 && kBmInfoLen % 2 == 0,
              "the balance word is 8-byte aligned in every member");

// One vertex v's record.
struct BmVertex {
  // The lightest proposal in S(v) once S(v) is full, else 0; all ones when
  // hcap == 0 (v accepts none).
  unsigned long long floor;
  // v's last proposal (or refusal) as a proposer, packed (key << 32) |
  // target; v's next target lies below it.  All ones before v's first, 0
  // when v has none left.  Only v's owner reads and writes it.
  unsigned long long cursor;
  int hoff;   // where S(v) starts in `heap`: xadj[v]
  int hcap;   // min(b(v), deg(v)): S(v)'s bound and v's proposals'
  int owed;   // proposals v still has to make (hcap at first, +1 when
              // dislodged); the team that raises it from 0 owns v
  int state;  // hsize (entries in S(v)) | kBmLocked while S(v) is updated
};
static_assert(sizeof(BmVertex) == 32, "a BmVertex is 32 bytes");

constexpr int kBmLocked = 1 << 30;

// Offsets into one problem's int32 workspace, from its first 32-byte
// aligned int (BmProblem::view): 8 spare ints absorb the shift, so that the
// length is linear in n and cap (symbolic shapes can express it) and every
// member's records are 32-byte aligned whatever the buffer's alignment.
struct BmWorkLayout {
  std::size_t vertex, heap, heavy, queue, len;
  JM_HD BmWorkLayout(int n, int cap) {
    const std::size_t un = static_cast<std::size_t>(n);
    const std::size_t ucap = static_cast<std::size_t>(cap);
    vertex = 0;
    heap = vertex + 8 * un;
    heavy = heap + 2 * ucap;
    queue = heavy + un;
    len = queue + 2 * un + 8;
  }
};

// One b-matching problem: the graph and its state.
struct BmView {
  int n, cap;
  const int* xadj;
  const int* adj;
  const uint32_t* key;
  int* sc;
  int* mark;
  int* degree;
  BmVertex* vx;
  WmOffer* heap;
  int* heavy;
  int* queue;  // [2][n]
};

// A batch of graphs with equal shapes and their b-matching states, each
// [batch, len]; `b` ([batch, n]) only for the init call.
struct BmProblem {
  int64_t batch;
  int n, cap;
  const int* xadj;
  const int* adj;
  const uint32_t* key;
  const int* b;
  int* mark;
  int* degree;
  int* info;
  int* work;

  JM_HD BmView view(int64_t i) const {
    const BmWorkLayout L(n, cap);
    // The member's slice, from its first 32-byte aligned int.
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(
        work + i * static_cast<int64_t>(L.len));
    int* w =
        reinterpret_cast<int*>((at + 31) & ~static_cast<std::uintptr_t>(31));
    return BmView{n,
                  cap,
                  xadj + i * (n + 1),
                  adj + i * cap,
                  key + i * cap,
                  info + i * kBmInfoLen,
                  mark + i * cap,
                  degree + i * n,
                  reinterpret_cast<BmVertex*>(w + L.vertex),
                  reinterpret_cast<WmOffer*>(w + L.heap),
                  w + L.heavy,
                  w + L.queue};
  }
  // b of problem i (init only).
  JM_HD const int* b_of(int64_t i) const { return b + i * n; }
};

}  // namespace jaxmatch
