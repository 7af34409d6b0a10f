"""Finding, loading and registering the compiled libraries."""

from __future__ import annotations

import ctypes

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxmatch import _ffi


def test_cpu_library_exports_every_handler_and_the_cuda_stand_in():
    lib = _ffi.cpu_library()
    names = _ffi.registrations()["cpu"]
    assert len(names) == len(set(names)) and names
    for name in names:
        assert name.startswith("jaxmatch_"), name
        assert hasattr(lib, _ffi.symbol_name(name.removeprefix("jaxmatch_"), "cpu")), name
    assert hasattr(lib, "jaxmatch_missing_cuda")


def test_library_lists_its_targets_with_their_handlers():
    """Each family lists its own targets; the library exports the list (name
    and handler), and the handler is the one its binding exports."""
    lib = _ffi.cpu_library()
    targets = _ffi._read_targets(lib)
    families = {name.split("_")[1] for name in targets}
    assert families == {"lap", "matching", "weighted"}
    for name, handler in targets.items():
        symbol = getattr(lib, _ffi.symbol_name(name.removeprefix("jaxmatch_"), "cpu"))
        assert (
            ctypes.cast(handler, ctypes.c_void_p).value
            == ctypes.cast(symbol, ctypes.c_void_p).value
        )
    lib.jaxmatch_platform.restype = ctypes.c_char_p
    assert lib.jaxmatch_platform() == b"cpu"
    lib.jaxmatch_target_name.restype = ctypes.c_char_p
    lib.jaxmatch_target_handler.restype = ctypes.c_void_p
    assert lib.jaxmatch_target_name(len(targets)) is None
    assert lib.jaxmatch_target_name(-1) is None
    assert lib.jaxmatch_target_handler(len(targets)) is None


def test_registrations_lists_the_loaded_libraries():
    found = _ffi.registrations()
    assert set(found) == ({"cpu", "cuda"} if _ffi.has_cuda() else {"cpu"})
    if "cuda" in found:
        assert sorted(found["cuda"]) == sorted(found["cpu"])


def test_registered_targets_run_on_the_cpu():
    _ffi.register()
    from jaxmatch.lap import _ffi as lap_ffi

    C = jnp.asarray([[4.0, 1.0], [2.0, 3.0]], jnp.float32)
    state = jax.jit(lambda C: lap_ffi.lap_solve(C, variant=lap_ffi.variant_code("tree")))(C)
    np.testing.assert_array_equal(np.asarray(state.col_for_row), [1, 0])


@pytest.mark.gpu
def test_cuda_library_present_on_gpu_machine():
    assert _ffi.has_cuda()


def test_source_checkout_finds_the_installed_library(monkeypatch, tmp_path):
    """A source tree without compiled libraries (python -m jaxmatch.demo run in
    a fresh checkout after `pip install .`) uses the installed ones."""
    found = _ffi._find_library("jaxmatch_cpu")
    assert found is not None
    monkeypatch.delenv("JAXMATCH_LIB_DIR", raising=False)  # searched first
    monkeypatch.setattr(_ffi, "_PKG_DIR", tmp_path)  # no .so there
    monkeypatch.setattr(_ffi, "_installed_package_dir", lambda: found.parent)
    assert _ffi._find_library("jaxmatch_cpu") == found
    monkeypatch.setattr(_ffi, "_installed_package_dir", lambda: None)
    assert _ffi._find_library("jaxmatch_cpu") is None


def test_missing_cpu_library_names_the_fix(monkeypatch, tmp_path):
    monkeypatch.setattr(_ffi, "_find_library", lambda stem: None)
    _ffi._load.cache_clear()
    try:
        with pytest.raises(_ffi.JaxmatchLibraryError, match="pip install"):
            _ffi.cpu_library()
    finally:
        monkeypatch.undo()
        _ffi._load.cache_clear()


def test_package_is_typed():
    """py.typed ships with the installed package (PEP 561)."""
    from importlib import resources

    assert resources.files("jaxmatch").joinpath("py.typed").is_file()


def test_backends_reports_the_loaded_libraries():
    """jaxmatch.backends(): the path of each library, None for a CUDA
    library that was not built; agrees with has_cuda()."""
    import jaxmatch

    found = jaxmatch.backends()
    assert set(found) == {"cpu", "cuda"}
    assert found["cpu"] == str(_ffi._find_library("jaxmatch_cpu"))
    assert (found["cuda"] is not None) == _ffi.has_cuda()
    if found["cuda"] is not None:
        assert found["cuda"] == str(_ffi._find_library("jaxmatch_cuda"))
    assert "backends" in jaxmatch.__all__


def test_backends_without_the_cuda_library(monkeypatch):
    real = _ffi._find_library
    monkeypatch.setattr(
        _ffi, "_find_library", lambda stem: None if stem == "jaxmatch_cuda" else real(stem)
    )
    _ffi._load.cache_clear()
    try:
        found = _ffi.backends()
        assert found["cuda"] is None and found["cpu"] is not None
    finally:
        monkeypatch.undo()
        _ffi._load.cache_clear()


@pytest.mark.gpu
def test_backends_on_gpu_machine():
    import jaxmatch

    assert jaxmatch.backends()["cuda"] is not None
