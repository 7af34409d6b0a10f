// The order in which b-Suitor's first pass hands the vertices to its tiles
// on CUDA.  Tiles that run at once on consecutive labels propose to the
// same neighbourhoods when labels follow space (random geometric graphs,
// meshes) and wait on each other's locks; a scrambled order spreads them
// over the graph.  The result does not depend on the order (b-Suitor's
// final state is unique), only the contention does.
#pragma once

#include "common/device.h"

namespace jaxmatch {

// A bijection of [0, n): an affine map with an odd multiplier modulo the
// power of two at or above n (consecutive i land about 0.618 of it apart),
// cycle-walked into [0, n) (the power is below 2 n, so a walk is short).
struct ScrambledOrder {
  unsigned mask = 0;
  unsigned n;
  JM_HD explicit ScrambledOrder(int n_) : n(static_cast<unsigned>(n_)) {
    while (mask + 1 < n) mask = mask * 2 + 1;
  }
  JM_HD int operator()(int i) const {
    unsigned x = static_cast<unsigned>(i);
    do {
      x = (x * 0x9E3779B1u + 0x7F4A7C15u) & mask;
    } while (x >= n);
    return static_cast<int>(x);
  }
};

}  // namespace jaxmatch
