// CUDA kernels of the maximum-cardinality matching solvers: the shared step
// templates (matching/matching_steps.h, matching/karp_sipser.h) run by CUDA
// teams.
//
//   stepped: a kernel per step over a grid (blocks_x, batch); kernel
//            boundaries are the barriers.  The level and fix kernels end with
//            the last-block pattern: each block adds itself to a ticket, and
//            the last one runs the scalar transition, so no separate control
//            launch is needed.  BFS levels with small and mid-size
//            frontiers run many to a launch, a cluster of blocks per
//            problem where the device has clusters, else one block.
//   fused:   mcm_solve_kernel, one block per problem, the whole solve with
//            block barriers between steps (small graphs, batches).
#include "matching/matching_kernels.h"

#include "common/cluster_launch.h"
#include "common/teams.cuh"
#include "matching/matching_solve.h"

namespace jaxmatch {
namespace {

constexpr int kCtBlocks = 256;  // CT: 256 blocks x 256 threads
constexpr int kMaxGridY = 65535;
constexpr int kFusedMaxThreads = 512;
// The small-frontier level kernel: its block size, the most levels one
// launch runs, and the frontier it takes (in passes of its column groups).
constexpr int kSmallThreads = 1024;
constexpr int kSmallLevels = 1024;
constexpr int kSmallPasses = 4;

__device__ bool StepActive(const McmView& p, int phase) {
  return mcm_running(p) && mcm_phase(p) == phase;
}

// The last block of a grid row to reach this point returns true (in every
// thread).  Thread 0 of each block first ORs `bits` into `slot`.
__device__ bool LastBlockOfRow(int* ticket, int* slot, int bits) {
  __shared__ int s_last;
  BlockTeam().sync();
  if (threadIdx.x == 0) {
    if (bits) atomicOr(slot, bits);
    __threadfence();
    s_last = atomicAdd(ticket, 1) == static_cast<int>(gridDim.x) - 1;
  }
  BlockTeam().sync();
  if (s_last) __threadfence();
  return s_last;
}

__global__ void mcm_init_clear_kernel(McmProblem s, int init, const int* rm0,
                                      const int* cm0) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    mcm_init_clear(team, p, init, rm0 + b * s.nr, cm0 + b * s.nc);
  }
}

__global__ void mcm_init_match_kernel(McmProblem s, int init, const int* rm0) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    mcm_init_match(team, p, init, rm0 + b * s.nr);
  }
}

__global__ void mcm_init_cheap_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    mcm_init_cheap(team, p);
  }
}

// The ordered greedy matching (ordered_greedy.h): its rounds are short
// chains of dependent loads, so barriers, not grid launches, between them.
// kRestart: the stepped solver's restart from it (mcm_og_restart), a no-op
// unless it is due; else the initial matching (init="greedy").  The checks
// before a problem give every worker the same answer: no worker writes the
// phase or the status before every worker has passed the team's first
// barrier, and the initial matching's check is itself a barrier
// (mcm_og_prepare may mark the graph bad).
template <bool kRestart, class Team>
__device__ void OgProblems(const Team& team, const McmProblem& s) {
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if constexpr (kRestart) {
      if (!StepActive(p, kMcmGreedyPhase)) continue;
      mcm_og_restart(team, p);
    } else {
      if (team.sync_or(load_shared_scalar(p.sc + kMcmStatus) == kMcmBadGraph))
        continue;
      mcm_og_init(team, p);
    }
  }
}

// A block per problem.
template <bool kRestart>
__global__ void __launch_bounds__(kSmallThreads) mcm_og_kernel(McmProblem s) {
  OgProblems<kRestart>(BlockTeam(), s);
}

