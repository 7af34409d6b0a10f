// The sequential greedy weighted matching, compiled, as a benchmark baseline
// (benchmarks/weighted.py builds it with the host's C++ compiler and loads it
// with ctypes): edges sorted heaviest first, each taken when both ends are
// free.  Ties are broken as jaxmatch breaks them (larger endpoint first, then
// smaller endpoint), so the result is jaxmatch's matching; edges of weight
// <= 0 are never taken.  Weights must not be NaN.
#include <algorithm>
#include <cstdint>
#include <vector>

extern "C" {

// u, v, w: the m edges (each once); mate: int32 [n], filled (-1 free).
// Returns the number of matched edges.
int64_t greedy_matching(int64_t m, const int32_t* u, const int32_t* v,
                        const float* w, int32_t n, int32_t* mate) {
  // The sort keys are laid out beside each other (no indirection through
  // the input arrays while sorting).
  struct Edge {
    float w;
    int32_t hi, lo;
  };
  std::vector<Edge> edges(static_cast<std::size_t>(m));
  for (int64_t e = 0; e < m; ++e)
    edges[e] = {w[e], std::max(u[e], v[e]), std::min(u[e], v[e])};
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) {
    if (a.w != b.w) return a.w > b.w;
    if (a.hi != b.hi) return a.hi > b.hi;
    return a.lo > b.lo;
  });
  std::fill(mate, mate + n, -1);
  int64_t matched = 0;
  for (const Edge& e : edges) {
    if (!(e.w > 0.0f)) break;  // sorted: every later edge is no heavier
    if (e.hi == e.lo || mate[e.hi] >= 0 || mate[e.lo] >= 0) continue;
    mate[e.hi] = e.lo;
    mate[e.lo] = e.hi;
    ++matched;
  }
  return matched;
}

}  // extern "C"
