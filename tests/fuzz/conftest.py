"""Hypothesis profiles of the differential fuzz tests, and their counts.

``JAXMATCH_FUZZ_PROFILE`` picks the profile: ``quick`` (the default, CI:
few deterministic cases per test, the folder in about three minutes on two
cores) or ``deep`` (the device run: at least 10**5 cases per entry point,
no deadline, random). The profiles are registered here and applied to the
fuzz tests only (``fuzz_cases.fuzz_settings``), never loaded globally: the
rest of the suite keeps its own hypothesis settings.

At the end of the session a summary line per entry point reports how many
cases it ran (``fuzz cases: ...``). With ``JAXMATCH_FUZZ_COUNTS_DIR`` set,
each process also writes its counts there after every test
(``<pid>.json``): the counts of xdist workers, and of a run cut short by a
timeout (``python tests/fuzz/counts.py DIR`` adds them up).
"""

from __future__ import annotations

import json
import os

from fuzz_cases import COUNTS, PROFILE
from hypothesis import HealthCheck, settings

_SLOW_FINE = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]

settings.register_profile(
    "jaxmatch-fuzz-quick",
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=_SLOW_FINE,
    print_blob=True,
)
settings.register_profile(
    "jaxmatch-fuzz-deep",
    max_examples=100_000,
    deadline=None,
    derandomize=False,
    suppress_health_check=_SLOW_FINE,
    print_blob=True,
)


def pytest_report_header(config):
    return f"jaxmatch fuzz profile: {PROFILE}"


def pytest_runtest_teardown(item):
    folder = os.environ.get("JAXMATCH_FUZZ_COUNTS_DIR")
    if folder and COUNTS:
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{os.getpid()}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(dict(COUNTS), f)
        os.replace(path + ".tmp", path)


def pytest_terminal_summary(terminalreporter):
    if not COUNTS:
        return
    total = sum(COUNTS.values())
    terminalreporter.write_sep("-", f"fuzz cases ({PROFILE} profile): {total}")
    for entry, count in sorted(COUNTS.items()):
        terminalreporter.write_line(f"fuzz cases: {entry}: {count}")
