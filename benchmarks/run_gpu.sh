#!/usr/bin/env bash
# The whole GPU benchmark in one command, from the repository root on the GPU
# machine (no network there; name .whl in the run's carry):
#
#     bash benchmarks/run_gpu.sh
#
# 1. setup : install the carried peers (benchmarks/install_peers.sh: lap,
#            torch-linear-assignment, and a build of torch-lap-cuda), and build
#            jaxmatch (CUDA library) into $SITE unless it already imports with it.
# 2. plain : benchmarks/lap.py --peers --tag plain        (jaxmatch + every peer)
# 3. cmdbuf: the same for jaxmatch alone (--jaxmatch-only drops any peer that
#            LAP_ARGS' --solvers names), with XLA command buffers (CUDA graphs)
#            for fusions, custom calls, while and conditional:
#            XLA_FLAGS="--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL,WHILE,CONDITIONAL
#                       --xla_gpu_graph_min_graph_size=1"
# 4. report: benchmarks/report.py -> report.md (one table, both runs)
#
# Everything lands in $OUT (the device tool's folder; else /tmp/lapbench):
# setup.log, lap_plain.json, lap_cmdbuf.json, report.md, run.log.
# STAGES (default "setup plain cmdbuf report") picks stages; TOTAL_BUDGET
# (default 560 s) bounds the whole script: each benchmark run gets a --deadline
# so the command ends in time, CMDBUF_RESERVE (default 150 s) is kept for the
# cmdbuf run. LAP_ARGS adds options to both runs (e.g. "--repeats 10").
# Never exits non-zero because of a failing solver.

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
source benchmarks/build_jaxmatch.sh
ROOT="$(pwd)"
OUTDIR="${OUT:-/tmp/lapbench}"
mkdir -p "$OUTDIR"
export SITE="${SITE:-/tmp/site}"
export PYTHONUNBUFFERED=1
PY="${PYTHON:-python3}"
STAGES="${STAGES:-setup plain cmdbuf report}"
TOTAL_BUDGET="${TOTAL_BUDGET:-560}"
CMDBUF_RESERVE="${CMDBUF_RESERVE:-150}"
CMDBUF_FLAGS="--xla_gpu_enable_command_buffer=FUSION,CUSTOM_CALL,WHILE,CONDITIONAL --xla_gpu_graph_min_graph_size=1"
T0=$SECONDS
left() { echo $(( TOTAL_BUDGET - (SECONDS - T0) )); }
has() { case " $STAGES " in *" $1 "*) return 0;; esac; return 1; }

exec > >(tee -a "$OUTDIR/run.log") 2>&1
echo "== run_gpu.sh: stages [$STAGES], budget ${TOTAL_BUDGET}s, out $OUTDIR"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true

export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"

# As lap.py sees it: $SITE first, the checkout last (run from /tmp so that the
# current directory adds nothing).
jaxmatch_ok() {
  (cd /tmp && PYTHONPATH="$PYTHONPATH:$ROOT" "$PY" - <<'PYEOF' 2>&1)
import jax, jaxmatch
from jaxmatch import _lib
ok = bool(_lib.has_cuda())
print(f"jaxmatch {jaxmatch.__version__} from {jaxmatch.__file__}; CUDA library: {ok}; "
      f"jax {jax.__version__} backend {jax.default_backend()}")
raise SystemExit(0 if ok else 1)
PYEOF
}

if has setup; then
  echo "== setup (t=$((SECONDS - T0))s)"
  {
    bash benchmarks/install_peers.sh
    build_jaxmatch_if_needed
  } 2>&1 | tee "$OUTDIR/setup.log"
fi

if has plain; then
  reserve=0; has cmdbuf && reserve=$CMDBUF_RESERVE
  dl=$(( $(left) - reserve - 15 ))
  [ "$dl" -lt 30 ] && dl=30
  echo "== plain run with peers (t=$((SECONDS - T0))s, deadline ${dl}s)"
  "$PY" benchmarks/lap.py --peers --tag plain --out "$OUTDIR/lap_plain.json" \
      --deadline "$dl" $LAP_ARGS || echo "plain run exited with $?"
fi

if has cmdbuf; then
  dl=$(( $(left) - 15 ))
  [ "$dl" -lt 30 ] && dl=30
  echo "== cmdbuf run, jaxmatch only (t=$((SECONDS - T0))s, deadline ${dl}s)"
  XLA_FLAGS="${XLA_FLAGS:+$XLA_FLAGS }$CMDBUF_FLAGS" \
    "$PY" benchmarks/lap.py --tag cmdbuf --out "$OUTDIR/lap_cmdbuf.json" \
      --deadline "$dl" $LAP_ARGS --jaxmatch-only || echo "cmdbuf run exited with $?"
fi

if has report; then
  echo "== report (t=$((SECONDS - T0))s)"
  files=()
  for f in "$OUTDIR/lap_plain.json" "$OUTDIR/lap_cmdbuf.json"; do [ -f "$f" ] && files+=("$f"); done
  if [ ${#files[@]} -gt 0 ]; then
    "$PY" benchmarks/report.py "${files[@]}" -o "$OUTDIR/report.md" || echo "report failed"
  else
    echo "no JSON to report"
  fi
fi
echo "== done in $((SECONDS - T0)) s; files in $OUTDIR: $(ls "$OUTDIR" | tr '\n' ' ')"
exit 0
