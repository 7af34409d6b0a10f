"""``jaxmatch match MATRIX``: a maximum-cardinality bipartite matching of a
sparse matrix, certified; with ``--weighted`` the weighted matching of
:mod:`jaxmatch.cli.weighted`."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import Any

import jax
import numpy as np

import jaxmatch
from jaxmatch.cli.console import plural, progress
from jaxmatch.cli.devices import (
    add_device_argument,
    compile_and_run,
    device_name,
    on_device,
    select_device,
    time_line,
)
from jaxmatch.cli.errors import EXIT_FAILED, EXIT_OK, CLIError
from jaxmatch.cli.inputs import load_sparse
from jaxmatch.cli.outputs import add_output_argument, emit_array, output_path
from jaxmatch.cli.weighted import weighted_match


def add_parser(sub: Any) -> None:
    """Registers ``match`` on the subcommand parsers ``sub``."""
    match = sub.add_parser("match", help="maximum (bipartite) or weighted matching of a matrix")
    match.add_argument(
        "matrix", metavar="MATRIX", help=".mtx (Matrix Market) or .npz (scipy.sparse.save_npz)"
    )
    match.add_argument(
        "--method", choices=("auto", "apfb", "apsb", "hybrid", "pr"), help="driver (default auto)"
    )
    match.add_argument(
        "--init", choices=("cheap", "karp-sipser", "none"), help="initial matching (default cheap)"
    )
    match.add_argument(
        "--weighted",
        action="store_true",
        help="approximate maximum weight matching of the symmetric matrix as a general graph",
    )
    match.add_argument(
        "--weighted-method",
        choices=("suitor", "ld"),
        help="with --weighted: suitor (default) or locally dominant rounds",
    )
    add_output_argument(match, "col_for_row (mate with --weighted), -1 unmatched")
    add_device_argument(match)
    match.set_defaults(func=cmd_match)


def cmd_match(args: argparse.Namespace) -> int:
    """``jaxmatch match``: a maximum-cardinality bipartite matching, or with
    ``--weighted`` an approximate maximum weight matching of a general graph.

    Args:
      args: the parsed arguments (``matrix``, ``method``, ``init``,
        ``output``, ``weighted``, ``weighted_method``, ``device``).

    Returns:
      The exit code (0; failures raise :class:`CLIError`).
    """
    if args.weighted and (args.method or args.init):
        raise CLIError("--method and --init apply to bipartite matching, not with --weighted")
    if args.weighted_method and not args.weighted:
        raise CLIError("--weighted-method needs --weighted")
    out = output_path(args.output)
    path = Path(args.matrix)
    A = load_sparse(path)
    if args.weighted:
        emit_array("mate", weighted_match(args, A, path), out, "unmatched")
    else:
        emit_array("col_for_row", _bipartite_match(args, A, path), out, "unmatched")
    return EXIT_OK


def _bipartite_match(args: argparse.Namespace, A: Any, path: Path) -> np.ndarray:
    """Solves, certifies and reports a maximum-cardinality matching.

    Args:
      args: the parsed ``match`` arguments (``method``, ``init``, ``device``).
      A: the matrix, a ``scipy.sparse.csr_array``.
      path: where it was read from (for messages).

    Returns:
      ``col_for_row``, int32 ``[n_rows]``: the column of each row (-1 unmatched).

    Raises:
      CLIError: an invalid graph, a failed solve or certificate.
    """
    method = args.method or "auto"
    init_name = args.init or "cheap"
    G = _bipartite(A, path)
    device = select_device(args.device)
    n_rows, n_cols = A.shape
    print(
        f"match: {n_rows} x {n_cols}, {plural(int(G.nnz), 'edge')}, "
        f"method {method}, init {init_name}, on {device_name(device)}"
    )
    init = None if init_name == "none" else init_name
    solve = functools.partial(jaxmatch.max_cardinality_matching, method=method, init=init)
    with on_device(device), progress(f"matching {n_rows} x {n_cols}"):
        timed = compile_and_run(solve, jax.device_put(G, device))
    res: jaxmatch.MatchingResult = timed.result
    if int(res.status) != int(jaxmatch.MatchingStatus.MAXIMUM):
        raise CLIError(f"the matching stopped with status {res.status_name}", EXIT_FAILED)
    cert = jaxmatch.verify_matching(G, res)
    if not cert.maximum:
        raise CLIError(
            f"the matching failed its certificate ({cert.reason}); this is a bug, please report it",
            EXIT_FAILED,
        )
    k = int(res.cardinality)
    full = min(n_rows, n_cols)
    rank = "full" if k == full else f"deficient by {full - k}"
    print(f"cardinality {k} (structural rank {k} of {full}: {rank})")
    print(f"unmatched: {n_rows - k} of {n_rows} rows, {n_cols - k} of {n_cols} columns")
    print(
        f"status MAXIMUM, certified maximum (Koenig cover of {cert.cover_size} vertices); "
        f"{plural(int(res.iterations), 'iteration')}, {plural(int(res.levels), 'level')}"
    )
    print(time_line(timed))
    return np.asarray(res.col_for_row)


def _bipartite(A: Any, path: Path) -> jaxmatch.BipartiteGraph:
    """The bipartite graph of ``A``'s stored entries (a CLIError if invalid)."""
    try:
        return jaxmatch.BipartiteGraph.from_scipy(A)
    except jaxmatch.GraphValidationError as err:
        raise CLIError(f"{path}: {err}") from err
