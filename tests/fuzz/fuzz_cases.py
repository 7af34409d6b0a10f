"""Strategies, oracles and checks shared by the differential fuzz tests.

The oracles state the documented contract independently of the library:
the dtype a dense solve runs in (``docs/lap.md``), the non-finite contract
(minimizing: ``+inf`` forbidden/absent, NaN or ``-inf`` invalid; the signs
swapped when maximizing), and the optimum from scipy (finite data; ``+inf``
as scipy's forbidden entry) cross-checked by brute force on tiny problems.
"""

from __future__ import annotations

import collections
import itertools
import os
from typing import NamedTuple

import jax
import ml_dtypes
import numpy as np
import scipy.optimize
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import jaxmatch
from jaxmatch import LAPStatus

PROFILE = os.environ.get("JAXMATCH_FUZZ_PROFILE", "quick")
if PROFILE not in ("quick", "deep"):
    raise ValueError(f"JAXMATCH_FUZZ_PROFILE must be 'quick' or 'deep', got {PROFILE!r}")

#: Cases run per entry point in this session (conftest prints them).
COUNTS: collections.Counter[str] = collections.Counter()


def fuzz_settings(quick: int | None = None, deep: int | None = None) -> settings:
    """The active profile's settings; ``quick`` and ``deep`` override a
    profile's case count for a test whose cases are cheaper or dearer than
    most (a case of many problems), and ``JAXMATCH_FUZZ_EXAMPLES`` every
    test's (a run of a chosen length)."""
    base = settings.get_profile(f"jaxmatch-fuzz-{PROFILE}")
    if os.environ.get("JAXMATCH_FUZZ_EXAMPLES"):
        return settings(base, max_examples=int(os.environ["JAXMATCH_FUZZ_EXAMPLES"]))
    count = quick if PROFILE == "quick" else deep
    return base if count is None else settings(base, max_examples=count)


DTYPES = {
    "bool": np.dtype(np.bool_),
    "int8": np.dtype(np.int8),
    "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "uint8": np.dtype(np.uint8),
    "uint16": np.dtype(np.uint16),
    "uint32": np.dtype(np.uint32),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
}
FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")

#: Problem sides drawn from a fixed set: JAX compiles per shape.
SIDES = (0, 1, 2, 3, 5)
BATCHES = ((), (2,), (1, 2))
VALUE_KINDS = ("ties", "ints", "uniform", "huge", "tiny", "near")


def is_float(dtype: np.dtype) -> bool:
    return bool(jax.numpy.issubdtype(dtype, jax.numpy.floating))


def _int_range(dtype: np.dtype, kind: str) -> tuple[int, int]:
    if dtype == np.bool_:
        return 0, 1
    info = np.iinfo(dtype)
    if kind == "ties":
        return max(info.min, 0), 2
    if kind == "huge":
        return info.min, info.max
    return max(info.min, -50), min(info.max, 50)


def _float_elements(kind: str) -> st.SearchStrategy[float]:
    if kind == "ties":
        return st.sampled_from([0.0, 1.0, 2.0])
    if kind == "ints":
        return st.integers(-50, 50).map(float)
    if kind == "uniform":
        return st.floats(-1.0, 1.0, allow_nan=False)
    if kind == "huge":
        return st.sampled_from([1e30, -1e30, 3e37, -3e37, 1e15, 7.0, 1e300, -1e300])
    if kind == "tiny":
        return st.sampled_from([0.0, 1e-30, 2e-30, 1e-40, -1e-40, 5e-324, 1e-300])
    return st.sampled_from([1e6, 1e6 + 1e-3, 1e6 + 2e-3, 1e6 - 1e-3, 1e6 + 0.25])


@st.composite
def cost_arrays(draw, shape, dtype_names=tuple(DTYPES), nonfinite: bool = True):
    """``(C, kind)``: a NumPy cost array of ``shape`` in one of ``dtype_names``,
    of a value kind (ties, huge, tiny, ...), floats with ``+-inf``/NaN."""
    name = draw(st.sampled_from(dtype_names))
    dtype = DTYPES[name]
    kind = draw(st.sampled_from(VALUE_KINDS))
    if is_float(dtype):
        elements = _float_elements(kind)
        if nonfinite and draw(st.booleans()):
            elements = st.one_of(elements, st.sampled_from([np.inf, -np.inf, np.nan]))
        with np.errstate(over="ignore"):
            C = draw(hnp.arrays(np.float64, shape, elements=elements)).astype(dtype)
    else:
        lo, hi = _int_range(dtype, kind)
        C = draw(
            hnp.arrays(
                np.int64 if dtype != np.uint64 else dtype, shape, elements=st.integers(lo, hi)
            )
        )
        C = C.astype(dtype)
    return C, kind


