// CUDA kernels of the weighted matching solvers: the step templates of
// weighted_steps.h run by tiles of a warp, one tile per vertex (Naim et
// al.: a warp reads a neighbour list interleaved and reduces with
// butterflies; here the tile is the power of two at or above the average
// degree, at most a warp, so low-degree graphs do not idle 3/4 of a warp).
// A grid (blocks_x, batch) strides over the vertices of each problem.
//
//   Init:   a clear kernel, a validate kernel (pointers; it also lists the
//           vertices of high degree in `heavy`), a check kernel (the stored
//           entries: check_entries.cuh) and a control kernel (status).
//   Suitor: suitor kernel (every vertex chased to its end, except that the
//           listed vertices of high degree are left out), heavy kernel (a
//           whole block chases each of those), finalize kernel (mutual
//           proposals become the matching), done kernel (status).
//   LD:     per round a candidate kernel (tiles), a heavy candidate kernel
//           (blocks, for the listed vertices) and a match kernel; the match
//           kernel's first thread runs the round's scalar transition.
#include "weighted/weighted_kernels.h"

#include <cooperative_groups.h>
#include <algorithm>

#include "common/teams.cuh"
#include "weighted/check_entries.cuh"
#include "weighted/weighted_steps.h"

namespace jaxmatch {
namespace {

namespace cg = cooperative_groups;

constexpr int kMaxGridY = 65535;

__global__ void wm_init_clear_kernel(WmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    WmView p = s.view(b);
    wm_init_clear(team, p);
  }
}

__global__ void wm_init_validate_kernel(WmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    WmView p = s.view(b);
    wm_init_validate(team, p);
  }
}

// The stored entries of every problem whose pointers are good.
__global__ void wm_init_check_kernel(WmProblem s) {
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    WmView p = s.view(b);
    if (!wm_running(p)) continue;
    wm_check_entries_grid(p, wm_balance_word(p.sc, kWmBalance),
                          p.sc + kWmStatus, kWmBadGraph);
  }
}

__global__ void wm_init_control_kernel(WmProblem s) {
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    WmView p = s.view(b);
    if (threadIdx.x == 0) wm_init_control(p);
  }
}

// The tile of this thread and the tiles of a grid row.
template <int kLanes>
struct TileIndex {
  int first, stride;
  __device__ TileIndex()
      : first((blockIdx.x * blockDim.x + threadIdx.x) / kLanes),
        stride(gridDim.x * blockDim.x / kLanes) {}
};

// Threads of the blocks that take the vertices listed in `heavy`.
constexpr int kWmHeavyThreads = 1024;

// Leaves a listed vertex of high degree to the heavy kernel.  A tile never
// meets one as a dislodged suitor: such a vertex holds no proposal before
// the heavy kernel runs.
struct WmLeaveHeavy {
  template <class Team>
  __device__ bool operator()(const Team&, WmView& p, int v) const {
    return wm_is_heavy(p, v);
  }
};

template <int kLanes>
__global__ void wm_suitor_kernel(WmProblem s) {
  const TileTeam<kLanes> team(
      cg::tiled_partition<kLanes>(cg::this_thread_block()));
  const TileIndex<kLanes> t;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    WmView p = s.view(b);
    if (!wm_running(p)) continue;
    int installed = 0;
    for (int u = t.first; u < p.n; u += t.stride)
      installed += wm_suitor_chase(team, p, u, WmLeaveHeavy{});
    if (team.rank() == 0 && installed)
      atomicAdd(p.sc + kWmProposals, installed);
  }
}

// The listed vertices, one block each, chased to their ends (whatever the
// degree of the suitors they dislodge).
__global__ void __launch_bounds__(kWmHeavyThreads)
    wm_suitor_heavy_kernel(WmProblem s) {
  const BlockTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    WmView p = s.view(b);
    if (!wm_running(p)) continue;
    const int listed = p.sc[kWmHeavy];
    int installed = 0;
    for (int i = blockIdx.x; i < listed; i += gridDim.x)
      installed += wm_suitor_chase(team, p, p.heavy[i]);
    if (team.rank() == 0 && installed)
      atomicAdd(p.sc + kWmProposals, installed);
  }
}

__global__ void wm_suitor_finalize_kernel(WmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    WmView p = s.view(b);
    if (!wm_running(p)) continue;
    for (int u = team.rank(); u < p.n; u += team.size())
      wm_suitor_finalize(p, u);
  }
}

// One thread per problem: Suitor ends in one pass.
__global__ void wm_suitor_done_kernel(WmProblem s) {
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    WmView p = s.view(b);
    if (threadIdx.x != 0 || !wm_running(p)) continue;
    p.sc[kWmRounds] = 1;
    p.sc[kWmStatus] = kWmDominant;
  }
}

