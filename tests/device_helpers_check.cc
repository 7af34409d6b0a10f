// Host checks of common/device.h's orders and hashes, which the GPU kernels
// use to hand out work (b-Suitor's first pass, the cheap matching): the
// scrambled order visits every index of [0, n) once, and a hashed position
// lies in [0, n).  Exits 1 on a failure.
#include <cstdio>
#include <random>
#include <vector>

#include "common/device.h"

using jaxmatch::hashed_position;
using jaxmatch::ScrambledOrder;

static int CheckScrambledOrder() {
  std::vector<int> sizes = {65536, 100003, 1 << 20, (1 << 20) + 1, 111546435};
  for (int n = 0; n <= 3000; ++n) sizes.push_back(n);
  for (int n : sizes) {
    const ScrambledOrder order(n);
    std::vector<char> seen(n, 0);
    for (int i = 0; i < n; ++i) {
      const int u = order(i);
      if (u < 0 || u >= n || seen[u]) {
        std::printf("BAD scrambled order of %d: %d -> %d\n", n, i, u);
        return 1;
      }
      seen[u] = 1;
    }
  }
  return 0;
}

static int CheckHashedPosition() {
  std::mt19937 rng(3);
  for (int t = 0; t < 100000; ++t) {
    const int n = 1 + static_cast<int>(rng() % (t % 2 ? 40 : 1 << 30));
    const int at = hashed_position(static_cast<unsigned>(rng()), n);
    if (at < 0 || at >= n) {
      std::printf("BAD hashed position %d of %d\n", at, n);
      return 1;
    }
  }
  return 0;
}

int main() {
  const int bad = CheckScrambledOrder() + CheckHashedPosition();
  std::printf("device_helpers_check: %s\n", bad ? "FAILED" : "OK");
  return bad ? 1 : 0;
}
