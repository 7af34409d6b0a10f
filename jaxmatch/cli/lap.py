"""``jaxmatch lap COSTS``: solve, certify and report a linear assignment
problem, or a batch of them."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import Any

import jax
import numpy as np

import jaxmatch
from jaxmatch.cli.console import fmt_number, plural, progress
from jaxmatch.cli.devices import (
    add_device_argument,
    compile_and_run,
    device_name,
    on_device,
    select_device,
    time_line,
)
from jaxmatch.cli.errors import EXIT_FAILED, EXIT_OK, EXIT_USAGE, CLIError
from jaxmatch.cli.inputs import load_dense
from jaxmatch.cli.outputs import add_output_argument, emit_array, output_path

#: Batches with at most this many problems print every cost.
MAX_COSTS_LISTED = 8

#: LAP statuses that are failures: (message, exit code).
_LAP_FAILURES = {
    jaxmatch.LAPStatus.INFEASIBLE: (
        "the problem is infeasible: no complete assignment avoids the forbidden "
        "({forbidden}) entries",
        EXIT_FAILED,
    ),
    jaxmatch.LAPStatus.INVALID_ENTRIES: (
        "the costs contain NaN or an infinity of the wrong sign",
        EXIT_USAGE,
    ),
    jaxmatch.LAPStatus.OVERFLOW: (
        "int32 overflow in the duals or the total cost; convert the costs to float",
        EXIT_USAGE,
    ),
    jaxmatch.LAPStatus.ITERATION_LIMIT: (
        "the solver hit its iteration limit (a bug: please report it)",
        EXIT_FAILED,
    ),
}


def add_parser(sub: Any) -> None:
    """Registers ``lap`` on the subcommand parsers ``sub``."""
    lap = sub.add_parser("lap", help="solve a linear assignment problem (or a batch)")
    lap.add_argument("costs", metavar="COSTS", help=".npy (2-D or 3-D), .npz, .csv or .txt")
    lap.add_argument("--maximize", action="store_true", help="maximize the total instead")
    lap.add_argument(
        "--method",
        choices=("auto", "tree", "classical", "jv"),
        default="auto",
        help="solver variant (default auto: jv on the CPU, tree on a GPU)",
    )
    lap.add_argument("--key", help="the array of a .npz archive (default: the first)")
    add_output_argument(lap, "the assignment (col_for_row, -1 unassigned)")
    add_device_argument(lap)
    lap.set_defaults(func=cmd_lap)


def cmd_lap(args: argparse.Namespace) -> int:
    """``jaxmatch lap``: solve, certify and report a LAP (or a batch).

    Args:
      args: the parsed arguments (``costs``, ``maximize``, ``method``,
        ``output``, ``device``, ``key``).

    Returns:
      The exit code (0; failures raise :class:`CLIError`).
    """
    out = output_path(args.output)
    path = Path(args.costs)
    C = load_dense(path, args.key)
    check_costs(C, path, args.maximize)
    device = select_device(args.device)
    sense = "maximize" if args.maximize else "minimize"
    print(
        f"lap: {_shape_label(C)} {C.dtype}, {sense}, method {args.method} on {device_name(device)}"
    )
    solve = functools.partial(jaxmatch.solve_lap, maximize=args.maximize, method=args.method)
    with on_device(device), progress(f"solving {_shape_label(C)}"):
        timed = compile_and_run(solve, jax.device_put(C, device))
    res: jaxmatch.LAPResult = timed.result
    _check_status(np.asarray(res.status), args.maximize)
    certs = _certify(C, res, args.maximize)
    _print_report(C, res, certs)
    print(time_line(timed))
    emit_array("col_for_row", np.asarray(res.col_for_row), out, "unassigned")
    return EXIT_OK


def check_costs(C: np.ndarray, path: Path, maximize: bool) -> None:
    """Checks a cost array's rank, dtype and entries.

    Args:
      C: the costs as read, ``[n, m]`` or ``[b, n, m]``.
      path: where they were read from (for messages).
      maximize: whether ``-inf`` rather than ``+inf`` marks a forbidden pair.

    Raises:
      CLIError: not 2-D or 3-D, not real numbers, NaN, or an infinity of the
        sign that does not mean "forbidden".
    """
    if C.ndim not in (2, 3):
        raise CLIError(
            f"{path} must hold a 2-D cost matrix or a 3-D batch of them, got shape {C.shape}"
        )
    if C.dtype.kind not in "biuf":
        raise CLIError(f"costs must be real numbers, got dtype {C.dtype} in {path}")
    if C.dtype.kind != "f":
        return
    nan = np.isnan(C)
    if nan.any():
        where = tuple(int(i) for i in np.argwhere(nan)[0])
        raise CLIError(f"the costs contain NaN (first at index {where}) in {path}")
    bad = np.isposinf(C) if maximize else np.isneginf(C)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        wrong, allowed = ("+inf", "-inf") if maximize else ("-inf", "+inf")
        sense = "maximizing" if maximize else "minimizing"
        raise CLIError(
            f"the costs contain {wrong} (first at index {where}) in {path}; only "
            f"{allowed} (a forbidden pair) is allowed when {sense}"
        )


def _shape_label(C: np.ndarray) -> str:
    """``1 x 500x500`` for a matrix, ``64 x 32x32`` for a batch."""
    batch = 1 if C.ndim == 2 else C.shape[0]
    return f"{batch} x {C.shape[-2]}x{C.shape[-1]}"


def _check_status(status: np.ndarray, maximize: bool) -> None:
    """Raises a CLIError for the first problem that was not solved.

    Args:
      status: the ``status`` of the result, ``[]`` or ``[batch]``.
      maximize: whether the problem was maximized (names the forbidden sign).
    """
    flat = np.atleast_1d(status)
    failed = np.flatnonzero(flat != int(jaxmatch.LAPStatus.OPTIMAL))
    if failed.size == 0:
        return
    first = jaxmatch.LAPStatus(int(flat[failed[0]]))
    message, code = _LAP_FAILURES.get(
        first, (f"the solve stopped with status {first.name}", EXIT_FAILED)
    )
    message = message.format(forbidden="-inf" if maximize else "+inf")
    if status.ndim:
        message = f"problem {failed[0]} of {flat.size} ({failed.size} failed): {message}"
    raise CLIError(message, code)


def _certify(C: np.ndarray, res: jaxmatch.LAPResult, maximize: bool) -> list[Any]:
    """Certifies every problem by LP duality; a CLIError if any fails.

    Returns:
      The certificates, one per problem.
    """
    certs = jaxmatch.verify_lap(C, res, maximize=maximize)
    certs = certs if isinstance(certs, list) else [certs]
    for i, cert in enumerate(certs):
        if not cert.optimal:
            where = f"problem {i}: " if C.ndim == 3 else ""
            raise CLIError(
                f"{where}the solution failed its optimality certificate ({cert.reason}); "
                "this is a bug, please report it",
                EXIT_FAILED,
            )
    return certs


def _print_report(C: np.ndarray, res: jaxmatch.LAPResult, certs: list[Any]) -> None:
    """Prints the costs, the status and the certificate of a solved LAP."""
    costs = np.atleast_1d(res.cost)
    if C.ndim == 2:
        n_assigned = int((res.col_for_row >= 0).sum())
        print(f"cost {fmt_number(costs[0])}")
        print(f"assigned {n_assigned} of {plural(C.shape[0], 'row')}")
    elif costs.size <= MAX_COSTS_LISTED:
        print("costs " + ", ".join(fmt_number(c) for c in costs))
    else:
        print(
            f"costs over {costs.size} problems: sum {fmt_number(costs.sum())}, "
            f"min {fmt_number(costs.min())}, mean {float(costs.mean()):.10g}, "
            f"max {fmt_number(costs.max())}"
        )
    gap = max(abs(c.duality_gap) for c in certs)
    count = "" if C.ndim == 2 else f" {len(certs)}/{len(certs)}"
    print(f"status OPTIMAL, certified optimal{count} (LP duality gap {gap:.3g})")
