#!/usr/bin/env bash
# Builds lap-solver's own GPU benchmark, test_gpu (Guthe and Thuerck, ACM
# TOMS Algorithm 1015, github.com/sguthe/lap-solver), from a checkout of its
# repository, for comparing with jaxmatch on the same machine:
#
#     bash benchmarks/build_lap_solver.sh /path/to/lap-solver /tmp/lap_solver_build
#     /tmp/lap_solver_build/test_gpu -memory 34359738368 -table_min 4096 \
#         -table_max 16384 -random -geometric -float -epsilon -runs 1
#
# test_gpu times each solve between its "setup complete" and "cost = ..."
# lines (the cost matrix is on the GPU before the first); sizes double in
# n^2 from -table_min to -table_max; -memory must be given (0 never ends).
# Two changes to the checkout's copy: CUDA 13's cudaDeviceProp has no
# computeMode (read through cudaDeviceGetAttribute instead), and no
# -march=native, so the binary runs on another host of the same GPU kind.
# Environment: CUDA_ARCH (default 90), NVCC (default nvcc on PATH).
set -euo pipefail
SRC="${1:?usage: build_lap_solver.sh LAP_SOLVER_CHECKOUT BUILD_DIR}"
BUILD="${2:?usage: build_lap_solver.sh LAP_SOLVER_CHECKOUT BUILD_DIR}"
COPY="$BUILD/src"
rm -rf "$COPY"
mkdir -p "$COPY"
cp -r "$SRC/lap_solver" "$COPY/"
cd "$COPY/lap_solver"
sed -i 's/SHELL:-Xcompiler -march=native;//g; s/-march=native;//g' CMakeLists.txt
sed -i 's/if (deviceProp.computeMode != cudaComputeModeProhibited)/int compute_mode = 0; cudaDeviceGetAttribute(\&compute_mode, cudaDevAttrComputeMode, current_device); if (compute_mode != cudaComputeModeProhibited)/' \
  core/cuda/lap_worksharing.h
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DCMAKE_CUDA_COMPILER="${NVCC:-$(command -v nvcc)}"
cmake --build build --target test_gpu
cp build/test_gpu "$BUILD/test_gpu"
echo "built $BUILD/test_gpu"
