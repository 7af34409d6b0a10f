// The matching family's FFI targets per platform and its named constants,
// which library.cc exports (common/registration.h); the handlers are in
// matching_cpu.cc and matching_cuda.cc.
#pragma once

#include "common/registration.h"
#include "matching/matching_state.h"

JM_DECLARE_HANDLER(jaxmatch_matching_init_cpu);
JM_DECLARE_HANDLER(jaxmatch_matching_step_cpu);
JM_DECLARE_HANDLER(jaxmatch_matching_solve_cpu);
JM_DECLARE_HANDLER(jaxmatch_matching_init_cuda);
JM_DECLARE_HANDLER(jaxmatch_matching_step_cuda);
JM_DECLARE_HANDLER(jaxmatch_matching_solve_cuda);

namespace jaxmatch {

inline constexpr FfiTarget kMatchingCpuTargets[] = {
    {"jaxmatch_matching_init", jaxmatch_matching_init_cpu},
    {"jaxmatch_matching_step", jaxmatch_matching_step_cpu},
    {"jaxmatch_matching_solve", jaxmatch_matching_solve_cpu},
};
inline constexpr FfiTarget kMatchingCudaTargets[] = {
    {"jaxmatch_matching_init", jaxmatch_matching_init_cuda},
    {"jaxmatch_matching_step", jaxmatch_matching_step_cuda},
    {"jaxmatch_matching_solve", jaxmatch_matching_solve_cuda},
};

inline constexpr NamedConstant kMatchingConstants[] = {
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
    {"MATCHING_STATUS_ITERATION_LIMIT", kMcmPhaseLimit},
    {"MATCHING_STATUS_INVALID_GRAPH", kMcmBadGraph},
    {"MATCHING_STATUS_INITIAL", kMcmInitial},
    {"MATCHING_INFO_LEN", kMcmInfoLen},
    {"MATCHING_INFO_STATUS", kMcmStatus},
    {"MATCHING_INFO_N_PHASES", kMcmNPhases},
    {"MATCHING_INFO_N_LEVELS", kMcmNLevels},
};

}  // namespace jaxmatch
