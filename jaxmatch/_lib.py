"""Loads the compiled FFI libraries with ctypes and registers their handlers.

The libraries export plain C symbols (``XLA_FFI_DEFINE_HANDLER_SYMBOL``), so
one build serves every Python version: no Python-ABI-bound extension module.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.metadata
import os
from pathlib import Path

import jax

_PKG_DIR = Path(__file__).resolve().parent

#: Handlers exported by each library (symbol jaxmatch_<name>_<platform>).
_HANDLERS = (
    "lap_init", "lap_step", "lap_solve", "mcm_init", "mcm_step", "mcm_solve"
)


class JaxmatchLibraryError(RuntimeError):
    """A compiled jaxmatch library is missing or cannot be loaded."""


def _installed_package_dir() -> Path | None:
    """The installed distribution's package folder, when its version matches.

    Running from a source checkout (``python -m jaxmatch.demo`` in the repo
    root) imports the source tree, which holds no compiled library; the
    libraries of an installed jaxmatch of the same version serve it.
    """
    try:
        dist = importlib.metadata.distribution("jaxmatch")
    except importlib.metadata.PackageNotFoundError:
        return None
    from . import __version__

    if dist.version != __version__:
        return None
    return Path(dist.locate_file("jaxmatch"))


def _find_library(stem: str) -> Path | None:
    """Finds ``lib<stem>.so``: ``$JAXMATCH_LIB_DIR``, next to the package, or
    in the installed distribution of the same version."""
    names = [f"lib{stem}.so", f"lib{stem}.dylib"]
    dirs = [_PKG_DIR]
    if os.environ.get("JAXMATCH_LIB_DIR"):
        dirs.insert(0, Path(os.environ["JAXMATCH_LIB_DIR"]))
    installed = _installed_package_dir()
    if installed is not None:
        dirs.append(installed)
    for d in dirs:
        for name in names:
            if (d / name).exists():
                return d / name
    return None


def symbol_name(handler: str, platform: str) -> str:
    """The exported symbol of a handler on a platform ("cpu" or "cuda")."""
    return f"jaxmatch_{handler}_{platform}"


@functools.lru_cache(maxsize=None)
def _load(platform: str) -> bool:
    stem = "jaxmatch_cpu" if platform == "cpu" else "jaxmatch_cuda"
    path = _find_library(stem)
    if path is None:
        return False
    try:
        lib = ctypes.cdll.LoadLibrary(str(path))
    except OSError as err:  # pragma: no cover - depends on the machine
        raise JaxmatchLibraryError(f"cannot load {path}: {err}") from err
    xla_platform = "cpu" if platform == "cpu" else "CUDA"
    for handler in _HANDLERS:
        # One target name for every platform: XLA picks the registration of
        # the platform it lowers for.
        symbol = getattr(lib, symbol_name(handler, platform))
        jax.ffi.register_ffi_target(
            f"jaxmatch_{handler}", jax.ffi.pycapsule(symbol), platform=xla_platform
        )
    return True


def ensure_cpu() -> None:
    """Registers the CPU handlers; raises if the CPU library is missing."""
    if not _load("cpu"):
        raise JaxmatchLibraryError(
            "jaxmatch's CPU library (libjaxmatch_cpu.so) was not found next to "
            f"the package in {_PKG_DIR}. Reinstall with `pip install .` from a "
            "source checkout."
        )


def has_cuda() -> bool:
    """Whether the CUDA library was built and registered."""
    return _load("cuda")


def ensure_for_backend(backend: str) -> None:
    """Registers what ``backend`` (a JAX platform name) needs, or raises.

    Both libraries are registered whenever present, so a computation placed
    on either platform finds its handlers.
    """
    ensure_cpu()
    cuda = has_cuda()
    if backend in ("gpu", "cuda"):
        if not cuda:
            raise JaxmatchLibraryError(
                "jaxmatch is running on a GPU backend but its CUDA library "
                "(libjaxmatch_cuda.so) was not built. Install the CUDA toolkit "
                "so that `nvcc` is on PATH and reinstall jaxmatch: "
                "`pip install --no-build-isolation --force-reinstall .` (or "
                "run on the CPU with JAX_PLATFORMS=cpu)."
            )
    elif backend not in ("cpu",):
        raise JaxmatchLibraryError(
            f"jaxmatch has no kernels for the JAX backend {backend!r} "
            "(supported: cpu, cuda)"
        )
