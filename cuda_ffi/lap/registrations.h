// The LAP family's FFI targets per platform and its named constants, which
// library.cc exports (common/registration.h).  The handlers: the dense
// targets in lap/common/dense_{cpu,cuda}.cc (variant attribute: hungarian/
// or jv/), the sparse one in lap/sparse/, the split forest's in lap/split/,
// the points sweep's in lap/points/, the k best assignments' in lap/kbest/
// (the CPU's; the CUDA library's refuses, naming the CPU).
#pragma once

#include "common/registration.h"
#include "lap/common/lap_state.h"
#include "lap/kbest/kbest_ffi.h"
#include "lap/points/points_steps.h"
#include "lap/split/split_ffi.h"
#include "lap/split/split_steps.h"

#define JM_LAP_HANDLERS(X, platform)    \
  X(lap_init, platform)                 \
  X(lap_step, platform)                 \
  X(lap_solve, platform)                \
  X(lap_solve_warm, platform)           \
  X(lap_init_warm, platform)            \
  X(lap_csr_solve, platform)            \
  X(lap_csr_solve_unassigned, platform) \
  X(lap_split_scan, platform)           \
  X(lap_split_update, platform)         \
  X(lap_points_sweep, platform)         \
  X(lap_solve_unassigned, platform)     \
  X(lap_k_best, platform)

#define JM_LAP_DECLARE(target, platform) \
  JM_DECLARE_HANDLER(jaxmatch_##target##_##platform);
#define JM_LAP_ENTRY(target, platform) \
  {"jaxmatch_" #target, jaxmatch_##target##_##platform},

JM_LAP_HANDLERS(JM_LAP_DECLARE, cpu)
JM_LAP_HANDLERS(JM_LAP_DECLARE, cuda)

namespace jaxmatch {

inline constexpr FfiTarget kLapCpuTargets[] = {
    JM_LAP_HANDLERS(JM_LAP_ENTRY, cpu)};
inline constexpr FfiTarget kLapCudaTargets[] = {
    JM_LAP_HANDLERS(JM_LAP_ENTRY, cuda)};

inline constexpr NamedConstant kLapConstants[] = {
    {"LAP_VARIANT_TREE", kLapTree},
    {"LAP_VARIANT_CLASSICAL", kLapClassical},
    {"LAP_VARIANT_JV", kLapJv},
    {"LAP_VARIANT_CSR_TREE", kLapCsrTree},
    {"LAP_VARIANT_CSR_AUTO", kLapCsrAuto},
    {"LAP_STATUS_RUNNING", kLapRunning},
    {"LAP_STATUS_OPTIMAL", kLapOptimal},
    {"LAP_STATUS_INFEASIBLE", kLapInfeasible},
    {"LAP_STATUS_OVERFLOW", kLapOverflow},
    {"LAP_STATUS_ITERATION_LIMIT", kLapIterationLimit},
    {"LAP_STATUS_INVALID_ENTRIES", kLapInvalidEntries},
    {"LAP_STATUS_INVALID_STRUCTURE", kLapInvalidStructure},
    {"LAP_INFO_LEN", kLapInfoLen},
    {"LAP_INFO_STATUS", kStatus},
    {"LAP_INFO_ITERS", kIters},
    {"LAP_INFO_N_DUAL", kNDual},
    {"LAP_INFO_N_AUG_PHASES", kNAugPhases},
    {"LAP_HOST_FLOAT32", kLapHostFloat32},
    {"LAP_HOST_FLOAT64", kLapHostFloat64},
    {"LAP_HOST_INT32", kLapHostInt32},
    // The GPU's JV (common/lap_state.h): the widest problem it takes (a block
    // of kLapJvBlockThreads threads, 64 columns each), the widest square
    // problem whose state fits a warp, and the width from which a block
    // (or a cluster) solves a problem instead of a warp.
    {"LAP_JV_GPU_MAX_COLUMNS", kLapJvMaxColumns},
    {"LAP_JV_WARP_MAX_COLUMNS", LapJvWarpMaxColumns()},
    {"LAP_JV_BLOCK_MIN_COLUMNS", kLapJvBlockMinColumns},
    {"LAP_SPLIT_INFO_LEN", kSplitInfoLen},
    {"LAP_SPLIT_INFO_STATUS", kSplitStatus},
    {"LAP_SPLIT_INFO_ITERS", kSplitIters},
    {"LAP_SPLIT_INFO_COUNT", kSplitCount},
    {"LAP_SPLIT_INFO_ROW0", kSplitRow0},
    {"LAP_SPLIT_INT32_COST_BOUND", kSplitInt32CostBound},
    {"LAP_POINTS_SQEUCLIDEAN", kPointsSqeuclidean},
    {"LAP_POINTS_EUCLIDEAN", kPointsEuclidean},
    {"LAP_POINTS_CITYBLOCK", kPointsCityblock},
    {"LAP_POINTS_MAX_K", kPointsMaxK},
    {"LAP_POINTS_MAX_DIM", kPointsMaxDim},
    {"LAP_KBEST_INFO_STATUS", kKBestInfoStatus},
    {"LAP_KBEST_INFO_COUNT", kKBestInfoCount},
    {"LAP_KBEST_INFO_ITERS", kKBestInfoIters},
    {"LAP_KBEST_INFO_LEN", kKBestInfoLen},
};

}  // namespace jaxmatch

#undef JM_LAP_DECLARE
#undef JM_LAP_ENTRY
#undef JM_LAP_HANDLERS
