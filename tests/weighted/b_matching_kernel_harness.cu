// The CUDA b-Suitor launchers run directly (no JAX), for compute-sanitizer
// and as a GPU test (tests/test_kernel_harnesses.py builds it with CMake).
//
// Batches of random graphs (random with repeated pairs, star, path, grid,
// hubs; keys with many ties and distinct ones, zeros included) and
// capacities (uniform, per vertex with zeros, large, hubs with b in the
// hundreds) solved on the GPU; mark, degree and status must equal the serial
// solve on the host (b_suitor_steps.h's bm_serial), which is unique.  A
// malformed graph and a negative b must be reported.  A step that has not
// finished in time (harness_finished.h) counts as a hang.  `quick`: fewer
// graphs (for the sanitizer).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "weighted/b_suitor_steps.h"
#include "weighted/weighted_kernels.h"

#include "../harness_finished.h"
#include "common/exit_on_cuda_error.h"

using namespace jaxmatch;

// A batch of symmetric CSR graphs with one capacity, and their b.
struct Batch {
  int batch = 0, n = 0, cap = 0;
  std::vector<int> xadj, adj, b;
  std::vector<uint32_t> key;
};

static void MakeEdges(int shape, int n, uint32_t key_range, std::mt19937& rng,
                      std::vector<int>* eu, std::vector<int>* ev,
                      std::vector<uint32_t>* ek) {
  auto add = [&](int a, int c) {
    if (a == c) return;
    eu->push_back(a);
    ev->push_back(c);
    ek->push_back(static_cast<uint32_t>(rng() % key_range));
  };
  if (n < 2) return;
  if (shape == 0) {
    for (int k = 0; k < 3 * n; ++k) add(rng() % n, rng() % n);
  } else if (shape == 1) {
    for (int k = 1; k < n; ++k) add(0, k);
  } else if (shape == 2) {
    for (int k = 0; k + 1 < n; ++k) add(k, k + 1);
  } else if (shape == 3) {
    // hubs: half of the edges end at one of (at most) four vertices
    const int hubs = std::min(n, 4);
    for (int k = 0; k < 6 * n; ++k) {
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

// b of one graph: 0 uniform 1, 1 uniform 2, 2 uniform 5, 3 per vertex in
// [0, 4], 4 per vertex in [0, 40] and the first four vertices (the hubs of
// shape 3) in the hundreds.
static int MakeB(int kind, int u, std::mt19937& rng) {
  switch (kind) {
    case 0:
      return 1;
    case 1:
      return 2;
    case 2:
      return 5;
    case 3:
      return static_cast<int>(rng() % 5);
    default:
      return u < 4 ? 100 + static_cast<int>(rng() % 400)
                   : static_cast<int>(rng() % 41);
  }
}

// One batch: each member a graph of `shape` (duplicate pairs allowed: the
// back ends must still agree), stored from both ends, padded to one
// capacity.
static Batch MakeBatch(int shape, int n, int batch, uint32_t key_range,
                       int b_kind, std::mt19937& rng) {
  Batch B;
  B.batch = batch;
  B.n = n;
  std::vector<std::vector<int>> adjs(batch), xadjs(batch);
  std::vector<std::vector<uint32_t>> keys(batch);
  for (int m = 0; m < batch; ++m) {
    std::vector<int> eu, ev;
    std::vector<uint32_t> ek;
    MakeEdges(shape, n, key_range, rng, &eu, &ev, &ek);
    std::vector<std::vector<std::pair<int, uint32_t>>> nb(n);
    for (size_t e = 0; e < eu.size(); ++e) {
      nb[eu[e]].push_back({ev[e], ek[e]});
      nb[ev[e]].push_back({eu[e], ek[e]});
    }
    xadjs[m].push_back(0);
    for (int u = 0; u < n; ++u) {
      // sorted by neighbour (a valid graph's order), copies of a pair in
      // the order they were drawn
      std::stable_sort(
          nb[u].begin(), nb[u].end(),
          [](const auto& x, const auto& y) { return x.first < y.first; });
      for (auto& [v, k] : nb[u]) {
        adjs[m].push_back(v);
        keys[m].push_back(k);
      }
      xadjs[m].push_back(static_cast<int>(adjs[m].size()));
    }
    B.cap = std::max(B.cap, static_cast<int>(adjs[m].size()));
    for (int u = 0; u < n; ++u) B.b.push_back(MakeB(b_kind, u, rng));
  }
  for (int m = 0; m < batch; ++m) {
    adjs[m].resize(B.cap, 0);
    keys[m].resize(B.cap, 0);
    B.xadj.insert(B.xadj.end(), xadjs[m].begin(), xadjs[m].end());
    B.adj.insert(B.adj.end(), adjs[m].begin(), adjs[m].end());
    B.key.insert(B.key.end(), keys[m].begin(), keys[m].end());
  }
  return B;
}

struct Solution {
  std::vector<int> mark, degree, info;
};

static Solution HostSolve(const Batch& B) {
  const int64_t wl = BmWorkLayout(B.n, B.cap).len;
  Solution s{std::vector<int>(int64_t{B.batch} * B.cap),
             std::vector<int>(int64_t{B.batch} * B.n),
             std::vector<int>(int64_t{B.batch} * kBmInfoLen)};
  std::vector<int> work(B.batch * wl + 2);
  const BmProblem p{B.batch,         B.n,           B.cap,      B.xadj.data(),
                    B.adj.data(),    B.key.data(),  B.b.data(), s.mark.data(),
                    s.degree.data(), s.info.data(), work.data()};
  for (int m = 0; m < B.batch; ++m) {
    BmView v = p.view(m);
    bm_init_serial(v, p.b_of(m));
    bm_serial(v);
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

static Solution DeviceSolve(const Batch& B, int resident, cudaStream_t stream,
                            int* steps) {
  const int64_t wl = BmWorkLayout(B.n, B.cap).len;
  const size_t nn = size_t(B.batch) * B.n, nc = size_t(B.batch) * B.cap;
  int* xadj = ToDevice(B.xadj);
  int* adj = ToDevice(B.adj);
  uint32_t* key = ToDevice(B.key);
  int* b = ToDevice(B.b);
  int *mark, *degree, *info, *work;
  CK(cudaMalloc(&mark, (nc + 1) * sizeof(int)));
  CK(cudaMalloc(&degree, (nn + 1) * sizeof(int)));
  CK(cudaMalloc(&info, size_t(B.batch) * kBmInfoLen * sizeof(int)));
  CK(cudaMalloc(&work, (size_t(B.batch) * wl + 2) * sizeof(int)));
  const BmProblem p{B.batch, B.n,  B.cap,  xadj, adj, key,
                    b,       mark, degree, info, work};
  CK(LaunchBmInit(stream, p, resident));
  *steps = 0;
  for (int call = 0; call < B.n + 2; ++call) {
    CK(LaunchBmStep(stream, p, resident));
    ++*steps;
    if (!Finished(stream)) {
      std::printf("HANG: n %d cap %d batch %d\n", B.n, B.cap, B.batch);
      std::exit(4);
    }
    CK(cudaGetLastError());
    std::vector<int> sc = ToHost(info, size_t(B.batch) * kBmInfoLen);
    bool running = false;
    for (int m = 0; m < B.batch; ++m)
      running |= sc[size_t(m) * kBmInfoLen + kBmStatus] == kWmRunning;
    if (!running) break;
  }
  Solution s{ToHost(mark, nc), ToHost(degree, nn),
             ToHost(info, size_t(B.batch) * kBmInfoLen)};
  for (void* d : {(void*)xadj, (void*)adj, (void*)key, (void*)b, (void*)mark,
                  (void*)degree, (void*)info, (void*)work})
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
  std::mt19937 rng(2024);
  const int sizes_full[] = {0, 1, 2, 7, 64, 1000, 20000};
  const int sizes_quick[] = {0, 1, 7, 300, 3000};
  const uint32_t ranges[] = {2, 5, 1u << 30};
  int problems = 0, mismatches = 0, max_steps = 0;
  auto sizes =
      quick ? std::vector<int>(std::begin(sizes_quick), std::end(sizes_quick))
            : std::vector<int>(std::begin(sizes_full), std::end(sizes_full));
  for (int n : sizes)
    for (int shape = 0; shape < 5; ++shape)
      for (uint32_t range : ranges)
        for (int b_kind = 0; b_kind < 5; ++b_kind) {
          const Batch B = MakeBatch(shape, n, 3, range, b_kind, rng);
          const Solution h = HostSolve(B);
          int steps = 0;
          const Solution d = DeviceSolve(B, resident, stream, &steps);
          max_steps = std::max(max_steps, steps);
          problems += B.batch;
          for (int m = 0; m < B.batch; ++m) {
            const size_t c0 = size_t(m) * B.cap, n0 = size_t(m) * n;
            const bool same =
                h.info[size_t(m) * kBmInfoLen + kBmStatus] == kWmDominant &&
                d.info[size_t(m) * kBmInfoLen + kBmStatus] ==
                    h.info[size_t(m) * kBmInfoLen + kBmStatus] &&
                std::equal(h.mark.begin() + c0, h.mark.begin() + c0 + B.cap,
                           d.mark.begin() + c0) &&
                std::equal(h.degree.begin() + n0, h.degree.begin() + n0 + n,
                           d.degree.begin() + n0);
            if (!same) {
              ++mismatches;
              std::printf(
                  "MISMATCH: shape %d n %d range %u b kind %d member %d\n",
                  shape, n, range, b_kind, m);
            }
          }
        }
  // A malformed graph (a neighbour out of range, a pointer past the
  // capacity, a list out of order, an edge whose ends store different keys)
  // and a negative b must be reported.
  for (int broken = 0; broken < 5; ++broken) {
    Batch B = MakeBatch(0, 50, 2, 5, 1, rng);
    int k = 0;  // two entries of vertex 0's list in increasing order
    while (k + 2 < B.xadj[1] && B.adj[k] >= B.adj[k + 1]) ++k;
    if (broken == 0)
      B.adj[3] = 1 << 20;
    else if (broken == 1)
      B.xadj[B.n] = B.cap + 100;
    else if (broken == 2)
      B.b[7] = -1;
    else if (broken == 3)
      std::swap(B.adj[k], B.adj[k + 1]), std::swap(B.key[k], B.key[k + 1]);
    else
      B.key[k] += 7;
    int steps = 0;
    const Solution d = DeviceSolve(B, resident, stream, &steps);
    ++problems;
    const int want = broken == 2 ? kWmInvalidCapacity : kWmBadGraph;
    if (d.info[kBmStatus] != want ||
        d.info[kBmInfoLen + kBmStatus] != kWmDominant) {
      ++mismatches;
      std::printf("BAD INPUT NOT REPORTED: case %d\n", broken);
    }
  }
  CK(cudaStreamDestroy(stream));
  if (mismatches) {
    std::printf("b_matching_kernel_harness: FAILED (%d of %d problems)\n",
                mismatches, problems);
    return 1;
  }
  std::printf("b_matching_kernel_harness: OK (%d problems, at most %d steps)\n",
              problems, max_steps);
  return 0;
}
