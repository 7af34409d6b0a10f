// CUDA kernels of b-Suitor: the steps of b_suitor_steps.h run by tiles of a
// warp (one vertex each; bm_lanes wide) and, for the vertices of degree
// above wm_heavy_degree, by whole blocks, whose scans select up to a block's
// worth of candidates at once.  A grid
// (blocks_x, batch) strides over the vertices of each problem.
//
//   Init: clear, validate (pointers and b; heavy vertices listed), check (the
//         stored entries: check_entries.cuh), control (status).
//   Step: first pass (tiles: light vertices; blocks: heavy ones), then
//         kBmQueueRounds rounds over the queue of vertices the teams handed
//         on (control, tiles, blocks), then finalize (mutual proposals
//         marked) and done (status), both no-ops until the queue is empty.
#include <cooperative_groups.h>
#include <algorithm>

#include "common/teams.cuh"
#include "weighted/b_suitor_steps.h"
#include "weighted/check_entries.cuh"
#include "weighted/weighted_kernels.h"

namespace jaxmatch {
namespace {

namespace cg = cooperative_groups;

constexpr int kMaxGridY = 65535;
// A hub's block: a block-wide selection per proposal costs less in a small
// block, and more hubs run at once (measured: docs/benchmarks.md, b-Suitor's
// tiles and blocks).
constexpr int kBmHeavyThreads = 256;
// Queue rounds per step call: most graphs need none or one.
constexpr int kBmQueueRounds = 4;
// Candidates each worker keeps per scan (b_suitor_steps.h): a lane of a
// tile, a thread of a block.
constexpr int kBmTileDepth = 2;
constexpr int kBmBlockDepth = 1;

// Per problem of the batch: the view, for the rows of the grid.
#define JM_BM_FOR_EACH_PROBLEM(s, p)                                   \
  for (int64_t jm_b = blockIdx.y; jm_b < (s).batch; jm_b += gridDim.y) \
    if (BmView p = (s).view(jm_b); true)

__global__ void bm_init_clear_kernel(BmProblem s) {
  GridRowTeam team;
  JM_BM_FOR_EACH_PROBLEM(s, p) bm_init_clear(team, p, s.b_of(jm_b));
}

__global__ void bm_init_validate_kernel(BmProblem s) {
  GridRowTeam team;
  JM_BM_FOR_EACH_PROBLEM(s, p) bm_init_validate(team, p, s.b_of(jm_b));
}

// The stored entries of every problem whose pointers are good.
__global__ void bm_init_check_kernel(BmProblem s) {
  JM_BM_FOR_EACH_PROBLEM(s, p) {
    if (load_shared_scalar(p.sc + kBmBadGraph) != 0) continue;
    wm_check_entries_grid(p, wm_balance_word(p.sc, kBmBalance),
                          p.sc + kBmBadGraph, 1, p.sc + kBmCopies);
  }
}

__global__ void bm_init_control_kernel(BmProblem s) {
  JM_BM_FOR_EACH_PROBLEM(s, p) {
    if (threadIdx.x == 0) bm_init_control(p);
  }
}

// A tile processes light vertices; a hub it comes to own goes to the queue
// (for a block).
struct BmKeepLight {
  template <class Team>
  __device__ bool operator()(const Team&, const BmView& p, int x) const {
    return !wm_is_heavy(p, x);
  }
};

// A block processes hubs; a light vertex it comes to own goes to the queue
// (for a tile).
struct BmKeepHeavy {
  template <class Team>
  __device__ bool operator()(const Team&, const BmView& p, int x) const {
    return wm_is_heavy(p, x);
  }
};

template <int kLanes>
struct TileIndex {
  int first, stride;
  __device__ TileIndex()
      : first((blockIdx.x * blockDim.x + threadIdx.x) / kLanes),
        stride(gridDim.x * blockDim.x / kLanes) {}
};

// The first pass: every light vertex with proposals to make (it owns
// itself: nothing can dislodge a vertex before its first proposal), in a
// scrambled order (ScrambledOrder, common/device.h).
template <int kLanes>
__global__ void bm_pass_kernel(BmProblem s) {
  const TileTeam<kLanes> team(
      cg::tiled_partition<kLanes>(cg::this_thread_block()));
  const TileIndex<kLanes> t;
  JM_BM_FOR_EACH_PROBLEM(s, p) {
    if (!bm_running(p) || p.sc[kBmPhase] != 0) continue;
    int installed = 0;
    const ScrambledOrder order(p.n);
    for (int i = t.first; i < p.n; i += t.stride) {
      const int u = order(i);
      if (p.vx[u].hcap > 0 && !wm_is_heavy(p, u))
        installed += bm_process<kBmTileDepth>(team, p, u, BmKeepLight{});
    }
    if (team.rank() == 0 && installed)
      atomicAdd(p.sc + kBmProposals, installed);
  }
}

// The first pass over the listed hubs, a block each (after the tiles: no
// hub holds a proposal before, so no tile came to own one).
__global__ void __launch_bounds__(kBmHeavyThreads)
    bm_pass_heavy_kernel(BmProblem s) {
  const BlockTeam team;
  JM_BM_FOR_EACH_PROBLEM(s, p) {
    if (!bm_running(p) || p.sc[kBmPhase] != 0) continue;
    const int listed = p.sc[kBmHeavy];
    int installed = 0;
    for (int i = blockIdx.x; i < listed; i += gridDim.x) {
      const int u = p.heavy[i];
      if (p.vx[u].hcap > 0)
        installed += bm_process<kBmBlockDepth>(team, p, u, BmKeepHeavy{});
    }
    if (team.rank() == 0 && installed)
      atomicAdd(p.sc + kBmProposals, installed);
  }
}

__global__ void bm_control_kernel(BmProblem s, bool first) {
  JM_BM_FOR_EACH_PROBLEM(s, p) {
    if (threadIdx.x == 0) bm_control(p, first);
  }
}

// One round over the queue: its light vertices by tiles.
template <int kLanes>
__global__ void bm_queue_kernel(BmProblem s) {
  const TileTeam<kLanes> team(
      cg::tiled_partition<kLanes>(cg::this_thread_block()));
  const TileIndex<kLanes> t;
  JM_BM_FOR_EACH_PROBLEM(s, p) {
    if (!bm_running(p) || bm_drained(p)) continue;
    int len = 0;
    const int* q = bm_queue(p, &len);
    int installed = 0;
    for (int i = t.first; i < len; i += t.stride) {
      const int x = q[i];
      if (!wm_is_heavy(p, x))
        installed += bm_process<kBmTileDepth>(team, p, x, BmKeepLight{});
    }
    if (team.rank() == 0 && installed)
      atomicAdd(p.sc + kBmProposals, installed);
  }
}

// ... and its hubs by blocks.
__global__ void __launch_bounds__(kBmHeavyThreads)
    bm_queue_heavy_kernel(BmProblem s) {
  const BlockTeam team;
  JM_BM_FOR_EACH_PROBLEM(s, p) {
    if (!bm_running(p) || bm_drained(p)) continue;
    int len = 0;
    const int* q = bm_queue(p, &len);
    int installed = 0;
    for (int i = blockIdx.x; i < len; i += gridDim.x) {
      const int x = q[i];
      if (wm_is_heavy(p, x))
        installed += bm_process<kBmBlockDepth>(team, p, x, BmKeepHeavy{});
    }
    if (team.rank() == 0 && installed)
      atomicAdd(p.sc + kBmProposals, installed);
  }
}

__global__ void bm_finalize_kernel(BmProblem s) {
  GridRowTeam team;
  JM_BM_FOR_EACH_PROBLEM(s, p) {
    if (!bm_running(p) || !bm_drained(p)) continue;
    for (int u = team.rank(); u < p.n; u += team.size()) bm_finalize(p, u);
  }
}

__global__ void bm_done_kernel(BmProblem s) {
  JM_BM_FOR_EACH_PROBLEM(s, p) {
    if (threadIdx.x == 0) bm_done(p);
  }
}

#undef JM_BM_FOR_EACH_PROBLEM

// The tile's width: a quarter of Suitor's (wm_lanes), so 4 or 8.  A vertex
// makes up to b proposals, each one lane's lock and sift while the others
// wait, so narrower tiles keep more vertices in flight per warp (measured:
// docs/benchmarks.md, b-Suitor's tiles and blocks).  A hub is still a list
// longer than wm_heavy_degree.
int bm_lanes(int n, int cap) { return std::max(4, wm_lanes(n, cap) / 4); }

int Blocks(int64_t threads, int cap) {
  int64_t bx = (threads + kWmThreads - 1) / kWmThreads;
  if (bx < 1) bx = 1;
  if (bx > cap) bx = cap;
  return static_cast<int>(bx);
}

dim3 Grid(const BmProblem& s, int lanes, int resident_blocks) {
  const int by = s.batch < kMaxGridY ? static_cast<int>(s.batch) : kMaxGridY;
  return dim3(Blocks(static_cast<int64_t>(s.n) * lanes, resident_blocks), by);
}

template <int kLanes>
cudaError_t LaunchBmStepLanes(cudaStream_t stream, const BmProblem& s,
                              int resident_blocks) {
  const dim3 tiles = Grid(s, kLanes, resident_blocks);
  const dim3 vertices = Grid(s, 1, resident_blocks);
  const dim3 one(1, tiles.y);
  // No vertex is listed when no list can be longer than the threshold.
  const bool any_heavy = s.cap > wm_heavy_degree(s.n, s.cap);
  const dim3 heavy(std::max(1, resident_blocks * kWmThreads / kBmHeavyThreads),
                   tiles.y);
  bm_pass_kernel<kLanes><<<tiles, kWmThreads, 0, stream>>>(s);
  if (any_heavy) bm_pass_heavy_kernel<<<heavy, kBmHeavyThreads, 0, stream>>>(s);
  bm_control_kernel<<<one, 32, 0, stream>>>(s, true);
  for (int r = 0; r < kBmQueueRounds; ++r) {
    bm_queue_kernel<kLanes><<<tiles, kWmThreads, 0, stream>>>(s);
    if (any_heavy)
      bm_queue_heavy_kernel<<<heavy, kBmHeavyThreads, 0, stream>>>(s);
    bm_control_kernel<<<one, 32, 0, stream>>>(s, false);
  }
  bm_finalize_kernel<<<vertices, kWmThreads, 0, stream>>>(s);
  bm_done_kernel<<<one, 32, 0, stream>>>(s);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchBmInit(cudaStream_t stream, const BmProblem& s,
                         int resident_blocks) {
  if (s.batch == 0) return cudaSuccess;
  const dim3 grid = Grid(s, 1, resident_blocks);
  const int by = static_cast<int>(grid.y);
  bm_init_clear_kernel<<<grid, kWmThreads, 0, stream>>>(s);
  bm_init_validate_kernel<<<grid, kWmThreads, 0, stream>>>(s);
  const dim3 entries(Blocks(wm_check_threads(s.cap), resident_blocks), by);
  bm_init_check_kernel<<<entries, kWmThreads, 0, stream>>>(s);
  bm_init_control_kernel<<<dim3(1, by), 32, 0, stream>>>(s);
  return cudaGetLastError();
}

cudaError_t LaunchBmStep(cudaStream_t stream, const BmProblem& s,
                         int resident_blocks) {
  if (s.batch == 0) return cudaSuccess;
  return bm_lanes(s.n, s.cap) == 4
             ? LaunchBmStepLanes<4>(stream, s, resident_blocks)
             : LaunchBmStepLanes<8>(stream, s, resident_blocks);
}

}  // namespace jaxmatch
