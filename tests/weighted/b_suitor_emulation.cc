// b-Suitor's steps (b_suitor_steps.h) under the GPU's concurrency, on the
// CPU (tests/weighted/test_b_matching_api.py compiles and runs it with the
// host compiler).
//
// The steps' CUDA branches are compiled for the host: __CUDA_ARCH__ is
// defined while b_suitor_steps.h is included, and the CUDA built-ins they
// call (atomics, fences, __nanosleep) are host atomics, fences and a yield.
// Teams of std::threads (one to four workers each, the workers' collectives
// through barriers, as a tile of a warp's) then run the first pass and the
// queue rounds as the kernels do (each team a stride of the vertices, a
// quarter of the vertices it comes to own handed to the queue), with several
// candidate depths.  On random graphs
// (ties, hubs with b in the thousands, b = 0) the marks, degrees and status
// must equal the serial solve's (bm_serial), and the finalize's O(1) mutual
// check must agree with a search of S(w).  Exits 1 on a failure.
#include <sched.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

#include "../host_cuda_builtins.h"

#define __CUDA_ARCH__ 900
#include "weighted/b_suitor_steps.h"
#undef __CUDA_ARCH__

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <vector>

#include "../thread_team.h"

using namespace jaxmatch;

namespace {

// Hands a quarter of the vertices a team comes to own to the queue (the
// same answer on every worker of a team: a hash of the vertex and the
// problem's seed).
struct HashKeep {
  unsigned seed;
  template <class Team>
  bool operator()(const Team&, const BmView&, int x) const {
    const unsigned h = (static_cast<unsigned>(x) ^ seed) * 2654435761u;
    return (h >> 16) % 4 != 0;
  }
};

struct Instance {
  int n = 0, cap = 0;
  std::vector<int> xadj, adj, b, mark, degree, info, work;
  std::vector<uint32_t> key;
  BmProblem problem() {
    return BmProblem{1,           n,           cap,
                     xadj.data(), adj.data(),  key.data(),
                     b.data(),    mark.data(), degree.data(),
                     info.data(), work.data()};
  }
};

// A graph (random pairs, sometimes a hub adjacent to every vertex, in half
// the graphs some pairs stored again with other keys) stored from both ends,
// each list sorted by neighbour with a pair's copies in a random order,
// padded; keys with many ties or few; b uniform, per vertex with zeros, or
// large, the hub's in the thousands.
Instance Make(std::mt19937& rng) {
  Instance I;
  I.n = 1 + static_cast<int>(rng() % 600);
  const int m = static_cast<int>(rng() % (6 * I.n + 1));
  const uint32_t range = 1 + rng() % (rng() % 2 ? 3 : 1000);
  std::set<std::pair<int, int>> seen;
  std::vector<std::vector<std::pair<int, uint32_t>>> nb(I.n);
  const bool copies = rng() % 2;
  auto add = [&](int u, int v, uint32_t k) {
    if (u == v) return;
    if (!seen.insert(std::minmax(u, v)).second && !(copies && rng() % 2))
      return;
    nb[u].push_back({v, k});
    nb[v].push_back({u, k});
  };
  for (int e = 0; e < m; ++e)
    add(rng() % I.n, rng() % I.n, static_cast<uint32_t>(rng() % (range + 1)));
  if (I.n > 10 && rng() % 2)
    for (int v = 1; v < I.n; ++v)
      add(0, v, 1 + static_cast<uint32_t>(rng() % range));
  I.xadj.assign(I.n + 1, 0);
  for (int u = 0; u < I.n; ++u) {
    std::shuffle(nb[u].begin(), nb[u].end(), rng);
    std::stable_sort(
        nb[u].begin(), nb[u].end(),
        [](const auto& x, const auto& y) { return x.first < y.first; });
    I.xadj[u + 1] = I.xadj[u] + static_cast<int>(nb[u].size());
    for (auto& [v, k] : nb[u]) {
      I.adj.push_back(v);
      I.key.push_back(k);
    }
  }
  I.cap = static_cast<int>(I.adj.size() + rng() % 5);
  I.adj.resize(I.cap, 0);
  I.key.resize(I.cap, 0);
  const int kind = static_cast<int>(rng() % 3);
  I.b.resize(I.n);
  for (int& x : I.b)
    x = static_cast<int>(kind == 0   ? 1 + rng() % 3
                         : kind == 1 ? rng() % 5
                                     : rng() % 40);
  if (rng() % 2) I.b[0] = static_cast<int>(rng() % 3000);
  I.mark.assign(I.cap, 0);
  I.degree.assign(I.n, 0);
  I.info.assign(kBmInfoLen, 0);
  I.work.assign(BmWorkLayout(I.n, I.cap).len, 0);
  return I;
}

void Init(Instance& I) {
  BmProblem P = I.problem();
  BmView p = P.view(0);
  bm_init_serial(p, I.b.data());
}

// The kernels' schedule with `teams` teams of `lanes` workers each (every
// worker a thread).
template <int kDepth>
void Parallel(Instance& I, int teams, int lanes, unsigned seed) {
  const BmProblem P = I.problem();
  std::vector<std::unique_ptr<ThreadTeamShared>> shared;
  for (int t = 0; t < teams; ++t)
    shared.push_back(std::make_unique<ThreadTeamShared>(lanes));
  auto run = [&](auto body) {
    std::vector<std::thread> pool;
    for (int t = 0; t < teams; ++t)
      for (int r = 0; r < lanes; ++r)
        pool.emplace_back(body, t, ThreadTeam{r, lanes, shared[t].get()});
    for (std::thread& th : pool) th.join();
  };
  const HashKeep keep{seed};
  run([&](int t, ThreadTeam team) {
    BmView p = P.view(0);
    for (int u = t; u < p.n; u += teams)
      if (p.vx[u].hcap > 0) bm_process<kDepth>(team, p, u, keep);
  });
  BmView p = P.view(0);
  bm_control(p, true);
  while (!bm_drained(p)) {
    run([&](int t, ThreadTeam team) {
      BmView q = P.view(0);
      int len = 0;
      const int* queue = bm_queue(q, &len);
      for (int i = t; i < len; i += teams)
        bm_process<kDepth>(team, q, queue[i], keep);
    });
    bm_control(p, false);
  }
  for (int u = 0; u < p.n; ++u) bm_finalize(p, u);
  bm_done(p);
}

// The marks by searching S(w) for each proposal u holds, and u's list for
// the edge's heaviest copy (the first of the heaviest).
std::vector<int> SearchedMarks(Instance& I) {
  BmProblem P = I.problem();
  BmView p = P.view(0);
  std::vector<int> mark(I.cap, 0);
  for (int u = 0; u < p.n; ++u) {
    const WmOffer* h = p.heap + p.vx[u].hoff;
    for (int j = 0; j < p.vx[u].state; ++j) {
      const int w = wm_id(h[j]);
      const WmOffer want = wm_pack(wm_key(h[j]), u);
      const WmOffer* hw = p.heap + p.vx[w].hoff;
      bool mutual = false;
      for (int i = 0; i < p.vx[w].state; ++i) mutual |= hw[i] == want;
      if (!mutual) continue;
      int at = -1;
      for (int k = p.xadj[u]; k < p.xadj[u + 1]; ++k)
        if (p.adj[k] == w && (at < 0 || p.key[k] > p.key[at])) at = k;
      mark[at] = w > u ? 2 : 1;
    }
  }
  return mark;
}

}  // namespace