// A cluster per problem (sm_90 and newer; launched only there): a round's
// window is kMcmOgSlots columns per thread of the cluster.
template <bool kRestart>
__global__ void __launch_bounds__(kSmallThreads)
    mcm_og_cluster_kernel(McmProblem s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const ClusterTeam<kSmallThreads> team;
  if constexpr (kRestart) {
    // The restart is launched with every stepped call: a call where it is
    // due for no problem leaves without a cluster barrier.
    bool due = false;
    for (int64_t b = blockIdx.y; b < s.batch && !due; b += gridDim.y)
      due = StepActive(s.view(b), kMcmGreedyPhase);
    if (!due) return;
  }
  team.Init();
  OgProblems<kRestart>(team, s);
  team.sync();  // no block leaves while another may read its shared memory
#endif
}

// Karp-Sipser (karp_sipser.h): degrees, then one kernel per round (the last
// block runs the transition), then the check and greedy completion.
__global__ void mcm_ks_prepare_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    mcm_ks_prepare(team, p);
  }
}

__global__ void mcm_ks_round_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!mcm_ks_active(p)) continue;  // uniform over the row
    int bits = mcm_ks_round(team, p);
    bits = BlockTeam().sync_or(bits);
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmKsMatched, bits) &&
        threadIdx.x == 0) {
      const int all = atomicExch(p.sc + kMcmKsMatched, 0);
      p.sc[kMcmTicket] = 0;
      mcm_ctrl_ks(p, all);
    }
  }
}

__global__ void mcm_ks_finish_cols_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    mcm_ks_finish_cols(team, p);
  }
}

__global__ void mcm_ks_finish_rows_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    mcm_ks_finish_rows(team, p);
  }
}

__global__ void mcm_init_bfs_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    mcm_init_bfs(team, p);
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, 0) &&
        threadIdx.x == 0) {
      p.sc[kMcmTicket] = 0;
      mcm_ctrl_start_phase(p);
    }
  }
}

// Whether the current level's frontier is for a team of `threads`: at most
// kSmallPasses passes of its column groups.  Read from the scalars, so
// uniform over a team that reads them after a barrier.
__device__ bool SmallFrontier(const McmView& p, int lanes, int threads) {
  const int front = load_shared_scalar(p.sc + kMcmQEnd) -
                    load_shared_scalar(p.sc + kMcmQHead);
  return front <= kSmallPasses * (threads / lanes);
}

// Up to `budget` levels of one problem whose frontiers fit a block, run by
// one block with block barriers in between (the team's other workers do not
// take part): a level then costs its chain of dependent loads, not a launch
// and a grid-wide ticket.  Stops at a larger frontier, at the end of the
// phase's BFS or after `budget` levels.  Only one block works, so its writes
// are visible to its own later reads without fences.
__device__ void BlockLevels(McmView& p, const McmOptions& o, int budget) {
  const BlockTeam team;
  const bool wr = o.bfs == kMcmBfsWr;
  const int lanes = mcm_lanes(team, p);
  for (int k = 0; k < budget; ++k) {
    if (!StepActive(p, kMcmBfsPhase) || !SmallFrontier(p, lanes, kSmallThreads))
      break;
    const int flags =
        team.sync_or(mcm_level<false>(team, p, wr, lanes, mcm_level_at(p)));
    if (threadIdx.x == 0) mcm_ctrl_level<false>(p, o, flags);
    team.sync();
  }
}

// Levels with small frontiers (long augmenting paths through few columns
// per level, as on meshes) in one block per problem, up to kSmallLevels of
// them (BlockLevels).  It runs at the start of a stepped call where the
// device has no clusters; the call's level kernels take every frontier
// after it.
__global__ void __launch_bounds__(kSmallThreads)
    mcm_small_levels_kernel(McmProblem s, McmOptions o) {
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    BlockLevels(p, o, kSmallLevels);
  }
}

