// The CUDA matching launchers run directly (no JAX), for compute-sanitizer
// and as a GPU test (tests/matching/test_matching_kernel_harness.py builds it
// with CMake).
//
// Fused and stepped solves (both thread mappings) of small random graphs for
// every driver (push-relabel included: its stepped calls run 3 push
// iterations / relabel levels each), BFS kernel and initialisation (none,
// cheap, Karp-Sipser; the last reads the row CSR too), with root tracking
// also with trees kept across phases (kept_trees.h, keep_trees_divisor 1:
// kept whenever a phase released fewer columns than it visited; some graphs'
// column lists are unsorted, so grafts are missed); each result
// must be a valid matching with the cardinality of the serial solve on the
// host from scratch (mcm_init and mcm_solve_loop, run by a serial team).  A
// launch that has not finished in time (harness_finished.h) counts as a hang:
// the harness reports it and exits.  Three graphs wider than a block's frontier
// (kWideColumns) run the stepped BFS drivers, whose levels then run on a
// cluster where the device has clusters.  It also checks the warp-shared queue
// claims of common/device.h (CheckWarpClaims).
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "matching/matching_kernels.h"
#include "matching/matching_solve.h"

#include "../harness_finished.h"
#include "common/exit_on_cuda_error.h"

using namespace jaxmatch;

struct Graph {
  int nr, nc;
  std::vector<int> cx, ca;
  std::vector<int> rx, ra;  // the row CSR, built by AddRowCsr
};

// The row CSR (the transpose of the column CSR), padded to the same capacity.
static void AddRowCsr(Graph& g) {
  g.rx.assign(g.nr + 1, 0);
  for (int c = 0; c < g.nc; ++c)
    for (int k = g.cx[c]; k < g.cx[c + 1]; ++k) ++g.rx[g.ca[k] + 1];
  for (int r = 0; r < g.nr; ++r) g.rx[r + 1] += g.rx[r];
  g.ra.assign(g.ca.size(), 0);
  std::vector<int> next(g.rx.begin(), g.rx.end() - 1);
  for (int c = 0; c < g.nc; ++c)
    for (int k = g.cx[c]; k < g.cx[c + 1]; ++k) g.ra[next[g.ca[k]]++] = c;
}

// Graphs wider than this (a block's frontier in the stepped kernels) run
// only the stepped BFS drivers from no and the cheap matching: the levels on
// a cluster are theirs; the other drivers and inits take the same paths as
// on the small graphs.
constexpr int kWideColumns = 4096;

// The k x m grid's 4-neighbour graph, vertex i both row i and column i.
static Graph Grid(int k, int m) {
  Graph g{k * m, k * m, {0}, {}};
  for (int c = 0; c < g.nc; ++c) {
    const int i = c / m, j = c % m;
    if (i > 0) g.ca.push_back(c - m);
    if (j > 0) g.ca.push_back(c - 1);
    if (j + 1 < m) g.ca.push_back(c + 1);
    if (i + 1 < k) g.ca.push_back(c + m);
    g.cx.push_back(static_cast<int>(g.ca.size()));
  }
  return g;
}

// Columns of 1-3 distinct random rows each, and `hubs` columns of a third
// of the rows.
static Graph RandomWide(std::mt19937& rng, int nr, int nc, int hubs) {
  Graph g{nr, nc, {0}, {}};
  for (int c = 0; c < nc; ++c) {
    if (c % (nc / (hubs + 1)) == 1 && hubs > 0) {
      for (int r = c % 3; r < nr; r += 3) g.ca.push_back(r);
    } else {
      const int d = 1 + rng() % 3, first = rng() % nr;
      for (int e = 0; e < d; ++e) g.ca.push_back((first + 7919 * e) % nr);
    }
    g.cx.push_back(static_cast<int>(g.ca.size()));
  }
  return g;
}

