"""The command line's outputs (``-o``): checked before any work, written
atomically and only after success; small results printed instead."""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
from pathlib import Path

import numpy as np

from jaxmatch.cli.errors import EXIT_FAILED, CLIError

#: Suffixes of the outputs (``-o``): NumPy, comma-separated, whitespace-separated.
OUTPUT_SUFFIXES = (".npy", ".csv", ".txt")


def add_output_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """Adds ``-o/--output`` to a subcommand.

    Args:
      parser: the subcommand's parser.
      what: what gets written, for the help text.
    """
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help=f"write {what} to OUT (.npy, .csv or .txt by suffix), only on success",
    )


def output_path(value: str | None) -> Path | None:
    """Checks an output path before any work: a known suffix, an existing
    writable folder, not a folder itself.

    Args:
      value: the ``-o`` argument, or None.

    Returns:
      The path, or None when no output was asked for.

    Raises:
      CLIError: the path cannot be written.
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


def write_array(path: Path, array: np.ndarray) -> None:
    """Writes an integer array to ``path`` atomically: into a temporary file
    of the same folder, then ``os.replace``. ``.npy`` is NumPy's format,
    ``.csv`` comma- and ``.txt`` whitespace-separated text, a row per line.

    Args:
      path: the output, as checked by :func:`output_path`.
      array: int ``[n]`` or ``[b, n]``.

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


def emit_array(name: str, array: np.ndarray, out: Path | None, unset: str) -> None:
    """Writes ``array`` to ``out`` and says so, or prints it (when small).

    Args:
      name: the array's name, e.g. ``col_for_row``.
      array: the integer result.
      out: the checked output path, or None to print.
      unset: what ``-1`` means in it, e.g. ``unassigned``.
    """
    if out is None:
        print_small_array(name, array)
    else:
        write_array(out, array)
        print(f"wrote {name} ({array.dtype} {list(array.shape)}, -1 {unset}) to {out}")


def print_small_array(name: str, array: np.ndarray, limit: int = 64) -> None:
    """Prints ``array`` when it is small; otherwise a hint to use ``-o``."""
    if array.size <= limit:
        print(f"{name} {np.array2string(array, separator=' ', max_line_width=100)}")
    else:
        print(f"{name}: {array.size} entries (write them with -o OUT.npy)")
