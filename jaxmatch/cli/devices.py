"""Where and how a command solves: ``--device`` selection, and one
compiled, timed run of a jitted function."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import time
from collections.abc import Callable
from typing import Any

import jax

import jaxmatch
from jaxmatch.cli.console import fmt_seconds, note
from jaxmatch.cli.errors import CLIError


def add_device_argument(parser: argparse.ArgumentParser) -> None:
    """Adds ``--device cpu|gpu`` to a subcommand."""
    parser.add_argument(
        "--device",
        choices=("cpu", "gpu"),
        help="where to solve (default: JAX's default device)",
    )


def select_device(name: str | None) -> jax.Device | None:
    """The device to run on: ``"cpu"``, ``"gpu"`` or None (JAX's default).

    With no choice on a machine whose default backend is a GPU but whose
    jaxmatch CUDA library was not built, falls back to the CPU with a note.

    Args:
      name: the ``--device`` argument.

    Returns:
      The device, or None for JAX's default.

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
        note("note: jaxmatch's CUDA library was not built; running on the CPU")
        return jax.devices("cpu")[0]
    gpus = gpu_devices()
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


def gpu_devices() -> list[jax.Device]:
    """JAX's GPU devices; empty when there are none."""
    try:
        return list(jax.devices("gpu"))
    except RuntimeError:
        return []


def on_device(device: jax.Device | None) -> contextlib.AbstractContextManager[Any]:
    """A context placing computations on ``device`` (JAX's default if None)."""
    if device is None:
        return contextlib.nullcontext()
    return jax.default_device(device)


def device_name(device: jax.Device | None) -> str:
    """``cpu`` / ``gpu`` (the platform of ``device`` or JAX's default)."""
    if device is None:
        device = jax.devices()[0]
    return "gpu" if device.platform in ("gpu", "cuda", "rocm") else device.platform


@dataclasses.dataclass
class Timed:
    """A result of :func:`compile_and_run` and how long it took.

    Attributes:
      result: the function's output, on the host (NumPy leaves).
      compile_s: seconds spent tracing and compiling.
      run_s: seconds the compiled function ran.
    """

    result: Any
    compile_s: float
    run_s: float


def compile_and_run(fn: Callable[..., Any], *args: Any) -> Timed:
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


def time_line(timed: Timed) -> str:
    """``time: compile 0.41 s, solve 1.2 ms``."""
    return f"time: compile {fmt_seconds(timed.compile_s)}, solve {fmt_seconds(timed.run_s)}"