static int HostCardinality(const Graph& g, const McmOptions& o, int init) {
  const int w = static_cast<int>(McmWorkLayout(g.nr, g.nc).len);
  std::vector<int> rm(g.nr), cm(g.nc), info(kMcmInfoLen), work(w),
      none_r(g.nr, -1), none_c(g.nc, -1);
  McmProblem p{
      1,           g.nr,        g.nc,      static_cast<int>(g.ca.size()),
      g.cx.data(), g.ca.data(), rm.data(), cm.data(),
      info.data(), work.data()};
  p.rxadj = g.rx.data();
  p.radj = g.ra.data();
  p.rcap = static_cast<int>(g.ra.size());
  McmView v = p.view(0);
  const SerialTeam team;
  mcm_init(team, v, init, none_r.data(), none_c.data());
  mcm_solve_loop(team, v, o);
  int card = 0;
  for (int c : cm) card += c >= 0;
  return card;
}

template <class V>
int* ToDevice(const V& h) {
  int* d = nullptr;
  CK(cudaMalloc(&d, 4 * (h.size() ? h.size() : 1)));
  if (h.size())
    CK(cudaMemcpy(d, h.data(), 4 * h.size(), cudaMemcpyHostToDevice));
  return d;
}

// The warp-shared claims of common/device.h, by lanes that reach them
// together (all of a warp, or the few at the same iteration of loops of
// differing lengths): item j (when want[j]) claims one slot and degree[j]
// edges from the pair (atomic_add_int_pair_by_warp; with `spread`, its lane
// first loops j % 3 times).
__global__ void warp_claims_kernel(int* pair, const int* want,
                                   const int* degree, int* slot, int* first,
                                   int n, bool spread) {
  for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < n;
       j += gridDim.x * blockDim.x) {
    for (int t = 0; t <= (spread ? j % 3 : 0); ++t) {
      if (t != (spread ? j % 3 : 0) || !want[j]) continue;
      atomic_add_int_pair_by_warp(pair, 1, degree[j], slot + j, first + j);
    }
  }
}

// Whether the claims above form one queue: the slots of the items that
// claimed are 0..count-1 once each, each item's first edge is the edges of
// the items in the slots before it, and the pair ends at (count, edges).
static int CheckWarpClaims(cudaStream_t s) {
  std::mt19937 rng(7);
  int bad = 0;
  for (int t = 0; t < 8; ++t) {
    const int n = 1 + static_cast<int>(rng() % 5000);
    const bool spread = t % 2 == 1;
    std::vector<int> want(n), degree(n), slot(n, -1), first(n, -1), pair(2, 0);
    for (int j = 0; j < n; ++j) {
      want[j] = t < 2 ? 1 : static_cast<int>(rng() % 3 == 0);
      degree[j] = static_cast<int>(rng() % 50);
    }
    int *d_pair, *d_want, *d_deg, *d_slot, *d_first;
    CK(cudaMalloc(&d_pair, 2 * sizeof(int)));
    for (int** ptr : {&d_want, &d_deg, &d_slot, &d_first})
      CK(cudaMalloc(ptr, n * sizeof(int)));
    CK(cudaMemcpy(d_pair, pair.data(), 2 * sizeof(int), cudaMemcpyDefault));
    CK(cudaMemcpy(d_want, want.data(), n * sizeof(int), cudaMemcpyDefault));
    CK(cudaMemcpy(d_deg, degree.data(), n * sizeof(int), cudaMemcpyDefault));
    warp_claims_kernel<<<1 + t, 96, 0, s>>>(d_pair, d_want, d_deg, d_slot,
                                            d_first, n, spread);
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(pair.data(), d_pair, 2 * sizeof(int), cudaMemcpyDefault));
    CK(cudaMemcpy(slot.data(), d_slot, n * sizeof(int), cudaMemcpyDefault));
    CK(cudaMemcpy(first.data(), d_first, n * sizeof(int), cudaMemcpyDefault));
    for (int* ptr : {d_pair, d_want, d_deg, d_slot, d_first}) CK(cudaFree(ptr));
    int count = 0, edges = 0;
    for (int j = 0; j < n; ++j) {
      count += want[j];
      edges += want[j] ? degree[j] : 0;
    }
    std::vector<int> by_slot(count, -1);
    bool ok = pair[0] == count && pair[1] == edges;
    for (int j = 0; j < n && ok; ++j) {
      if (!want[j]) continue;
      ok = slot[j] >= 0 && slot[j] < count && by_slot[slot[j]] < 0;
      if (ok) by_slot[slot[j]] = j;
    }
    for (int k = 0, sum = 0; k < count && ok; ++k) {
      ok = first[by_slot[k]] == sum;
      sum += degree[by_slot[k]];
    }
    if (!ok) {
      ++bad;
      std::printf("BAD warp claims: %d items, spread %d\n", n, spread);
    }
  }
  return bad;
}

