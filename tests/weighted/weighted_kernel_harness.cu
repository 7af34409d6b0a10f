// The CUDA weighted matching launchers run directly (no JAX), for
// compute-sanitizer and as a GPU test (tests/test_kernel_harnesses.py builds
// it with CMake).
//
// Batches of random graphs of several shapes (random, star, path, grid, hubs;
// keys with many ties and distinct ones, zeros included) solved by Suitor
// and by LD on the GPU; mate, mate_edge and status must equal the serial
// solve on the host (weighted_steps.h's serial drivers), which is unique.  A
// malformed graph must be reported, not read out of bounds.  A launch that
// has not finished in time (harness_finished.h) counts as a hang.  `quick`:
// fewer graphs (for the sanitizer).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "weighted/weighted_kernels.h"
#include "weighted/weighted_steps.h"

#include "../harness_finished.h"
#include "common/exit_on_cuda_error.h"

using namespace jaxmatch;

// A batch of symmetric CSR graphs with one capacity.
struct Batch {
  int batch = 0, n = 0, cap = 0;
  std::vector<int> xadj, adj;
  std::vector<uint32_t> key;
};

// Edges of one graph of `shape`, with keys below `key_range` (0 included).
static void MakeEdges(int shape, int n, uint32_t key_range, std::mt19937& rng,
                      std::vector<int>* eu, std::vector<int>* ev,
                      std::vector<uint32_t>* ek) {
  auto add = [&](int a, int b) {
    if (a == b) return;
    eu->push_back(a);
    ev->push_back(b);
    ek->push_back(static_cast<uint32_t>(rng() % key_range));
  };
  if (n < 2) return;
  if (shape == 0) {
    for (int k = 0; k < 3 * n; ++k) add(rng() % n, rng() % n);
  } else if (shape == 1) {
    for (int k = 1; k < n; ++k) add(0, k);
  } else if (shape == 2) {
    for (int k = 0; k + 1 < n; ++k) add(k, k + 1);
  } else if (shape == 4) {
    // hubs: half of the edges end at one of (at most) four vertices, whose
    // lists are long enough to be queued for whole blocks
    const int hubs = std::min(n, 4);
    for (int k = 0; k < 3 * n; ++k) {
      const int a = static_cast<int>(rng() % n);
      add(a, static_cast<int>(rng() % 2 ? rng() % hubs : rng() % n));
    }
  } else {
    int side = 1;
    while ((side + 1) * (side + 1) <= n) ++side;
    for (int r = 0; r < side; ++r)
      for (int c = 0; c < side; ++c) {
        if (c + 1 < side) add(r * side + c, r * side + c + 1);
        if (r + 1 < side) add(r * side + c, (r + 1) * side + c);
      }
  }
}

// One batch: each member a graph of `shape` (duplicate edges allowed: the
// solvers must still agree), stored from both ends, padded to one capacity.
static Batch MakeBatch(int shape, int n, int batch, uint32_t key_range,
                       std::mt19937& rng) {
  Batch B;
  B.batch = batch;
  B.n = n;
  std::vector<std::vector<int>> adjs(batch);
  std::vector<std::vector<uint32_t>> keys(batch);
  std::vector<std::vector<int>> xadjs(batch);
  for (int b = 0; b < batch; ++b) {
    std::vector<int> eu, ev;
    std::vector<uint32_t> ek;
    MakeEdges(shape, n, key_range, rng, &eu, &ev, &ek);
    std::vector<std::vector<std::pair<int, uint32_t>>> nb(n);
    for (size_t e = 0; e < eu.size(); ++e) {
      nb[eu[e]].push_back({ev[e], ek[e]});
      nb[ev[e]].push_back({eu[e], ek[e]});
    }
    xadjs[b].push_back(0);
    for (int u = 0; u < n; ++u) {
      // sorted by neighbour (a valid graph's order), copies of a pair in
      // the order they were drawn
      std::stable_sort(
          nb[u].begin(), nb[u].end(),
          [](const auto& x, const auto& y) { return x.first < y.first; });
      for (auto& [v, k] : nb[u]) {
        adjs[b].push_back(v);
        keys[b].push_back(k);
      }
      xadjs[b].push_back(static_cast<int>(adjs[b].size()));
    }
    if (static_cast<int>(adjs[b].size()) > B.cap)
      B.cap = static_cast<int>(adjs[b].size());
  }
  for (int b = 0; b < batch; ++b) {
    adjs[b].resize(B.cap, 0);
    keys[b].resize(B.cap, 0);
    B.xadj.insert(B.xadj.end(), xadjs[b].begin(), xadjs[b].end());
    B.adj.insert(B.adj.end(), adjs[b].begin(), adjs[b].end());
    B.key.insert(B.key.end(), keys[b].begin(), keys[b].end());
  }
  return B;
}

