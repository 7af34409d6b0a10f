// Level-time probe of the stepped matching kernels (no JAX): reads a graph
// dumped by tools/mcm_dump_graph.py, starts from the sequential cheap
// matching (computed here, on the host, as the benchmark does), and
//   * times whole stepped solves (LaunchMcmStep with `levels` level kernels
//     per call, the status read back after each call, as lax.while_loop does
//     without command buffers), several repeats;
//   * with --profile, runs one level per call and records each level's GPU
//     time (CUDA events around the call) against its frontier size.
// Each solve's matching is checked on the host (consistent pairs, edges).
//
//   cmake -S cuda_ffi -B build -DJAXMATCH_BUILD_HARNESSES=ON && \
//     cmake --build build --target mcm_levels
//   build/mcm_levels graph.bin [--driver apfb|apsb|hybrid] [--levels 16]
//                   [--mapping ct|mt] [--repeats 5] [--profile]
//                   [--level-lines] [--carry original.bin graph.perm.bin]
// --carry starts a permuted graph from its original's cheap matching carried
// through the permutation (tools/mcm_dump_graph.py writes graph.perm.bin)
// instead of its own: the same matching, only relabelled.  --profile also
// prints one line per phase (roots, levels, depth of its first path, columns
// expanded, GPU time); --level-lines (implies --profile) one line per call:
// its frontier, the frontier's edges and largest column degree, GPU time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "matching/matching_kernels.h"

#include "common/exit_on_cuda_error.h"

using namespace jaxmatch;

struct Graph {
  int nr = 0, nc = 0;
  std::vector<int> cx, ca;
};

// File: int32 nr, nc, nnz, then cxadj [nc + 1], cadj [nnz].
static Graph Read(const char* path) {
  Graph g;
  FILE* f = std::fopen(path, "rb");
  if (!f) {
    std::printf("cannot open %s\n", path);
    std::exit(2);
  }
  int h[3];
  if (std::fread(h, 4, 3, f) != 3) std::exit(2);
  g.nr = h[0];
  g.nc = h[1];
  g.cx.resize(g.nc + 1);
  g.ca.resize(std::max(h[2], 1));
  if (std::fread(g.cx.data(), 4, g.nc + 1, f) != size_t(g.nc + 1)) std::exit(2);
  if (h[2] && std::fread(g.ca.data(), 4, h[2], f) != size_t(h[2])) std::exit(2);
  std::fclose(f);
  return g;
}

// The sequential cheap matching: each column takes its first free row.
static int Cheap(const Graph& g, std::vector<int>& rm, std::vector<int>& cm) {
  rm.assign(g.nr, -1);
  cm.assign(g.nc, -1);
  int cheap = 0;
  for (int c = 0; c < g.nc; ++c)
    for (int k = g.cx[c]; k < g.cx[c + 1]; ++k)
      if (rm[g.ca[k]] < 0) {
        rm[g.ca[k]] = c;
        cm[c] = g.ca[k];
        ++cheap;
        break;
      }
  return cheap;
}

