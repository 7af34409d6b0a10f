"""Offsets into the packed matching state; mirrors cuda_ffi/common/mcm_state.h."""

from __future__ import annotations

NUM_SCALARS = 16

# Scalar slots (McmScalar).
STATUS = 0
N_PHASES = 5
N_LEVELS = 6

# Status codes (McmStatus).
RUNNING = 0
DONE = 1
PHASE_LIMIT = 2
BAD_GRAPH = 3
INITIAL = 4  # set in Python for cheap_matching

DRIVERS = {"apfb": 0, "apsb": 1, "hybrid": 2, "auto": 3}
BFS_KERNELS = {"plain": 0, "wr": 1}
INIT_NONE, INIT_CHEAP, INIT_GIVEN = 0, 1, 2
MAPPINGS = {"ct": 0, "mt": 1}


def state_len(n_rows: int, n_cols: int) -> int:
    """Length of one problem's int32 state."""
    return NUM_SCALARS + 2 * n_rows + 4 * n_cols


def row_match_slice(n_rows: int, n_cols: int) -> slice:
    return slice(NUM_SCALARS, NUM_SCALARS + n_rows)


def col_match_slice(n_rows: int, n_cols: int) -> slice:
    start = NUM_SCALARS + n_rows
    return slice(start, start + n_cols)
