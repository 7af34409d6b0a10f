#!/usr/bin/env bash
# Tests an installed wheel, not the source tree: installs WHEEL without
# network into a fresh venv, checks that `import jaxmatch` is that install
# (its libraries too, not JAXMATCH_LIB_DIR's), then runs `jaxmatch info`, the
# demo, tests/test_wheel_info.py and the test suite against it.
#
#   tools/test_wheel.sh WHEEL [SRC.tar.gz]
#
# The tests are those of SRC.tar.gz (`git archive --format=tar.gz` of the
# wheel's commit) when given, else this checkout's. GPU=1 runs the GPU suite
# (`-m gpu`, JAXMATCH_REQUIRE_GPU=1, 10 workers) and then shows the error of a
# GPU the library has no code for (CUDA_FORCE_PTX_JIT=1 hides the machine
# code, and the compute_100 PTX is too new for a 9.0 GPU); otherwise the
# README's test command runs (`pytest -q tests`). Logs in $OUT (default
# /tmp/out).
set -uo pipefail
unset JAXMATCH_LIB_DIR  # the wheel's own libraries, not a build folder's
[ $# -ge 1 ] || { echo "usage: $0 WHEEL [SRC.tar.gz]"; exit 2; }
wheel=$(realpath "$1")
src=${2:+$(realpath "$2")}
tree=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
echo "wheel: $wheel ($(du -h "$wheel" | cut -f1))"

venv=/tmp/jaxmatch-wheel-venv
rm -rf "$venv"
t0=$(date +%s%N)
python3 -m venv --system-site-packages "$venv" || exit 1
py="$venv/bin/python"
# The python3 running this may itself be a venv, whose packages (jax among
# them) --system-site-packages does not show: its site-packages go on the
# new venv's path, after the venv's own.
parent=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$parent" > "$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/parent-site.pth"
"$py" -m pip install -q --no-deps --no-index "$wheel" || exit 1
echo "installed in $((($(date +%s%N) - t0) / 1000000)) ms (venv included)"

cd /tmp || exit 1 # nowhere near a source tree
"$py" - "$venv" << 'PY' || exit 1
import sys
import jaxmatch
venv = sys.argv[1]
print("jaxmatch from", jaxmatch.__file__)
assert jaxmatch.__file__.startswith(venv), "not the installed wheel"
libs = jaxmatch.backends()
print("libraries:", libs)
assert all(p is None or p.startswith(venv) for p in libs.values()), libs
PY
"$py" -m jaxmatch info 2>&1 | tee "$OUT/info.log"
"$py" -m jaxmatch.demo 2>&1 | tee "$OUT/demo.log" | tail -15

if [ -n "$src" ]; then
  tree=/tmp/jaxmatch-wheel-src
  rm -rf "$tree" && mkdir -p "$tree" && tar -xzf "$src" -C "$tree"
  echo "tests of the wheel's commit: $(basename "$src")"
fi
cd "$tree/tests" || exit 1 # tests/ on sys.path, the repository root not
"$py" -c "import jaxmatch; print('tests import', jaxmatch.__file__)"
echo "== tests/test_wheel_info.py"
"$py" -m pytest -q -p no:cacheprovider test_wheel_info.py 2>&1 | tail -3
if [ -z "${GPU:-}" ]; then
  echo "== the test suite"
  "$py" -m pytest -q -p no:cacheprovider . 2>&1 | tee "$OUT/pytest.log" | tail -5
  exit "${PIPESTATUS[0]}"
fi
echo "== the GPU suite"
XLA_PYTHON_CLIENT_PREALLOCATE=false NCCL_NVLS_ENABLE=0 JAXMATCH_REQUIRE_GPU=1 \
  "$py" -m pytest -q -m gpu -n 10 --timeout 400 -p no:cacheprovider . 2>&1 |
  tee "$OUT/pytest_gpu.log" | tail -5
status=${PIPESTATUS[0]}
echo "== a GPU the library has no code for"
cd /tmp && CUDA_FORCE_PTX_JIT=1 timeout 300 "$py" -c "
import numpy as np, jax, jaxmatch
C = jax.device_put(np.random.default_rng(0).random((64, 64)), jax.devices('gpu')[0])
print('solved?!', jaxmatch.solve_lap(C).status)
" 2>&1 | tail -1
exit "$status"
