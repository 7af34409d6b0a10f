"""The ``jaxmatch`` command line (``python -m jaxmatch`` or the ``jaxmatch`` script).

Subcommands, a module each:

* ``lap COSTS`` (:mod:`jaxmatch.cli.lap`): solve and certify a linear
  assignment problem (or a batch).
* ``match MATRIX`` (:mod:`jaxmatch.cli.matching`): a maximum-cardinality
  bipartite matching of a sparse matrix, or with ``--weighted``
  (:mod:`jaxmatch.cli.weighted`) an approximate maximum weight matching of a
  symmetric one.
* ``info`` (:mod:`jaxmatch.cli.info`): versions, devices and the compiled
  libraries in use.

Shared pieces: reading inputs (:mod:`~jaxmatch.cli.inputs`), writing outputs
(:mod:`~jaxmatch.cli.outputs`), ``--device`` and timing
(:mod:`~jaxmatch.cli.devices`), progress and formatting
(:mod:`~jaxmatch.cli.console`), exit codes (:mod:`~jaxmatch.cli.errors`).

Results go to stdout, progress on work longer than a second to stderr. A
user error prints one line ``jaxmatch: error: ...`` on stderr and exits with
code 2 (usage or input) or 1 (an infeasible problem, a failed solve); outputs
are written atomically and only after success. ``docs/cli.md`` has examples;
benchmarks against peers run from a source checkout (``python -m benchmarks``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence

import jax

import jaxmatch
from jaxmatch._ffi import JaxmatchLibraryError
from jaxmatch.cli import info, lap, matching
from jaxmatch.cli.errors import EXIT_FAILED, EXIT_INTERRUPTED, PROG, CLIError

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``jaxmatch`` and its subcommands."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="GPU matching and assignment algorithms (JAX custom calls), certified.",
        epilog="See docs/cli.md for examples.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {jaxmatch.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    lap.add_parser(sub)
    matching.add_parser(sub)
    info.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line.

    Computations run with ``jax_enable_x64`` (within this call only), so
    float64 and int64 inputs are solved in 64 bits.

    Args:
      argv: the arguments (default ``sys.argv[1:]``).

    Returns:
      The exit code: 0 on success, 1 for an infeasible problem or a failed
      solve, 2 for a usage or input error, 130 when interrupted.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with jax.enable_x64(True):
            return int(args.func(args))
    except CLIError as err:
        sys.stdout.flush()
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return err.exit_code
    except JaxmatchLibraryError as err:
        sys.stdout.flush()
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # stdout closed early, e.g. `jaxmatch info | head -1`
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
