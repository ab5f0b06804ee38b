// QueryGpuLinkMatrix (gpu_p2p.h): the GPUs' link weights for the tree reduction (USE_CUDA builds).
#include <dmlc/logging.h>

#include <vector>

#include "kvstore/gpu_p2p.h"
#include "kvstore/tree_topology.h"
#include "mxnet/cuda_config.h"

#if MXNET_USE_CUDA
#include <cuda_runtime.h>

namespace mxnet {
namespace kvstore {

std::vector<float> QueryGpuLinkMatrix(const std::vector<int>& gpus, bool log) {
  const int n = static_cast<int>(gpus.size());
  std::vector<int> access;
  EnableGpuPeerAccess(gpus, &access);
  std::vector<int> rank(n * n, 0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      int value = 0;
      if (cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, gpus[i], gpus[j]) !=
          cudaSuccess) {
        value = 0;  // unknown: ranked as PCI-E
        cudaGetLastError();
      }
      rank[i * n + j] = value;
    }
  }
  return LinkWeightsFromP2P(rank, access, n, log);
}

}  // namespace kvstore
}  // namespace mxnet
#endif  // MXNET_USE_CUDA