template <int kLanes>
__global__ void wm_ld_candidate_kernel(WmProblem s, int parity) {
  const TileTeam<kLanes> team(
      cg::tiled_partition<kLanes>(cg::this_thread_block()));
  const TileIndex<kLanes> t;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    WmView p = s.view(b);
    if (!wm_running(p)) continue;
    for (int u = t.first; u < p.n; u += t.stride)
      if (!wm_is_heavy(p, u)) wm_ld_candidate(team, p, u, parity);
  }
}

// The listed vertices of high degree, one block each.
__global__ void __launch_bounds__(kWmHeavyThreads)
    wm_ld_candidate_heavy_kernel(WmProblem s, int parity) {
  const BlockTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    WmView p = s.view(b);
    if (!wm_running(p)) continue;
    const int listed = p.sc[kWmHeavy];
    for (int i = blockIdx.x; i < listed; i += gridDim.x)
      wm_ld_candidate(team, p, p.heavy[i], parity);
  }
}

// Every thread of a row reads the status before its first thread can change
// it only when the round found no candidate, and then there is nothing to
// match: the transition needs no separate launch.
__global__ void wm_ld_match_kernel(WmProblem s, int parity) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    WmView p = s.view(b);
    if (!wm_running(p)) continue;
    for (int u = team.rank(); u < p.n; u += team.size()) wm_ld_match(p, u);
    if (team.rank() == 0) wm_ld_control(p, parity);
  }
}

int Blocks(int64_t threads, int cap) {
  int64_t bx = (threads + kWmThreads - 1) / kWmThreads;
  if (bx < 1) bx = 1;
  if (bx > cap) bx = cap;
  return static_cast<int>(bx);
}

dim3 Grid(const WmProblem& s, int lanes, int resident_blocks) {
  const int by = s.batch < kMaxGridY ? static_cast<int>(s.batch) : kMaxGridY;
  return dim3(Blocks(static_cast<int64_t>(s.n) * lanes, resident_blocks), by);
}

template <int kLanes>
cudaError_t LaunchWmStepLanes(cudaStream_t stream, const WmProblem& s,
                              int method, int rounds, int resident_blocks) {
  const dim3 tiles = Grid(s, kLanes, resident_blocks);
  const dim3 vertices = Grid(s, 1, resident_blocks);
  // No vertex is listed when no list can be longer than the threshold.
  const bool any_heavy = s.cap > wm_heavy_degree(s.n, s.cap);
  const dim3 heavy(std::max(1, resident_blocks * kWmThreads / kWmHeavyThreads),
                   tiles.y);
  if (method == kWmSuitor) {
    wm_suitor_kernel<kLanes><<<tiles, kWmThreads, 0, stream>>>(s);
    if (any_heavy)
      wm_suitor_heavy_kernel<<<heavy, kWmHeavyThreads, 0, stream>>>(s);
    wm_suitor_finalize_kernel<<<vertices, kWmThreads, 0, stream>>>(s);
    wm_suitor_done_kernel<<<dim3(1, tiles.y), 32, 0, stream>>>(s);
    return cudaGetLastError();
  }
  for (int r = 0; r < rounds; ++r) {
    wm_ld_candidate_kernel<kLanes><<<tiles, kWmThreads, 0, stream>>>(s, r & 1);
    if (any_heavy)
      wm_ld_candidate_heavy_kernel<<<heavy, kWmHeavyThreads, 0, stream>>>(
          s, r & 1);
    wm_ld_match_kernel<<<vertices, kWmThreads, 0, stream>>>(s, r & 1);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchWmInit(cudaStream_t stream, const WmProblem& s,
                         int resident_blocks) {
  if (s.batch == 0) return cudaSuccess;
  const dim3 grid = Grid(s, 1, resident_blocks);
  const dim3 entries(Blocks(wm_check_threads(s.cap), resident_blocks), grid.y);
  wm_init_clear_kernel<<<grid, kWmThreads, 0, stream>>>(s);
  wm_init_validate_kernel<<<grid, kWmThreads, 0, stream>>>(s);
  wm_init_check_kernel<<<entries, kWmThreads, 0, stream>>>(s);
  wm_init_control_kernel<<<dim3(1, grid.y), 32, 0, stream>>>(s);
  return cudaGetLastError();
}

cudaError_t LaunchWmStep(cudaStream_t stream, const WmProblem& s, int method,
                         int rounds, int resident_blocks) {
  if (s.batch == 0) return cudaSuccess;
  switch (wm_lanes(s.n, s.cap)) {
    case 4:
      return LaunchWmStepLanes<4>(stream, s, method, rounds, resident_blocks);
    case 8:
      return LaunchWmStepLanes<8>(stream, s, method, rounds, resident_blocks);
    case 16:
      return LaunchWmStepLanes<16>(stream, s, method, rounds, resident_blocks);
    default:
      return LaunchWmStepLanes<32>(stream, s, method, rounds, resident_blocks);
  }
}

}  // namespace jaxmatch
