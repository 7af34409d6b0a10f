"""Loads the compiled libraries with ctypes, checks their ABI and registers
their handlers with XLA.

The libraries export plain C symbols (``XLA_FFI_DEFINE_HANDLER_SYMBOL`` and a
few C functions), so one build serves every Python version. Each library
also exports its ABI version, the FFI targets of its platform (name and
handler, listed by each family in ``cuda_ffi/<family>/registrations.h``), its
named constants (status codes, option codes, info slots, limits) and the
lengths of its workspaces: the Python side reads them here instead of
copying them.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.metadata
import os
from pathlib import Path
from typing import Any

import jax

from . import _limits

#: The library ABI this package speaks (``kAbiVersion`` in cuda_ffi/library.cc).
ABI_VERSION = 25

_PKG_DIR = Path(__file__).resolve().parent

_REINSTALL = (
    "Reinstall jaxmatch: the wheel, or from a checkout "
    "`pip install --force-reinstall --no-deps .` (JAXMATCH_CUDA=ON for the CUDA library)"
)


class JaxmatchLibraryError(RuntimeError):
    """A compiled jaxmatch library is missing, stale or cannot be loaded."""


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
    from ._version import __version__

    if dist.version != __version__:
        return None
    return Path(str(dist.locate_file("jaxmatch")))


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


def symbol_name(target: str, platform: str) -> str:
    """The exported symbol of a target's handler on a platform ("cpu" or "cuda")."""
    return f"jaxmatch_{target}_{platform}"


def _check_abi(lib: ctypes.CDLL, path: Path) -> None:
    try:
        version_fn = lib.jaxmatch_abi_version
    except AttributeError:
        version = None
    else:
        version_fn.restype = ctypes.c_int
        version = int(version_fn())
    if version != ABI_VERSION:
        raise JaxmatchLibraryError(
            f"{path} speaks jaxmatch library ABI {version}, but this Python "
            f"package expects ABI {ABI_VERSION}: the library is stale. {_REINSTALL}"
        )


def _read_table(lib: ctypes.CDLL, what: str, field: str, restype: Any) -> dict[str, Any]:
    """A named table the library exports: ``jaxmatch_num_<what>s()``, then
    ``jaxmatch_<what>_name(i)`` and ``jaxmatch_<what>_<field>(i)`` for each
    entry ``i``."""
    count = getattr(lib, f"jaxmatch_num_{what}s")
    name_of = getattr(lib, f"jaxmatch_{what}_name")
    value_of = getattr(lib, f"jaxmatch_{what}_{field}")
    count.restype = ctypes.c_int
    name_of.restype, name_of.argtypes = ctypes.c_char_p, [ctypes.c_int]
    value_of.restype, value_of.argtypes = restype, [ctypes.c_int]
    return {name_of(i).decode(): value_of(i) for i in range(count())}


def _read_constants(lib: ctypes.CDLL) -> dict[str, int]:
    """The named constants a library exports."""
    return {k: int(v) for k, v in _read_table(lib, "constant", "value", ctypes.c_int64).items()}


@functools.cache
def _load(platform: str) -> ctypes.CDLL | None:
    """Loads and checks the library of ``platform`` ("cpu" or "cuda"), or None
    when it was not built."""
    path = _find_library(f"jaxmatch_{platform}")
    if path is None:
        return None
    try:
        lib = ctypes.cdll.LoadLibrary(str(path))
    except OSError as err:  # pragma: no cover - depends on the machine
        raise JaxmatchLibraryError(f"cannot load {path}: {err}") from err
    _check_abi(lib, path)
    return lib


def cpu_library() -> ctypes.CDLL:
    """The CPU library (always built); raises if it is missing or stale."""
    lib = _load("cpu")
    if lib is None:
        raise JaxmatchLibraryError(
            "jaxmatch's CPU library (libjaxmatch_cpu.so) was not found next to "
            f"the package in {_PKG_DIR}. {_REINSTALL}"
        )
    return lib


def has_cuda() -> bool:
    """Whether the CUDA library was built (and speaks this package's ABI)."""
    return _load("cuda") is not None


def backends() -> dict[str, str | None]:
    """Which compiled libraries this installation loads.

    Returns:
      ``{"cpu": path, "cuda": path_or_None}``: the path of each library, or
      ``None`` for the CUDA library when it was not built (``nvcc`` was not
      on ``PATH`` at install time). Whether JAX itself sees a GPU is
      ``jax.devices()``'s answer; both are needed to solve on the GPU.

    Raises:
      JaxmatchLibraryError: the CPU library is missing, or a library is
        present but stale (another ABI) or cannot be loaded; the message
        names the fix.
    """
    out: dict[str, str | None] = {"cpu": str(cpu_library()._name)}
    cuda = _load("cuda")
    out["cuda"] = None if cuda is None else str(cuda._name)
    return out


