#!/usr/bin/env bash
# Installs the benchmarks' peer solvers on the GPU machine (no network there),
# from what .whl/ carries, into $SITE (default /tmp/site); run_gpu.sh calls it.
#   .whl/lap-0.5.13-cp312-...whl                   lap.lapjv (C++, cp312 wheel)
#   .whl/torch_linear_assignment-0.1.0-py3-none-any.whl   pure Python + Triton
#   .whl/igraph-1.0.0-cp39-abi3-manylinux_2_28_x86_64.whl and
#   .whl/texttable-1.7.0-py2.py3-none-any.whl      igraph (matching)
#   .whl/src/torch_lap_cuda-0.0.3.tar.gz           built here by build_torch_lap_cuda.sh
#   .whl/networkit-11.3-cp312-...manylinux_2_28_x86_64.whl and
#   .whl/tabulate-*-py3-none-any.whl               networkit (weighted matching)
# Then reports which peers import. Never fails the calling command.
#
#     bash benchmarks/install_peers.sh && export PYTHONPATH=/tmp/site
#
# SKIP_TLC=1 skips the torch-lap-cuda build (about a minute of nvcc).

_peers_main() {
  local root site py
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  site="${SITE:-/tmp/site}"
  py="${PYTHON:-python3}"
  cd "$root" || return 0
  mkdir -p "$site"

  if ls .whl/*.whl >/dev/null 2>&1; then
    if "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
          --upgrade --target "$site" .whl/*.whl; then
      echo "wheels: OK ($(ls .whl/*.whl | xargs -n1 basename | tr '\n' ' '))"
    else
      echo "wheels: FAILED (pip install --target $site .whl/*.whl)"
    fi
  else
    echo "wheels: none (no .whl/*.whl; carry .whl for the peers)"
  fi

  if [ "${SKIP_TLC:-0}" = 1 ]; then
    echo "torch-lap-cuda: skipped (SKIP_TLC=1)"
  else
    SITE="$site" PYTHON="$py" bash "$root/benchmarks/build_torch_lap_cuda.sh" || true
  fi

  echo "peer imports (PYTHONPATH=$site):"
  PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" "$py" - <<'PYEOF' || echo "  (import check itself failed)"
import importlib, warnings
warnings.simplefilter("ignore")
def check(name, extra=None):
    try:
        m = importlib.import_module(name)
        info = getattr(m, "__version__", "") or ""
        if extra:
            info = (info + " " + extra(m)).strip()
        print(f"  {name:26s} OK   {info}  ({getattr(m, '__file__', '')})")
    except Exception as e:  # noqa: BLE001
        print(f"  {name:26s} FAIL {type(e).__name__}: {e}")

def tla_backend(m):
    import torch
    from torch_linear_assignment import assignment as a
    if not torch.cuda.is_available():
        return "[no CUDA]"
    c = torch.rand(2, 8, 8, device="cuda")
    return "[triton backend]" if a._cuda_uses_triton(c) else "[WOULD FALL BACK TO SCIPY]"

for name, extra in [("scipy", None), ("lap", None), ("optax", None), ("torch", None),
                    ("triton", None), ("torch_linear_assignment", tla_backend),
                    ("torch_lap_cuda", None), ("igraph", None), ("jax", None)]:
    check(name, extra)
PYEOF
  return 0
}

_peers_main "$@" || true
true
