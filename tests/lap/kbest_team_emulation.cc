// The k best assignments' team and crew code (lap/kbest/kbest_rank.h's
// KBestSolveTeam, the GPU's kernel in lap/kbest/kbest_kernels.cu: a crew of
// warps per problem) under a crew's concurrency, on the CPU
// (tests/lap/test_k_best_api.py compiles and runs it with the host
// compiler).
//
// A crew of one to four teams of std::threads (one to eight workers each;
// barriers, OR and argmin collectives through a spin barrier, as a warp's
// shuffles are; the crew's barrier across all of them) solves
// random problems: ties (a few integer levels), +inf pairs, rows and columns
// left at their prices (exits), rectangular both ways, int32 (with totals
// past int32: OVERFLOW), float (with NaN: INVALID_ENTRIES) and double, k
// from 1 to 120, infeasible ones.  Every result must equal the serial
// team's (SerialTeam, whose ranking the CPU handler runs and the Python
// tests check against brute force and a scipy Murty): the same assignments,
// the same costs bit for bit, the same status, count and searches.  The
// workers' workspaces are poisoned first (no entry is read before it is
// written).  Exits 1 on a failure.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "../thread_team.h"
#include "kbest_host_work.h"
#include "lap/kbest/kbest_rank.h"

using namespace jaxmatch;

