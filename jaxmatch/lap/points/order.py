"""Orders of point sets: the Z-order (Morton) numbering that
:func:`jaxmatch.solve_lap_points` solves in, and the stratified halves of
its multiscale start."""

from __future__ import annotations

import numpy as np

#: Bits per coordinate of the Z-order codes that stratify the halves (at
#: most 62 bits in all, so fewer in more than three dimensions).
MORTON_BITS = 20


def z_order(points: np.ndarray) -> np.ndarray:
    """The order of ``points`` (``[n, d]``) along a Z-order (Morton) curve of
    their bounding box: ``[n]`` indices. Each coordinate is quantised to
    ``min(MORTON_BITS, 62 // d)`` bits (at least 1; beyond 62 dimensions the
    first 62 coordinates) and the bits interleaved, most significant
    first."""
    n, d = points.shape
    dims = min(d, 62)
    if dims == 0:
        return np.arange(n)
    bits = max(1, min(MORTON_BITS, 62 // dims))
    # Halves: a span of finite coordinates then stays finite.
    P = points[:, :dims].astype(np.float64) / 2
    lo, hi = P.min(axis=0), P.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    q = np.floor((P - lo) / span * ((1 << bits) - 1)).astype(np.uint64)
    code = np.zeros(n, np.uint64)
    one = np.uint64(1)
    for b in range(bits - 1, -1, -1):
        for k in range(dims):
            code = (code << one) | ((q[:, k] >> np.uint64(b)) & one)
    return np.argsort(code, kind="stable")


def stratified_half(points: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``n // 2`` of ``points`` (``[n, d]``), sorted indices: one of each
    consecutive pair along :func:`z_order`, chosen at random."""
    order = z_order(points)
    half = points.shape[0] // 2
    return np.sort(order[2 * np.arange(half) + rng.integers(0, 2, half)])