def kernel_dtype(dtype: np.dtype, x64: bool, traced: bool) -> np.dtype | type[Exception]:
    """The dtype a dense solve runs in (``docs/lap.md``), or the exception
    the call must raise; ``traced``: the costs reach the solver as a tracer
    (JAX canonicalized them first)."""
    if is_float(dtype):
        return np.dtype(np.float64 if dtype == np.float64 and x64 else np.float32)
    if dtype == np.bool_ or (dtype.itemsize <= 4 and dtype != np.uint32):
        return np.dtype(np.int32)
    if x64:
        return np.dtype(np.float64)
    return TypeError if traced else np.dtype(np.int32)


def canonicalized(C: np.ndarray, x64: bool) -> np.ndarray:
    """``C`` as JAX hands a jitted function its argument (int64 wraps to
    int32 and float64 rounds to float32 without x64: JAX's rule, before the
    library sees the values)."""
    with jax.enable_x64(x64):
        return np.asarray(jax.device_put(C))


class Expect(NamedTuple):
    status: LAPStatus
    cost: float | int = 0


def _brute_force(A: np.ndarray, maximize: bool) -> float | None:
    n, m = A.shape
    best = None
    if n <= m:
        for cols in itertools.permutations(range(m), n):
            total = float(sum(A[i, j] for i, j in enumerate(cols)))
            if np.isfinite(total) and (
                best is None or (total > best if maximize else total < best)
            ):
                best = total
    else:
        best = _brute_force(A.T, maximize)
    return best


def lap_oracle(S: np.ndarray, maximize: bool) -> Expect:
    """The expected status and optimum of one dense problem ``S`` as the
    solver sees it (its kernel dtype): scipy, and brute force when tiny."""
    n, m = S.shape
    A = S.astype(np.float64)
    bad = np.isnan(A) | (np.isposinf(A) if maximize else np.isneginf(A))
    if bad.any():
        return Expect(LAPStatus.INVALID_ENTRIES)
    if min(n, m) == 0:
        return Expect(LAPStatus.OPTIMAL, 0)
    try:
        r, c = scipy.optimize.linear_sum_assignment(A, maximize=maximize)
    except ValueError as err:
        assert "infeasible" in str(err), err
        want = Expect(LAPStatus.INFEASIBLE)
    else:
        total = A[r, c].sum()
        want = Expect(
            LAPStatus.OPTIMAL,
            int(S[r, c].astype(np.int64).sum()) if S.dtype.kind == "i" else float(total),
        )
    if max(n, m) <= 5 and np.all(np.abs(A[np.isfinite(A)]) < 1e15):
        best = _brute_force(A, maximize)
        if best is None:
            assert want.status == LAPStatus.INFEASIBLE, ("scipy found", want, "brute force none")
        else:
            assert want.status == LAPStatus.OPTIMAL, ("brute force found", best)
            assert abs(best - float(want.cost)) <= 1e-9 * max(1.0, abs(best)), (best, want)
    return want


def lap_tolerance(S: np.ndarray, u, v) -> float:
    """The certificate's default tolerance for ``S`` solved in its dtype,
    times the vertex count (the duality gap's bound), doubled (the gap and
    the dual violation each bound the distance to the optimum)."""
    if S.dtype.kind in "iub":
        return 0.0
    finite = np.abs(S[np.isfinite(S)].astype(np.float64))
    scale = max(
        1.0,
        float(finite.max(initial=0.0)),
        float(np.abs(np.asarray(u, np.float64)).max(initial=0.0)),
        float(np.abs(np.asarray(v, np.float64)).max(initial=0.0)),
    )
    eps = np.finfo(np.float64 if S.dtype == np.float64 else np.float32).eps
    return 2.0 * 64.0 * eps * scale * (sum(S.shape) + 1)


#: int32 solves may report OVERFLOW (never a wrong answer) for entries this
#: large ("roughly max |C| < 2**30", 2**28 for the forest: docs/lap.md).
OVERFLOW_FROM = 2**26


