// The weighted matching family's FFI targets per platform and its named
// constants, which library.cc exports (common/registration.h); the
// handlers are in weighted_cpu.cc and weighted_cuda.cc.
#pragma once

#include "common/registration.h"
#include "weighted/weighted_state.h"

JM_DECLARE_HANDLER(jaxmatch_weighted_init_cpu);
JM_DECLARE_HANDLER(jaxmatch_weighted_step_cpu);
JM_DECLARE_HANDLER(jaxmatch_weighted_init_cuda);
JM_DECLARE_HANDLER(jaxmatch_weighted_step_cuda);
JM_DECLARE_HANDLER(jaxmatch_weighted_b_init_cpu);
JM_DECLARE_HANDLER(jaxmatch_weighted_b_step_cpu);
JM_DECLARE_HANDLER(jaxmatch_weighted_b_init_cuda);
JM_DECLARE_HANDLER(jaxmatch_weighted_b_step_cuda);

namespace jaxmatch {

inline constexpr FfiTarget kWeightedCpuTargets[] = {
    {"jaxmatch_weighted_init", jaxmatch_weighted_init_cpu},
    {"jaxmatch_weighted_step", jaxmatch_weighted_step_cpu},
    {"jaxmatch_weighted_b_init", jaxmatch_weighted_b_init_cpu},
    {"jaxmatch_weighted_b_step", jaxmatch_weighted_b_step_cpu},
};
inline constexpr FfiTarget kWeightedCudaTargets[] = {
    {"jaxmatch_weighted_init", jaxmatch_weighted_init_cuda},
    {"jaxmatch_weighted_step", jaxmatch_weighted_step_cuda},
    {"jaxmatch_weighted_b_init", jaxmatch_weighted_b_init_cuda},
    {"jaxmatch_weighted_b_step", jaxmatch_weighted_b_step_cuda},
};

inline constexpr NamedConstant kWeightedConstants[] = {
    {"WEIGHTED_METHOD_SUITOR", kWmSuitor},
    {"WEIGHTED_METHOD_LD", kWmLd},
    {"WEIGHTED_STATUS_RUNNING", kWmRunning},
    {"WEIGHTED_STATUS_DOMINANT", kWmDominant},
    {"WEIGHTED_STATUS_INVALID_GRAPH", kWmBadGraph},
    {"WEIGHTED_STATUS_INVALID_WEIGHTS", kWmInvalidWeights},
    {"WEIGHTED_STATUS_OVERFLOW", kWmOverflow},
    {"WEIGHTED_STATUS_INVALID_CAPACITY", kWmInvalidCapacity},
    {"WEIGHTED_INFO_LEN", kWmInfoLen},
    {"WEIGHTED_INFO_STATUS", kWmStatus},
    {"WEIGHTED_INFO_N_ROUNDS", kWmRounds},
    {"WEIGHTED_INFO_N_PROPOSALS", kWmProposals},
    // The stored entries' hash balance: a 64-bit word in two int32 slots
    // (weighted_state.h).
    {"WEIGHTED_INFO_BALANCE", kWmBalance},
    {"WEIGHTED_INFO_BALANCE_HIGH", kWmBalance + 1},
    {"WEIGHTED_B_INFO_LEN", kBmInfoLen},
    {"WEIGHTED_B_INFO_STATUS", kBmStatus},
    {"WEIGHTED_B_INFO_N_ROUNDS", kBmRounds},
    {"WEIGHTED_B_INFO_N_PROPOSALS", kBmProposals},
    {"WEIGHTED_B_INFO_BALANCE", kBmBalance},
    {"WEIGHTED_B_INFO_BALANCE_HIGH", kBmBalance + 1},
};

}  // namespace jaxmatch
