#!/usr/bin/env bash
# One GPU session: build, GPU test suite, sanitizers, tuning timings.
# Knobs: TEST_TIMEOUT, TEST_ARGS, SAN_TIMEOUT, SANITIZERS (memcheck ...),
# WORKLOADS (lap lap-jv sparse-lap matching weighted), TUNE (matching; add
# lap), TUNE_TIMEOUT, TUNE_ARGS, HARNESS_TOOLS (compute-sanitizer tools for
# the CMake-built kernel harnesses; the GPU suite already runs them under
# memcheck). compute-sanitizer runs under `timeout --foreground`: started
# by a plain `timeout` (in a background process group) it segfaulted at
# start on the H100 machine (2026-11-27).
# Run from the repo root on the device machine; logs go to $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi -L
echo "== build"; t0=$(date +%s)
python3 -m pip install -q --no-build-isolation --no-deps . > "$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
(cd /tmp && python3 -c "import jaxmatch, jaxmatch._ffi as l; print('cuda lib:', l.has_cuda())")
echo "== GPU test suite"
(cd tests && JAXMATCH_REQUIRE_GPU=1 timeout ${TEST_TIMEOUT:-420} python3 -m pytest -q -p no:cacheprovider ${TEST_ARGS:--m gpu} . 2>&1 | tee "$OUT/pytest.log" | tail -15)
echo "== kernel harnesses under ${HARNESS_TOOLS:-racecheck synccheck initcheck}"
BUILD=/tmp/jm_harness
cmake -S cuda_ffi -B $BUILD -G Ninja -DJAXMATCH_BUILD_HARNESSES=ON \
  -DXLA_FFI_INCLUDE_DIR="$(python3 -c 'import jax.ffi; print(jax.ffi.include_dir())')" > "$OUT/harness_build.log" 2>&1 &&
  cmake --build $BUILD >> "$OUT/harness_build.log" 2>&1 || { tail -30 "$OUT/harness_build.log"; exit 1; }
for harness in lap_kernel_harness matching_kernel_harness weighted_kernel_harness \
               b_matching_kernel_harness kbest_kernel_harness; do
  for tool in ${HARNESS_TOOLS:-racecheck synccheck initcheck}; do
    arg=$(case $harness in lap_* | b_matching_* | kbest_*) echo quick ;; esac)
    JAXMATCH_HARNESS_HANG_S=120 timeout --foreground ${SAN_TIMEOUT:-150} compute-sanitizer --tool $tool --error-exitcode 9 $BUILD/$harness $arg > "$OUT/${harness}_$tool.log" 2>&1
    echo "$harness $tool exit $? : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|harness:' "$OUT/${harness}_$tool.log" | tr '\n' ' ')"
  done
done
echo "== sanitizers on the JAX workloads"
export XLA_PYTHON_CLIENT_ALLOCATOR=platform
for workload in ${WORKLOADS:-lap lap-jv sparse-lap matching weighted}; do
  for tool in ${SANITIZERS:-memcheck}; do
    timeout --foreground ${SAN_TIMEOUT:-150} compute-sanitizer --tool $tool --error-exitcode 9 \
      python3 tools/sanitize.py $workload > "$OUT/sanitizer_${workload}_$tool.log" 2>&1
    echo "$workload $tool exit $? : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|failed' "$OUT/sanitizer_${workload}_$tool.log" | tr '\n' ' ')"
  done
done
unset XLA_PYTHON_CLIENT_ALLOCATOR
for tune in ${TUNE:-matching}; do
  echo "== tuning $tune (default flags)"
  timeout ${TUNE_TIMEOUT:-150} python3 tools/tune_$tune.py ${TUNE_ARGS:-} 2>&1 | tee "$OUT/tune_${tune}_default.log"
  echo "== tuning $tune (command-buffer flags)"
  XLA_FLAGS="--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL,WHILE,CONDITIONAL --xla_gpu_graph_min_graph_size=1" \
    timeout ${TUNE_TIMEOUT:-150} python3 tools/tune_$tune.py ${TUNE_ARGS:-} 2>&1 | tee "$OUT/tune_${tune}_cmdbuf.log"
done
