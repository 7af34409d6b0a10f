"""What the command line prints besides results: progress and notes on
stderr, and numbers and durations formatted for people."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

#: Work that runs longer than this many seconds announces itself on stderr.
PROGRESS_AFTER_S = 1.0


def note(message: str) -> None:
    """Prints a progress or informational line on stderr."""
    sys.stdout.flush()
    print(message, file=sys.stderr, flush=True)


@contextlib.contextmanager
def progress(label: str) -> Iterator[None]:
    """Announces ``label ...`` on stderr if the block runs longer than
    :data:`PROGRESS_AFTER_S`, and then ``done in X s`` when it ends.

    Args:
      label: what the block does, e.g. ``"solving 1 x 5000x5000"``.
    """
    start = time.perf_counter()
    lock = threading.Lock()
    state = {"finished": False, "announced": False}

    def announce() -> None:
        with lock:
            if not state["finished"]:
                state["announced"] = True
                note(f"{label} ...")

    timer = threading.Timer(PROGRESS_AFTER_S, announce)
    timer.daemon = True
    timer.start()
    ok = False
    try:
        yield
        ok = True
    finally:
        timer.cancel()
        with lock:
            state["finished"] = True
            if state["announced"] and ok:
                note(f"done in {time.perf_counter() - start:.2f} s")


def fmt_seconds(seconds: float) -> str:
    """A duration for people: ``850 us``, ``12.3 ms`` or ``1.25 s``."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def fmt_number(value: Any) -> str:
    """A cost or weight: integers exactly, floats to 10 significant digits."""
    x = np.asarray(value)
    if np.issubdtype(x.dtype, np.integer) or np.issubdtype(x.dtype, np.bool_):
        return str(int(x))
    return f"{float(x):.10g}"


def plural(count: int, word: str) -> str:
    """``1 row`` / ``2 rows``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
