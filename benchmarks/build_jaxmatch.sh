# Sourced by run_gpu.sh and run_matching_gpu.sh (from the repository root).
# build_jaxmatch_if_needed: builds jaxmatch (CUDA library) into $SITE with
# $PY, logging to $OUTDIR/jaxmatch_build.log, unless SKIP_JAXMATCH_BUILD=1 or
# the caller's jaxmatch_ok says the installed one is usable.
build_jaxmatch_if_needed() {
  if [ "${SKIP_JAXMATCH_BUILD:-0}" != 1 ] && ! jaxmatch_ok; then
    echo "jaxmatch: building the CUDA library (pip install --no-build-isolation --target $SITE .)"
    t=$SECONDS
    if "$PY" -m pip install -q --no-build-isolation --no-deps --no-index --no-cache-dir \
          --upgrade --target "$SITE" . > "$OUTDIR/jaxmatch_build.log" 2>&1; then
      echo "jaxmatch: built in $((SECONDS - t)) s"
    else
      echo "jaxmatch: BUILD FAILED ($((SECONDS - t)) s); tail:"
      tail -n 40 "$OUTDIR/jaxmatch_build.log"
    fi
  fi
  jaxmatch_ok || echo "jaxmatch: NOT usable on the GPU (the runs will record the error)"
}
