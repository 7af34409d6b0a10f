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
from fuzz_cases import SIDES, check_lap_one, cost_arrays, kernel_dtype, lap_oracle  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import jaxmatch  # noqa: E402

DEVICES = jax.devices("gpu" if MODE == "gpu" else "cpu")
DEEP = os.environ.get("JAXMATCH_FUZZ_PROFILE") == "deep"
cases = 0


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
    with jax.enable_x64(x64):
        target = kernel_dtype(C.dtype, x64, traced=False)
        res = jaxmatch.solve_lap_split(C, maximize=maximize, devices=DEVICES[:k])
        r = jax.tree.map(np.asarray, res)
    S = C.astype(target)
    want = lap_oracle(S, maximize)
    what = f"split devices={k} x64={x64} {kind} {C.dtype}"
    fields = (r.col_for_row, r.row_for_col, r.cost, r.u, r.v, r.feasible, r.status)
    check_lap_one(S, maximize, *fields, want, what)
    cases += 1


test_split()
print(f"split fuzz: {cases} cases OK")
