// Standalone check of the CUDA LAP kernels, for compute-sanitizer.
//
// Runs the launchers directly (no JAX): fused and stepped solves of random
// problems for every cost dtype and variant, including infeasible members,
// and compares them with the same step templates run serially on the host.
// The tree variant and both execution shapes are deterministic, so the GPU
// must reproduce the host's assignment exactly; the classical variant must
// reach the host's optimal cost.
//
// Build (repo root):
//   nvcc -O2 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Icuda_ffi \
//        tools/lap_harness.cu cuda_ffi/cuda/lap_kernels.cu -o /tmp/lap_harness
// Run: compute-sanitizer --tool memcheck /tmp/lap_harness
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "common/lap_steps.h"
#include "cuda/lap_kernels.h"

using namespace jaxmatch;

#define CHECK_CUDA(x)                                                     \
  do {                                                                    \
    cudaError_t e = (x);                                                  \
    if (e != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,              \
                   cudaGetErrorString(e));                                \
      std::exit(2);                                                       \
    }                                                                     \
  } while (0)

template <class T>
void HostSolve(const LapProblemShape& s, const T* C, int* is, T* ts) {
  for (int64_t b = 0; b < s.batch; ++b) {
    LapView<T> p(s.n, s.m, s.variant, C + b * s.n * s.m, is + b * s.ilen,
                 ts + b * s.tlen);
    SerialTeam t;
    lap_init_rows(t, p);
    lap_init_cols(t, p);
    lap_init_propose(t, p);
    lap_init_accept(t, p);
    if (s.variant == kLapClassical) lap_init_zero_lists(t, p);
    lap_ctrl_init(p, lap_default_max_iters(s.n, s.m));
    while (p.sc[kStatus] == kLapRunning) {
      lap_s1_setup(t, p, s.variant);
      lap_s2_forward(t, p, s.variant);
      lap_s3_mark(t, p, s.variant);
      lap_s4_update(t, p, s.variant);
      lap_ctrl_iteration(p, s.variant);
    }
  }
}

template <class T>
double Cost(const LapProblemShape& s, const T* C, const int* is, int64_t b) {
  LapLayout L(s.n, s.m, s.variant);
  double c = 0;
  for (int i = 0; i < s.n; ++i) {
    int j = is[b * s.ilen + L.col_for_row + i];
    if (j >= 0) c += static_cast<double>(C[b * s.n * s.m + i * s.m + j]);
  }
  return c;
}