@functools.cache
def constants() -> dict[str, int]:
    """The named constants of the library (status and option codes, info slots)."""
    return _read_constants(cpu_library())


def constant(name: str) -> int:
    """One named constant of the library, e.g. ``"LAP_STATUS_OPTIMAL"``."""
    table = constants()
    if name not in table:
        raise JaxmatchLibraryError(f"the library exports no constant {name!r}. {_REINSTALL}")
    return table[name]


def lap_workspace_lens(n: Any, m: Any, variant: int) -> tuple[Any, Any]:
    """``(int32 work, cost-dtype twork)`` lengths of one n x m (n <= m) LAP.

    For symbolic sizes (``jax.export``) the lengths are symbolic expressions
    of the same values (:func:`_lap_layout_coefficients`).
    """
    if not (_limits.is_concrete(n) and _limits.is_concrete(m)):
        (work, twork) = _lap_layout_coefficients(variant)
        return _bilinear(work, n, m), _bilinear(twork, n, m)
    _limits.check_dense_side((n, m))  # ctypes would wrap larger ints
    fn = cpu_library().jaxmatch_lap_workspace_len
    fn.restype = ctypes.c_int64
    fn.argtypes = [ctypes.c_int] * 4
    return int(fn(n, m, variant, 0)), int(fn(n, m, variant, 1))


Coefficients = tuple[int, int, int, int]


def _bilinear(c: Coefficients, n: Any, m: Any) -> Any:
    return c[0] + c[1] * n + c[2] * m + c[3] * n * m


#: Sizes at which a fitted layout is checked: across every size boundary of
#: the kernels (a JV warp's and block's, the fused solvers' widths).
_LAYOUT_CHECKS = ((3, 5), (7, 300), (40, 2000), (1000, 70_000), (5000, 5000))


@functools.cache
def _lap_layout_coefficients(variant: int) -> tuple[Coefficients, Coefficients]:
    """The library's workspace lengths of ``variant`` as ``c0 + cn n + cm m
    + cnm n m``: fitted to the library's own lengths at four sizes and
    checked at others, so that symbolic sizes get exactly the lengths the
    kernels check.

    Raises:
      ValueError: the variant's layout is not of that form.
    """
    fits = []
    for which in (0, 1):

        def length(n: int, m: int, which: int = which) -> int:
            fn = cpu_library().jaxmatch_lap_workspace_len
            fn.restype = ctypes.c_int64
            fn.argtypes = [ctypes.c_int] * 4
            return int(fn(n, m, variant, which))

        c0 = length(0, 0)
        cn, cm = length(1, 0) - c0, length(0, 1) - c0
        c = (c0, cn, cm, length(1, 1) - c0 - cn - cm)
        if any(_bilinear(c, n, m) != length(n, m) for n, m in _LAYOUT_CHECKS):
            raise ValueError(
                "this LAP variant's workspace depends on the problem's size in a way "
                "symbolic shapes cannot express; export it with concrete sizes"
            )
        fits.append(c)
    return fits[0], fits[1]


def matching_workspace_len(n_rows: int, n_cols: int) -> int:
    """Length of one matching problem's int32 workspace."""
    _limits.check_index("vertices", max(n_rows, n_cols) + 1, "the graph")
    fn = cpu_library().jaxmatch_matching_workspace_len
    fn.restype = ctypes.c_int64
    fn.argtypes = [ctypes.c_int] * 2
    return int(fn(n_rows, n_cols))


def weighted_workspace_len(n: int) -> int:
    """Length of one weighted matching problem's int32 workspace."""
    _limits.check_index("vertices", n + 1, "the graph")
    fn = cpu_library().jaxmatch_weighted_workspace_len
    fn.restype = ctypes.c_int64
    fn.argtypes = [ctypes.c_int]
    return int(fn(n))


def b_matching_workspace_len(n: Any, capacity: Any) -> Any:
    """Length of one b-matching problem's int32 workspace (``n`` vertices,
    ``capacity`` stored entries); a symbolic expression of the same value
    for symbolic sizes (:func:`_b_matching_layout_coefficients`)."""
    if not (_limits.is_concrete(n) and _limits.is_concrete(capacity)):
        c0, cn, cc = _b_matching_layout_coefficients()
        return c0 + cn * n + cc * capacity
    _limits.check_index("vertices", n + 1, "the graph")
    _limits.check_index("entries", capacity, "the graph")
    return _b_matching_len(n, capacity)


