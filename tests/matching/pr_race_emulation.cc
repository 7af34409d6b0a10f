// Push-relabel (push_relabel.h) under emulated races, on the CPU: the GPU's
// lock- and atomic-free pushes without a GPU (tests/matching/
// test_matching_pr.py compiles and runs it with the host compiler).
//
// Every step runs as on the CPU except the push: there each slot of the
// active list runs alone (mcm_pr_push with a one-slot team), in a random
// order, either on the live state (it sees every earlier write) or on a
// snapshot of the state at the start of the iteration (the most stale reads
// a GPU thread can make); the stale slots' single-element writes are then
// applied in a random global order (two pushes to one row may interleave
// their writes to rmatch[u] and psi_r[u] either way).  Each solve must end
// MAXIMUM with a valid matching of the cardinality of a serial APFB solve.
// Prints the number of rows that two pushes of one iteration both wrote
// (the races the roll-back must repair); exits 1 on a failure.
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "matching/matching_solve.h"

using namespace jaxmatch;

namespace {

// Worker `r` of `s`: with s == slots, exactly slot r of a step.
struct OneSlotTeam {
  int r, s;
  int rank() const { return r; }
  int size() const { return s; }
  void sync() const {}
  int sync_or(int bits) const { return bits; }
};

struct Graph {
  int nr, nc;
  std::vector<int> cx, ca;
};

struct State {
  std::vector<int> rm, cm, info, work;
  explicit State(const Graph& g)
      : rm(g.nr),
        cm(g.nc),
        info(kMcmInfoLen),
        work(McmWorkLayout(g.nr, g.nc).len) {}
  McmView view(const Graph& g) {
    return McmView(g.nr, g.nc, static_cast<int>(g.ca.size()), g.cx.data(),
                   g.ca.data(), rm.data(), cm.data(), info.data(), work.data());
  }
};

struct Write {
  int array, index, value;  // array: 0 rm, 1 cm, 2 work
};

// The writes that running one slot on `scratch` (a copy of `snap`) made.
void Diff(const State& snap, const State& scratch, std::vector<Write>* out) {
  const std::vector<int>* a[3] = {&snap.rm, &snap.cm, &snap.work};
  const std::vector<int>* b[3] = {&scratch.rm, &scratch.cm, &scratch.work};
  for (int k = 0; k < 3; ++k)
    for (size_t i = 0; i < a[k]->size(); ++i)
      if ((*a[k])[i] != (*b[k])[i])
        out->push_back({k, static_cast<int>(i), (*b[k])[i]});
}

// One push iteration with emulated races; returns the rows written by more
// than one slot.
int RacyPush(const Graph& g, State& live, const McmOptions& o,
             std::mt19937& rng) {
  McmView p = live.view(g);
  const int slots = p.sc[kMcmInitialFree];
  const State snap = live;
  std::vector<int> order(slots);
  for (int i = 0; i < slots; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<Write> late;
  std::vector<int> row_writers(g.nr, 0);
  for (int i : order) {
    const OneSlotTeam team{i, slots};
    if (rng() % 2) {  // live: sees every write made so far
      const State before = live;
      mcm_pr_push(team, p);
      std::vector<Write> w;
      Diff(before, live, &w);
      for (const Write& x : w) row_writers[x.index] += x.array == 0;
    } else {  // stale: reads the iteration's start, writes land later
      State scratch = snap;
      McmView q = scratch.view(g);
      mcm_pr_push(team, q);
      std::vector<Write> w;
      Diff(snap, scratch, &w);
      for (const Write& x : w) row_writers[x.index] += x.array == 0;
      late.insert(late.end(), w.begin(), w.end());
    }
  }
  std::shuffle(late.begin(), late.end(), rng);
  for (const Write& x : late) {
    std::vector<int>& a = x.array == 0   ? live.rm
                          : x.array == 1 ? live.cm
                                         : live.work;
    a[x.index] = x.value;
  }
  mcm_pr_ctrl_push(p, o);
  int races = 0;
  for (int n : row_writers) races += n > 1;
  return races;
}

// `lo` to `lo + span - 1` vertices per side; `kind` -1 picks one at random.
Graph RandomGraph(std::mt19937& rng, int lo, int span, int kind) {
  Graph g;
  g.nr = lo + rng() % span;
  g.nc = lo + rng() % span;
  if (kind < 0) kind = rng() % 3;
  g.cx = {0};
  for (int c = 0; c < g.nc; ++c) {
    for (int r = 0; r < g.nr; ++r) {
      bool edge = false;
      if (kind == 0) edge = rng() % (g.nr > 100 ? g.nr / 4 : 6) == 0;
      if (kind == 1) edge = r == c || r == c + 1;                    // a path
      if (kind == 2) edge = (r >= c && r < c + 3) || !(rng() % 40);  // band
      if (edge) g.ca.push_back(r);
    }
    g.cx.push_back(static_cast<int>(g.ca.size()));
  }
  if (g.ca.empty()) g.ca.push_back(0);  // capacity 1, no edge
  return g;
}

int Cardinality(const std::vector<int>& cm) {
  int k = 0;
  for (int r : cm) k += r >= 0;
  return k;
}

bool ValidMatching(const Graph& g, const State& s) {
  for (int c = 0; c < g.nc; ++c) {
    const int r = s.cm[c];
    if (r < -1 || r >= g.nr) return false;
    if (r < 0) continue;
    if (s.rm[r] != c) return false;
    bool edge = false;
    for (int k = g.cx[c]; k < g.cx[c + 1]; ++k) edge |= g.ca[k] == r;
    if (!edge) return false;
  }
  for (int r = 0; r < g.nr; ++r)
    if (s.rm[r] < -1 || s.rm[r] >= g.nc || (s.rm[r] >= 0 && s.cm[s.rm[r]] != r))
      return false;
  return true;
}

}  // namespace

int main() {
  std::mt19937 rng(12345);
  const SerialTeam serial;
  std::vector<int> none_r(1024, -1), none_c(1024, -1);
  int bad = 0, races = 0, solves = 0;
  // 400 small graphs, then 3 with more than kMcmPrShrinkMinSlots columns
  // (from an empty start every column is a slot: the lists get shrunk)
  for (int t = 0; t < 403; ++t) {
    const Graph g =
        t < 400 ? RandomGraph(rng, 1, 50, -1) : RandomGraph(rng, 600, 200, 0);
    const int n = g.nr + g.nc + 2;
    const McmOptions pr{kMcmPr, kMcmBfsWr, 4 * n * n, 4, 50};
    const McmOptions apfb{kMcmApfb, kMcmBfsWr, g.nr + g.nc + 1, 4, 50};
    State ref(g);
    McmView rv = ref.view(g);
    mcm_init(serial, rv, kMcmInitNone, none_r.data(), none_c.data());
    mcm_solve_loop(serial, rv, apfb);
    for (int init : {kMcmInitNone, kMcmInitCheap}) {
      ++solves;
      State s(g);
      McmView p = s.view(g);
      mcm_init(serial, p, init, none_r.data(), none_c.data());
      for (long long step = 0; mcm_running(p) && step < 10000000; ++step) {
        if (mcm_phase(p) == kMcmPrPushPhase)
          races += RacyPush(g, s, pr, rng);
        else
          mcm_pr_step(serial, p, pr);
      }
      if (s.info[kMcmStatus] != kMcmDone || !ValidMatching(g, s) ||
          Cardinality(s.cm) != Cardinality(ref.cm)) {
        ++bad;
        std::printf(
            "BAD graph %d (%dx%d) init %d: status %d valid %d cardinality %d "
            "expected %d\n",
            t, g.nr, g.nc, init, s.info[kMcmStatus], ValidMatching(g, s),
            Cardinality(s.cm), Cardinality(ref.cm));
      }
    }
  }
  std::printf("pr_race_emulation: %s (%d solves, %d racing rows, %d bad)\n",
              bad || races == 0 ? "FAILED" : "OK", solves, races, bad);
  return bad || races == 0 ? 1 : 0;
}
