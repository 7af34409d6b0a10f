// The plain C interface every jaxmatch library exports beside its handlers:
// the ABI version, the named constants (status codes, option codes, info
// slots) and the workspace lengths.  jaxmatch/_ffi.py reads them with ctypes,
// so the Python side copies no layout, code or size by hand.
#include <cstdint>

#include "common/cancel.h"
#include "common/ffi_helpers.h"

#include "lap/points/points_steps.h"
#include "lap/split/split_steps.h"
#include "lap/common/lap_state.h"
#include "matching/matching_state.h"
#include "weighted/weighted_state.h"

#define JM_C_API extern "C" __attribute__((visibility("default")))

namespace {

// Bump whenever a handler's operands, attributes or a constant change; the
// Python package refuses a library of another version.
constexpr int kAbiVersion = 13;

struct NamedConstant {
  const char* name;
  int64_t value;
};

using namespace jaxmatch;

constexpr NamedConstant kConstants[] = {
    // LAP
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
    {"LAP_SPLIT_INFO_LEN", kSplitInfoLen},
    {"LAP_SPLIT_INFO_STATUS", kSplitStatus},
    {"LAP_SPLIT_INFO_ITERS", kSplitIters},
    {"LAP_SPLIT_INFO_COUNT", kSplitCount},
    {"LAP_SPLIT_INFO_ROW0", kSplitRow0},
    {"LAP_POINTS_SQEUCLIDEAN", kPointsSqeuclidean},
    {"LAP_POINTS_EUCLIDEAN", kPointsEuclidean},
    {"LAP_POINTS_CITYBLOCK", kPointsCityblock},
    {"LAP_POINTS_MAX_K", kPointsMaxK},
    {"LAP_POINTS_MAX_DIM", kPointsMaxDim},
    // Matching
    {"MATCHING_DRIVER_APFB", kMcmApfb},
    {"MATCHING_DRIVER_APSB", kMcmApsb},
    {"MATCHING_DRIVER_HYBRID", kMcmHybrid},
    {"MATCHING_DRIVER_AUTO", kMcmAuto},
    {"MATCHING_DRIVER_PR", kMcmPr},
    {"MATCHING_BFS_PLAIN", kMcmBfsPlain},
    {"MATCHING_BFS_WR", kMcmBfsWr},
    {"MATCHING_INIT_NONE", kMcmInitNone},
    {"MATCHING_INIT_CHEAP", kMcmInitCheap},
    {"MATCHING_INIT_GIVEN", kMcmInitGiven},
    {"MATCHING_INIT_KARP_SIPSER", kMcmInitKarpSipser},
    {"MATCHING_INIT_GREEDY", kMcmInitGreedy},
    {"MATCHING_MAPPING_CT", kMcmMappingCt},
    {"MATCHING_MAPPING_MT", kMcmMappingMt},
    {"MATCHING_STATUS_RUNNING", kMcmRunning},
    {"MATCHING_STATUS_MAXIMUM", kMcmDone},
    {"MATCHING_STATUS_PHASE_LIMIT", kMcmPhaseLimit},
    {"MATCHING_STATUS_INVALID_GRAPH", kMcmBadGraph},
    {"MATCHING_STATUS_INITIAL", kMcmInitial},
    {"MATCHING_INFO_LEN", kMcmInfoLen},
    {"MATCHING_INFO_STATUS", kMcmStatus},
    {"MATCHING_INFO_N_PHASES", kMcmNPhases},
    {"MATCHING_INFO_N_LEVELS", kMcmNLevels},
    // Weighted matching
    {"WEIGHTED_METHOD_SUITOR", kWmSuitor},
    {"WEIGHTED_METHOD_LD", kWmLd},
    {"WEIGHTED_STATUS_RUNNING", kWmRunning},
    {"WEIGHTED_STATUS_DOMINANT", kWmDominant},
    {"WEIGHTED_STATUS_INVALID_GRAPH", kWmBadGraph},
    {"WEIGHTED_STATUS_INVALID_WEIGHTS", kWmInvalidWeights},
    {"WEIGHTED_INFO_LEN", kWmInfoLen},
    {"WEIGHTED_INFO_STATUS", kWmStatus},
    {"WEIGHTED_INFO_N_ROUNDS", kWmRounds},
    {"WEIGHTED_INFO_N_PROPOSALS", kWmProposals},
};

}  // namespace

JM_C_API int jaxmatch_abi_version() { return kAbiVersion; }

// Stops the CPU solves in flight (common/cancel.h): the eager Python entry
// points call it when the user interrupts them.
JM_C_API void jaxmatch_cancel_cpu_solves() { jaxmatch::CancelCpuSolves(); }

JM_C_API int jaxmatch_num_constants() {
  return static_cast<int>(sizeof(kConstants) / sizeof(kConstants[0]));
}

// The name of constant i, or null when i is out of range.
JM_C_API const char* jaxmatch_constant_name(int i) {
  return i >= 0 && i < jaxmatch_num_constants() ? kConstants[i].name : nullptr;
}

JM_C_API int64_t jaxmatch_constant_value(int i) {
  return i >= 0 && i < jaxmatch_num_constants() ? kConstants[i].value : 0;
}

// The lengths of one LAP problem's workspaces: `work` (int32) when
// cost_dtype_workspace is 0, else `twork` (the cost dtype).
JM_C_API int64_t jaxmatch_lap_workspace_len(int n, int m, int variant,
                                            int cost_dtype_workspace) {
  const LapWorkLayout L(n, m, variant);
  return static_cast<int64_t>(cost_dtype_workspace ? L.tlen : L.ilen);
}

// The length of one matching problem's int32 workspace.
JM_C_API int64_t jaxmatch_matching_workspace_len(int n_rows, int n_cols) {
  return static_cast<int64_t>(McmWorkLayout(n_rows, n_cols).len);
}

// The length of one weighted matching problem's int32 workspace.
JM_C_API int64_t jaxmatch_weighted_workspace_len(int n) {
  return static_cast<int64_t>(WmWorkLayout(n).len);
}

// Registered for the CUDA platform in place of every jaxmatch target when the
// CUDA library was not built, so that a computation lowered for a GPU fails
// with a message that names the fix (a CPU-placed computation on the same
// machine is unaffected).
namespace {
xla::ffi::Error MissingCudaLibrary(xla::ffi::RemainingArgs,
                                   xla::ffi::RemainingRets,
                                   xla::ffi::Dictionary) {
  return xla::ffi::Error(
      xla::ffi::ErrorCode::kUnimplemented,
      "jaxmatch: this computation runs on a GPU, but jaxmatch's CUDA library "
      "(libjaxmatch_cuda.so) was not built. Install the CUDA toolkit so that "
      "`nvcc` is on PATH and reinstall jaxmatch (`pip install "
      "--no-build-isolation --force-reinstall .`), or place the computation "
      "on the CPU (JAX_PLATFORMS=cpu or jax.default_device).");
}
}  // namespace

JM_EXPORT_HANDLER(
    jaxmatch_missing_cuda, MissingCudaLibrary,
    xla::ffi::Ffi::Bind().RemainingArgs().RemainingRets().Attrs());