def _b_matching_len(n: int, capacity: int) -> int:
    fn = cpu_library().jaxmatch_weighted_b_workspace_len
    fn.restype = ctypes.c_int64
    fn.argtypes = [ctypes.c_int] * 2
    return int(fn(n, capacity))


@functools.cache
def _b_matching_layout_coefficients() -> tuple[int, int, int]:
    """The library's b-matching workspace length as ``c0 + cn n + cc
    capacity``: fitted to its lengths at three sizes and checked at others.

    Raises:
      ValueError: the layout is not of that form.
    """
    c0 = _b_matching_len(0, 0)
    cn, cc = _b_matching_len(1, 0) - c0, _b_matching_len(0, 1) - c0
    checks = ((3, 5), (7, 300), (1000, 70_001), (65_537, 3))
    if any(c0 + cn * n + cc * cap != _b_matching_len(n, cap) for n, cap in checks):
        raise ValueError(
            "the b-matching workspace depends on the problem's size in a way symbolic "
            "shapes cannot express; export it with concrete sizes"
        )
    return c0, cn, cc


#: An XLA FFI handler, ``XLA_FFI_Error* (*)(XLA_FFI_CallFrame*)``.
_HANDLER = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)


def _read_targets(lib: ctypes.CDLL) -> dict[str, Any]:
    """The FFI targets a library lists: ``{name: handler}``."""
    table = _read_table(lib, "target", "handler", ctypes.c_void_p)
    return {name: _HANDLER(address) for name, address in table.items()}


def registrations() -> dict[str, list[str]]:
    """The FFI targets of the loaded libraries, by platform.

    Returns:
      ``{"cpu": [names], "cuda": [names]}``: the target names each library
      lists (:func:`register` registers each under its :func:`target_name`);
      ``"cuda"`` is absent when the CUDA library was not built.
    """
    out = {"cpu": list(_read_targets(cpu_library()))}
    cuda = _load("cuda")
    if cuda is not None:
        out["cuda"] = list(_read_targets(cuda))
    return out


def target_name(name: str) -> str:
    """The name XLA knows the library's target ``name`` by: suffixed with the
    ABI version, which changes whenever a target's operands, attributes or
    results change, so that a program exported by another version finds no
    handler (an error naming the target) instead of one that misreads it."""
    return f"{name}_abi{ABI_VERSION}"


def ffi_call(name: str, result_shapes: Any, **kwargs: Any) -> Any:
    """``jax.ffi.ffi_call`` of the library's target ``name`` (registered
    first), under its versioned :func:`target_name`."""
    register()
    return jax.ffi.ffi_call(target_name(name), result_shapes, **kwargs)


@functools.cache
def register() -> None:
    """Registers every target the libraries list, for the CPU and for CUDA, once.

    One target name serves every platform: XLA picks the registration of the
    platform it lowers for, so a computation placed on the CPU runs the CPU
    kernels on any machine. Without the CUDA library, a handler that reports
    how to build it stands in for CUDA under every CPU target's name.
    """
    cpu = cpu_library()
    cpu_targets = _read_targets(cpu)
    for name, handler in cpu_targets.items():
        jax.ffi.register_ffi_target(target_name(name), jax.ffi.pycapsule(handler), platform="cpu")
    cuda = _load("cuda")
    if cuda is not None:
        for name, handler in _read_targets(cuda).items():
            capsule = jax.ffi.pycapsule(handler)
            jax.ffi.register_ffi_target(target_name(name), capsule, platform="CUDA")
    else:
        missing = jax.ffi.pycapsule(cpu.jaxmatch_missing_cuda)
        for name in cpu_targets:
            jax.ffi.register_ffi_target(target_name(name), missing, platform="CUDA")


def register_if_loadable() -> None:
    """:func:`register`, at ``import jaxmatch``: a missing or stale library
    is reported by the first solve instead (and by ``jaxmatch info``)."""
    try:
        register()
    except JaxmatchLibraryError:
        pass


def check_enum(enum_cls: type, prefix: str) -> None:
    """Checks that every member of ``enum_cls`` has the value the library
    exports as ``<prefix><MEMBER>``, and that the library has no other."""
    table = {k[len(prefix) :]: v for k, v in constants().items() if k.startswith(prefix)}
    ours = {m.name: int(m.value) for m in enum_cls}  # type: ignore[attr-defined]
    if ours != table:
        raise JaxmatchLibraryError(
            f"{enum_cls.__name__} {ours} does not match the library's {prefix}* "
            f"constants {table}. {_REINSTALL}"
        )
