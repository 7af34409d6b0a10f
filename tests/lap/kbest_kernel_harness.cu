// The GPU's k best assignments (lap/kbest/kbest_kernels.cu's LaunchKBest)
// run directly (no JAX), for compute-sanitizer and as a GPU test
// (tests/test_kernel_harnesses.py builds it with CMake).
//
// Batches of random problems (ties, +inf pairs, exits, rectangular both
// ways, int32 with overflowing totals, float with NaN, double; k from 1 to
// 100; a batch past kKBestMaxCrews problems) solved by the kernel, by crews
// of the planned size and of 1, 2 and 4 warps, and, on the host, by the same
// KBestSolveTeam on a serial team: every assignment, cost (bit for bit) and
// info entry must be equal.
//
// Usage: kbest_kernel_harness [quick]   (quick: fewer and smaller batches,
// for the sanitizers)
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../harness_cuda_check.h"
#include "kbest_host_work.h"
#include "lap/kbest/kbest_kernels.h"
#include "lap/kbest/kbest_rank.h"

using namespace jaxmatch;

namespace {

template <class T>
struct Batch {
  int64_t batch;
  int n, m, k;
  bool exits;
  std::vector<T> C, r, c, costs;
  std::vector<int> assign, info;
};

template <class T>
Batch<T> Make(std::mt19937& rng, int64_t batch, int n, int m, int k,
              bool exits) {
  Batch<T> B{batch, n, m, k, exits, {}, {}, {}, {}, {}, {}};
  const int levels = rng() % 2 ? 4 : 1000;
  auto value = [&]() {
    if (std::is_same<T, int32_t>::value && rng() % 50 == 0)
      return static_cast<T>(1 << 30);
    return static_cast<T>(static_cast<int>(rng() % levels) - levels / 4);
  };
  B.C.resize(static_cast<size_t>(batch) * n * m);
  for (auto& x : B.C) {
    x = value();
    if (std::numeric_limits<T>::has_infinity && rng() % 5 == 0)
      x = std::numeric_limits<T>::infinity();
  }
  if (std::numeric_limits<T>::has_quiet_NaN && batch > 2)
    B.C[static_cast<size_t>(n) * m] = std::numeric_limits<T>::quiet_NaN();
  B.r.resize(static_cast<size_t>(batch) * n);
  B.c.resize(static_cast<size_t>(batch) * m);
  for (auto& x : B.r) x = value();
  for (auto& x : B.c) x = value();
  return B;
}

template <class T>
void SolveHost(Batch<T>& B) {
  using W = KBestWide<T>;
  const int n = B.n, m = B.m, k = B.k;
  KBestHostWork<W> host(n, m, k, 0, W(0));
  const KBestTeamWork<W> w = host.work();
  B.assign.assign(static_cast<size_t>(B.batch) * k * n, 0);
  B.costs.assign(static_cast<size_t>(B.batch) * k, T(0));
  B.info.assign(static_cast<size_t>(B.batch) * kKBestInfoLen, 0);
  for (int64_t b = 0; b < B.batch; ++b) {
    const KBestProblem<T> P{n,
                            m,
                            B.C.data() + b * n * m,
                            B.r.data() + b * n,
                            B.exits ? B.c.data() + b * m : nullptr,
                            B.exits};
    KBestSolveTeam(SerialTeam{}, SerialCrew{}, P, k, w,
                   B.assign.data() + b * k * n, B.costs.data() + b * k,
                   B.info.data() + b * kKBestInfoLen);
  }
}

template <class V>
V* ToDevice(const std::vector<V>& host) {
  V* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, host.size() * sizeof(V) + 1));
  CHECK_CUDA(cudaMemcpy(d, host.data(), host.size() * sizeof(V),
                        cudaMemcpyHostToDevice));
  return d;
}

template <class V>
std::vector<V> ToHost(const V* d, size_t count) {
  std::vector<V> host(count);
  CHECK_CUDA(
      cudaMemcpy(host.data(), d, count * sizeof(V), cudaMemcpyDeviceToHost));
  return host;
}

