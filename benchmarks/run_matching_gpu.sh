#!/usr/bin/env bash
# The maximum-cardinality-matching benchmark in one command, from the
# repository root on the GPU machine (no network there; name .whl in the
# run's carry: it must hold igraph-1.0.0-cp39-abi3-manylinux_2_28_x86_64.whl
# and texttable-1.7.0-py2.py3-none-any.whl):
#
#     bash benchmarks/run_matching_gpu.sh
#     SIZES="23" FAMILIES=delaunay MATCH_ARGS="--scipy-timeout 30" bash benchmarks/run_matching_gpu.sh
#
# 1. setup: install igraph + texttable from .whl into $SITE (only those two:
#           .whl also carries other benchmarks' wheels), and build jaxmatch
#           (CUDA library) into $SITE unless it already imports with CUDA
#           and has max_cardinality_matching.
# 2. bench: benchmarks/matching.py --sizes $SIZES --families $FAMILIES, every
#           solver (jaxmatch GPU variants, the same with XLA command buffers,
#           jaxmatch CPU, igraph, scipy), with a --deadline that ends the run
#           inside TOTAL_BUDGET.
#
# Everything lands in $OUT (the device tool's folder; else /tmp/matchbench):
# run.log, setup.log, jaxmatch_build.log (if built), matching.json,
# matching_report.md. Generated graphs are cached in $CACHE (default
# /tmp/jm_graphs; not in $OUT), reused while the machine stays up.
#
# Environment: SIZES (default "20 21 22 23"), FAMILIES (default
# delaunay,rgg,kron), TOTAL_BUDGET (default 540 s; one device command may run
# 600 s), STAGES (default "setup bench"), MATCH_ARGS (more options for
# matching.py, e.g. "--solvers jaxmatch-gpu,igraph --repeats 5
# --scipy-timeout 30 --permuted rcp"), CACHE, SITE, PYTHON.
# Never exits non-zero because of a failing solver.

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
source benchmarks/build_jaxmatch.sh
ROOT="$(pwd)"
OUTDIR="${OUT:-/tmp/matchbench}"
mkdir -p "$OUTDIR"
export SITE="${SITE:-/tmp/site}"
export PYTHONUNBUFFERED=1
PY="${PYTHON:-python3}"
STAGES="${STAGES:-setup bench}"
TOTAL_BUDGET="${TOTAL_BUDGET:-540}"
SIZES="${SIZES:-20 21 22 23}"
FAMILIES="${FAMILIES:-delaunay,rgg,kron}"
CACHE="${CACHE:-/tmp/jm_graphs}"
T0=$SECONDS
left() { echo $(( TOTAL_BUDGET - (SECONDS - T0) )); }
has() { case " $STAGES " in *" $1 "*) return 0;; esac; return 1; }

exec > >(tee -a "$OUTDIR/run.log") 2>&1
echo "== run_matching_gpu.sh: stages [$STAGES], sizes [$SIZES], families [$FAMILIES], budget ${TOTAL_BUDGET}s, out $OUTDIR"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
echo "cpus $(nproc), $(free -g 2>/dev/null | awk '/Mem:/{print $2" GiB memory, "$7" GiB available"}'), disk /tmp: $(df -h /tmp 2>/dev/null | awk 'NR==2{print $4" free"}')"

export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"

# As matching.py sees it: $SITE first, the checkout last (run from /tmp so that
# the current directory adds nothing).
jaxmatch_ok() {
  (cd /tmp && PYTHONPATH="$PYTHONPATH:$ROOT" "$PY" - <<'PYEOF' 2>&1)
import jax, jaxmatch
from jaxmatch import _lib
ok = bool(_lib.has_cuda())
mcm = hasattr(jaxmatch, "max_cardinality_matching")
print(f"jaxmatch {jaxmatch.__version__} from {jaxmatch.__file__}; CUDA library: {ok}; "
      f"max_cardinality_matching: {mcm}; jax {jax.__version__} backend {jax.default_backend()}")
raise SystemExit(0 if (ok and mcm) else 1)
PYEOF
}

if has setup; then
  echo "== setup (t=$((SECONDS - T0))s)"
  {
    mkdir -p "$SITE"
    wheels=()
    for w in .whl/igraph-*.whl .whl/texttable-*.whl; do [ -f "$w" ] && wheels+=("$w"); done
    if [ ${#wheels[@]} -gt 0 ]; then
      if "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
            --upgrade --target "$SITE" "${wheels[@]}"; then
        echo "wheels: OK (${wheels[*]})"
      else
        echo "wheels: FAILED (pip install --target $SITE ${wheels[*]})"
      fi
    else
      echo "wheels: none (.whl/igraph-*.whl, .whl/texttable-*.whl; name .whl in the run's carry); igraph will be reported as an error"
    fi
    (cd /tmp && "$PY" -c "import igraph, scipy, numpy; print('igraph', igraph.__version__, '| scipy', scipy.__version__, '| numpy', numpy.__version__)") \
      || echo "igraph: NOT importable"
    build_jaxmatch_if_needed
  } 2>&1 | tee "$OUTDIR/setup.log"
fi

if has bench; then
  dl=$(( $(left) - 20 ))
  [ "$dl" -lt 30 ] && dl=30
  echo "== bench (t=$((SECONDS - T0))s, deadline ${dl}s)"
  set -f  # MATCH_ARGS may hold solver patterns such as 'jaxmatch-gpu/apfb/*'
  # shellcheck disable=SC2086
  "$PY" benchmarks/matching.py --sizes $SIZES --families "$FAMILIES" --cache "$CACHE" \
      --deadline "$dl" --out "$OUTDIR/matching.json" --report-out "$OUTDIR/matching_report.md" \
      $MATCH_ARGS || echo "matching.py exited with $?"
  set +f
fi
echo "== done in $((SECONDS - T0)) s; files in $OUTDIR: $(ls "$OUTDIR" | tr '\n' ' ')"
exit 0