// The same on a cluster of blocks per problem (sm_90 and newer; launched
// only there), for frontiers up to a cluster's kSmallPasses passes, up to
// kSmallLevels levels in all: a frontier that fits a block is run by the
// cluster's first block alone (BlockLevels) while the others wait at the
// cluster barrier; a larger one by the whole cluster, each level the grid's
// (mcm_stepped_level: shared out evenly where the graph's levels are
// counted) with cluster barriers between levels.  A cluster barrier orders
// the blocks' global writes before their later reads, so every block reads
// the same scalars after one.
__global__ void __launch_bounds__(kSmallThreads)
    mcm_cluster_levels_kernel(McmProblem s, McmOptions o) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const ClusterTeam<kSmallThreads> team;
  team.Init();
  const bool wr = o.bfs == kMcmBfsWr;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    const int lanes = mcm_lanes(team, p);
    const bool even = mcm_edges_even(p);
    const int first = load_shared_scalar(p.sc + kMcmNLevels);
    for (;;) {
      const int left =
          first + kSmallLevels - load_shared_scalar(p.sc + kMcmNLevels);
      if (left <= 0 || !StepActive(p, kMcmBfsPhase)) break;
      if (SmallFrontier(p, lanes, kSmallThreads)) {
        if (blockIdx.x == 0) BlockLevels(p, o, left);
        team.sync();
        continue;
      }
      if (!SmallFrontier(p, lanes, team.size())) break;
      const int flags =
          team.sync_or(mcm_stepped_level(team, p, wr, lanes, even));
      if (team.rank() == 0) {
        if (even)
          mcm_ctrl_level<true>(p, o, flags);
        else
          mcm_ctrl_level<false>(p, o, flags);
      }
      team.sync();
    }
  }
  team.sync();  // no block leaves while another may read its shared memory
#endif
}

__global__ void mcm_level_kernel(McmProblem s, McmOptions o) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmBfsPhase)) continue;  // uniform over the row
    const bool even = mcm_edges_even(p);
    int bits = mcm_stepped_level(team, p, o.bfs == kMcmBfsWr,
                                 mcm_lanes(team, p), even);
    bits = BlockTeam().sync_or(bits);
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, bits) &&
        threadIdx.x == 0) {
      const int all = atomicExch(p.sc + kMcmInserted, 0);
      p.sc[kMcmTicket] = 0;
      if (even)
        mcm_ctrl_level<true>(p, o, all);
      else
        mcm_ctrl_level<false>(p, o, all);
    }
  }
}

__global__ void mcm_alternate_kernel(McmProblem s, McmOptions o) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmAlternatePhase)) continue;
    mcm_alternate(team, p, o.bfs == kMcmBfsWr);
  }
}

__global__ void mcm_fix_kernel(McmProblem s, McmOptions o) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmAlternatePhase)) continue;
    mcm_fix_and_restart(team, p);
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, 0) &&
        threadIdx.x == 0) {
      p.sc[kMcmTicket] = 0;
      mcm_ctrl_restart(p, o);
    }
  }
}

// The end of a phase that may keep its trees (kept_trees.h), for options
// that keep them: FixMatching and the released trees' marks, the graft (a
// no-op unless the trees are kept), the next queue (or the forest step's);
// each kernel a no-op outside its phase, each ending with the last block's
// transition.
__global__ void mcm_release_kernel(McmProblem s, McmOptions o) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmAlternatePhase)) continue;
    mcm_release(team, p);
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, 0) &&
        threadIdx.x == 0) {
      p.sc[kMcmTicket] = 0;
      mcm_ctrl_release(p, o);
    }
  }
}

__global__ void mcm_graft_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmRequeuePhase) ||
        load_shared_scalar(p.sc + kMcmKeptLevel) == 0 ||
        load_shared_scalar(p.sc + kMcmForest) != 0)
      continue;  // uniform over the row
    const int bits = BlockTeam().sync_or(mcm_graft(team, warp_tile(team), p));
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmGraftFound, bits) &&
        threadIdx.x == 0)
      p.sc[kMcmTicket] = 0;
  }
}