namespace {

template <class T>
struct Instance {
  int n = 0, m = 0, k = 1;
  bool exits = false;
  std::vector<T> C, r, c;
  KBestProblem<T> problem() const {
    return KBestProblem<T>{
        n, m, C.data(), r.data(), exits ? c.data() : nullptr, exits};
  }
};

// A team's workspace and results, the workspace poisoned.
template <class T>
struct Run {
  using W = KBestWide<T>;
  KBestHostWork<W> host;
  std::vector<int> assign, info;
  std::vector<T> costs;
  explicit Run(const Instance<T>& I, int members = 1)
      : host(I.n, I.m, I.k, 0x5a5a5a5a, static_cast<W>(-12345), members) {
    const size_t n = I.n, k = I.k;
    assign.assign(k * n, 0x5a5a5a5a);
    info.assign(kKBestInfoLen, 0x5a5a5a5a);
    costs.assign(k, static_cast<T>(-777));
  }
  KBestTeamWork<W> work(int member = 0) { return host.work(member); }
};

// Member `me` of a crew of `members` teams, all behind one barrier.
struct ThreadCrew {
  int me, members;
  SpinBarrier* barrier;
  int size() const { return members; }
  int member() const { return me; }
  void sync() const { barrier->wait(); }
};

template <class T>
Run<T> SolveSerial(const Instance<T>& I) {
  Run<T> out(I);
  KBestSolveTeam(SerialTeam{}, SerialCrew{}, I.problem(), I.k, out.work(),
                 out.assign.data(), out.costs.data(), out.info.data());
  return out;
}

template <class T>
Run<T> SolveCrew(const Instance<T>& I, int members, int lanes) {
  Run<T> out(I, members);
  std::deque<ThreadTeamShared> shared;
  for (int w = 0; w < members; ++w) shared.emplace_back(lanes);
  SpinBarrier crew(members * lanes);
  std::vector<std::thread> workers;
  for (int w = 0; w < members; ++w)
    for (int r = 0; r < lanes; ++r)
      workers.emplace_back([&, w, r] {
        KBestSolveTeam(ThreadTeam{r, lanes, &shared[w]},
                       ThreadCrew{w, members, &crew}, I.problem(), I.k,
                       out.work(w), out.assign.data(), out.costs.data(),
                       out.info.data());
      });
  for (auto& t : workers) t.join();
  return out;
}

template <class T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T>
Instance<T> Make(std::mt19937& rng) {
  Instance<T> I;
  const bool large = rng() % 16 == 0;
  const int most = large ? 24 : 9;
  I.exits = rng() % 2 == 0;
  I.n = 1 + static_cast<int>(rng() % most);
  I.m = 1 + static_cast<int>(rng() % most);
  if (!I.exits && I.n > I.m) std::swap(I.n, I.m);
  I.k = 1 + static_cast<int>(rng() % (large ? 120 : 40));
  const int levels = rng() % 3 == 0 ? 3 : (rng() % 2 ? 20 : 100000);
  const bool forbid = rng() % 3 == 0;
  const bool huge = std::is_same<T, int32_t>::value && rng() % 10 == 0;
  auto value = [&]() {
    if (huge) return static_cast<T>(1 << 30) - static_cast<T>(rng() % 7);
    const int v = static_cast<int>(rng() % levels) - levels / 4;
    if (std::is_floating_point<T>::value && levels > 1000)
      return static_cast<T>(v) / static_cast<T>(7);
    return static_cast<T>(v);
  };
  I.C.resize(static_cast<size_t>(I.n) * I.m);
  for (auto& x : I.C) {
    x = value();
    if (forbid && std::numeric_limits<T>::has_infinity && rng() % 3 == 0)
      x = std::numeric_limits<T>::infinity();
  }
  // Now and then a row with no pair (infeasible without exits).
  if (forbid && std::numeric_limits<T>::has_infinity && rng() % 4 == 0)
    for (int j = 0; j < I.m; ++j) I.C[j] = std::numeric_limits<T>::infinity();
  if (std::numeric_limits<T>::has_quiet_NaN && rng() % 40 == 0)
    I.C[rng() % I.C.size()] = std::numeric_limits<T>::quiet_NaN();
  I.r.resize(I.n);
  I.c.resize(I.m);
  for (auto& x : I.r) x = value();
  for (auto& x : I.c) x = value();
  return I;
}

// Statuses and sizes seen, over every problem solved: the problems must
// exercise each.
long long g_status[8], g_found, g_exits_used;

template <class T>
int RunAll(const char* name, int problems, unsigned seed) {
  std::mt19937 rng(seed);
  int failures = 0;
  for (int t = 0; t < problems; ++t) {
    const Instance<T> I = Make<T>(rng);
    const Run<T> serial = SolveSerial(I);
    const int status = serial.info[kKBestInfoStatus];
    if (status >= 0 && status < 8) ++g_status[status];
    g_found += serial.info[kKBestInfoCount];
    for (int v : serial.assign) g_exits_used += I.exits && v == -1;
    const int members = 1 + static_cast<int>(rng() % 4);
    const int lanes = (members == 1 ? 2 : 1) + static_cast<int>(rng() % 7);
    if (std::getenv("KBEST_EMULATION_TRACE"))
      std::printf("%s %d: %dx%d k %d exits %d, %d teams of %d workers\n", name,
                  t, I.n, I.m, I.k, I.exits ? 1 : 0, members, lanes);
    const Run<T> team = SolveCrew(I, members, lanes);
    if (!(serial.assign == team.assign && SameBits(serial.costs, team.costs) &&
          serial.info == team.info)) {
      if (++failures <= 5)
        std::printf(
            "%s problem %d (%dx%d, k %d, exits %d, %d teams of %d workers): "
            "status %d/%d count %d/%d searches %d/%d\n",
            name, t, I.n, I.m, I.k, I.exits ? 1 : 0, members, lanes, status,
            team.info[kKBestInfoStatus], serial.info[kKBestInfoCount],
            team.info[kKBestInfoCount], serial.info[kKBestInfoIters],
            team.info[kKBestInfoIters]);
    }
  }
  std::printf("%s: %d problems, %d differ\n", name, problems, failures);
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  // argv[1]: problems per dtype (default 80).
  const int problems = argc > 1 ? std::atoi(argv[1]) : 80;
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  int failures = 0;
  failures += RunAll<int32_t>("int32", problems, 11);
  failures += RunAll<float>("float32", problems, 22);
  failures += RunAll<double>("float64", problems, 33);
  std::printf(
      "statuses: optimal %lld, infeasible %lld, invalid %lld, overflow %lld; "
      "%lld solutions, %lld rows at their exits\n",
      g_status[kLapOptimal], g_status[kLapInfeasible],
      g_status[kLapInvalidEntries], g_status[kLapOverflow], g_found,
      g_exits_used);
  if (g_status[kLapOptimal] == 0 || g_status[kLapInfeasible] == 0 ||
      g_status[kLapInvalidEntries] == 0 || g_status[kLapOverflow] == 0) {
    std::printf("a status was never produced: widen the problems\n");
    return 1;
  }
  if (failures) return 1;
  std::printf("kbest_team_emulation: OK\n");
  return 0;
}
