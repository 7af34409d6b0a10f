#!/usr/bin/env bash
# Level-time probe on the GPU machine (tools/mcm_levels.cu): per-level GPU
# time against frontier size and whole stepped solves, by driver, on the
# benchmark's 2^K graphs, original and permuted.  From the repo root:
#   GRAPHS="delaunay:20 delaunay:20:rcp rgg:20:rcp" DRIVERS="apfb apsb hybrid" \
#     bash tools/probe_levels.sh
# Writes $OUT/probe.log.
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
G=${GRAPH_DIR:-/tmp/gbin}  # dumped graphs (reused while the machine stays up)
GRAPHS=${GRAPHS:-"delaunay:20 delaunay:20:rcp rgg:20 rgg:20:rcp kron:20 kron:20:rcp"}
DRIVERS=${DRIVERS:-"apfb apsb hybrid"}
nvcc -O3 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Icuda_ffi tools/mcm_levels.cu \
  cuda_ffi/cuda/mcm_kernels.cu -o /tmp/mcm_levels || exit 1
python3 tools/mcm_dump_graph.py "$G" $GRAPHS > /dev/null || exit 1
for spec in $GRAPHS; do
  IFS=: read -r fam k rcp <<< "$spec"
  name=$(python3 -c "import sys; sys.path.insert(0, 'benchmarks'); from matching_graphs import graph_name; print(graph_name('$fam', $k, '$rcp' == 'rcp'))")
  for d in $DRIVERS; do
    lv=16; [ "$d" = apsb ] && lv=8
    echo "=== $name $d"
    /tmp/mcm_levels "$G/$name.bin" --driver "$d" --levels $lv --repeats ${REPEATS:-5} ${PROFILE:+--profile} | grep -v "^solve [1-9]"
  done
done 2>&1 | tee "$OUT/probe.log"
