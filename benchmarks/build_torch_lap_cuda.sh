#!/usr/bin/env bash
# Builds and installs torch-lap-cuda (HyLAC block LAP, a CUDA torch extension)
# from the sdist carried in .whl/src/, against the torch of the machine it runs
# on. Run from the repository root on the GPU machine:
#
#     bash benchmarks/build_torch_lap_cuda.sh          # installs into /tmp/site
#
# torch-lap-cuda 0.0.3 does not compile with CUDA 13 as published: CCCL 3
# removed cub::Max / cub::Min, which csrc/LAP/lap_kernels.cuh uses in three
# cub::BlockReduce calls. The script patches them to cuda::maximum<>() /
# cuda::minimum<>() (from <cuda/functional>), builds for sm_90 only, and
# installs. It prints "torch-lap-cuda: OK" or "torch-lap-cuda: FAILED (...)" and
# always exits 0, so a caller's `set -e` is never tripped by it.
#
# Environment: SITE (default /tmp/site) is the --target directory;
# TLC_ARCH (default 90) the compute capability to build for;
# TLC_WORK (default /tmp/torch_lap_cuda_build) the scratch directory.

_tlc_main() {
  local root sdist site work arch py src log
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  site="${SITE:-/tmp/site}"
  work="${TLC_WORK:-/tmp/torch_lap_cuda_build}"
  arch="${TLC_ARCH:-90}"
  py="${PYTHON:-python3}"

  sdist="$(ls "$root"/.whl/src/torch_lap_cuda-*.tar.gz 2>/dev/null | head -n 1)"
  if [ -z "$sdist" ]; then
    echo "torch-lap-cuda: FAILED (no sdist in $root/.whl/src/; was .whl carried?)"
    return 0
  fi
  if ! command -v nvcc >/dev/null 2>&1 && [ ! -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
    echo "torch-lap-cuda: FAILED (nvcc not found)"
    return 0
  fi

  rm -rf "$work" && mkdir -p "$work" || { echo "torch-lap-cuda: FAILED (cannot create $work)"; return 0; }
  tar xzf "$sdist" -C "$work" || { echo "torch-lap-cuda: FAILED (cannot unpack $sdist)"; return 0; }
  src="$(ls -d "$work"/torch_lap_cuda-*/ | head -n 1)"
  src="${src%/}"
  log="$work/build.log"
  echo "torch-lap-cuda: building $(basename "$sdist") in $src (log: $log)"

  # --- patch -------------------------------------------------------------
  if ! "$py" - "$src" "$arch" <<'PYEOF'
import pathlib, re, sys

src = pathlib.Path(sys.argv[1])
arch = sys.argv[2]
n_sub = 0
for path in sorted(src.joinpath("csrc").rglob("*")):
    if path.suffix not in (".cu", ".cuh", ".h", ".hpp", ".cpp"):
        continue
    text = path.read_text()
    new, k1 = re.subn(r"\bcub::Max\s*\(\s*\)", "cuda::maximum<>()", text)
    new, k2 = re.subn(r"\bcub::Min\s*\(\s*\)", "cuda::minimum<>()", new)
    if k1 + k2 == 0:
        continue
    if "#include <cuda/functional>" not in new:
        if "#include <cub/cub.cuh>" in new:
            new = new.replace("#include <cub/cub.cuh>",
                              "#include <cub/cub.cuh>\n#include <cuda/functional>", 1)
        elif "#pragma once" in new:
            new = new.replace("#pragma once", "#pragma once\n#include <cuda/functional>", 1)
        else:
            new = "#include <cuda/functional>\n" + new
    path.write_text(new)
    n_sub += k1 + k2
    print(f"  patched {path.relative_to(src)}: {k1} x cub::Max(), {k2} x cub::Min()")

left = [str(p.relative_to(src)) for p in src.joinpath("csrc").rglob("*")
        if p.is_file() and re.search(r"\bcub::(Max|Min)\s*\(", p.read_text(errors="ignore"))]
if left:
    sys.exit(f"cub::Max/Min still used in {left}")
print(f"  {n_sub} cub::Max/Min call(s) replaced")

# setup.py always adds -gencode for sm_75 on top of torch_lap_cuda_ARCHS;
# drop it so only the requested arch is compiled (halves the build time).
setup = src / "setup.py"
s = setup.read_text()
s2 = re.sub(r'nvcc_flags\.append\("-gencode"\)\s*\nnvcc_flags\.append\(f"arch=compute_\{75\},code=sm_\{75\}"\)\s*\n',
            "", s)
if s2 != s:
    print("  setup.py: dropped the hard-coded sm_75 target")
setup.write_text(s2)

# pyproject's `license = {file = ...}` table is deprecated in recent
# setuptools (an error when deprecations are enforced); it is metadata only.
pp = src / "pyproject.toml"
p = pp.read_text()
p2 = re.sub(r"(?m)^license\s*=\s*\{[^}]*\}\s*$\n?", "", p)
if p2 != p:
    print("  pyproject.toml: dropped the deprecated license table")
pp.write_text(p2)
PYEOF
  then
    echo "torch-lap-cuda: FAILED (patch step)"
    return 0
  fi

  # --- build + install ---------------------------------------------------
  export TORCH_CUDA_ARCH_LIST="${arch:0:1}.${arch:1}"
  export torch_lap_cuda_ARCHS="$arch"
  export MAX_JOBS="${MAX_JOBS:-16}"
  export NVCC_THREADS="${NVCC_THREADS:-4}"
  if [ -z "${CUDA_HOME:-}" ]; then
    # /usr/local/cuda first; else the toolkit of the nvcc on PATH (which may
    # be a wrapper script, so ask it: `nvcc -dryrun` prints its TOP directory).
    local d cand=""
    for d in /usr/local/cuda /usr/local/cuda-13.0; do
      if [ -f "$d/bin/nvcc" ] && [ -d "$d/include" ]; then cand="$d"; break; fi
    done
    if [ -z "$cand" ] && command -v nvcc >/dev/null 2>&1; then
      cand="$(cd /tmp && nvcc -dryrun -E -x cu /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n 1)"
      [ -n "$cand" ] && cand="$(cd "$cand" && pwd -P)"
      [ -n "$cand" ] || cand="$(cd "$(dirname "$(readlink -f "$(command -v nvcc)")")/.." && pwd)"
    fi
    [ -n "$cand" ] && export CUDA_HOME="$cand"
  fi
  # setup.py links with -lcuda, which needs an unversioned libcuda.so; a
  # driver mount may only hold libcuda.so.1. Offer one through LIBRARY_PATH.
  local libcuda="" libdir="$work/libcuda"
  for d in "${CUDA_HOME:-/usr/local/cuda}/lib64/stubs" "${CUDA_HOME:-/usr/local/cuda}/targets/x86_64-linux/lib/stubs"; do
    [ -f "$d/libcuda.so" ] && export LIBRARY_PATH="${LIBRARY_PATH:+$LIBRARY_PATH:}$d"
  done
  libcuda="$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/{print $NF; exit}')"
  if [ -z "$libcuda" ]; then
    libcuda="$(find /usr/local/nvidia /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib/wsl/lib \
                 -maxdepth 3 -name 'libcuda.so.1' 2>/dev/null | head -n 1)"
  fi
  if [ -n "$libcuda" ]; then
    mkdir -p "$libdir" && ln -sf "$libcuda" "$libdir/libcuda.so"
    export LIBRARY_PATH="$libdir${LIBRARY_PATH:+:$LIBRARY_PATH}"
  else
    echo "  note: no libcuda.so.1 found for -lcuda; the link may fail"
  fi
  echo "  TORCH_CUDA_ARCH_LIST=$TORCH_CUDA_ARCH_LIST CUDA_HOME=${CUDA_HOME:-?} libcuda=${libcuda:-none}"

  local t0=$SECONDS ok=0 where=""
  mkdir -p "$site"
  if "$py" -m pip install --no-build-isolation --no-deps --no-index --no-cache-dir \
        --target "$site" "$src" >"$log" 2>&1; then
    ok=1; where="$site"
  else
    echo "  pip install --target $site failed (tail of log below); trying the default site"
    tail -n 30 "$log" | sed 's/^/    | /'
    if "$py" -m pip install --no-build-isolation --no-deps --no-index --no-cache-dir \
          "$src" >>"$log" 2>&1; then
      ok=1; where="default site-packages"
    fi
  fi
  if [ "$ok" != 1 ]; then
    echo "  build log tail:"
    grep -E "error|Error" "$log" | head -n 20 | sed 's/^/    | /'
    tail -n 30 "$log" | sed 's/^/    | /'
    echo "torch-lap-cuda: FAILED (build/install, $((SECONDS - t0)) s; see $log)"
    return 0
  fi

  # --- smoke test ----------------------------------------------------------
  if PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" "$py" - <<'PYEOF' >>"$log" 2>&1
import torch
from torch_lap_cuda import solve_lap
from scipy.optimize import linear_sum_assignment
C = torch.rand(4, 64, 64, device="cuda")
a = solve_lap(C).cpu().numpy()
Cn = C.cpu().numpy()
for b in range(4):
    r, c = linear_sum_assignment(Cn[b])
    got = Cn[b][range(64), a[b]].sum()
    assert sorted(a[b].tolist()) == list(range(64)), "not a permutation"
    assert abs(got - Cn[b][r, c].sum()) <= 1e-4 * max(1.0, abs(got)), (got, Cn[b][r, c].sum())
print("smoke OK")
PYEOF
  then
    echo "torch-lap-cuda: OK (installed into $where in $((SECONDS - t0)) s; smoke test passed)"
  else
    tail -n 15 "$log" | sed 's/^/    | /'
    echo "torch-lap-cuda: FAILED (installed into $where but the smoke test failed; see $log)"
  fi
  return 0
}

_tlc_main "$@" || true
true