template <class T>
int RunCase(std::mt19937& rng, int64_t batch, int n, int m, int variant,
            bool stepped, bool with_inf) {
  LapLayout L(n, m, variant);
  LapProblemShape s{batch, n, m, variant, static_cast<int64_t>(L.ilen),
                    static_cast<int64_t>(L.tlen)};
  std::vector<T> C(batch * n * m);
  std::uniform_int_distribution<int> small(0, n);
  std::uniform_real_distribution<double> real(0, 1);
  for (size_t k = 0; k < C.size(); ++k)
    C[k] = std::is_integral<T>::value ? T(small(rng)) : T(real(rng));
  if constexpr (!std::is_integral<T>::value) {
    if (with_inf && n > 0)  // b=0: row 0 forbidden everywhere (infeasible)
      for (int j = 0; j < m; ++j) C[j] = Num<T>::inf();
    if (with_inf && batch > 1 && n > 1)  // b=1: rows 0, 1 only fit column 0
      for (int i = 0; i < 2; ++i)
        for (int j = 1; j < m; ++j) C[n * m + i * m + j] = Num<T>::inf();
  }

  std::vector<int> h_is(batch * L.ilen, 0), g_is(batch * L.ilen);
  std::vector<T> h_ts(batch * L.tlen, T(0)), g_ts(batch * L.tlen);
  HostSolve(s, C.data(), h_is.data(), h_ts.data());

  T* dC;
  int* dis;
  T* dts;
  CHECK_CUDA(cudaMalloc(&dC, sizeof(T) * (C.size() ? C.size() : 1)));
  CHECK_CUDA(cudaMalloc(&dis, sizeof(int) * (g_is.size() ? g_is.size() : 1)));
  CHECK_CUDA(cudaMalloc(&dts, sizeof(T) * (g_ts.size() ? g_ts.size() : 1)));
  CHECK_CUDA(cudaMemcpy(dC, C.data(), sizeof(T) * C.size(), cudaMemcpyHostToDevice));
  if (!stepped) {
    CHECK_CUDA(LaunchLapSolve<T>(0, s, dC, dis, dts));
  } else {
    CHECK_CUDA(LaunchLapInit<T>(0, s, dC, dis, dts));
    for (int round = 0;; ++round) {
      CHECK_CUDA(LaunchLapStep<T>(0, s, dC, dis, dts, 4));
      CHECK_CUDA(cudaMemcpy(g_is.data(), dis, sizeof(int) * g_is.size(),
                            cudaMemcpyDeviceToHost));
      bool running = false;
      for (int64_t b = 0; b < batch; ++b)
        running |= g_is[b * L.ilen + kStatus] == kLapRunning;
      if (!running) break;
      if (round > 1000000) return 1;
    }
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  CHECK_CUDA(cudaMemcpy(g_is.data(), dis, sizeof(int) * g_is.size(), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(g_ts.data(), dts, sizeof(T) * g_ts.size(), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(dC));
  CHECK_CUDA(cudaFree(dis));
  CHECK_CUDA(cudaFree(dts));

  int bad = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const int hs = h_is[b * L.ilen + kStatus], gs = g_is[b * L.ilen + kStatus];
    if (hs != gs) { ++bad; continue; }
    if (hs != kLapOptimal) continue;
    if (variant == kLapTree) {
      for (int i = 0; i < n; ++i)
        if (h_is[b * L.ilen + L.col_for_row + i] != g_is[b * L.ilen + L.col_for_row + i]) {
          ++bad;
          break;
        }
    }
    const double hc = Cost(s, C.data(), h_is.data(), b), gc = Cost(s, C.data(), g_is.data(), b);
    if (std::abs(hc - gc) > 1e-4 * (1 + std::abs(hc))) ++bad;
  }
  if (bad)
    std::printf("MISMATCH T=%zu batch=%lld n=%d m=%d variant=%d stepped=%d inf=%d: %d\n",
                sizeof(T), (long long)batch, n, m, variant, stepped, with_inf, bad);
  return bad;
}

template <class T>
int RunAll(std::mt19937& rng, bool quick) {
  const int shapes[][3] = {{3, 1, 1}, {4, 5, 5}, {3, 4, 9}, {2, 33, 40},
                           {2, 64, 64}, {1, 130, 150}, {2, 0, 3}};
  int bad = 0;
  for (auto& sh : shapes) {
    if (quick && sh[2] > 40) continue;
    for (int variant = 0; variant < 2; ++variant)
      for (int stepped = 0; stepped < 2; ++stepped)
        for (int inf = 0; inf < 2; ++inf)
          bad += RunCase<T>(rng, sh[0], sh[1], sh[2], variant, stepped, inf);
  }
  if (quick) return bad;
  // Larger than the fused kernel's shared-memory limit: the global-state path.
  bad += RunCase<T>(rng, 1, 600, 700, kLapTree, false, false);
  bad += RunCase<T>(rng, 1, 300, 300, kLapClassical, false, false);
  return bad;
}

// Usage: lap_harness [quick]   (quick: small shapes, for racecheck)
int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "quick";
  std::mt19937 rng(12345);
  int bad = RunAll<float>(rng, quick) + RunAll<double>(rng, quick) +
            RunAll<int32_t>(rng, quick);
  std::printf("lap_harness: %s (%d mismatches)\n", bad ? "FAILED" : "OK", bad);
  return bad ? 1 : 0;
}