int main() {
  std::mt19937 rng(7);
  int failures = 0, rounds = 0, problems = 0;
  for (int it = 0; it < 600; ++it) {
    Instance serial = Make(rng);
    Instance parallel = serial;
    Init(serial);
    BmProblem P = serial.problem();
    BmView p = P.view(0);
    bm_serial(p);
    Init(parallel);
    // teams x lanes threads: 2-4 teams of one worker, or 2 teams of 2-4
    const int lanes = it % 2 ? 1 : 2 + (it / 2) % 3;
    const int threads = lanes == 1 ? 2 + it % 3 : 2;
    const unsigned seed = static_cast<unsigned>(rng());
    switch (it % 3) {
      case 0:
        Parallel<1>(parallel, threads, lanes, seed);
        break;
      case 1:
        Parallel<2>(parallel, threads, lanes, seed);
        break;
      default:
        Parallel<16>(parallel, threads, lanes, seed);
    }
    ++problems;
    rounds = std::max(rounds, parallel.info[kBmRounds]);
    const bool same = serial.mark == parallel.mark &&
                      serial.degree == parallel.degree &&
                      serial.info[kBmStatus] == parallel.info[kBmStatus] &&
                      serial.info[kBmStatus] == kWmDominant;
    const bool searched = SearchedMarks(serial) == serial.mark;
    if (!same || !searched) {
      ++failures;
      std::printf("FAILED: problem %d (n %d, %d teams of %d): %s\n", it,
                  serial.n, threads, lanes,
                  same ? "finalize" : "parallel != serial");
    }
  }
  if (failures) {
    std::printf("b_suitor_emulation: FAILED (%d of %d)\n", failures, problems);
    return 1;
  }
  std::printf("b_suitor_emulation: OK (%d problems, at most %d rounds)\n",
              problems, rounds);
  return 0;
}