// Solves B on the GPU, by crews of `crew` warps (0: KBestPlan's); returns
// the members that differ from the host's solve (SolveHost, beforehand).
template <class T>
int64_t Check(const Batch<T>& B, int crew) {
  KBestBatch<T> p;
  p.batch = B.batch;
  p.n = B.n;
  p.m = B.m;
  p.k = B.k;
  p.exits = B.exits;
  p.C = ToDevice(B.C);
  p.row_cost = ToDevice(B.r);
  p.col_cost = ToDevice(B.c);
  CHECK_CUDA(cudaMalloc(&p.assignments,
                        sizeof(int) * B.batch * B.k * B.n + sizeof(int)));
  CHECK_CUDA(cudaMalloc(&p.costs, sizeof(T) * B.batch * B.k));
  CHECK_CUDA(cudaMalloc(&p.info, sizeof(int) * B.batch * kKBestInfoLen));
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(KBestPlan(device, B.batch, &p.crew));
  if (crew > 0) p.crew = crew;
  void* scratch = nullptr;
  CHECK_CUDA(cudaMalloc(&scratch,
                        KBestScratchBytes<T>(B.batch, B.n, B.m, B.k, p.crew)));
  CHECK_CUDA(LaunchKBest<T>(nullptr, p, scratch));
  CHECK_CUDA(cudaDeviceSynchronize());
  const auto assign =
      ToHost(p.assignments, static_cast<size_t>(B.batch) * B.k * B.n);
  const auto costs = ToHost(p.costs, static_cast<size_t>(B.batch) * B.k);
  const auto info =
      ToHost(p.info, static_cast<size_t>(B.batch) * kKBestInfoLen);
  for (void* d :
       {static_cast<void*>(const_cast<T*>(p.C)),
        static_cast<void*>(const_cast<T*>(p.row_cost)),
        static_cast<void*>(const_cast<T*>(p.col_cost)),
        static_cast<void*>(p.assignments), static_cast<void*>(p.costs),
        static_cast<void*>(p.info), scratch})
    CHECK_CUDA(cudaFree(d));
  int64_t bad = 0;
  for (int64_t b = 0; b < B.batch; ++b) {
    const size_t a0 = static_cast<size_t>(b) * B.k * B.n, c0 = b * B.k,
                 i0 = b * kKBestInfoLen;
    const bool same =
        std::memcmp(&assign[a0], &B.assign[a0], sizeof(int) * B.k * B.n) == 0 &&
        std::memcmp(&costs[c0], &B.costs[c0], sizeof(T) * B.k) == 0 &&
        std::memcmp(&info[i0], &B.info[i0], sizeof(int) * kKBestInfoLen) == 0;
    if (!same && ++bad <= 3)
      std::printf(
          "  member %lld of %lldx%dx%d k %d exits %d: status %d/%d count "
          "%d/%d searches %d/%d (GPU/host)\n",
          static_cast<long long>(b), static_cast<long long>(B.batch), B.n, B.m,
          B.k, B.exits ? 1 : 0, info[i0 + kKBestInfoStatus],
          B.info[i0 + kKBestInfoStatus], info[i0 + kKBestInfoCount],
          B.info[i0 + kKBestInfoCount], info[i0 + kKBestInfoIters],
          B.info[i0 + kKBestInfoIters]);
  }
  return bad;
}

template <class T>
int64_t RunDtype(const char* name, bool quick, unsigned seed) {
  std::mt19937 rng(seed);
  struct Case {
    int64_t batch;
    int n, m, k;
  };
  std::vector<Case> cases = {{5, 1, 1, 3},
                             {17, 4, 6, 10},
                             {9, 6, 4, 25},
                             {33, 7, 7, 40},
                             {3, 12, 20, 100}};
  if (!quick) {
    cases.push_back({256, 20, 25, 100});
    cases.push_back({64, 40, 50, 60});  // more rows than a warp has lanes
    cases.push_back({9000, 3, 4, 5});   // past kKBestMaxCrews
  }
  int64_t bad = 0;
  for (const Case& c : cases)
    for (int exits = 0; exits < 2; ++exits) {
      if (!exits && c.n > c.m) continue;
      Batch<T> B = Make<T>(rng, c.batch, c.n, c.m, c.k, exits != 0);
      SolveHost(B);
      for (int crew : {0, 1, 2, 4}) bad += Check(B, crew);
    }
  std::printf("%s: %lld mismatching members\n", name,
              static_cast<long long>(bad));
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "quick";
  int64_t bad = 0;
  bad += RunDtype<int32_t>("int32", quick, 1);
  bad += RunDtype<float>("float32", quick, 2);
  bad += RunDtype<double>("float64", quick, 3);
  if (bad) {
    std::printf("kbest_kernel_harness: FAILED (%lld mismatches)\n",
                static_cast<long long>(bad));
    return 1;
  }
  std::printf("kbest_kernel_harness: OK (0 mismatches)\n");
  return 0;
}
