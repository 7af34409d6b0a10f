"""Reading the command line's inputs: dense cost arrays (``.npy``, ``.npz``,
``.csv``, ``.txt``) and sparse matrices (Matrix Market, ``scipy.sparse``
``.npz``), with one-line errors for every way a file can be wrong."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from jaxmatch.cli.console import progress
from jaxmatch.cli.errors import CLIError


def existing_file(path: Path) -> Path:
    """``path`` if it is a readable file; a :class:`CLIError` otherwise."""
    if not path.exists():
        raise CLIError(f"no such file: {path}")
    if not path.is_file():
        raise CLIError(f"not a file: {path}")
    if not os.access(path, os.R_OK):
        raise CLIError(f"cannot read {path}: permission denied")
    return path


def load_dense(path: Path, key: str | None) -> np.ndarray:
    """Reads a dense array from ``.npy``, ``.npz`` (the first array, or
    ``key``), or text (``.csv`` comma-, ``.txt``/``.tsv``/``.dat``
    whitespace-separated).

    Args:
      path: the file.
      key: the array of a ``.npz`` archive (None: its first array).

    Returns:
      The array, as stored (any shape and dtype; the caller checks them).

    Raises:
      CLIError: a missing or unreadable file, an unknown suffix, a missing key.
    """
    existing_file(path)
    suffix = path.suffix.lower()
    if key is not None and suffix != ".npz":
        raise CLIError(f"--key applies to .npz files only, not {path.name}")
    if suffix == ".npy":
        return _read(path, "a .npy array", lambda: np.load(path, allow_pickle=False))
    if suffix == ".npz":
        return _read(path, "a .npz archive", lambda: _npz_member(path, key))
    if suffix in (".csv", ".txt", ".tsv", ".dat"):
        delimiter = "," if suffix == ".csv" else None
        return _read(path, "a numeric text table", lambda: _text_table(path, delimiter))
    raise CLIError(
        f"unsupported file type {suffix or '(none)'!r} for {path}; "
        "expected .npy, .npz, .csv or .txt"
    )


def load_sparse(path: Path) -> Any:
    """Reads a sparse matrix from Matrix Market (``.mtx``, ``.mtx.gz``) or a
    ``scipy.sparse.save_npz`` archive (``.npz``).

    Args:
      path: the file.

    Returns:
      A ``scipy.sparse.csr_array`` with numeric values.

    Raises:
      CLIError: scipy is missing; a missing or unreadable file; an unknown
        suffix; not a 2-D matrix.
    """
    sp, scipy_io = scipy_sparse_and_io()
    existing_file(path)
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


def scipy_sparse_and_io() -> tuple[Any, Any]:
    """``(scipy.sparse, scipy.io)``, or a CLIError saying scipy is needed."""
    try:
        import scipy.io as scipy_io
        import scipy.sparse as sp
    except ImportError as err:
        raise CLIError("this command needs scipy: pip install scipy") from err
    return sp, scipy_io


def _read(path: Path, what: str, reader: Callable[[], Any]) -> Any:
    """Runs ``reader``; any failure to parse becomes a one-line CLIError.

    Parsers (NumPy, scipy's Matrix Market reader) raise many exception
    types on malformed files, so every ``Exception`` is a user input error
    here; a CLIError raised by ``reader`` passes unchanged.
    """
    try:
        with progress(f"reading {path}"):
            return reader()
    except CLIError:
        raise
    except MemoryError as err:
        raise CLIError(f"{path} is too large to read into memory") from err
    except Exception as err:
        detail = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise CLIError(f"cannot read {path} as {what}: {detail}") from err


_RAGGED = re.compile(r"number of columns changed from (\d+) to (\d+) at row (\d+)")


def _text_table(path: Path, delimiter: str | None) -> np.ndarray:
    """A text table's numbers; rows of unequal length are a CLIError that
    names the row (NumPy's own message suggests an argument the command
    line does not have)."""
    try:
        return np.loadtxt(path, delimiter=delimiter, ndmin=2, comments="#")
    except ValueError as err:
        ragged = _RAGGED.search(str(err))
        if ragged is None:
            raise
        before, now, row = ragged.groups()
        raise CLIError(
            f"cannot read {path} as a cost table: row {row} has a different number "
            f"of values ({now}) than the rows above it ({before})"
        ) from err


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
