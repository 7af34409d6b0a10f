#!/usr/bin/env bash
# One GPU session: build, GPU test suite, sanitizers, tuning timings.
# Knobs: TEST_TIMEOUT, TEST_ARGS, SAN_TIMEOUT, SANITIZERS (memcheck ...),
# WORKLOADS (lap matching), TUNE (matching; add lap), TUNE_TIMEOUT, TUNE_ARGS.
# Run from the repo root on the device machine; logs go to $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
nvidia-smi -L
echo "== build"; t0=$(date +%s)
python3 -m pip install -q --no-build-isolation --no-deps . > "$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
(cd /tmp && python3 -c "import jaxmatch, jaxmatch._lib as l; print('cuda lib:', l.has_cuda())")
echo "== GPU test suite"
(cd tests && JAXMATCH_REQUIRE_GPU=1 timeout ${TEST_TIMEOUT:-240} python3 -m pytest -q -p no:cacheprovider ${TEST_ARGS:--m gpu} . 2>&1 | tee "$OUT/pytest.log" | tail -15)
echo "== sanitizers on the standalone kernel harness"
nvcc -O2 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Icuda_ffi tools/lap_harness.cu \
  cuda_ffi/cuda/lap_kernels.cu -o /tmp/lap_harness > "$OUT/harness_build.log" 2>&1 || tail "$OUT/harness_build.log"
/tmp/lap_harness | tail -3
for tool in memcheck racecheck synccheck initcheck; do
  timeout ${SAN_TIMEOUT:-150} compute-sanitizer --tool $tool --error-exitcode 9 /tmp/lap_harness $([ $tool = racecheck ] && echo quick) > "$OUT/harness_$tool.log" 2>&1
  echo "harness $tool exit $? : $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|lap_harness' "$OUT/harness_$tool.log" | tr '\n' ' ')"
done
echo "== sanitizers on the JAX workloads"
export XLA_PYTHON_CLIENT_ALLOCATOR=platform
for workload in ${WORKLOADS:-lap matching}; do
  for tool in ${SANITIZERS:-memcheck}; do
    timeout ${SAN_TIMEOUT:-150} compute-sanitizer --tool $tool --error-exitcode 9 \
      python3 tools/sanitize_$workload.py > "$OUT/sanitizer_${workload}_$tool.log" 2>&1
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
