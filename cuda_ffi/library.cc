// The plain C interface every jaxmatch library exports beside its handlers:
// the ABI version, the FFI targets of its platform and the named constants
// (status codes, option codes, info slots, limits), both listed by each
// family in <family>/registrations.h, and the workspace lengths.
// jaxmatch/_ffi.py reads them with ctypes, so the Python side copies no
// target, layout, code or size by hand.
#include <cstddef>
#include <cstdint>

#include "common/cancel.h"
#include "common/ffi_helpers.h"
#include "common/registration.h"
#include "lap/registrations.h"
#include "matching/registrations.h"
#include "weighted/registrations.h"

#define JM_C_API extern "C" __attribute__((visibility("default")))

namespace {

// Bump whenever a handler's operands, attributes or a constant change; the
// Python package refuses a library of another version.
constexpr int kAbiVersion = 25;

using namespace jaxmatch;

// Every family's tables.  JAXMATCH_CUDA_LIBRARY (CMakeLists.txt) builds the
// CUDA library's copy of this file, which lists the CUDA handlers.
#if JAXMATCH_CUDA_LIBRARY
constexpr char kPlatform[] = "cuda";
constexpr TableRef<FfiTarget> kTargets[] = {Table(kLapCudaTargets),
                                            Table(kMatchingCudaTargets),
                                            Table(kWeightedCudaTargets)};
#else
constexpr char kPlatform[] = "cpu";
constexpr TableRef<FfiTarget> kTargets[] = {Table(kLapCpuTargets),
                                            Table(kMatchingCpuTargets),
                                            Table(kWeightedCpuTargets)};
#endif
constexpr NamedConstant kCommonConstants[] = {
    {"COMMON_INDEX_BOUND", kIndexBound}};
constexpr TableRef<NamedConstant> kConstants[] = {
    Table(kCommonConstants), Table(kLapConstants), Table(kMatchingConstants),
    Table(kWeightedConstants)};

// Entry i of the concatenated tables, or null when i is out of range.
template <class E, std::size_t N>
const E* Entry(const TableRef<E> (&tables)[N], int i) {
  if (i < 0) return nullptr;
  for (const TableRef<E>& t : tables) {
    if (i < t.size) return &t.data[i];
    i -= t.size;
  }
  return nullptr;
}

template <class E, std::size_t N>
int Count(const TableRef<E> (&tables)[N]) {
  int n = 0;
  for (const TableRef<E>& t : tables) n += t.size;
  return n;
}

}  // namespace

JM_C_API int jaxmatch_abi_version() { return kAbiVersion; }

// Stops the CPU solves in flight (common/cancel.h): the eager Python entry
// points call it when the user interrupts them.
JM_C_API void jaxmatch_cancel_cpu_solves() { jaxmatch::CancelCpuSolves(); }

JM_C_API int jaxmatch_num_constants() { return Count(kConstants); }

// The name of constant i, or null when i is out of range.
JM_C_API const char* jaxmatch_constant_name(int i) {
  const NamedConstant* c = Entry(kConstants, i);
  return c != nullptr ? c->name : nullptr;
}

JM_C_API int64_t jaxmatch_constant_value(int i) {
  const NamedConstant* c = Entry(kConstants, i);
  return c != nullptr ? c->value : 0;
}

// The platform whose handlers this library holds: "cpu" or "cuda".
JM_C_API const char* jaxmatch_platform() { return kPlatform; }

#if JAXMATCH_CUDA_LIBRARY
// The GPU architectures the kernels were compiled for, as CMake's
// CMAKE_CUDA_ARCHITECTURES names them, comma-separated: "90-real" is machine
// code for sm_90, "90-virtual" PTX for compute_90, "90" both.
JM_C_API const char* jaxmatch_cuda_architectures() {
  return JAXMATCH_CUDA_ARCHITECTURES;
}
#endif

// The FFI targets of this library's platform: jaxmatch/_ffi.py registers
// target i under its name with its handler (XLA_FFI_Handler*).
JM_C_API int jaxmatch_num_targets() { return Count(kTargets); }

// The name of target i (as XLA calls it), or null when i is out of range.
JM_C_API const char* jaxmatch_target_name(int i) {
  const FfiTarget* t = Entry(kTargets, i);
  return t != nullptr ? t->name : nullptr;
}

// The handler of target i, or null when i is out of range.
JM_C_API void* jaxmatch_target_handler(int i) {
  const FfiTarget* t = Entry(kTargets, i);
  return t != nullptr ? reinterpret_cast<void*>(t->handler) : nullptr;
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

// The length of one b-matching problem's int32 workspace (n vertices,
// capacity cap).
JM_C_API int64_t jaxmatch_weighted_b_workspace_len(int n, int cap) {
  return static_cast<int64_t>(BmWorkLayout(n, cap).len);
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
      "(libjaxmatch_cuda.so) was not built. Install the jaxmatch wheel, which "
      "holds it, or put the CUDA toolkit's `nvcc` on PATH and rebuild "
      "jaxmatch (`JAXMATCH_CUDA=ON pip install --force-reinstall --no-deps "
      ".`), or place the computation on the CPU (JAX_PLATFORMS=cpu or "
      "jax.default_device).");
}
}  // namespace

JM_EXPORT_HANDLER(
    jaxmatch_missing_cuda, MissingCudaLibrary,
    xla::ffi::Ffi::Bind().RemainingArgs().RemainingRets().Attrs());
