"""The ``jaxmatch`` command line (``python -m jaxmatch`` or the ``jaxmatch`` script).

Subcommands:

* ``lap COSTS``: solve and certify a linear assignment problem (or a batch).
* ``match MATRIX``: a maximum-cardinality bipartite matching of a sparse
  matrix, or with ``--weighted`` an approximate maximum weight matching of a
  symmetric one.
* ``info``: versions, devices and the compiled libraries in use.
* ``bench``: a short self-benchmark against scipy on this machine.

Results go to stdout, progress on work longer than a second to stderr. A
user error prints one line ``jaxmatch: error: ...`` on stderr and exits with
code 2 (usage or input) or 1 (an infeasible problem, a failed solve); outputs
are written atomically and only after success. ``docs/cli.md`` has examples.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import os
import platform
import secrets
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import jax
import numpy as np

import jaxmatch
from jaxmatch._ffi import JaxmatchLibraryError

PROG = "jaxmatch"

EXIT_OK = 0
#: An infeasible problem, a failed solve or certificate, an unwritable output.
EXIT_FAILED = 1
#: A usage or input error (argparse uses 2 as well).
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

#: Work that runs longer than this many seconds announces itself on stderr.
PROGRESS_AFTER_S = 1.0

#: Suffixes of the outputs (``-o``): NumPy, comma-separated, whitespace-separated.
OUTPUT_SUFFIXES = (".npy", ".csv", ".txt")
#: Batches with at most this many problems print every cost.
MAX_COSTS_LISTED = 8


class CLIError(Exception):
    """A user-facing failure: printed as one line, exits with ``exit_code``."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        """Initializes the error.

        Args:
          message: the line printed after ``jaxmatch: error:``.
          exit_code: the process exit status.
        """
        super().__init__(message)
        self.exit_code = exit_code


# ----------------------------------------------------------------- messages


def _note(message: str) -> None:
    """Prints a progress or informational line on stderr."""
    sys.stdout.flush()
    print(message, file=sys.stderr, flush=True)


@contextlib.contextmanager
def _progress(label: str) -> Iterator[None]:
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
                _note(f"{label} ...")

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
                _note(f"done in {time.perf_counter() - start:.2f} s")


def _fmt_seconds(seconds: float) -> str:
    """A duration for people: ``850 us``, ``12.3 ms`` or ``1.25 s``."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    if seconds < 1.0:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def _fmt_number(value: Any) -> str:
    """A cost or weight: integers exactly, floats to 10 significant digits."""
    x = np.asarray(value)
    if np.issubdtype(x.dtype, np.integer) or np.issubdtype(x.dtype, np.bool_):
        return str(int(x))
    return f"{float(x):.10g}"


