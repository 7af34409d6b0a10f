"""``jaxmatch info``: versions, devices and the compiled libraries in use."""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import platform
import re
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
    print(f"CUDA architectures: {_safely(_architectures)}")
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


@dataclasses.dataclass(frozen=True)
class CudaArch:
    """One entry of the CUDA library's architectures, as CMake names them.

    Attributes:
      number: the compute capability as major * 10 + minor (``90`` is 9.0).
      suffix: ``""``, ``"a"`` (architecture-specific: that exact GPU only) or
        ``"f"`` (family: that major version, this minor or later).
      machine_code: the library holds machine code (cubin) for it.
      ptx: the library holds PTX for it, which the GPU driver compiles for
        a GPU of this compute capability or later at first use.
    """

    number: int
    suffix: str
    machine_code: bool
    ptx: bool

    def runs_machine_code_on(self, capability: tuple[int, int]) -> bool:
        """Whether its machine code runs on a GPU of ``(major, minor)``: the
        same major and a minor no lower (an ``a`` entry: that GPU only)."""
        return self.machine_code and self._covers(capability, later_majors=False)

    def runs_ptx_on(self, capability: tuple[int, int]) -> bool:
        """Whether the driver compiles its PTX for a GPU of ``(major, minor)``:
        any later GPU (a suffixed entry: as its machine code would run)."""
        return self.ptx and self._covers(capability, later_majors=not self.suffix)

    def _covers(self, capability: tuple[int, int], *, later_majors: bool) -> bool:
        major, minor = divmod(self.number, 10)
        if self.suffix == "a":
            return capability == (major, minor)
        if later_majors and capability[0] > major:
            return True
        return capability[0] == major and capability[1] >= minor


_ARCH = re.compile(r"(\d+)([af]?)(?:-(real|virtual))?")


def parse_architectures(spec: str) -> list[CudaArch]:
    """Parses the CUDA library's architectures (``jaxmatch_cuda_architectures()``).

    Args:
      spec: CMake's ``CMAKE_CUDA_ARCHITECTURES``, comma-separated, e.g.
        ``"80-real,90-real,100"``: ``-real`` is machine code only,
        ``-virtual`` PTX only, a bare number both.

    Returns:
      One entry per architecture, in the order given.

    Raises:
      ValueError: an entry is not of that form (``native``, ``all``: CMake
        chose the architectures when it built the library).
    """
    out = []
    for entry in spec.split(","):
        match = _ARCH.fullmatch(entry.strip())
        if match is None:
            raise ValueError(f"cannot read the architecture {entry!r} of {spec!r}")
        number, suffix, kind = match.groups()
        out.append(CudaArch(int(number), suffix, kind != "virtual", kind != "real"))
    return out


def describe_architectures(archs: list[CudaArch]) -> str:
    """``sm_80, sm_90 (machine code); compute_90 (PTX, ...)``."""
    parts = []
    sass = [f"sm_{a.number}{a.suffix}" for a in archs if a.machine_code]
    if sass:
        parts.append(f"{', '.join(sass)} (machine code)")
    ptx = [f"compute_{a.number}{a.suffix}" for a in archs if a.ptx]
    if ptx:
        parts.append(f"{', '.join(ptx)} (PTX, compiled by the GPU driver for later GPUs)")
    return "; ".join(parts)


def gpu_support(archs: list[CudaArch], capability: tuple[int, int]) -> str | None:
    """How the CUDA library runs on a GPU of compute capability ``capability``.

    Args:
      archs: the library's architectures (:func:`parse_architectures`).
      capability: the GPU's ``(major, minor)``.

    Returns:
      ``"sm_XY machine code"`` (the best that runs there), else ``"compute_XY
      PTX ..."`` when the driver compiles PTX for it, else ``None``: its
      kernels cannot run on that GPU.
    """
    sass = [a for a in archs if a.runs_machine_code_on(capability)]
    if sass:
        best = max(sass, key=lambda a: a.number)
        return f"sm_{best.number}{best.suffix} machine code"
    ptx = [a for a in archs if a.runs_ptx_on(capability)]
    if ptx:
        best = max(ptx, key=lambda a: a.number)
        return (
            f"compute_{best.number}{best.suffix} PTX, compiled by the GPU driver at first "
            "use (once: the driver caches it)"
        )
    return None