// Flags, for runs under compute-sanitizer racecheck (with
// JAXMATCH_HARNESS_HANG_S raised): `--wide-only` runs only the graphs wider
// than a block's frontier (the cluster levels' graphs), `--graph=N` only
// graph N.
int main(int argc, char** argv) {
  bool wide_only = false;
  int only_graph = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--wide-only") {
      wide_only = true;
    } else if (arg.rfind("--graph=", 0) == 0) {
      only_graph = std::atoi(arg.c_str() + 8);
    } else {
      std::printf("unknown flag %s\n", arg.c_str());
      return 2;
    }
  }
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int resident = sms * 2048 / kMcmThreads;

  std::vector<Graph> graphs;
  graphs.push_back({1, 1, {0, 1}, {0}});
  graphs.push_back({2, 2, {0, 2, 4}, {0, 1, 0, 1}});
  graphs.push_back({3, 2, {0, 0, 0}, {0}});  // no edges
  std::mt19937 rng(1);
  for (int t = 0; t < 24; ++t) {
    Graph g;
    g.nr = 1 + rng() % 60;
    g.nc = 1 + rng() % 60;
    g.cx = {0};
    for (int c = 0; c < g.nc; ++c) {
      for (int r = 0; r < g.nr; ++r)
        if (rng() % 8 == 0) g.ca.push_back(r);
      g.cx.push_back(static_cast<int>(g.ca.size()));
    }
    if (g.ca.empty()) g.ca.push_back(0);  // capacity 1, no edge
    graphs.push_back(g);
  }
  // Wider than a block's frontier (kWideColumns), so the stepped solver's
  // levels run on a cluster where the device has clusters: a grid (long
  // paths), a sparse random graph (frontiers of thousands of columns) and
  // one with hub columns (its levels shared out evenly).
  graphs.push_back(Grid(120, 120));
  graphs.push_back(RandomWide(rng, 12000, 12000, 0));
  graphs.push_back(RandomWide(rng, 9000, 10000, 8));
  for (Graph& g : graphs) AddRowCsr(g);

  int bad = 0, runs = 0;
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    const Graph& g = graphs[gi];
    if ((wide_only && g.nc <= kWideColumns) ||
        (only_graph >= 0 && static_cast<int>(gi) != only_graph))
      continue;
    const int w = static_cast<int>(McmWorkLayout(g.nr, g.nc).len);
    std::vector<int> none_r(g.nr, -1), none_c(g.nc, -1);
    int* d_cx = ToDevice(g.cx);
    int* d_ca = ToDevice(g.ca);
    int* d_rm0 = ToDevice(none_r);
    int* d_cm0 = ToDevice(none_c);
    int* d_rm = ToDevice(none_r);
    int* d_cm = ToDevice(none_c);
    int* d_info = ToDevice(std::vector<int>(kMcmInfoLen));
    int* d_work = ToDevice(std::vector<int>(w));
    int* d_rx = ToDevice(g.rx);
    int* d_ra = ToDevice(g.ra);
    McmProblem p{1,      g.nr,  g.nc, static_cast<int>(g.ca.size()),
                 d_cx,   d_ca,  d_rm, d_cm,
                 d_info, d_work};
    p.rxadj = d_rx;
    p.radj = d_ra;
    p.rcap = static_cast<int>(g.ra.size());
    const int inits[] = {kMcmInitNone, kMcmInitCheap, kMcmInitKarpSipser};
    for (int stepped = 0; stepped < 2; ++stepped)
      for (int driver = kMcmApfb; driver <= kMcmPr; ++driver)
        for (int bfs = 0; bfs < 2; ++bfs)
          for (int keep = 0; keep < 2; ++keep)
            for (int init : inits) {
              if (g.nc > kWideColumns &&
                  (!stepped || driver == kMcmPr || init == kMcmInitKarpSipser))
                continue;
              if (keep && (bfs != kMcmBfsWr || driver == kMcmPr)) continue;
              ++runs;
              // push-relabel: max_phases bounds push iterations, generously
              // (jaxmatch.matching.api.pr_max_iterations)
              const int n = g.nr + g.nc + 2;
              const int max_phases =
                  driver == kMcmPr ? 4 * n * n : std::min(g.nr, g.nc) + 1;
              const McmOptions o{driver, bfs, max_phases, 4, 50, 0, keep};
              const McmOptions scratch{driver, bfs, max_phases, 4, 50};
              bool ok;
              if (!stepped) {
                CK(LaunchMcmSolve(s, p, init, d_rm0, d_cm0, o));
                ok = Finished(s);
              } else {
                CK(LaunchMcmInit(s, p, init, d_rm0, d_cm0, resident));
                ok = Finished(s);
                for (int call = 0; ok && call < 100000; ++call) {
                  int status = 0;
                  CK(cudaMemcpy(&status, d_info + kMcmStatus, 4,
                                cudaMemcpyDeviceToHost));
                  if (status != kMcmRunning) break;
                  CK(LaunchMcmStep(s, p, o, call % 2, 3, resident));
                  ok = Finished(s);
                }
              }
              if (!ok) {
                std::printf(
                    "HANG graph %zu (%dx%d) stepped %d driver %d bfs %d keep "
                    "%d "
                    "init %d\n",
                    gi, g.nr, g.nc, stepped, driver, bfs, keep, init);
                return 1;
              }
              std::vector<int> rm(g.nr), cm(g.nc), info(kMcmInfoLen);
              CK(cudaMemcpy(rm.data(), d_rm, 4 * g.nr, cudaMemcpyDeviceToHost));
              CK(cudaMemcpy(cm.data(), d_cm, 4 * g.nc, cudaMemcpyDeviceToHost));
              CK(cudaMemcpy(info.data(), d_info, 4 * kMcmInfoLen,
                            cudaMemcpyDeviceToHost));
              int card = 0;
              bool valid = info[kMcmStatus] == kMcmDone;
              for (int r = 0; r < g.nr; ++r) {
                const int c = rm[r];
                if (c < 0) continue;
                ++card;
                bool edge = false;
                for (int k = g.cx[c]; k < g.cx[c + 1]; ++k)
                  edge |= g.ca[k] == r;
                valid &= edge && cm[c] == r;
              }
              int col_card = 0;
              for (int c : cm) col_card += c >= 0;
              valid &= col_card == card;
              const int expect = HostCardinality(g, scratch, init);
              if (!valid || card != expect) {
                ++bad;
                std::printf(
                    "BAD graph %zu (%dx%d) stepped %d driver %d bfs %d keep %d "
                    "init %d: status %d valid %d cardinality %d expected %d\n",
                    gi, g.nr, g.nc, stepped, driver, bfs, keep, init,
                    info[kMcmStatus], valid, card, expect);
              }
            }
    for (int* ptr :
         {d_cx, d_ca, d_rm0, d_cm0, d_rm, d_cm, d_info, d_work, d_rx, d_ra})
      CK(cudaFree(ptr));
  }
  if (!wide_only && only_graph < 0) bad += CheckWarpClaims(s);
  std::printf("matching_kernel_harness: %s (%d runs, %d bad)\n",
              bad ? "FAILED" : "OK", runs, bad);
  return bad ? 1 : 0;
}
