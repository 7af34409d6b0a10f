#!/usr/bin/env bash
# Level-time probe on the GPU machine (tools/mcm_levels.cu): per-level GPU
# time against frontier size and whole stepped solves, by driver, on the
# matching benchmark's 2^K graphs, original and permuted.  From the repo root
# (MCM_LEVELS names a built mcm_levels binary; without it, CMake builds one):
#   GRAPHS="delaunay:20 delaunay:20:rcp rgg:20:rcp" \
#     DRIVERS="apfb apsb hybrid" bash tools/probe_levels.sh
# PROFILE=1 adds the per-level and per-phase profile; CARRY=1 also solves each
# permuted graph from its original's cheap matching carried through the
# permutation (the same matching, relabelled).  Writes $OUT/probe.log.
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
G=${GRAPH_DIR:-/tmp/gbin}  # dumped graphs (reused while the machine stays up)
GRAPHS=${GRAPHS:-"delaunay:20 delaunay:20:rcp rgg:20 rgg:20:rcp kron:20 kron:20:rcp"}
DRIVERS=${DRIVERS:-"apfb apsb hybrid"}
BIN=${MCM_LEVELS:-}
if [ -z "$BIN" ]; then
  cmake -S cuda_ffi -B /tmp/jm_harness -G Ninja -DJAXMATCH_BUILD_HARNESSES=ON \
    -DXLA_FFI_INCLUDE_DIR="$(python3 -c 'import jax.ffi; print(jax.ffi.include_dir())')" > /dev/null &&
    cmake --build /tmp/jm_harness --target mcm_levels > /dev/null || exit 1
  BIN=/tmp/jm_harness/mcm_levels
fi
name_of() {  # family K [rcp]
  python3 -c "from benchmarks.matching.graphs import graph_name; print(graph_name('$1', $2, '$3' == 'rcp'))"
}
dump=$GRAPHS
if [ -n "${CARRY:-}" ]; then  # the originals too
  for spec in $GRAPHS; do case $spec in *:rcp) dump="$dump ${spec%:rcp}";; esac; done
fi
python3 tools/mcm_dump_graph.py "$G" $(printf '%s\n' $dump | sort -u) > /dev/null || exit 1
for spec in $GRAPHS; do
  IFS=: read -r fam k rcp <<< "$spec"
  name=$(name_of "$fam" "$k" "$rcp")
  for d in $DRIVERS; do
    lv=16; [ "$d" = apsb ] && lv=8
    echo "=== $name $d"
    "$BIN" "$G/$name.bin" --driver "$d" --levels $lv --repeats ${REPEATS:-5} ${PROFILE:+--profile} | grep -v "^solve [1-9]"
    if [ -n "${CARRY:-}" ] && [ "$rcp" = rcp ]; then
      echo "=== $name $d, from the original's cheap matching"
      "$BIN" "$G/$name.bin" --carry "$G/$(name_of "$fam" "$k").bin" "$G/$name.perm.bin" \
        --driver "$d" --levels $lv --repeats ${REPEATS:-5} ${PROFILE:+--profile} | grep -v "^solve [1-9]"
    fi
  done
done 2>&1 | tee "$OUT/probe.log"
