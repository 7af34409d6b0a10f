"""Installing: ``jaxmatch info`` on the CUDA library's GPU architectures (the
list read, how each GPU runs it: machine code, PTX compiled by the driver, or
not at all, with a warning), and the install commands CI runs."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import jaxmatch
from jaxmatch import cli
from jaxmatch.cli import info
from jaxmatch.cli.info import CudaArch, gpu_support, parse_architectures

REPO = Path(__file__).resolve().parent.parent

#: The release wheel's list (cuda_ffi/CMakeLists.txt's default with nvcc >= 12.8).
WHEEL = "80-real,90-real,100"


@dataclasses.dataclass
class FakeGpu:
    device_kind: str
    compute_capability: str


def run_info(capsys, monkeypatch, spec: str | None, gpus: list[FakeGpu]) -> str:
    """``jaxmatch info``'s output with a CUDA library listing ``spec`` and
    JAX seeing ``gpus``."""
    monkeypatch.setattr(
        jaxmatch, "backends", lambda: {"cpu": "/x/libjaxmatch_cpu.so", "cuda": "/x/cuda.so"}
    )
    monkeypatch.setattr(info, "_cuda_architectures", lambda path: spec)
    monkeypatch.setattr(info, "gpu_devices", lambda: gpus)
    assert cli.main(["info"]) == 0
    return capsys.readouterr().out


def test_parse_architectures():
    assert parse_architectures(WHEEL) == [
        CudaArch(80, "", machine_code=True, ptx=False),
        CudaArch(90, "", machine_code=True, ptx=False),
        CudaArch(100, "", machine_code=True, ptx=True),
    ]
    assert parse_architectures("90a-real, 120f-virtual") == [
        CudaArch(90, "a", machine_code=True, ptx=False),
        CudaArch(120, "f", machine_code=False, ptx=True),
    ]
    for spec in ("native", "all-major", "80-real,sm_90", ""):
        with pytest.raises(ValueError, match="cannot read the architecture"):
            parse_architectures(spec)


@pytest.mark.parametrize(
    "capability, expected",
    [
        ((8, 0), "sm_80 machine code"),
        ((8, 6), "sm_80 machine code"),  # same major, later minor
        ((8, 9), "sm_80 machine code"),
        ((9, 0), "sm_90 machine code"),
        ((10, 0), "sm_100 machine code"),
        ((10, 3), "sm_100 machine code"),
        ((12, 0), "compute_100 PTX"),  # later GPUs: the driver compiles the PTX
        ((7, 5), None),  # older than every entry
    ],
)
def test_gpu_support_of_the_wheel(capability, expected):
    how = gpu_support(parse_architectures(WHEEL), capability)
    if expected is None:
        assert how is None
    else:
        assert how is not None and how.startswith(expected)


def test_gpu_support_of_suffixed_and_ptx_only_entries():
    specific = parse_architectures("90a")
    assert gpu_support(specific, (9, 0)) == "sm_90a machine code"
    assert gpu_support(specific, (10, 0)) is None  # an `a` entry runs on that GPU only
    family = parse_architectures("100f-virtual")
    assert gpu_support(family, (10, 3)) is not None
    assert gpu_support(family, (12, 0)) is None  # a family's PTX stays in its major
    ptx_only = parse_architectures("80-virtual")
    assert gpu_support(ptx_only, (8, 0)).startswith("compute_80 PTX")  # type: ignore[union-attr]
    assert gpu_support(ptx_only, (9, 0)).startswith("compute_80 PTX")  # type: ignore[union-attr]
    machine_only = parse_architectures("80-real")
    assert gpu_support(machine_only, (9, 0)) is None  # no PTX: no later major


def test_info_lists_the_architectures_and_how_each_gpu_runs_them(capsys, monkeypatch):
    gpus = [FakeGpu("NVIDIA H200", "9.0")] * 2 + [FakeGpu("NVIDIA RTX PRO 6000", "12.0")]
    out = run_info(capsys, monkeypatch, WHEEL, gpus)
    assert (
        "CUDA architectures: sm_80, sm_90, sm_100 (machine code); "
        "compute_100 (PTX, compiled by the GPU driver for later GPUs)" in out
    )
    assert "NVIDIA H200 x2 (compute capability 9.0): runs the sm_90 machine code" in out
    assert "NVIDIA RTX PRO 6000 (compute capability 12.0): runs the compute_100 PTX" in out
    assert "warning" not in out
    assert "GPU solving: available (3 GPUs)" in out


def test_info_warns_about_a_gpu_the_library_cannot_run_on(capsys, monkeypatch):
    out = run_info(capsys, monkeypatch, WHEEL, [FakeGpu("Tesla T4", "7.5")])
    warning = re.search(r"warning: Tesla T4 \(compute capability 7\.5\) is not among .*", out)
    assert warning is not None, out
    assert "CMAKE_CUDA_ARCHITECTURES=75" in warning[0]
    assert "GPU solving: no (the CUDA library has no code for these GPUs" in out
    # One supported GPU beside it: solving is available, the warning stays.
    gpus = [FakeGpu("Tesla T4", "7.5"), FakeGpu("NVIDIA H200", "9.0")]
    out = run_info(capsys, monkeypatch, WHEEL, gpus)
    assert "warning: Tesla T4" in out and "GPU solving: available (2 GPUs)" in out


def test_info_without_a_gpu_or_a_list(capsys, monkeypatch):
    out = run_info(capsys, monkeypatch, WHEEL, [])
    assert "CUDA architectures: sm_80, sm_90, sm_100 (machine code)" in out
    assert "GPU solving: no (JAX sees no GPU)" in out
    out = run_info(capsys, monkeypatch, None, [FakeGpu("NVIDIA H200", "9.0")])
    assert "CUDA architectures: not listed (a CUDA library older than the list)" in out
    assert "GPU solving: available (1 GPU)" in out
    out = run_info(capsys, monkeypatch, "native", [FakeGpu("NVIDIA H200", "9.0")])
    assert "CUDA architectures: native (as CMake chose them: not checked" in out
    assert "GPU solving: available (1 GPU)" in out


def test_the_installed_cuda_library_lists_its_architectures(capsys):
    """The list the CUDA library exports is CMake's, and every entry parses:
    the real library, where it was built (the wheel has one), and whatever
    GPU this machine has or not."""
    cuda = jaxmatch.backends()["cuda"]
    if cuda is None:
        pytest.skip("the CUDA library was not built")
    spec = info._cuda_architectures(cuda)
    assert spec is not None
    archs = parse_architectures(spec)
    assert archs and all(a.machine_code or a.ptx for a in archs)
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    assert f"CUDA architectures: {info.describe_architectures(archs)}" in out
    gpus = info.gpu_devices()
    if not gpus:
        assert "GPU solving: no (JAX sees no GPU)" in out
    for gpu in gpus:
        capability = info._capability(gpu)
        assert capability is not None
        if gpu_support(archs, capability) is None:
            assert f"warning: {gpu.device_kind}" in out
        else:
            assert re.search(rf"{re.escape(gpu.device_kind)}.*: runs the ", out), out


def test_the_wheel_list_is_cmakes_default():
    """WHEEL above is the list cuda_ffi/CMakeLists.txt builds with nvcc >= 12.8."""
    cmake = (REPO / "cuda_ffi" / "CMakeLists.txt").read_text()
    defaults = re.findall(r'set\(CMAKE_CUDA_ARCHITECTURES "([^"]+)"\)', cmake)
    assert defaults[0].replace(";", ",") == WHEEL


def test_ci_installs_as_the_readme_says():
    """The README's first command is the CPU-only source install, which
    docs/installation.md gives too and .ci/run runs."""
    readme = (REPO / "README.md").read_text()
    first = re.search(r"```bash\n(.*)\n", readme[readme.index("## Installation") :])
    assert first is not None
    assert first[1] == "JAXMATCH_CUDA=OFF pip install ."
    assert first[1] in (REPO / "docs" / "installation.md").read_text()
    assert f"\n{first[1]} && python -m jaxmatch.demo\n" in (REPO / ".ci" / "run").read_text()