__global__ void mcm_requeue_kernel(McmProblem s, McmOptions o) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmRequeuePhase)) continue;
    mcm_requeue(team, p);
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, 0) &&
        threadIdx.x == 0) {
      p.sc[kMcmTicket] = 0;
      mcm_ctrl_restart(p, o);
    }
  }
}

// Push-relabel (push_relabel.h): a kernel per step, each a no-op unless its
// phase is current; the last block of a row runs the transition.
__global__ void mcm_pr_relabel_init_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!mcm_running(p)) continue;
    const int phase = mcm_phase(p);  // uniform over the row
    if (phase != kMcmBfsPhase && phase != kMcmPrRelabelInitPhase &&
        phase != kMcmPrRestartPhase)
      continue;
    if (phase == kMcmBfsPhase) mcm_pr_start(team, p);
    if (phase == kMcmPrRestartPhase) mcm_pr_restart(team, p);
    mcm_pr_relabel_init(team, p);
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, 0) &&
        threadIdx.x == 0) {
      p.sc[kMcmTicket] = 0;
      mcm_pr_ctrl_relabel_init(p, phase);
    }
  }
}

__global__ void mcm_pr_relabel_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmPrRelabelPhase)) continue;
    const int bits = BlockTeam().sync_or(mcm_pr_relabel_level(team, p));
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, bits) &&
        threadIdx.x == 0) {
      const int all = atomicExch(p.sc + kMcmInserted, 0);
      p.sc[kMcmTicket] = 0;
      mcm_pr_ctrl_relabel(p, all);
    }
  }
}

__global__ void mcm_pr_list_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmPrListPhase)) continue;
    const int bits = BlockTeam().sync_or(mcm_pr_list(team, p));
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, bits) &&
        threadIdx.x == 0) {
      const int all = atomicExch(p.sc + kMcmInserted, 0);
      p.sc[kMcmTicket] = 0;
      mcm_pr_ctrl_list(p, all);
    }
  }
}

__global__ void mcm_pr_shrink_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmPrShrinkPhase)) continue;
    mcm_pr_shrink(team, p);
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, 0) &&
        threadIdx.x == 0) {
      p.sc[kMcmTicket] = 0;
      mcm_pr_ctrl_shrink(p);
    }
  }
}

__global__ void mcm_pr_shrunk_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmPrShrunkPhase)) continue;
    mcm_pr_shrunk(team, p);
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, 0) &&
        threadIdx.x == 0) {
      p.sc[kMcmTicket] = 0;
      mcm_pr_ctrl_shrunk(p);
    }
  }
}

__global__ void mcm_pr_push_kernel(McmProblem s, McmOptions o) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmPrPushPhase)) continue;
    mcm_pr_push(team, p);
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, 0) &&
        threadIdx.x == 0) {
      p.sc[kMcmTicket] = 0;
      mcm_pr_ctrl_push(p, o);
    }
  }
}

__global__ void mcm_pr_fix_kernel(McmProblem s) {
  GridRowTeam team;
  for (int64_t b = blockIdx.y; b < s.batch; b += gridDim.y) {
    McmView p = s.view(b);
    if (!StepActive(p, kMcmPrFixPhase)) continue;
    mcm_pr_fix(team, p);
    if (LastBlockOfRow(p.sc + kMcmTicket, p.sc + kMcmInserted, 0) &&
        threadIdx.x == 0) {
      p.sc[kMcmTicket] = 0;
      mcm_pr_ctrl_fix(p);
    }
  }
}

__global__ void __launch_bounds__(kFusedMaxThreads)
    mcm_solve_kernel(McmProblem s, int init, const int* rm0, const int* cm0,
                     McmOptions o) {
  const BlockTeam team;
  for (int64_t b = blockIdx.x; b < s.batch; b += gridDim.x) {
    McmView p = s.view(b);
    mcm_init(team, p, init, rm0 + b * s.nr, cm0 + b * s.nc);
    mcm_solve_loop(team, p, o);
    team.sync();
  }
}

