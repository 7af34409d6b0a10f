"""Shared fixtures: x64, the `gpu` marker, and the device a test runs on."""

from __future__ import annotations

import os

import jax
import pytest

jax.config.update("jax_enable_x64", True)

REQUIRE_GPU = os.environ.get("JAXMATCH_REQUIRE_GPU") == "1"


def gpu_devices():
    try:
        return jax.devices("gpu")
    except RuntimeError:
        return []


def pytest_runtest_setup(item):
    if "gpu" in item.keywords and not gpu_devices():
        if REQUIRE_GPU:
            pytest.fail("JAXMATCH_REQUIRE_GPU=1 but JAX sees no GPU")
        pytest.skip("needs a GPU (set JAXMATCH_REQUIRE_GPU=1 to fail instead)")


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def device(request):
    """Runs the test with computations placed on the CPU, then on the GPU."""
    dev = jax.devices("cpu")[0] if request.param == "cpu" else gpu_devices()[0]
    with jax.default_device(dev):
        yield dev


@pytest.fixture(scope="session")
def kernel_harnesses(tmp_path_factory):
    """Builds the CUDA kernel harnesses (tests/*/*_kernel_harness.cu) with
    CMake once per session; returns the build folder.

    ``JAXMATCH_HARNESS_DIR`` names a folder of harnesses built beforehand
    (``cmake -DJAXMATCH_BUILD_HARNESSES=ON``) to use instead."""
    import os
    import shutil
    import subprocess
    from pathlib import Path

    if os.environ.get("JAXMATCH_HARNESS_DIR"):
        return Path(os.environ["JAXMATCH_HARNESS_DIR"])
    if shutil.which("nvcc") is None or shutil.which("cmake") is None:
        pytest.fail("building the kernel harnesses needs nvcc and cmake on PATH")
    root = Path(__file__).resolve().parent.parent
    build = tmp_path_factory.mktemp("harness_build")
    configure = [
        "cmake",
        "-S",
        str(root / "cuda_ffi"),
        "-B",
        str(build),
        "-DJAXMATCH_BUILD_HARNESSES=ON",
        f"-DXLA_FFI_INCLUDE_DIR={jax.ffi.include_dir()}",
    ]
    version = subprocess.run(["cmake", "--version"], capture_output=True, text=True).stdout
    if tuple(int(x) for x in version.split()[2].split(".")[:2]) >= (3, 24):
        # the GPU the tests run on, not the release's list of architectures
        configure.append("-DCMAKE_CUDA_ARCHITECTURES=native")
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    subprocess.run(configure, check=True, capture_output=True)
    # Every harness source is a CMake target of its file's name.
    targets = sorted(path.stem for path in root.glob("tests/*/*_kernel_harness.cu"))
    subprocess.run(
        ["cmake", "--build", str(build), "--target", *targets, "-j", "8"],
        check=True,
        capture_output=True,
    )
    return build
