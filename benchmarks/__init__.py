"""Side-by-side benchmarks of jaxmatch against peer solvers.

``python -m benchmarks --help`` lists the commands; ``benchmarks/README.md``
says what is measured and how. The harness (``benchmarks.harness``) runs
every solver in worker processes; each family (``benchmarks.lap``,
``benchmarks.matching``, built on ``benchmarks.family``) supplies its cases
and peer adapters.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The repository root. ``python -m benchmarks`` puts it first on ``sys.path``,
#: where the source checkout's ``jaxmatch`` (no built CUDA library) would
#: shadow an installed one; moving it last lets an installed jaxmatch win
#: while ``benchmarks`` itself stays importable.
ROOT = Path(__file__).resolve().parent.parent


def _root_last() -> None:
    keep = [p for p in sys.path if Path(p or ".").resolve() != ROOT]
    sys.path[:] = keep + [str(ROOT)]


_root_last()
