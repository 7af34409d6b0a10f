"""Loading the compiled libraries."""

from __future__ import annotations

import pytest

from jaxmatch import _lib


def test_cpu_library_registers():
    _lib.ensure_cpu()


def test_gpu_backend_without_cuda_library_names_the_fix(monkeypatch):
    monkeypatch.setattr(_lib, "has_cuda", lambda: False)
    with pytest.raises(_lib.JaxmatchLibraryError, match="nvcc"):
        _lib.ensure_for_backend("gpu")


def test_unknown_backend():
    with pytest.raises(_lib.JaxmatchLibraryError, match="no kernels"):
        _lib.ensure_for_backend("tpu")


@pytest.mark.gpu
def test_cuda_library_present_on_gpu_machine():
    assert _lib.has_cuda()


def test_source_checkout_finds_the_installed_library(monkeypatch, tmp_path):
    """A source tree without compiled libraries (python -m jaxmatch.demo run in
    a fresh checkout after `pip install .`) uses the installed ones."""
    found = _lib._find_library("jaxmatch_cpu")
    assert found is not None
    monkeypatch.setattr(_lib, "_PKG_DIR", tmp_path)  # no .so there
    monkeypatch.setattr(_lib, "_installed_package_dir", lambda: found.parent)
    assert _lib._find_library("jaxmatch_cpu") == found
    monkeypatch.setattr(_lib, "_installed_package_dir", lambda: None)
    assert _lib._find_library("jaxmatch_cpu") is None
