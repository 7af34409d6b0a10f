"""``jaxmatch match MATRIX --weighted``: an approximate maximum weight
matching of a symmetric sparse matrix read as an undirected graph."""

from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import Any

import jax
import numpy as np

import jaxmatch
from jaxmatch.cli.console import fmt_number, plural, progress
from jaxmatch.cli.devices import compile_and_run, device_name, on_device, select_device, time_line
from jaxmatch.cli.errors import EXIT_FAILED, CLIError


def weighted_match(args: argparse.Namespace, A: Any, path: Path) -> np.ndarray:
    """Solves, certifies and reports an approximate maximum weight matching.

    Args:
      args: the parsed ``match`` arguments (``weighted_method``, ``device``).
      A: the matrix, a ``scipy.sparse.csr_array``.
      path: where it was read from (for messages).

    Returns:
      ``mate``, int32 ``[n]``: the vertex matched to each vertex (-1 unmatched).

    Raises:
      CLIError: an invalid matrix, a failed solve or certificate.
    """
    method = args.weighted_method or "suitor"
    G = _general_graph(A, path)
    device = select_device(args.device)
    n = int(G.n)
    n_edges = int(G.n_edges)
    print(
        f"match --weighted: {n} vertices, {plural(n_edges, 'edge')} "
        f"({np.asarray(G.data).dtype} weights), method {method}, on {device_name(device)}"
    )
    solve = functools.partial(jaxmatch.approximate_weighted_matching, method=method)
    with on_device(device), progress(f"matching {n} vertices"):
        timed = compile_and_run(solve, jax.device_put(G, device))
    res: jaxmatch.WeightedMatchingResult = timed.result
    if int(res.status) != int(jaxmatch.WeightedMatchingStatus.DOMINANT):
        raise CLIError(f"the matching stopped with status {res.status_name}", EXIT_FAILED)
    cert = jaxmatch.verify_weighted_matching(G, res)
    if not (cert.valid and cert.locally_dominant):
        raise CLIError(
            f"the matching failed its certificate ({cert.reason}); this is a bug, please report it",
            EXIT_FAILED,
        )
    print(f"weight {fmt_number(cert.weight)}, cardinality {cert.cardinality}")
    print(
        f"status DOMINANT, certified locally dominant: weight >= {cert.ratio:.4f} x optimum "
        f"(optimum <= {fmt_number(cert.upper_bound)})"
    )
    print(time_line(timed))
    return np.asarray(res.mate)


def _general_graph(A: Any, path: Path) -> jaxmatch.Graph:
    """The undirected weighted graph of a square symmetric ``A``.

    Raises:
      CLIError: not square, complex, or not symmetric (or other invalid input).
    """
    if A.shape[0] != A.shape[1]:
        raise CLIError(
            f"--weighted needs a square symmetric matrix; {path} is {A.shape[0]}x{A.shape[1]}"
        )
    if A.dtype.kind == "c":
        raise CLIError(f"--weighted needs real weights; {path} is complex")
    try:
        return jaxmatch.Graph.from_scipy(A)
    except (jaxmatch.GraphValidationError, ValueError, TypeError, OverflowError) as err:
        raise CLIError(f"{path}: {err}") from err
