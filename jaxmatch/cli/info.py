"""``jaxmatch info``: versions, devices and the compiled libraries in use."""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import numpy as np

import jaxmatch
from jaxmatch.cli.devices import gpu_devices
from jaxmatch.cli.errors import EXIT_OK


def add_parser(sub: Any) -> None:
    """Registers ``info`` on the subcommand parsers ``sub``."""
    info = sub.add_parser("info", help="versions, devices and the compiled libraries")
    info.set_defaults(func=cmd_info)


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


def _jaxlib_version() -> str:
    """jaxlib's version."""
    import jaxlib

    return str(getattr(jaxlib, "__version__", None) or jaxlib.version.__version__)


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
    gpus = gpu_devices()
    cuda = jaxmatch.backends()["cuda"]
    if gpus and cuda is not None:
        return f"available ({len(gpus)} GPU{'s' if len(gpus) > 1 else ''})"
    if cuda is None:
        return "no (the jaxmatch CUDA library was not built)"
    return "no (JAX sees no GPU)"