struct Solution {
  std::vector<int> mate, mate_edge, info;
};

static Solution HostSolve(const Batch& B, int method) {
  const int64_t wl = WmWorkLayout(B.n).len;
  Solution s{std::vector<int>(int64_t{B.batch} * B.n),
             std::vector<int>(int64_t{B.batch} * B.n),
             std::vector<int>(int64_t{B.batch} * kWmInfoLen)};
  std::vector<int> work(B.batch * wl + 2);
  const WmProblem p{
      B.batch,       B.n,          B.cap,         B.xadj.data(),
      B.adj.data(),  B.key.data(), s.mate.data(), s.mate_edge.data(),
      s.info.data(), work.data()};
  for (int b = 0; b < B.batch; ++b) {
    WmView v = p.view(b);
    wm_init_serial(v);
    if (!wm_running(v)) continue;
    if (method == kWmSuitor)
      wm_suitor_serial(v);
    else
      while (wm_running(v)) wm_ld_rounds_serial(v, 2);
  }
  return s;
}

template <class T>
static T* ToDevice(const std::vector<T>& h) {
  T* d = nullptr;
  CK(cudaMalloc(&d, (h.size() + 1) * sizeof(T)));
  if (!h.empty())
    CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
static std::vector<T> ToHost(const T* d, size_t count) {
  std::vector<T> h(count);
  if (count)
    CK(cudaMemcpy(h.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

static Solution DeviceSolve(const Batch& B, int method, int resident,
                            cudaStream_t stream) {
  const int64_t wl = WmWorkLayout(B.n).len;
  const size_t nn = size_t(B.batch) * B.n;
  int* xadj = ToDevice(B.xadj);
  int* adj = ToDevice(B.adj);
  uint32_t* key = ToDevice(B.key);
  int *mate, *mate_edge, *info, *work;
  CK(cudaMalloc(&mate, (nn + 1) * sizeof(int)));
  CK(cudaMalloc(&mate_edge, (nn + 1) * sizeof(int)));
  CK(cudaMalloc(&info, size_t(B.batch) * kWmInfoLen * sizeof(int)));
  CK(cudaMalloc(&work, (size_t(B.batch) * wl + 2) * sizeof(int)));
  const WmProblem p{B.batch, B.n,  B.cap,     xadj, adj,
                    key,     mate, mate_edge, info, work};
  CK(LaunchWmInit(stream, p, resident));
  for (int call = 0; call < B.n + 2; ++call) {
    CK(LaunchWmStep(stream, p, method, 4, resident));
    if (!Finished(stream)) {
      std::printf("HANG: method %d n %d batch %d\n", method, B.n, B.batch);
      std::exit(4);
    }
    std::vector<int> sc = ToHost(info, size_t(B.batch) * kWmInfoLen);
    bool running = false;
    for (int b = 0; b < B.batch; ++b)
      running |= sc[size_t(b) * kWmInfoLen + kWmStatus] == kWmRunning;
    if (!running) break;
  }
  Solution s{ToHost(mate, nn), ToHost(mate_edge, nn),
             ToHost(info, size_t(B.batch) * kWmInfoLen)};
  for (void* d : {(void*)xadj, (void*)adj, (void*)key, (void*)mate,
                  (void*)mate_edge, (void*)info, (void*)work})
    CK(cudaFree(d));
  return s;
}

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "quick") == 0;
  cudaStream_t stream;
  CK(cudaStreamCreate(&stream));
  int sms = 0, per_sm = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor,
                            0));
  const int resident = sms * per_sm / kWmThreads;
  std::mt19937 rng(12345);
  const int sizes_full[] = {0, 1, 2, 7, 64, 1000, 20000};
  const int sizes_quick[] = {0, 1, 7, 300, 3000};
  const uint32_t ranges[] = {2, 5, 1u << 30};
  int problems = 0, mismatches = 0;
  auto sizes =
      quick ? std::vector<int>(std::begin(sizes_quick), std::end(sizes_quick))
            : std::vector<int>(std::begin(sizes_full), std::end(sizes_full));
  for (int n : sizes)
    for (int shape = 0; shape < 5; ++shape)
      for (uint32_t range : ranges)
        for (int method : {int(kWmSuitor), int(kWmLd)}) {
          const Batch B = MakeBatch(shape, n, 3, range, rng);
          const Solution h = HostSolve(B, method);
          const Solution d = DeviceSolve(B, method, resident, stream);
          problems += B.batch;
          for (int b = 0; b < B.batch; ++b) {
            const bool same =
                h.info[size_t(b) * kWmInfoLen + kWmStatus] == kWmDominant &&
                d.info[size_t(b) * kWmInfoLen + kWmStatus] ==
                    h.info[size_t(b) * kWmInfoLen + kWmStatus] &&
                std::equal(h.mate.begin() + size_t(b) * n,
                           h.mate.begin() + size_t(b + 1) * n,
                           d.mate.begin() + size_t(b) * n) &&
                std::equal(h.mate_edge.begin() + size_t(b) * n,
                           h.mate_edge.begin() + size_t(b + 1) * n,
                           d.mate_edge.begin() + size_t(b) * n);
            if (!same) {
              ++mismatches;
              std::printf(
                  "MISMATCH: method %d shape %d n %d range %u member %d\n",
                  method, shape, n, range, b);
            }
          }
        }
  // A malformed graph: a neighbour out of range, then a pointer past the
  // capacity; both methods must report it.
  for (int broken = 0; broken < 4; ++broken)
    for (int method : {int(kWmSuitor), int(kWmLd)}) {
      Batch B = MakeBatch(0, 50, 2, 5, rng);
      int k = 0;  // two entries of vertex 0's list in increasing order
      while (k + 2 < B.xadj[1] && B.adj[k] >= B.adj[k + 1]) ++k;
      if (broken == 0)
        B.adj[3] = 1 << 20;
      else if (broken == 1)
        B.xadj[B.n] = B.cap + 100;
      else if (broken == 2)  // a list out of order
        std::swap(B.adj[k], B.adj[k + 1]), std::swap(B.key[k], B.key[k + 1]);
      else  // an edge whose ends store different keys
        B.key[k] += 7;
      const Solution d = DeviceSolve(B, method, resident, stream);
      ++problems;
      if (d.info[kWmStatus] != kWmBadGraph) {
        ++mismatches;
        std::printf("MALFORMED NOT REPORTED: method %d case %d\n", method,
                    broken);
      }
    }
  CK(cudaStreamDestroy(stream));
  if (mismatches) {
    std::printf("weighted_kernel_harness: FAILED (%d of %d problems)\n",
                mismatches, problems);
    return 1;
  }
  std::printf("weighted_kernel_harness: OK (%d problems)\n", problems);
  return 0;
}
