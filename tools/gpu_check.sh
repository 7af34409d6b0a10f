#!/usr/bin/env bash
# The GPU test suite in parallel shards against libraries built beforehand,
# so a short device lease spends no time compiling.
#
# Here (nvcc, no GPU needed), once per change of the CUDA sources:
#     cmake -S cuda_ffi -B .devbuild -G Ninja -DJAXMATCH_BUILD_HARNESSES=ON \
#       -DCMAKE_CUDA_ARCHITECTURES=90-real \
#       -DXLA_FFI_INCLUDE_DIR="$(python -c 'import jax.ffi; print(jax.ffi.include_dir())')"
#     cmake --build .devbuild
# On the device machine, from the repository root, carrying .devbuild:
#     bash tools/gpu_check.sh 'tests/lap tests/test_abi.py' 'tests/weighted' ...
# Each argument is one pytest shard (files or folders, run with -m gpu);
# the shards run at once, each with its log in $OUT/shard<i>.log.
# Knobs: PREBUILT (default .devbuild), TEST_TIMEOUT (default 500 s),
# PYTEST_ARGS (default "-m gpu").
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
root=$(pwd)
prebuilt=$(cd "${PREBUILT:-.devbuild}" && pwd) || exit 1
export JAXMATCH_LIB_DIR=$prebuilt JAXMATCH_HARNESS_DIR=$prebuilt
export PYTHONPATH=$root${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
export JAXMATCH_REQUIRE_GPU=1 XLA_PYTHON_CLIENT_PREALLOCATE=false
nvidia-smi -L
python3 -c "import jaxmatch._ffi as f; print('cuda library:', f.has_cuda())"
pids=()
i=0
for shard in "$@"; do
  i=$((i + 1))
  # shellcheck disable=SC2086
  timeout "${TEST_TIMEOUT:-500}" python3 -m pytest -q -p no:cacheprovider \
    ${PYTEST_ARGS:--m gpu} $shard > "$OUT/shard$i.log" 2>&1 &
  pids+=($!)
done
status=0
i=0
for pid in "${pids[@]}"; do
  i=$((i + 1))
  wait "$pid" || status=1
  echo "== shard $i: $(tail -n 1 "$OUT/shard$i.log")"
  grep -E "^(FAILED|ERROR) " "$OUT/shard$i.log" | head -20
done
exit $status
