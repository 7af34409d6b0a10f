"""Differential fuzzing of ``solve_lap_split`` on forced CPU devices or on
every GPU, in a fresh process (JAX reads the device count once, at start):
run by ``test_fuzz_lap_split_points.py``.

Usage: ``python split_fuzz.py DEVICES|gpu EXAMPLES``. Prints
``split fuzz: N cases OK`` when every case agrees with the oracle.
"""

from __future__ import annotations

import os
import sys

MODE, EXAMPLES = sys.argv[1], int(sys.argv[2])
if MODE != "gpu":
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={int(MODE)}"

import jax  # noqa: E402
import numpy as np  # noqa: E402
from fuzz_cases import (  # noqa: E402
    SIDES,
    check_lap_one,
    cost_arrays,
    kernel_dtype,
    lap_oracle,
    random_costs,
)
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import jaxmatch  # noqa: E402

DEVICES = jax.devices("gpu" if MODE == "gpu" else "cpu")
DEEP = os.environ.get("JAXMATCH_FUZZ_PROFILE") == "deep"
#: Problems per case: the drawn one, and in the deep profile more of its
#: shape from NumPy (one compilation, many problems).
PER_CASE = 32 if DEEP else 1
cases = 0


def check_split(C: np.ndarray, maximize: bool, x64: bool, k: int, kind: str) -> None:
    with jax.enable_x64(x64):
        target = kernel_dtype(C.dtype, x64, traced=False)
        res = jaxmatch.solve_lap_split(C, maximize=maximize, devices=DEVICES[:k])
        r = jax.tree.map(np.asarray, res)
    S = C.astype(target)
    want = lap_oracle(S, maximize)
    what = f"split devices={k} x64={x64} {kind} {C.dtype}"
    fields = (r.col_for_row, r.row_for_col, r.cost, r.u, r.v, r.feasible, r.status)
    check_lap_one(S, maximize, *fields, want, what)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not DEEP,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    n=st.sampled_from(SIDES),
    m=st.sampled_from(SIDES),
    data=st.data(),
    maximize=st.booleans(),
    x64=st.booleans(),
    k=st.integers(1, len(DEVICES)),
)
def test_split(n, m, data, maximize, x64, k):
    global cases
    names = ("bool", "int8", "int32", "uint16", "float16", "bfloat16", "float32", "float64")
    C, kind = data.draw(cost_arrays((n, m), names))
    check_split(C, maximize, x64, k, kind)
    cases += 1
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    for _ in range(PER_CASE - 1):
        dtype = str(rng.choice(["float32", "float64", "int32"]))
        kind = str(rng.choice(["ties", "ints", "uniform", "forbidden", "huge", "tiny"]))
        check_split(random_costs(rng, (n, m), dtype, kind), bool(rng.random() < 0.5), x64, k, kind)
        cases += 1
    if DEEP and cases % 1024 < PER_CASE:
        print(f"split fuzz: {cases} cases so far", flush=True)


test_split()
print(f"split fuzz: {cases} cases OK")