def _plural(count: int, word: str) -> str:
    """``1 row`` / ``2 rows``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


# ----------------------------------------------------------- inputs, outputs


def _existing_file(path: Path) -> Path:
    """``path`` if it is a readable file; a :class:`CLIError` otherwise."""
    if not path.exists():
        raise CLIError(f"no such file: {path}")
    if not path.is_file():
        raise CLIError(f"not a file: {path}")
    if not os.access(path, os.R_OK):
        raise CLIError(f"cannot read {path}: permission denied")
    return path


def _output_path(value: str | None) -> Path | None:
    """Checks an output path before any work: a known suffix, an existing
    writable folder, not a folder itself.

    Args:
      value: the ``-o`` argument, or None.

    Returns:
      The path, or None when no output was asked for.
    """
    if value is None:
        return None
    path = Path(value)
    if path.suffix.lower() not in OUTPUT_SUFFIXES:
        raise CLIError(
            f"unsupported output type {path.suffix or '(none)'!r} for {path}; "
            f"expected one of {', '.join(OUTPUT_SUFFIXES)}"
        )
    if path.is_dir():
        raise CLIError(f"output {path} is a directory")
    folder = path.parent
    if not folder.is_dir():
        raise CLIError(f"output directory {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise CLIError(f"cannot write to {folder}: permission denied")
    return path


def _write_array(path: Path, array: np.ndarray) -> None:
    """Writes an integer array to ``path`` atomically: into a temporary file
    of the same folder, then ``os.replace``. ``.npy`` is NumPy's format,
    ``.csv`` comma- and ``.txt`` whitespace-separated text, a row per line.

    Raises:
      CLIError: the file could not be written (exit code 1); nothing is left.
    """
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as f:
            if path.suffix.lower() == ".npy":
                np.save(f, array, allow_pickle=False)
            else:
                delimiter = "," if path.suffix.lower() == ".csv" else " "
                np.savetxt(f, array, fmt="%d", delimiter=delimiter)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise CLIError(f"cannot write {path}: {err.strerror or err}", EXIT_FAILED) from err
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _load_dense(path: Path, key: str | None) -> np.ndarray:
    """Reads a dense array from ``.npy``, ``.npz`` (the first array, or
    ``key``), or text (``.csv`` comma-, ``.txt``/``.tsv``/``.dat``
    whitespace-separated).

    Raises:
      CLIError: a missing or unreadable file, an unknown suffix, a missing key.
    """
    _existing_file(path)
    suffix = path.suffix.lower()
    if key is not None and suffix != ".npz":
        raise CLIError(f"--key applies to .npz files only, not {path.name}")
    if suffix == ".npy":
        return _read(path, "a .npy array", lambda: np.load(path, allow_pickle=False))
    if suffix == ".npz":
        return _read(path, "a .npz archive", lambda: _npz_member(path, key))
    if suffix in (".csv", ".txt", ".tsv", ".dat"):
        delimiter = "," if suffix == ".csv" else None
        return _read(
            path,
            "a numeric text table",
            lambda: np.loadtxt(path, delimiter=delimiter, ndmin=2, comments="#"),
        )
    raise CLIError(
        f"unsupported file type {suffix or '(none)'!r} for {path}; "
        "expected .npy, .npz, .csv or .txt"
    )


def _read(path: Path, what: str, reader: Callable[[], Any]) -> Any:
    """Runs ``reader``; any failure to parse becomes a one-line CLIError.

    Parsers (NumPy, scipy's Matrix Market reader) raise many exception
    types on malformed files, so every ``Exception`` is a user input error
    here; a CLIError raised by ``reader`` passes unchanged.
    """
    try:
        with _progress(f"reading {path}"):
            return reader()
    except CLIError:
        raise
    except MemoryError as err:
        raise CLIError(f"{path} is too large to read into memory") from err
    except Exception as err:
        detail = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise CLIError(f"cannot read {path} as {what}: {detail}") from err


def _npz_member(path: Path, key: str | None) -> np.ndarray:
    """The array ``key`` (or the first) of a ``.npz`` archive."""
    with np.load(path, allow_pickle=False) as archive:
        names = list(archive.files)
        if {"indptr", "indices", "format", "shape"} <= set(names):
            raise CLIError(
                f"{path} holds a scipy.sparse matrix; `lap` needs a dense cost array "
                "(use `jaxmatch match` for sparse graphs)"
            )
        if not names:
            raise CLIError(f"{path} holds no arrays")
        if key is None:
            key = names[0]
        elif key not in names:
            raise CLIError(f"{path} has no array {key!r}; it holds {', '.join(names)}")
        return np.asarray(archive[key])


def _load_sparse(path: Path) -> Any:
    """Reads a sparse matrix from Matrix Market (``.mtx``, ``.mtx.gz``) or a
    ``scipy.sparse.save_npz`` archive (``.npz``), as a scipy CSR array.

    Raises:
      CLIError: scipy is missing; a missing or unreadable file; an unknown
        suffix; not a 2-D matrix.
    """
    sp, scipy_io = _scipy_sparse_and_io()
    _existing_file(path)
    name = path.name.lower()
    if name.endswith((".mtx", ".mtx.gz", ".mtx.bz2")):
        A = _read(path, "Matrix Market", lambda: scipy_io.mmread(path))
    elif name.endswith(".npz"):
        A = _read(path, "a scipy.sparse .npz (scipy.sparse.save_npz)", lambda: sp.load_npz(path))
    else:
        raise CLIError(
            f"unsupported file type {path.suffix or '(none)'!r} for {path}; "
            "expected .mtx (Matrix Market) or .npz (scipy.sparse.save_npz)"
        )
    if not sp.issparse(A):  # Matrix Market's dense "array" format
        A = np.asarray(A)
        if A.ndim != 2:
            raise CLIError(f"{path} must hold a 2-D matrix, got shape {A.shape}")
        A = sp.coo_array(A)
    if A.dtype.kind not in "biufc":
        raise CLIError(f"{path} has non-numeric values (dtype {A.dtype})")
    return sp.csr_array(A)


def _scipy_sparse_and_io() -> tuple[Any, Any]:
    """``(scipy.sparse, scipy.io)``, or a CLIError saying scipy is needed."""
    try:
        import scipy.io as scipy_io
        import scipy.sparse as sp
    except ImportError as err:
        raise CLIError("this command needs scipy: pip install scipy") from err
    return sp, scipy_io


# ------------------------------------------------------------------ devices


def _select_device(name: str | None) -> jax.Device | None:
    """The device to run on: ``"cpu"``, ``"gpu"`` or None (JAX's default).

    With no choice on a machine whose default backend is a GPU but whose
    jaxmatch CUDA library was not built, falls back to the CPU with a note.

    Raises:
      CLIError: ``gpu`` asked for, but JAX sees no GPU or the CUDA library
        was not built.
    """
    if name == "cpu":
        return jax.devices("cpu")[0]
    gpu_default = jax.default_backend() == "gpu"
    if name is None and not gpu_default:
        return None
    cuda_built = jaxmatch.backends()["cuda"] is not None
    if name is None:
        if cuda_built:
            return None
        _note("note: jaxmatch's CUDA library was not built; running on the CPU")
        return jax.devices("cpu")[0]
    gpus = _gpu_devices()
    if not gpus:
        raise CLIError(
            "--device gpu: JAX sees no GPU (install JAX with CUDA support, "
            "see `jaxmatch info`), or use --device cpu"
        )
    if not cuda_built:
        raise CLIError(
            "--device gpu: jaxmatch's CUDA library was not built (nvcc was not on "
            "PATH at install time; see `jaxmatch info`)"
        )
    return gpus[0]


def _gpu_devices() -> list[jax.Device]:
    """JAX's GPU devices; empty when there are none."""
    try:
        return list(jax.devices("gpu"))
    except RuntimeError:
        return []


def _on_device(device: jax.Device | None) -> contextlib.AbstractContextManager[Any]:
    """A context placing computations on ``device`` (JAX's default if None)."""
    if device is None:
        return contextlib.nullcontext()
    return jax.default_device(device)


def _device_name(device: jax.Device | None) -> str:
    """``cpu`` / ``gpu`` (the platform of ``device`` or JAX's default)."""
    if device is None:
        device = jax.devices()[0]
    return "gpu" if device.platform in ("gpu", "cuda", "rocm") else device.platform


def _device_label(device: jax.Device | None) -> str:
    """``gpu (NVIDIA H100 80GB HBM3)``, or ``cpu``."""
    name = _device_name(device)
    kind = str((device or jax.devices()[0]).device_kind)
    return name if kind.lower() == name else f"{name} ({kind})"


# ------------------------------------------------------------------- timing


@dataclasses.dataclass
class Timed:
    """A result of :func:`_compile_and_run` and how long it took.

    Attributes:
      result: the function's output, on the host (NumPy leaves).
      compile_s: seconds spent tracing and compiling.
      run_s: seconds the compiled function ran.
    """

    result: Any
    compile_s: float
    run_s: float


def _compile_and_run(fn: Callable[..., Any], *args: Any) -> Timed:
    """Compiles ``jax.jit(fn)`` for ``args``, runs it once, and times both.

    Args:
      fn: a jittable function of ``args`` (options bound already).
      *args: its array or pytree arguments.

    Returns:
      The :class:`Timed` result, fetched to the host.
    """
    t0 = time.perf_counter()
    compiled = jax.jit(fn).lower(*args).compile()
    t1 = time.perf_counter()
    out = jax.block_until_ready(compiled(*args))
    t2 = time.perf_counter()
    return Timed(jax.device_get(out), t1 - t0, t2 - t1)


def _time_line(timed: Timed) -> str:
    """``time: compile 0.41 s, solve 1.2 ms``."""
    return f"time: compile {_fmt_seconds(timed.compile_s)}, solve {_fmt_seconds(timed.run_s)}"


# ---------------------------------------------------------------------- lap


def _check_costs(C: np.ndarray, path: Path, maximize: bool) -> None:
    """Checks a cost array's rank, dtype and entries.

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


def _check_lap_status(status: np.ndarray, maximize: bool) -> None:
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
    message, code = _LAP_FAILURES.get(first, (f"the solve stopped with status {first.name}", 1))
    message = message.format(forbidden="-inf" if maximize else "+inf")
    if status.ndim:
        message = f"problem {failed[0]} of {flat.size} ({failed.size} failed): {message}"
    raise CLIError(message, code)


def _certify_lap(C: np.ndarray, res: jaxmatch.LAPResult, maximize: bool) -> list[Any]:
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


def _print_lap_report(C: np.ndarray, res: jaxmatch.LAPResult, certs: list[Any]) -> None:
    """Prints the costs, the status and the certificate of a solved LAP."""
    costs = np.atleast_1d(res.cost)
    if C.ndim == 2:
        n_assigned = int((res.col_for_row >= 0).sum())
        print(f"cost {_fmt_number(costs[0])}")
        print(f"assigned {n_assigned} of {_plural(C.shape[0], 'row')}")
    elif costs.size <= MAX_COSTS_LISTED:
        print("costs " + ", ".join(_fmt_number(c) for c in costs))
    else:
        print(
            f"costs over {costs.size} problems: sum {_fmt_number(costs.sum())}, "
            f"min {_fmt_number(costs.min())}, mean {float(costs.mean()):.10g}, "
            f"max {_fmt_number(costs.max())}"
        )
    gap = max(abs(c.duality_gap) for c in certs)
    count = "" if C.ndim == 2 else f" {len(certs)}/{len(certs)}"
    print(f"status OPTIMAL, certified optimal{count} (LP duality gap {gap:.3g})")


def _print_small_array(name: str, array: np.ndarray, limit: int = 64) -> None:
    """Prints ``array`` when it is small; otherwise a hint to use ``-o``."""
    if array.size <= limit:
        print(f"{name} {np.array2string(array, separator=' ', max_line_width=100)}")
    else:
        print(f"{name}: {array.size} entries (write them with -o OUT.npy)")


def cmd_lap(args: argparse.Namespace) -> int:
    """``jaxmatch lap``: solve, certify and report a LAP (or a batch).

    Args:
      args: the parsed arguments (``costs``, ``maximize``, ``method``,
        ``output``, ``device``, ``key``).

    Returns:
      The exit code (0; failures raise :class:`CLIError`).
    """
    out = _output_path(args.output)
    path = Path(args.costs)
    C = _load_dense(path, args.key)
    _check_costs(C, path, args.maximize)
    device = _select_device(args.device)
    sense = "maximize" if args.maximize else "minimize"
    print(
        f"lap: {_shape_label(C)} {C.dtype}, {sense}, method {args.method} on {_device_name(device)}"
    )
    solve = functools.partial(jaxmatch.solve_lap, maximize=args.maximize, method=args.method)
    with _on_device(device), _progress(f"solving {_shape_label(C)}"):
        timed = _compile_and_run(solve, jax.device_put(C, device))
    res: jaxmatch.LAPResult = timed.result
    _check_lap_status(np.asarray(res.status), args.maximize)
    certs = _certify_lap(C, res, args.maximize)
    _print_lap_report(C, res, certs)
    print(_time_line(timed))
    cols = np.asarray(res.col_for_row)
    if out is None:
        _print_small_array("col_for_row", cols)
    else:
        _write_array(out, cols)
        print(f"wrote col_for_row ({cols.dtype} {list(cols.shape)}, -1 unassigned) to {out}")
    return EXIT_OK


# -------------------------------------------------------------------- match


def _bipartite(A: Any, path: Path) -> jaxmatch.BipartiteGraph:
    """The bipartite graph of ``A``'s stored entries (a CLIError if invalid)."""
    try:
        return jaxmatch.BipartiteGraph.from_scipy(A)
    except jaxmatch.GraphValidationError as err:
        raise CLIError(f"{path}: {err}") from err


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


def _bipartite_match(args: argparse.Namespace, A: Any, path: Path) -> np.ndarray:
    """Solves, certifies and reports a maximum-cardinality matching.

    Returns:
      ``row_match``, the column of each row (-1 unmatched).
    """
    method = args.method or "auto"
    init_name = args.init or "cheap"
    G = _bipartite(A, path)
    device = _select_device(args.device)
    n_rows, n_cols = A.shape
    print(
        f"match: {n_rows} x {n_cols}, {_plural(int(G.nnz), 'edge')}, "
        f"method {method}, init {init_name}, on {_device_name(device)}"
    )
    init = None if init_name == "none" else init_name
    solve = functools.partial(jaxmatch.max_cardinality_matching, method=method, init=init)
    with _on_device(device), _progress(f"matching {n_rows} x {n_cols}"):
        timed = _compile_and_run(solve, jax.device_put(G, device))
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
        f"{_plural(int(res.n_phases), 'phase')}, {_plural(int(res.n_levels), 'BFS level')}"
    )
    print(_time_line(timed))
    return np.asarray(res.row_match)


def _weighted_match(args: argparse.Namespace, A: Any, path: Path) -> np.ndarray:
    """Solves, certifies and reports an approximate maximum weight matching.

    Returns:
      ``mate``, the vertex matched to each vertex (-1 unmatched).
    """
    method = args.weighted_method or "suitor"
    G = _general_graph(A, path)
    device = _select_device(args.device)
    n = int(G.n)
    n_edges = int(np.asarray(G.xadj)[-1]) // 2
    print(
        f"match --weighted: {n} vertices, {_plural(n_edges, 'edge')} "
        f"({np.asarray(G.weights).dtype} weights), method {method}, on {_device_name(device)}"
    )
    solve = functools.partial(jaxmatch.approximate_weighted_matching, method=method)
    with _on_device(device), _progress(f"matching {n} vertices"):
        timed = _compile_and_run(solve, jax.device_put(G, device))
    res: jaxmatch.WeightedMatchingResult = timed.result
    if int(res.status) != int(jaxmatch.WeightedMatchingStatus.DOMINANT):
        raise CLIError(f"the matching stopped with status {res.status_name}", EXIT_FAILED)
    cert = jaxmatch.verify_weighted_matching(G, res)
    if not (cert.valid and cert.locally_dominant):
        raise CLIError(
            f"the matching failed its certificate ({cert.reason}); this is a bug, please report it",
            EXIT_FAILED,
        )
    print(f"weight {_fmt_number(cert.weight)}, cardinality {cert.cardinality}")
    print(
        f"status DOMINANT, certified locally dominant: weight >= {cert.ratio:.4f} x optimum "
        f"(optimum <= {_fmt_number(cert.upper_bound)})"
    )
    print(_time_line(timed))
    return np.asarray(res.mate)


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
    out = _output_path(args.output)
    path = Path(args.matrix)
    A = _load_sparse(path)
    if args.weighted:
        name = "mate"
        result = _weighted_match(args, A, path)
    else:
        name = "row_match"
        result = _bipartite_match(args, A, path)
    if out is None:
        _print_small_array(name, result)
    else:
        _write_array(out, result)
        print(f"wrote {name} ({result.dtype} {list(result.shape)}, -1 unmatched) to {out}")
    return EXIT_OK


# --------------------------------------------------------------------- info


def _safely(fn: Callable[[], str]) -> str:
    """``fn()``, or a description of the exception it raised."""
    try:
        return fn()
    except Exception as err:  # info must never crash
        return f"unavailable ({type(err).__name__}: {err})"


def _module_version(name: str) -> str:
    """The version of an importable module, or ``not installed``."""
    try:
        module = __import__(name)
    except ImportError:
        return "not installed"
    return str(getattr(module, "__version__", "unknown"))


def _libraries() -> str:
    """The loaded jaxmatch libraries and their paths, a line each."""
    libs = jaxmatch.backends()
    return "\n".join(
        f"  {name + ':':6s}{path if path is not None else 'not built'}"
        for name, path in libs.items()
    )


def _devices() -> str:
    """JAX's devices and default backend."""
    devices = ", ".join(f"{d!r} {d.device_kind}" for d in jax.devices())
    return f"{devices}; default backend {jax.default_backend()}"


def _gpu_solving() -> str:
    """Whether jaxmatch can solve on a GPU here, and if not, why."""
    gpus = _gpu_devices()
    cuda = jaxmatch.backends()["cuda"]
    if gpus and cuda is not None:
        return f"available ({len(gpus)} GPU{'s' if len(gpus) > 1 else ''})"
    if cuda is None:
        return "no (the jaxmatch CUDA library was not built)"
    return "no (JAX sees no GPU)"


def cmd_info(args: argparse.Namespace) -> int:
    """``jaxmatch info``: versions, devices and libraries. Never fails.

    Args:
      args: the parsed arguments (none are used).

    Returns:
      0.
    """
    del args
    print(f"jaxmatch {jaxmatch.__version__} ({Path(jaxmatch.__file__).parent})")
    print(f"Python {platform.python_version()} ({sys.executable}) on {_safely(platform.platform)}")
    print(f"JAX {jax.__version__}, jaxlib {_safely(_jaxlib_version)}")
    print(f"numpy {np.__version__}, scipy {_module_version('scipy')}")
    print(f"devices: {_safely(_devices)}")
    print("libraries:")
    print(_safely(_libraries))
    print(f"GPU solving: {_safely(_gpu_solving)}")
    return EXIT_OK


def _jaxlib_version() -> str:
    """jaxlib's version."""
    import jaxlib

    return str(getattr(jaxlib, "__version__", None) or jaxlib.version.__version__)


# -------------------------------------------------------------------- bench


@dataclasses.dataclass
class BenchRow:
    """One line of the benchmark table.

    Attributes:
      problem: what was solved.
      ours_s: jaxmatch's median seconds (compiled, on the device).
      scipy_s: scipy's median seconds.
      check: ``ok`` when both found the same optimum / cardinality.
    """

    problem: str
    ours_s: float
    scipy_s: float
    check: str


def _median_seconds(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Runs ``fn`` once to warm up, then ``repeats`` times.

    Returns:
      ``(median seconds, the last output)``.
    """
    out = jax.block_until_ready(fn())
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = jax.block_until_ready(fn())
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def _bench_lap(batch: int, n: int, repeats: int, rng: np.random.Generator) -> BenchRow:
    """Jitted ``solve_lap`` against a loop of scipy's ``linear_sum_assignment``."""
    from scipy.optimize import linear_sum_assignment

    C = rng.random((batch, n, n), dtype=np.float32)
    Cj = jax.device_put(C)
    solve = jax.jit(jaxmatch.solve_lap)
    ours, res = _median_seconds(lambda: solve(Cj), repeats)

    def scipy_loop() -> list[float]:
        return [float(c[linear_sum_assignment(c)].sum(dtype=np.float64)) for c in C]

    theirs, ref = _median_seconds(scipy_loop, repeats)
    same = np.allclose(np.asarray(res.cost, dtype=np.float64), ref, rtol=1e-5)
    return BenchRow(f"LAP {batch} x {n}x{n} float32", ours, theirs, "ok" if same else "DIFFERS")


def _bench_matching(n: int, degree: float, repeats: int, rng: np.random.Generator) -> BenchRow:
    """Jitted ``max_cardinality_matching`` against scipy's
    ``maximum_bipartite_matching`` on a random sparse n x n matrix."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import maximum_bipartite_matching

    m = int(n * degree)
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    A = sp.csr_array((np.ones(m, dtype=np.float32), (rows, cols)), shape=(n, n))
    A.sum_duplicates()
    G = jax.device_put(jaxmatch.BipartiteGraph.from_scipy(A))
    solve = jax.jit(jaxmatch.max_cardinality_matching)
    ours, res = _median_seconds(lambda: solve(G), repeats)
    theirs, perm = _median_seconds(
        lambda: maximum_bipartite_matching(A, perm_type="column"), repeats
    )
    same = int(res.cardinality) == int((perm >= 0).sum())
    return BenchRow(f"matching n={n}, {A.nnz} edges", ours, theirs, "ok" if same else "DIFFERS")


def _print_bench_table(rows: list[BenchRow]) -> None:
    """Prints the table: times and ``scipy / jaxmatch`` (above 1: jaxmatch faster)."""
    width = max(len(r.problem) for r in rows)
    print(
        f"{'problem':{width}s}  {'jaxmatch':>10s}  {'scipy':>10s}  {'scipy/jaxmatch':>14s}  check"
    )
    for r in rows:
        ratio = r.scipy_s / r.ours_s if r.ours_s > 0 else float("inf")
        print(
            f"{r.problem:{width}s}  {_fmt_seconds(r.ours_s):>10s}  "
            f"{_fmt_seconds(r.scipy_s):>10s}  {ratio:>13.2f}x  {r.check}"
        )


#: The benchmark cases: (LAP (batch, n) pairs, matching (n, degree) pairs, repeats).
BENCH_CASES = {
    "quick": ([(16, 32), (1, 200)], [(10_000, 3.0)], 3),
    "full": ([(64, 32), (1, 500), (1, 1000)], [(10_000, 3.0), (100_000, 3.0)], 5),
}


def cmd_bench(args: argparse.Namespace) -> int:
    """``jaxmatch bench``: times jaxmatch against scipy on this machine.

    Args:
      args: the parsed arguments (``quick``, ``device``).

    Returns:
      0, or 1 when a result differed from scipy's.
    """
    _scipy_sparse_and_io()
    device = _select_device(args.device)
    lap_cases, matching_cases, repeats = BENCH_CASES["quick" if args.quick else "full"]
    print(
        f"jaxmatch {jaxmatch.__version__} bench on {_device_label(device)}; "
        f"median of {repeats} runs after a warm-up, compilation excluded"
    )
    rng = np.random.default_rng(0)
    rows: list[BenchRow] = []
    with _on_device(device):
        for batch, n in lap_cases:
            with _progress(f"bench: LAP {batch} x {n}x{n}"):
                rows.append(_bench_lap(batch, n, repeats, rng))
        for n, degree in matching_cases:
            with _progress(f"bench: matching n={n}"):
                rows.append(_bench_matching(n, degree, repeats, rng))
    _print_bench_table(rows)
    if any(r.check != "ok" for r in rows):
        raise CLIError("a jaxmatch result differed from scipy's (see the table)", EXIT_FAILED)
    return EXIT_OK


# ------------------------------------------------------------------- parser


def _add_device(parser: argparse.ArgumentParser) -> None:
    """Adds ``--device cpu|gpu``."""
    parser.add_argument(
        "--device",
        choices=("cpu", "gpu"),
        help="where to solve (default: JAX's default device)",
    )


def _add_output(parser: argparse.ArgumentParser, what: str) -> None:
    """Adds ``-o/--output``."""
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help=f"write {what} to OUT (.npy, .csv or .txt by suffix), only on success",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``jaxmatch`` and its subcommands."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="GPU matching and assignment algorithms (JAX custom calls), certified.",
        epilog="See docs/cli.md for examples.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {jaxmatch.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

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
    _add_output(lap, "the assignment (col_for_row, -1 unassigned)")
    _add_device(lap)
    lap.set_defaults(func=cmd_lap)

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
    _add_output(match, "row_match (mate with --weighted), -1 unmatched")
    _add_device(match)
    match.set_defaults(func=cmd_match)

    info = sub.add_parser("info", help="versions, devices and the compiled libraries")
    info.set_defaults(func=cmd_info)

    bench = sub.add_parser("bench", help="a short benchmark against scipy on this machine")
    bench.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    _add_device(bench)
    bench.set_defaults(func=cmd_bench)
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
