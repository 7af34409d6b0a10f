// The CUDA LAP launchers run directly (no JAX), for compute-sanitizer and as
// a GPU test (tests/lap/test_lap_kernel_harness.py builds it with CMake).
//
// Fused and stepped solves of random problems for every cost dtype and
// variant, infeasible members included, compared with the same step order
// (lap_init, lap_solve_loop) run by a serial team on the host.  The tree
// variant and both execution shapes are deterministic, so the GPU must
// reproduce the host's assignment exactly; the classical variant must reach
// the host's optimal cost.
//
// Usage: lap_kernel_harness [quick]   (quick: small shapes, for racecheck)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "../harness_cuda_check.h"
#include "lap/hungarian/hungarian_kernels.h"
#include "lap/hungarian/hungarian_steps.h"

using namespace jaxmatch;

// The seven state buffers of a batch, on the host or the device.
template <class T>
struct State {
  int64_t batch;
  int n, m;
  LapWorkLayout L;
  std::vector<int> info, cfr, rfc, work;
  std::vector<T> u, v, twork;

  State(int64_t b, int n_, int m_, int variant)
      : batch(b),
        n(n_),
        m(m_),
        L(n_, m_, variant),
        info(b * kLapInfoLen),
        cfr(b * n_),
        rfc(b * m_),
        work(b * L.ilen),
        u(b * n_),
        v(b * m_),
        twork(b * L.tlen) {}

  LapBuffers<T> host() {
    return {info.data(), cfr.data(),  rfc.data(),  u.data(),
            v.data(),    work.data(), twork.data()};
  }
};

template <class V>
typename V::value_type* ToDevice(const V& h) {
  typename V::value_type* d = nullptr;
  const size_t bytes =
      sizeof(typename V::value_type) * (h.size() ? h.size() : 1);
  CHECK_CUDA(cudaMalloc(&d, bytes));
  if (h.size())
    CHECK_CUDA(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
  return d;
}

template <class V>
void ToHost(V& h, const typename V::value_type* d) {
  if (h.size())
    CHECK_CUDA(cudaMemcpy(h.data(), d,
                          sizeof(typename V::value_type) * h.size(),
                          cudaMemcpyDeviceToHost));
}

template <class T>
double Cost(const std::vector<T>& C, const State<T>& s, int64_t b) {
  double c = 0;
  for (int i = 0; i < s.n; ++i) {
    const int j = s.cfr[b * s.n + i];
    if (j >= 0) c += static_cast<double>(C[(b * s.n + i) * s.m + j]);
  }
  return c;
}

template <class T>
int RunCase(std::mt19937& rng, int64_t batch, int n, int m, int variant,
            bool stepped, bool with_inf) {
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

  State<T> host(batch, n, m, variant), gpu(batch, n, m, variant);
  const LapProblem<T> hp{batch, n, m, variant, C.data(), host.host()};
  const SerialTeam team;
  for (int64_t b = 0; b < batch; ++b) {
    LapView<T> p = hp.view(b);
    lap_init(team, p, variant);
    lap_solve_loop(team, p, variant);
  }

  // Device buffers start as garbage-free copies of the (unsolved) gpu state.
  LapBuffers<T> d{ToDevice(gpu.info), ToDevice(gpu.cfr), ToDevice(gpu.rfc),
                  ToDevice(gpu.u),    ToDevice(gpu.v),   ToDevice(gpu.work),
                  ToDevice(gpu.twork)};
  T* dC = ToDevice(C);
  const LapProblem<T> dp{batch, n, m, variant, dC, d};
  if (!stepped) {
    CHECK_CUDA(LaunchLapSolve<T>(0, dp));
  } else {
    CHECK_CUDA(LaunchLapInit<T>(0, dp));
    for (int round = 0;; ++round) {
      CHECK_CUDA(LaunchLapStep<T>(0, dp, 4));
      ToHost(gpu.info, d.info);
      bool running = false;
      for (int64_t b = 0; b < batch; ++b)
        running |= gpu.info[b * kLapInfoLen + kStatus] == kLapRunning;
      if (!running) break;
      if (round > 1000000) return 1;
    }
  }
  CHECK_CUDA(cudaDeviceSynchronize());
  ToHost(gpu.info, d.info);
  ToHost(gpu.cfr, d.col_for_row);
  for (void* ptr :
       {static_cast<void*>(dC), static_cast<void*>(d.info),
        static_cast<void*>(d.col_for_row), static_cast<void*>(d.row_for_col),
        static_cast<void*>(d.u), static_cast<void*>(d.v),
        static_cast<void*>(d.work), static_cast<void*>(d.twork)})
    CHECK_CUDA(cudaFree(ptr));

  int bad = 0;
  for (int64_t b = 0; b < batch; ++b) {
    const int hs = host.info[b * kLapInfoLen + kStatus];
    const int gs = gpu.info[b * kLapInfoLen + kStatus];
    if (hs != gs) {
      ++bad;
      continue;
    }
    if (hs != kLapOptimal) continue;
    if (variant == kLapTree) {
      for (int i = 0; i < n; ++i)
        if (host.cfr[b * n + i] != gpu.cfr[b * n + i]) {
          ++bad;
          break;
        }
    }
    const double hc = Cost(C, host, b), gc = Cost(C, gpu, b);
    if (std::abs(hc - gc) > 1e-4 * (1 + std::abs(hc))) ++bad;
  }
  if (bad)
    std::printf(
        "MISMATCH T=%zu batch=%lld n=%d m=%d variant=%d stepped=%d inf=%d: "
        "%d\n",
        sizeof(T), (long long)batch, n, m, variant, stepped, with_inf, bad);
  return bad;
}

template <class T>
int RunAll(std::mt19937& rng, bool quick) {
  const int shapes[][3] = {{3, 1, 1},   {4, 5, 5},     {3, 4, 9}, {2, 33, 40},
                           {2, 64, 64}, {1, 130, 150}, {2, 0, 3}};
  int bad = 0, cases = 0;
  for (auto& sh : shapes) {
    if (quick && sh[2] > 40) continue;
    for (int variant = 0; variant < 2; ++variant)
      for (int stepped = 0; stepped < 2; ++stepped)
        for (int inf = 0; inf < 2; ++inf, ++cases)
          bad += RunCase<T>(rng, sh[0], sh[1], sh[2], variant, stepped, inf);
  }
  if (!quick) {
    // Larger than the fused kernel's shared memory: the global-state path.
    bad += RunCase<T>(rng, 1, 600, 700, kLapTree, false, false);
    bad += RunCase<T>(rng, 1, 300, 300, kLapClassical, false, false);
    cases += 2;
  }
  std::printf("T=%zu: %d cases\n", sizeof(T), cases);
  return bad;
}

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "quick";
  std::mt19937 rng(12345);
  const int bad = RunAll<float>(rng, quick) + RunAll<double>(rng, quick) +
                  RunAll<int32_t>(rng, quick);
  std::printf("lap_kernel_harness: %s (%d mismatches)\n", bad ? "FAILED" : "OK",
              bad);
  return bad ? 1 : 0;
}