int Blocks(int64_t work, int cap) {
  int64_t bx = (work + kMcmThreads - 1) / kMcmThreads;
  if (bx < 1) bx = 1;
  if (bx > cap) bx = cap;
  return static_cast<int>(bx);
}

// CT: a constant grid; MT: one thread per vertex, up to the threads the GPU
// holds at once (Deveci et al.: MT = min(n, #threads of the architecture)).
dim3 Grid(const McmProblem& s, int mapping, int resident_blocks) {
  const int64_t work = s.nr > s.nc ? s.nr : s.nc;
  const int bx =
      mapping == kMcmMappingCt ? kCtBlocks : Blocks(work, resident_blocks);
  const int by = s.batch < kMaxGridY ? static_cast<int>(s.batch) : kMaxGridY;
  return dim3(bx, by);
}

// Launches kernel(args...) with a cluster of kSmallThreads-thread blocks
// per problem (`rows` of them) in the first of kClusterShapes the device
// runs; *launched is false where it runs none (no clusters, or no shape
// fits), and nothing was launched.
constexpr int kClusterShapes[] = {16, 8};
template <class... Args>
cudaError_t LaunchPerCluster(cudaStream_t stream, unsigned rows, bool* launched,
                             void (*kernel)(Args...), Args... args) {
  *launched = false;
  bool clusters = false;
  const cudaError_t e = DeviceHasClusters(&clusters);
  if (e != cudaSuccess || !clusters) return e;
  for (const int blocks : kClusterShapes) {
    if (ClusterActive(kernel, kSmallThreads, blocks, stream) < 1) continue;
    *launched = true;
    return WithClusterConfig(dim3(blocks, rows), kSmallThreads, blocks, stream,
                             [&](const cudaLaunchConfig_t& config) {
                               return cudaLaunchKernelEx(&config, kernel,
                                                         args...);
                             });
  }
  return cudaSuccess;
}

// The ordered greedy on a cluster of blocks per problem where the graph has
// more columns than one block's window and the device runs clusters, else a
// block per problem: a cluster's wider window takes fewer rounds, each
// thread looking at about as many columns per round (docs/matching.md,
// "greedy_matching").
template <bool kRestart>
cudaError_t LaunchOg(cudaStream_t stream, const McmProblem& s, unsigned rows) {
  bool launched = false;
  if (s.nc > kMcmOgSlots * kSmallThreads) {
    const cudaError_t e = LaunchPerCluster(stream, rows, &launched,
                                           mcm_og_cluster_kernel<kRestart>, s);
    if (e != cudaSuccess || launched) return e;
  }
  mcm_og_kernel<kRestart><<<dim3(1, rows), kSmallThreads, 0, stream>>>(s);
  return cudaGetLastError();
}

// The levels with small frontiers that start a stepped call: on a cluster
// per problem where the graph may have frontiers wider than a block takes
// and the device runs clusters (mcm_cluster_levels_kernel), else on a block
// (mcm_small_levels_kernel).
cudaError_t LaunchSmallLevels(cudaStream_t stream, const McmProblem& s,
                              const McmOptions& o, unsigned rows) {
  bool launched = false;
  if (s.nc > kSmallPasses * kSmallThreads) {
    const cudaError_t e = LaunchPerCluster(stream, rows, &launched,
                                           mcm_cluster_levels_kernel, s, o);
    if (e != cudaSuccess || launched) return e;
  }
  mcm_small_levels_kernel<<<dim3(1, rows), kSmallThreads, 0, stream>>>(s, o);
  return cudaGetLastError();
}