def assignment_problem(S: np.ndarray, cfr: np.ndarray, rfc: np.ndarray, maximize: bool) -> str:
    """Empty when ``cfr``/``rfc`` assign ``min(n, m)`` distinct pairs,
    consistently, none forbidden; else what is wrong."""
    n, m = S.shape
    if cfr.shape != (n,) or rfc.shape != (m,):
        return f"shapes {cfr.shape}, {rfc.shape}"
    if np.any((cfr < -1) | (cfr >= m)) or np.any((rfc < -1) | (rfc >= n)):
        return "index out of range"
    rows = np.flatnonzero(cfr >= 0)
    if rows.size != min(n, m) or np.unique(cfr[rows]).size != rows.size:
        return f"{rows.size} rows assigned (distinct?), expected {min(n, m)}"
    if np.any(rfc[cfr[rows]] != rows) or np.count_nonzero(rfc >= 0) != rows.size:
        return "col_for_row and row_for_col disagree"
    vals = S[rows, cfr[rows]].astype(np.float64)
    if not np.all(np.isfinite(vals)):  # forbidden, or invalid (NaN, the other infinity)
        return "a forbidden or invalid entry is used"
    return ""


def check_lap_one(S, maximize, cfr, rfc, cost, u, v, feasible, status, want: Expect, what=""):
    """One solved problem against the oracle's ``want`` (``S``: the costs
    as the solver saw them); the certificate must agree."""
    cfr, rfc = np.asarray(cfr), np.asarray(rfc)
    status = int(status)
    info = (what, LAPStatus(status).name, want, S.tolist(), maximize)
    if want.status != LAPStatus.OPTIMAL:
        assert status == want.status, info
        assert not bool(feasible) and (cfr == -1).all() and (rfc == -1).all(), info
        return
    if status == LAPStatus.OVERFLOW:
        assert S.dtype == np.int32 and np.abs(S.astype(np.int64)).max() >= OVERFLOW_FROM, info
        assert not bool(feasible), info
        return
    assert status == LAPStatus.OPTIMAL and bool(feasible), info
    problem = assignment_problem(S, cfr, rfc, maximize)
    assert not problem, (problem, *info)
    rows = np.flatnonzero(cfr >= 0)
    tol = lap_tolerance(S, u, v)
    if S.dtype.kind in "iu":
        total = int(S[rows, cfr[rows]].astype(np.int64).sum())
        assert total == want.cost, (total, *info)
        assert int(cost) == total, (int(cost), total, *info)
    else:
        total = float(S[rows, cfr[rows]].astype(np.float64).sum())
        assert abs(total - float(want.cost)) <= tol, (total, tol, *info)
        assert abs(float(cost) - total) <= tol, (float(cost), total, *info)
    res = jaxmatch.LAPResult(cfr, rfc, cost, np.asarray(u), np.asarray(v), feasible, 0, status)
    cert = jaxmatch.verify_lap(S, res, maximize=maximize)
    assert cert.optimal, (cert.reason, *info)


def check_lap_batch(S: np.ndarray, maximize, res, what: str = "") -> None:
    """Every member of a (batch of) solve(s) against the oracle."""
    r = jax.tree.map(np.asarray, res)
    batch = S.shape[:-2]
    flags = np.broadcast_to(np.asarray(maximize, bool), batch)
    for b in np.ndindex(*batch):
        mx = bool(flags[b])
        want = lap_oracle(S[b], mx)
        check_lap_one(
            S[b], mx, r.col_for_row[b], r.row_for_col[b], r.cost[b], r.u[b], r.v[b],
            r.feasible[b], r.status[b], want, what,
        )  # fmt: skip


def random_costs(rng, shape, dtype: str, kind: str) -> np.ndarray:
    """A batch of cost matrices of one kind: ties, floats, ints, forbidden
    entries, invalid entries (NaN, -inf), huge or tiny magnitudes."""
    if kind == "ties":
        C = rng.integers(0, 3, shape).astype(np.float64)
    elif kind == "ints":
        C = rng.integers(-1000, 1000, shape).astype(np.float64)
    elif kind == "huge":
        C = rng.integers(-(2**20), 2**20, shape) * (2.0**6 if dtype == "int32" else 1e25)
    elif kind == "tiny":
        C = rng.random(shape) * 1e-30
    else:
        C = rng.random(shape)
    if dtype != "int32":
        C[rng.random(shape) < (0.3 if kind == "forbidden" else 0.02)] = np.inf
        C[rng.random(shape) < 0.005] = rng.choice([np.nan, -np.inf])
    return C.astype(dtype)
