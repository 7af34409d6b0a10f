#!/usr/bin/env bash
# One benchmark family on the GPU machine, from the repository root (no
# network there: carry .whl/ with the peers' wheels and sdists):
#
#     bash benchmarks/run_gpu.sh lap [harness options]
#     bash benchmarks/run_gpu.sh matching --sizes 20 21 --solvers 'jaxmatch-gpu/*/wr/ct,igraph'
#     bash benchmarks/run_gpu.sh weighted --sizes large --device gpu
#
# 1. installs the peers found in .whl/ into $SITE (benchmarks/install_peers.sh);
# 2. builds jaxmatch with its CUDA library into $SITE
#    (pip install --no-build-isolation --no-deps --target $SITE .);
# 3. python -m benchmarks run FAMILY "$@", writing $OUT/FAMILY.json and
#    $OUT/FAMILY.md; the log is $OUT/run.log.  The weighted family is the
#    standalone python -m benchmarks.weighted "$@" (networkit from .whl/),
#    writing $OUT/weighted.json and $OUT/weighted.md.
#
# Environment: OUT (default /tmp/bench), SITE (default /tmp/site), PYTHON,
# DEADLINE (seconds for the whole script: the run gets what setup left, as
# --deadline), SKIP_SETUP=1 (reuse what a previous call installed).
# Never exits non-zero because a solver failed: the JSON records it.

set -u
FAMILY="${1:?usage: run_gpu.sh lap|matching|weighted [options]}"
shift
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
OUTDIR="${OUT:-/tmp/bench}"
mkdir -p "$OUTDIR"
export SITE="${SITE:-/tmp/site}"
export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
PY="${PYTHON:-python3}"
T0=$SECONDS

exec > >(tee -a "$OUTDIR/run.log") 2>&1
echo "== run_gpu.sh $FAMILY $*"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true

if [ "${SKIP_SETUP:-0}" != 1 ]; then
  echo "== setup"
  SKIP_TLC="${SKIP_TLC:-$([ "$FAMILY" = lap ] && echo 0 || echo 1)}" bash benchmarks/install_peers.sh
  t=$SECONDS
  if "$PY" -m pip install -q --no-build-isolation --no-deps --no-index --no-cache-dir \
        --upgrade --target "$SITE" . > "$OUTDIR/jaxmatch_build.log" 2>&1; then
    echo "jaxmatch: built in $((SECONDS - t)) s"
  else
    echo "jaxmatch: BUILD FAILED; tail of $OUTDIR/jaxmatch_build.log:"
    tail -n 40 "$OUTDIR/jaxmatch_build.log"
  fi
fi

args=()
if [ -n "${DEADLINE:-}" ]; then
  left=$(( DEADLINE - (SECONDS - T0) - 15 ))
  [ "$left" -lt 30 ] && left=30
  args+=(--deadline "$left")
fi
echo "== run (t=$((SECONDS - T0)) s)"
if [ "$FAMILY" = weighted ]; then
  "$PY" -m benchmarks.weighted --json "$OUTDIR/weighted.json" "$@" > "$OUTDIR/weighted.md" ||
    echo "benchmark exited with $?"
else
  "$PY" -m benchmarks run "$FAMILY" --out "$OUTDIR/$FAMILY.json" --report-out "$OUTDIR/$FAMILY.md" \
      "${args[@]}" "$@" || echo "benchmark exited with $?"
fi
echo "== done in $((SECONDS - T0)) s; files in $OUTDIR: $(ls "$OUTDIR" | tr '\n' ' ')"
exit 0
