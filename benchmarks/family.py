"""What the harness, the worker, the report and every family share: the
``Family`` and ``Peer`` bases, the registry of families by name, and the
peers' view of jaxmatch.

A *family* (``benchmarks/lap``, ``benchmarks/matching``) is a ``Family``
subclass: its cases, its solver labels (each in a *group*, one worker
process per group), how to prepare a case (once, in the ``prep`` worker)
and load it (in each solver worker), and how to check the answers. A
*peer* (``Peer`` subclass, one per group) wraps one solver library: it
moves a case's inputs to its device, returns a synchronizing call per
label, and summarizes an output for the check.

This module imports no other module of ``benchmarks``: families are found
by name (``get_family``) when a command or a worker needs one.
"""

from __future__ import annotations

import importlib
from typing import ClassVar

#: Family name -> module that defines ``FAMILY``.
FAMILIES = {
    "lap": "benchmarks.lap",
    "matching": "benchmarks.matching",
    "selftest": "benchmarks.selftest",
}

#: XLA flags of the command-buffer (CUDA graph) groups.
CMDBUF_FLAGS = (
    "--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL,WHILE,CONDITIONAL "
    "--xla_gpu_graph_min_graph_size=1"
)


def get_family(name: str) -> Family:
    """The ``FAMILY`` object of a family module, by name."""
    if name not in FAMILIES:
        raise SystemExit(f"unknown family {name!r}; known: {', '.join(FAMILIES)}")
    return importlib.import_module(FAMILIES[name]).FAMILY


class Peer:
    """One group's solver library, inside its worker process.

    ``real_warmup``: the first call on each case compiles (jitted, Triton)
    and is the warm-up; when False, ``tiny_warmup`` runs once at setup and
    every call on a case is timed.
    """

    real_warmup = True

    def __init__(self, group: str, opts: dict):
        self.group, self.opts = group, opts
        self.info: dict = {}

    def setup(self) -> None:
        """Imports the library and fills ``self.info`` (versions, device)."""

    def tiny_warmup(self) -> None:
        """One call on a tiny input (peers without a real warm-up)."""

    def load(self, data) -> None:
        """Puts a case's inputs on the device (not timed)."""

    def call(self, label: str):
        """A zero-argument callable that solves the loaded case and waits for it."""
        raise NotImplementedError

    def answer(self, label: str, out, data) -> dict:
        """Untimed summary of an output for the family's check (JSON-able)."""
        return {}

    def unload(self) -> None:
        """Drops the loaded case."""


class Family:
    """A benchmark family; subclasses override what differs from these defaults."""

    name = "?"
    #: label -> dict(group=..., gpu=bool, ...); the order is the table's order.
    solvers: ClassVar[dict[str, dict]] = {}
    #: Prepare the next case while the solvers run on this one.
    prefetch = False

    def add_arguments(self, parser) -> None:
        """Family options for ``run`` and ``list``."""

    def option_defaults(self, opts: dict) -> dict:
        """Defaults the family sets for harness options left unset (repeats, budget, ...)."""
        return {}

    def cases(self, opts: dict) -> list[dict]:
        """The cases, each a JSON-able dict with a unique ``name``."""
        raise NotImplementedError

    def default_solvers(self, opts: dict) -> list[str]:
        return list(self.solvers)

    def group_env(self, group: str, opts: dict) -> dict:
        """Environment overrides for a group's worker."""
        return {}

    def peer(self, group: str, opts: dict) -> Peer:
        raise NotImplementedError

    def prepare(self, case: dict, opts: dict) -> dict:
        """Once per case, in the prep worker: caches, reference answer (JSON-able)."""
        return {}

    def load(self, case: dict, prepared: dict, opts: dict):
        """The case's inputs, in a solver worker (host arrays)."""
        raise NotImplementedError

    def call_limit(self, label: str, opts: dict) -> float:
        """Seconds one timed call may run before the worker is killed."""
        return opts["case_timeout"]

    def skip_reason(self, label: str, case: dict, history: list[tuple[dict, dict]], opts) -> str:
        """Why not to run ``label`` on ``case`` ('' to run it), given its
        earlier (case, result) pairs in this run."""
        return ""

    def check(self, case: dict, prepared: dict, results: list[dict]) -> None:
        """Sets ``r['check'] = dict(ok=True/False/None, ...)`` on each result."""

    def summary_columns(self, case: dict, cells: dict, table: dict) -> list[tuple[str, str]]:
        """Extra (header, text) columns of a report row: ``cells`` are the
        row's results by column label, ``table`` every row's, by case name."""
        return []

    def report_sections(self, docs: list[dict]) -> list[str]:
        """Extra markdown lines after the report's table."""
        return []


def jaxmatch_info() -> dict:
    """jaxmatch's version and whether its CUDA library loads."""
    import jaxmatch

    try:
        cuda = jaxmatch.backends()["cuda"] is not None
    except Exception as err:  # a stale or missing library: say so, do not fail setup
        cuda = f"unknown ({type(err).__name__}: {str(err)[:200]})"
    return {"jaxmatch": jaxmatch.__version__, "cuda_library": cuda}
