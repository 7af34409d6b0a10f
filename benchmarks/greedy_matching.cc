// The sequential greedy weighted matching, compiled, as a benchmark baseline
// (benchmarks/weighted.py builds it with the host's C++ compiler and loads it
// with ctypes): edges sorted heaviest first, each taken when both ends are
// free.  Ties are broken as jaxmatch breaks them (larger endpoint first, then
// smaller endpoint), so the result is jaxmatch's matching; edges of weight
// <= 0 are never taken.  Weights must not be NaN.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

extern "C" {

// u, v, w: the m edges (each once); mate: int32 [n], filled (-1 free).
// Returns the number of matched edges.
int64_t greedy_matching(int64_t m, const int32_t* u, const int32_t* v,
                        const float* w, int32_t n, int32_t* mate) {
  std::vector<int64_t> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), int64_t{0});
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    if (w[a] != w[b]) return w[a] > w[b];
    const int32_t ha = std::max(u[a], v[a]), hb = std::max(u[b], v[b]);
    if (ha != hb) return ha > hb;
    return std::min(u[a], v[a]) > std::min(u[b], v[b]);
  });
  std::fill(mate, mate + n, -1);
  int64_t matched = 0;
  for (const int64_t e : order) {
    if (!(w[e] > 0.0f)) break;  // sorted: every later edge is no heavier
    const int32_t a = u[e], b = v[e];
    if (a == b || mate[a] >= 0 || mate[b] >= 0) continue;
    mate[a] = b;
    mate[b] = a;
    ++matched;
  }
  return matched;
}

}  // extern "C"
