// The sparse LAP's tree variant with unassigned costs (lap/sparse/csr_steps.h,
// the GPU's kernel of solve_lap(SparseCosts, unassigned_cost=...)) under the
// GPU's concurrency, on the CPU (tests/lap/test_lap_sparse_unassigned.py
// compiles and runs it with the host compiler).
//
// The steps' CUDA branches are compiled for the host: __CUDA_ARCH__ is
// defined while csr_steps.h is included, and the CUDA atomics it calls are
// host atomics.  Teams of std::threads (two to eight workers, the collectives
// through barriers, as a block's) then solve random problems (ties, empty
// rows and columns, absent +inf entries, negative prices, int32, float and
// double), and every result must equal the serial team's (SerialTeam, which
// the Python tests check against scipy): the same status, assignment and
// duals, as the file's determinism claim says.  Exits 1 on a failure.
#include <sched.h>

#include <atomic>
#include <cstring>

#include "../host_cuda_builtins.h"

#define __CUDA_ARCH__ 900
#include "lap/sparse/csr_steps.h"
#undef __CUDA_ARCH__

#include <algorithm>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "../thread_team.h"

using namespace jaxmatch;

namespace {

template <class T>
struct Instance {
  int n = 0, m = 0, cap = 0;
  std::vector<int> indptr, indices;
  std::vector<T> cost, row_cost, col_cost;
  std::vector<int> info, cfr, rfc, work, edge;
  std::vector<T> u, v, twork;

  LapCsrProblem<T> problem() {
    const LapWorkLayout L(n, m, kLapCsrTree);
    info.assign(kLapInfoLen, 0);
    cfr.assign(n, -7);
    rfc.assign(m, -7);
    edge.assign(n, -7);
    work.assign(L.ilen, 0);
    u.assign(n, T(0));
    v.assign(m, T(0));
    twork.assign(L.tlen, T(0));
    LapCsrProblem<T> p;
    p.batch = 1;
    p.n = n;
    p.m = m;
    p.cap = cap;
    p.indptr = indptr.data();
    p.indices = indices.data();
    p.cost = cost.data();
    p.base = LapBuffers<T>{info.data(), cfr.data(),  rfc.data(),  u.data(),
                           v.data(),    work.data(), twork.data()};
    p.edge_for_row = edge.data();
    p.row_cost = row_cost.data();
    p.col_cost = col_cost.data();
    return p;
  }
};

template <class T>
Instance<T> Make(std::mt19937& rng) {
  Instance<T> I;
  const int most = rng() % 8 == 0 ? 150 : 40;  // now and then a larger one
  I.n = 1 + static_cast<int>(rng() % most);
  I.m = I.n + static_cast<int>(rng() % most);
  const double density = (1 + rng() % 10) / 10.0;
  const int span = rng() % 2 ? 4 : 1000;
  auto value = [&](int lo) { return T(lo + static_cast<int>(rng() % span)); };
  I.indptr.assign(I.n + 1, 0);
  std::vector<int> cols(I.m);
  for (int i = 0; i < I.n; ++i) {
    for (int j = 0; j < I.m; ++j) cols[j] = j;
    std::shuffle(cols.begin(), cols.end(), rng);
    if (rng() % 8 == 0) cols.clear();  // a row without entries
    for (int j : cols) {
      if ((rng() % 1000) / 1000.0 >= density) continue;
      I.indices.push_back(j);
      T c = value(-span / 4);
      if (!Num<T>::kIsInteger && rng() % 10 == 0) c = Num<T>::inf();
      I.cost.push_back(c);
    }
    I.indptr[i + 1] = static_cast<int>(I.indices.size());
  }
  I.cap = static_cast<int>(I.indices.size()) + static_cast<int>(rng() % 3);
  I.indices.resize(I.cap, 0);
  I.cost.resize(I.cap, T(0));
  for (int i = 0; i < I.n; ++i) I.row_cost.push_back(value(-span / 8));
  for (int j = 0; j < I.m; ++j) I.col_cost.push_back(value(-span / 8));
  return I;
}

template <class T>
void SolveSerial(Instance<T>& I) {
  const LapCsrProblem<T> P = I.problem();
  LapCsrView<T> p = P.view(0);
  lap_csr_solve_tree(SerialTeam{}, p);
}

template <class T>
void SolveThreads(Instance<T>& I, int lanes) {
  const LapCsrProblem<T> P = I.problem();
  ThreadTeamShared shared(lanes);
  std::vector<std::thread> workers;
  for (int r = 0; r < lanes; ++r)
    workers.emplace_back([&, r] {
      LapCsrView<T> p = P.view(0);
      lap_csr_solve_tree(ThreadTeam{r, lanes, &shared}, p);
    });
  for (auto& w : workers) w.join();
}

template <class T>
bool Same(const Instance<T>& a, const Instance<T>& b) {
  return a.info[kStatus] == b.info[kStatus] && a.cfr == b.cfr &&
         a.rfc == b.rfc && a.u == b.u && a.v == b.v && a.edge == b.edge;
}

// Rows assigned and rows left on their exits, over every problem solved:
// the problems must exercise both.
long long g_pairs = 0, g_exits = 0;

template <class T>
int Run(const char* name, int problems, unsigned seed) {
  std::mt19937 rng(seed);
  int failures = 0;
  for (int t = 0; t < problems; ++t) {
    Instance<T> serial = Make<T>(rng);
    Instance<T> threaded = serial;
    const int lanes = 2 + static_cast<int>(rng() % 7);
    SolveSerial(serial);
    SolveThreads(threaded, lanes);
    for (int x : serial.cfr) ++(x >= 0 ? g_pairs : g_exits);
    if (serial.info[kStatus] != kLapOptimal || !Same(serial, threaded)) {
      if (++failures <= 3)
        std::printf("%s problem %d (%d x %d, %d lanes): status %d vs %d\n",
                    name, t, serial.n, serial.m, lanes, serial.info[kStatus],
                    threaded.info[kStatus]);
    }
  }
  return failures;
}

}  // namespace

int main() {
  int failures = Run<int32_t>("int32", 150, 1);
  failures += Run<float>("float", 150, 2);
  failures += Run<double>("double", 100, 3);
  if (failures || g_pairs < 1000 || g_exits < 1000) {
    std::printf("csr_exits_emulation: %d failures\n", failures);
    return 1;
  }
  std::printf("csr_exits_emulation: OK (%lld pairs, %lld rows on exits)\n",
              g_pairs, g_exits);
  return 0;
}
