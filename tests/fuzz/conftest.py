"""Hypothesis profiles of the differential fuzz tests, and their counts.

``JAXMATCH_FUZZ_PROFILE`` picks the profile: ``quick`` (the default, CI:
few deterministic cases per test, the folder in about three minutes on two
cores) or ``deep`` (the device run: at least 10**5 cases per entry point,
no deadline, random). The profiles are registered here and applied to the
fuzz tests only (``fuzz_cases.fuzz_settings``), never loaded globally: the
rest of the suite keeps its own hypothesis settings.

At the end of the session a summary line per entry point reports how many
cases it ran (``fuzz cases: ...``).
"""

from __future__ import annotations

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


def pytest_terminal_summary(terminalreporter):
    if not COUNTS:
        return
    total = sum(COUNTS.values())
    terminalreporter.write_sep("-", f"fuzz cases ({PROFILE} profile): {total}")
    for entry, count in sorted(COUNTS.items()):
        terminalreporter.write_line(f"fuzz cases: {entry}: {count}")
