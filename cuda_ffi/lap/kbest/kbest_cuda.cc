// The CUDA library's k best assignments: not yet on the GPU, so the handler
// refuses with a message naming the CPU (jaxmatch/lap/kbest.py refuses a
// GPU placement at trace time first; this catches what it cannot see).
#include "common/ffi_helpers.h"
#include "lap/kbest/kbest_ffi.h"

namespace jaxmatch {
namespace {

ffi::Error KBestCuda(ffi::AnyBuffer, ffi::AnyBuffer, ffi::AnyBuffer,
                     ffi::Result<ffi::AnyBuffer>, ffi::Result<ffi::AnyBuffer>,
                     ffi::Result<ffi::AnyBuffer>, int32_t, int32_t) {
  return ffi::Error(
      ffi::ErrorCode::kUnimplemented,
      "jaxmatch: k_best_assignments runs on the CPU only for now; place the "
      "computation on the CPU (jax.default_device(jax.devices('cpu')[0]) or "
      "jax.device_put(C, jax.devices('cpu')[0])).");
}

}  // namespace
}  // namespace jaxmatch

JM_EXPORT_HANDLER(jaxmatch_lap_k_best_cuda, jaxmatch::KBestCuda,
                  jaxmatch::BindKBest(xla::ffi::Ffi::Bind()));