def _cuda_architectures(path: str) -> str | None:
    """The architectures the CUDA library at ``path`` lists, or None when it
    predates the list."""
    fn = getattr(ctypes.CDLL(path), "jaxmatch_cuda_architectures", None)
    if fn is None:
        return None
    fn.restype = ctypes.c_char_p
    return str(fn().decode())


def _capability(device: Any) -> tuple[int, int] | None:
    """A GPU's compute capability ``(major, minor)``, or None when JAX does
    not say (not a CUDA GPU)."""
    text = str(getattr(device, "compute_capability", ""))
    match = re.fullmatch(r"(\d+)\.(\d+)", text)
    return (int(match[1]), int(match[2])) if match else None


def _support_lines(archs: list[CudaArch]) -> list[tuple[str, bool]]:
    """``(line, supported)`` for each kind of GPU JAX sees."""
    kinds: dict[tuple[str, tuple[int, int] | None], int] = {}
    for device in gpu_devices():
        key = (str(device.device_kind), _capability(device))
        kinds[key] = kinds.get(key, 0) + 1
    lines = []
    for (kind, capability), count in kinds.items():
        name = f"{kind}{f' x{count}' if count > 1 else ''}"
        if capability is None:
            lines.append((f"  {name}: compute capability unknown, not checked", True))
            continue
        how = gpu_support(archs, capability)
        cc = f"{capability[0]}.{capability[1]}"
        if how is not None:
            lines.append((f"  {name} (compute capability {cc}): runs the {how}", True))
        else:
            number = capability[0] * 10 + capability[1]
            lines.append(
                (
                    f"  warning: {name} (compute capability {cc}) is not among the CUDA "
                    "library's architectures: jaxmatch's kernels cannot run on it. Build "
                    "jaxmatch from source for it: `JAXMATCH_CUDA=ON pip install . "
                    f"-C cmake.define.CMAKE_CUDA_ARCHITECTURES={number}`",
                    False,
                )
            )
    return lines


def _architectures() -> str:
    """The CUDA library's architectures and how each visible GPU runs it."""
    cuda = jaxmatch.backends()["cuda"]
    if cuda is None:
        return "none (the CUDA library was not built)"
    spec = _cuda_architectures(cuda)
    if spec is None:
        return "not listed (a CUDA library older than the list)"
    try:
        archs = parse_architectures(spec)
    except ValueError:
        return f"{spec} (as CMake chose them: not checked against the GPUs)"
    lines = [describe_architectures(archs)] + [line for line, _ in _support_lines(archs)]
    return "\n".join(lines)


def _unsupported_gpus() -> bool:
    """Whether every GPU JAX sees lacks code in the CUDA library (False when
    that cannot be told)."""
    cuda = jaxmatch.backends()["cuda"]
    spec = None if cuda is None else _cuda_architectures(cuda)
    try:
        archs = parse_architectures(spec) if spec else None
    except ValueError:
        archs = None
    if archs is None:
        return False
    support = _support_lines(archs)
    return bool(support) and not any(ok for _, ok in support)


def _gpu_solving() -> str:
    """Whether jaxmatch can solve on a GPU here, and if not, why."""
    gpus = gpu_devices()
    cuda = jaxmatch.backends()["cuda"]
    if gpus and cuda is not None:
        if _unsupported_gpus():
            return "no (the CUDA library has no code for these GPUs: see the warning above)"
        return f"available ({len(gpus)} GPU{'s' if len(gpus) > 1 else ''})"
    if cuda is None:
        return "no (the jaxmatch CUDA library was not built)"
    return "no (JAX sees no GPU)"
