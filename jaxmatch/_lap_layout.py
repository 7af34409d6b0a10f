"""Offsets into the packed LAP solver state; mirrors cuda_ffi/common/lap_state.h."""

from __future__ import annotations

NUM_SCALARS = 16

# Scalar slots (LapScalar).
STATUS = 0
ITERS = 7
N_DUAL = 8
N_AUG_PHASES = 9

# Status codes (LapStatus).
RUNNING = 0
OPTIMAL = 1
INFEASIBLE = 2
OVERFLOW = 3
ITERATION_LIMIT = 4

# Variants (LapVariant).
VARIANTS = {"tree": 0, "classical": 1}


def istate_len(n: int, m: int, variant: int) -> int:
    """Length of one problem's int32 state for an n x m (n <= m) problem."""
    length = NUM_SCALARS + n + m + m + m + n + n + n + 2 * n
    if variant == VARIANTS["classical"]:
        length += n + n + n * m
    return length


def tstate_len(n: int, m: int) -> int:
    """Length of one problem's cost-dtype state (u, v, slack, delta)."""
    return n + m + m + 2


def col_for_row_slice(n: int, m: int) -> slice:
    return slice(NUM_SCALARS, NUM_SCALARS + n)


def row_for_col_slice(n: int, m: int) -> slice:
    return slice(NUM_SCALARS + n, NUM_SCALARS + n + m)


def u_slice(n: int, m: int) -> slice:
    return slice(0, n)


def v_slice(n: int, m: int) -> slice:
    return slice(n, n + m)