// Push-relabel: `levels` rounds of (start / restart / relabel init, relabel
// level, list, shrink, shrunk, push), each kernel a no-op outside its phase, so
// a round advances a push iteration or a relabel level; then the fix (a no-op
// until it is due).
cudaError_t LaunchMcmPrStep(cudaStream_t stream, const McmProblem& s,
                            const McmOptions& o, dim3 grid, int levels) {
  for (int k = 0; k < levels; ++k) {
    mcm_pr_relabel_init_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
    mcm_pr_relabel_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
    mcm_pr_list_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
    mcm_pr_shrink_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
    mcm_pr_shrunk_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
    mcm_pr_push_kernel<<<grid, kMcmThreads, 0, stream>>>(s, o);
  }
  mcm_pr_fix_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchMcmInit(cudaStream_t stream, const McmProblem& s, int init,
                          const int* rm0, const int* cm0, int resident_blocks) {
  if (s.batch == 0) return cudaSuccess;
  const dim3 grid = Grid(s, kMcmMappingMt, resident_blocks);
  mcm_init_clear_kernel<<<grid, kMcmThreads, 0, stream>>>(s, init, rm0, cm0);
  mcm_init_match_kernel<<<grid, kMcmThreads, 0, stream>>>(s, init, rm0);
  if (init == kMcmInitCheap)
    mcm_init_cheap_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
  if (init == kMcmInitKarpSipser) {
    mcm_ks_prepare_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
    for (int k = 0; k < kMcmKsSteppedRounds; ++k)
      mcm_ks_round_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
    mcm_ks_finish_cols_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
    mcm_ks_finish_rows_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
  }
  if (init == kMcmInitGreedy) {
    const cudaError_t e = LaunchOg<false>(stream, s, grid.y);
    if (e != cudaSuccess) return e;
  }
  mcm_init_bfs_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
  return cudaGetLastError();
}

cudaError_t LaunchMcmStep(cudaStream_t stream, const McmProblem& s,
                          const McmOptions& o, int mapping, int levels,
                          int resident_blocks) {
  if (s.batch == 0) return cudaSuccess;
  const dim3 grid = Grid(s, mapping, resident_blocks);
  if (o.driver == kMcmPr) return LaunchMcmPrStep(stream, s, o, grid, levels);
  // Small frontiers first (a phase starts from the free columns left), then
  // a launch per level.  Each launch costs a few microseconds even as a
  // no-op, so the small-frontier kernel runs once per call.
  if (o.restart_levels > 0) {
    const cudaError_t e = LaunchOg<true>(stream, s, grid.y);
    if (e != cudaSuccess) return e;
  }
  const cudaError_t e = LaunchSmallLevels(stream, s, o, grid.y);
  if (e != cudaSuccess) return e;
  for (int k = 0; k < levels; ++k)
    mcm_level_kernel<<<grid, kMcmThreads, 0, stream>>>(s, o);
  mcm_alternate_kernel<<<grid, kMcmThreads, 0, stream>>>(s, o);
  if (mcm_keeps_trees(o, s.rxadj != nullptr)) {
    mcm_release_kernel<<<grid, kMcmThreads, 0, stream>>>(s, o);
    mcm_graft_kernel<<<grid, kMcmThreads, 0, stream>>>(s);
    mcm_requeue_kernel<<<grid, kMcmThreads, 0, stream>>>(s, o);
  } else {
    mcm_fix_kernel<<<grid, kMcmThreads, 0, stream>>>(s, o);
  }
  return cudaGetLastError();
}

cudaError_t LaunchMcmSolve(cudaStream_t stream, const McmProblem& s, int init,
                           const int* rm0, const int* cm0,
                           const McmOptions& o) {
  if (s.batch == 0) return cudaSuccess;
  const int work = s.nr > s.nc ? s.nr : s.nc;
  int threads = ((work + 31) / 32) * 32;
  if (threads < 32) threads = 32;
  if (threads > kFusedMaxThreads) threads = kFusedMaxThreads;
  const int64_t blocks =
      s.batch < (int64_t{1} << 30) ? s.batch : (int64_t{1} << 30);
  mcm_solve_kernel<<<static_cast<int>(blocks), threads, 0, stream>>>(
      s, init, rm0, cm0, o);
  return cudaGetLastError();
}

}  // namespace jaxmatch
