// EnableGpuPeerAccess (gpu_p2p.h): peer access between the GPUs of a reduction.
#include "kvstore/gpu_p2p.h"

#include <dmlc/logging.h>

#include <string>
#include <utility>

#include "mxnet/cuda_config.h"
#include "storage/cuda_device_guard.h"

#if MXNET_USE_CUDA
#include <cuda_runtime.h>

namespace mxnet {
namespace kvstore {

int EnableGpuPeerAccess(const std::vector<int>& gpus, std::vector<int>* access_out) {
  const int n = static_cast<int>(gpus.size());
  std::vector<int> access(n * n, 0);
  int enabled = 0;
  for (int i = 0; i < n; ++i) {
    storage::CudaDeviceGuard guard(gpus[i]);  // peer access is granted to the current device
    if (!guard.ok()) continue;
    for (int j = 0; j < n; ++j) {
      int can = 0;
      if (i == j || cudaDeviceCanAccessPeer(&can, gpus[i], gpus[j]) != cudaSuccess || !can) {
        continue;
      }
      const cudaError_t e = cudaDeviceEnablePeerAccess(gpus[j], 0);
      if (e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled) {
        access[i * n + j] = 1;
        ++enabled;
      }
      cudaGetLastError();  // clear the sticky "already enabled" status
    }
  }
  if (enabled != n * (n - 1)) {
    LOG(WARNING) << "only " << enabled << " out of " << n * (n - 1)
                 << " GPU pairs are enabled direct access. It may affect the performance. "
                 << "You can set MXNET_ENABLE_GPU_P2P=0 to turn it off";
    for (int i = 0; i < n; ++i) {
      std::string row(n, '.');
      for (int j = 0; j < n; ++j) row[j] = access[i * n + j] ? 'v' : '.';
      LOG(WARNING) << row;
    }
  }
  if (access_out) *access_out = std::move(access);
  return enabled;
}

}  // namespace kvstore
}  // namespace mxnet
#endif  // MXNET_USE_CUDA