// The permuted graph is A[p][:, q]: its row i is the original's row p[i], its
// column j the original's column q[j].  File: int32 nr, nc, p [nr], q [nc].
static void CarryMatching(const char* perm_path, std::vector<int>& rm,
                          std::vector<int>& cm) {
  FILE* f = std::fopen(perm_path, "rb");
  if (!f) {
    std::printf("cannot open %s\n", perm_path);
    std::exit(2);
  }
  int h[2];
  if (std::fread(h, 4, 2, f) != 2 || h[0] != int(rm.size()) ||
      h[1] != int(cm.size())) {
    std::printf("%s: shape does not match the graph\n", perm_path);
    std::exit(2);
  }
  std::vector<int> p(h[0]), q(h[1]), pinv(h[0]), qinv(h[1]);
  if (std::fread(p.data(), 4, h[0], f) != size_t(h[0]) ||
      std::fread(q.data(), 4, h[1], f) != size_t(h[1]))
    std::exit(2);
  std::fclose(f);
  for (int i = 0; i < h[0]; ++i) pinv[p[i]] = i;
  for (int j = 0; j < h[1]; ++j) qinv[q[j]] = j;
  std::vector<int> rm2(h[0]), cm2(h[1]);
  for (int i = 0; i < h[0]; ++i) rm2[i] = rm[p[i]] < 0 ? -1 : qinv[rm[p[i]]];
  for (int j = 0; j < h[1]; ++j) cm2[j] = cm[q[j]] < 0 ? -1 : pinv[cm[q[j]]];
  rm.swap(rm2);
  cm.swap(cm2);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::printf("usage: mcm_levels graph.bin [options]\n");
    return 2;
  }
  const Graph g = Read(argv[1]);
  int driver = kMcmApfb, levels = 16, mapping = kMcmMappingCt, repeats = 5;
  bool profile = false, level_lines = false;
  const char *carry_graph = nullptr, *carry_perm = nullptr;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--driver") {
      const std::string d = argv[++i];
      driver = d == "apsb" ? kMcmApsb : d == "hybrid" ? kMcmHybrid : kMcmApfb;
    } else if (a == "--levels")
      levels = std::atoi(argv[++i]);
    else if (a == "--mapping")
      mapping = std::string(argv[++i]) == "mt" ? kMcmMappingMt : kMcmMappingCt;
    else if (a == "--repeats")
      repeats = std::atoi(argv[++i]);
    else if (a == "--profile")
      profile = true;
    else if (a == "--level-lines")
      profile = level_lines = true;
    else if (a == "--carry" && i + 2 < argc) {
      carry_graph = argv[++i];
      carry_perm = argv[++i];
    }
  }
  std::vector<int> rm0, cm0;
  int cheap = 0;
  if (carry_graph) {
    const Graph orig = Read(carry_graph);
    if (orig.nr != g.nr || orig.nc != g.nc || orig.cx[orig.nc] != g.cx[g.nc]) {
      std::printf("%s is not the original of %s\n", carry_graph, argv[1]);
      return 2;
    }
    cheap = Cheap(orig, rm0, cm0);
    CarryMatching(carry_perm, rm0, cm0);
    for (int c = 0; c < g.nc; ++c)  // every carried pair must be an edge
      if (cm0[c] >= 0 &&
          !std::binary_search(g.ca.begin() + g.cx[c],
                              g.ca.begin() + g.cx[c + 1], cm0[c])) {
        std::printf("carried pair (%d, %d) is not an edge\n", cm0[c], c);
        return 2;
      }
  } else {
    cheap = Cheap(g, rm0, cm0);
  }

  // The state: row_match, col_match, info and work, in one allocation.
  const size_t work_len = McmWorkLayout(g.nr, g.nc).len;
  const size_t rm_at = 0, cm_at = g.nr, info_at = cm_at + g.nc,
               work_at = info_at + kMcmInfoLen, len = work_at + work_len;
  int *d_cx, *d_ca, *d_st, *d_rm, *d_cm;
  CK(cudaMalloc(&d_cx, g.cx.size() * 4));
  CK(cudaMalloc(&d_ca, g.ca.size() * 4));
  CK(cudaMalloc(&d_st, len * 4));
  CK(cudaMalloc(&d_rm, g.nr * 4));
  CK(cudaMalloc(&d_cm, g.nc * 4));
  CK(cudaMemcpy(d_cx, g.cx.data(), g.cx.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_ca, g.ca.data(), g.ca.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_rm, rm0.data(), g.nr * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_cm, cm0.data(), g.nc * 4, cudaMemcpyHostToDevice));
  const McmProblem p{1,
                     g.nr,
                     g.nc,
                     static_cast<int>(g.ca.size()),
                     d_cx,
                     d_ca,
                     d_st + rm_at,
                     d_st + cm_at,
                     d_st + info_at,
                     d_st + work_at};
  const McmOptions o{driver, kMcmBfsWr, std::min(g.nr, g.nc) + 1, 4, 50};
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const int resident = sms * 2048 / kMcmThreads;
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int* h_sc;
  CK(cudaMallocHost(&h_sc, kMcmInfoLen * 4));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  auto check = [&](const char* what) {
    std::vector<int> st(len);
    CK(cudaMemcpy(st.data(), d_st, len * 4, cudaMemcpyDeviceToHost));
    const int* sc = st.data() + info_at;
    int card = 0;
    bool ok = sc[kMcmStatus] == kMcmDone;
    for (int r = 0; r < g.nr; ++r) {
      const int c = st[rm_at + r];
      if (c < 0) continue;
      ++card;
      if (c >= g.nc || st[cm_at + c] != r ||
          !std::binary_search(g.ca.begin() + g.cx[c],
                              g.ca.begin() + g.cx[c + 1], r))
        ok = false;
    }
    std::printf("%s: status %d card %d phases %d levels %d %s\n", what,
                sc[kMcmStatus], card, sc[kMcmNPhases], sc[kMcmNLevels],
                ok ? "ok" : "INVALID");
    return ok;
  };

  std::printf(
      "graph %s: %d x %d, nnz %d, %s %d (free %d); driver %s, %d levels/call, "
      "%s\n",
      argv[1], g.nr, g.nc, g.cx[g.nc], carry_graph ? "carried cheap" : "cheap",
      cheap, g.nc - cheap,
      driver == kMcmApsb     ? "apsb"
      : driver == kMcmHybrid ? "hybrid"
                             : "apfb",
      levels, mapping == kMcmMappingMt ? "mt" : "ct");
  bool all_ok = true;
  std::vector<double> times;
  for (int rep = 0; rep < repeats + 1; ++rep) {  // the first is a warm-up
    CK(cudaStreamSynchronize(s));
    const auto t0 = std::chrono::steady_clock::now();
    CK(LaunchMcmInit(s, p, kMcmInitGiven, d_rm, d_cm, resident));
    for (int call = 0;; ++call) {
      CK(LaunchMcmStep(s, p, o, mapping, levels, resident));
      CK(cudaMemcpyAsync(h_sc, d_st + info_at, kMcmInfoLen * 4,
                         cudaMemcpyDeviceToHost, s));
      CK(cudaStreamSynchronize(s));
      if (h_sc[kMcmStatus] != kMcmRunning) break;
    }
    const double ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - t0)
                          .count();
    if (rep > 0) times.push_back(ms);
    char what[64];
    std::snprintf(what, sizeof what, "solve %d: %.3f ms", rep, ms);
    all_ok &= check(what);
  }
  std::sort(times.begin(), times.end());
  if (!times.empty())
    std::printf("median solve %.3f ms\n", times[times.size() / 2]);

  if (profile) {
    // One level per call; the call's GPU time against the level's frontier.
    CK(LaunchMcmInit(s, p, kMcmInitGiven, d_rm, d_cm, resident));
    CK(cudaMemcpyAsync(h_sc, d_st + info_at, kMcmInfoLen * 4,
                       cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    const int kBuckets = 24;
    std::vector<double> sum(kBuckets, 0.0);
    std::vector<int> cnt(kBuckets, 0);
    // A call is 1 level + alternate + fix kernels; the last two work only in
    // the call whose level ends its phase (so that call's time includes them),
    // and every call starts in the BFS phase.
    double level_ms = 0;
    int level_calls = 0;
    // Per phase: roots, levels, depth of the first path, columns expanded,
    // GPU time.  The depth is seen only when a level finds a path without
    // ending the phase (0 otherwise: the call has reset the scalars).
    int ph_levels = 0, ph_roots = h_sc[kMcmQEnd], ph_first = 0;
    long long ph_work = 0;
    double ph_ms = 0;
    int levels_before = h_sc[kMcmNLevels];
    const size_t queue_at = work_at + McmWorkLayout(g.nr, g.nc).queue;
    std::vector<int> frontier;
    while (h_sc[kMcmStatus] == kMcmRunning) {
      const int front = h_sc[kMcmQEnd] - h_sc[kMcmQHead];
      const int phase = h_sc[kMcmNPhases];
      // The frontier's edges and its largest column (--level-lines).
      long long front_edges = 0;
      int front_max = 0;
      if (level_lines && front > 0) {
        frontier.resize(front);
        CK(cudaMemcpy(frontier.data(), d_st + queue_at + h_sc[kMcmQHead],
                      front * 4, cudaMemcpyDeviceToHost));
        for (int c : frontier) {
          const int d = g.cx[c + 1] - g.cx[c];
          front_edges += d;
          front_max = std::max(front_max, d);
        }
      }
      CK(cudaEventRecord(e0, s));
      CK(LaunchMcmStep(s, p, o, mapping, 1, resident));
      CK(cudaEventRecord(e1, s));
      CK(cudaMemcpyAsync(h_sc, d_st + info_at, kMcmInfoLen * 4,
                         cudaMemcpyDeviceToHost, s));
      CK(cudaStreamSynchronize(s));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      // A call runs one level, or up to kSmallLevels of small frontiers.
      const int ran = h_sc[kMcmNLevels] - levels_before;
      levels_before = h_sc[kMcmNLevels];
      int b = 0;
      while ((2 << b) <= front && b < kBuckets - 1) ++b;
      sum[b] += ms;
      cnt[b] += ran;
      ph_levels += ran;
      ph_work += front;
      ph_ms += ms;
      if (!ph_first && h_sc[kMcmFoundLevel])
        ph_first = h_sc[kMcmFoundLevel] - kMcmL0 + 1;
      if (h_sc[kMcmNPhases] != phase || h_sc[kMcmStatus] != kMcmRunning) {
        std::printf(
            "  phase %3d: roots %8d, levels %5d, first path at %4d, columns "
            "%9lld, %.3f ms\n",
            phase, ph_roots, ph_levels, ph_first, ph_work, ph_ms);
        ph_levels = ph_first = 0;
        ph_roots = h_sc[kMcmQEnd];
        ph_work = 0;
        ph_ms = 0;
      }
      if (level_lines)
        std::printf(
            "    level call: frontier %8d, edges %10lld, largest %7d, "
            "levels %4d, %8.1f us\n",
            front, front_edges, front_max, ran, 1e3 * ms);
      level_ms += ms;
      ++level_calls;
    }
    all_ok &= check("profiled solve");
    std::printf(
        "calls %d: %.3f ms (%.1f us per call of level steps + alternate + "
        "fix)\n",
        level_calls, level_ms, 1e3 * level_ms / std::max(level_calls, 1));
    // Bucketed by the frontier each call started from.
    for (int b = 0; b < kBuckets; ++b)
      if (cnt[b])
        std::printf("  frontier [%d, %d): %5d levels, %7.1f us each\n",
                    b ? 1 << b : 0, 2 << b, cnt[b], 1e3 * sum[b] / cnt[b]);
    // The fixed cost: a call on a finished problem (three no-op kernels).
    CK(cudaEventRecord(e0, s));
    for (int k = 0; k < 100; ++k)
      CK(LaunchMcmStep(s, p, o, mapping, 1, resident));
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    std::printf("no-op call (1 level + alternate + fix kernels): %.1f us\n",
                10.0 * ms);
  }
  std::printf("mcm_levels: %s\n", all_ok ? "OK" : "FAILED");
  return all_ok ? 0 : 1;
}
