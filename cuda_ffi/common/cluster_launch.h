// Launching kernels on thread-block clusters (sm_90 and newer): whether the
// device has them, how many clusters of a shape fit it at once, and the
// launch configuration.  Host code of the .cu files that launch clusters.
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <mutex>
#include <tuple>

namespace jaxmatch {

// *clusters: whether the current device launches thread-block clusters.
inline cudaError_t DeviceHasClusters(bool* clusters) {
  *clusters = false;
  int device = 0, major = 0, cluster_launch = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                               device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&cluster_launch, cudaDevAttrClusterLaunch,
                               device);
  if (e != cudaSuccess) return e;
  *clusters = major >= 9 && cluster_launch != 0;
  return cudaSuccess;
}

// use(config) with the launch configuration of `grid` blocks of `threads`
// threads in clusters of `blocks` along x on `stream` (the configuration
// points at a local attribute, so it lives only during use).
template <class Use>
cudaError_t WithClusterConfig(dim3 grid, int threads, int blocks,
                              cudaStream_t stream, Use use) {
  cudaLaunchAttribute attribute;
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = blocks;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = dim3(threads);
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return use(config);
}

// How many clusters of `blocks` blocks of `threads` threads running
// `kernel` fit the device at once: 0 where it refuses the cluster size
// (above 8: not portable) or fits none (the probe's error cleared, so the
// caller may try another shape).  Each answer is kept per device, kernel
// and shape: the probe costs host time on every launch otherwise.
template <class... Args>
int ClusterActive(void (*kernel)(Args...), int threads, int blocks,
                  cudaStream_t stream) {
  using Shape = std::tuple<int, const void*, int, int>;
  static std::mutex mutex;
  static std::map<Shape, int> known;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  const Shape shape{device, reinterpret_cast<const void*>(kernel), threads,
                    blocks};
  {
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = known.find(shape);
    if (found != known.end()) return found->second;
  }
  int active = 0;
  cudaError_t e = cudaSuccess;
  if (blocks > 8)
    e = cudaFuncSetAttribute(kernel,
                             cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  if (e == cudaSuccess)
    e = WithClusterConfig(dim3(blocks), threads, blocks, stream,
                          [&](const cudaLaunchConfig_t& config) {
                            return cudaOccupancyMaxActiveClusters(
                                &active, kernel, &config);
                          });
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    active = 0;
  }
  const std::lock_guard<std::mutex> lock(mutex);
  known[shape] = active;
  return active;
}

}  // namespace jaxmatch
