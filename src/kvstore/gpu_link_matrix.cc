// The GPUs' link weights for the tree reduction (gpu_p2p.h): 1.9.1's weighting of P2P
// performance ranks and peer access (plain C++, tested on the CPU), and the CUDA queries.
#include <dmlc/logging.h>

#include <algorithm>
#include <queue>
#include <string>
#include <vector>

#include "kvstore/gpu_p2p.h"
#include "kvstore/tree_topology.h"
#include "mxnet/cuda_config.h"

#if MXNET_USE_CUDA
#include <cuda_runtime.h>
#endif

namespace mxnet {
namespace kvstore {

namespace {

void LogMatrix(const std::string& name, const std::vector<float>& m, int n) {
  for (const std::string& line : MatrixText(name, m, n, n)) LOG(INFO) << line;
}

// Whether the links heavier than 1 (NVLink) connect all devices.
bool ConnectedByHeavyLinks(const std::vector<float>& w, int n) {
  std::vector<char> seen(n, 0);
  std::queue<int> todo;
  todo.push(0);
  seen[0] = 1;
  while (!todo.empty()) {
    const int cur = todo.front();
    todo.pop();
    for (int i = 0; i < n; ++i) {
      if (i != cur && static_cast<int>(w[cur * n + i]) > 1 && !seen[i]) {
        seen[i] = 1;
        todo.push(i);
      }
    }
  }
  return std::all_of(seen.begin(), seen.end(), [](char s) { return s != 0; });
}

}  // namespace

std::vector<float> LinkWeightsFromP2P(const std::vector<int>& perf_rank,
                                      const std::vector<int>& peer_access, int num_devices,
                                      bool log) {
  const int n = num_devices;
  CHECK_EQ(perf_rank.size(), static_cast<size_t>(n) * n)
      << "KVStore tree reduction: the P2P performance ranks must be " << n << " x " << n;
  CHECK_EQ(peer_access.size(), static_cast<size_t>(n) * n)
      << "KVStore tree reduction: the peer access matrix must be " << n << " x " << n;
  std::vector<float> w(perf_rank.size(), 0.f);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j) w[i * n + j] = static_cast<float>(perf_rank[i * n + j]) + 1;
    }
  }
  if (log) {
    LogMatrix("matrix", w, n);
    std::vector<float> access(peer_access.begin(), peer_access.end());
    LogMatrix("p2p_matrix", access, n);
  }
  // Some CUDA versions rank NVLink pairs like PCI-E ones (1): then peer access decides.
  bool ranks_right = true;
  for (size_t i = 0; i < w.size(); ++i) {
    if (peer_access[i] > 0 && w[i] == 1) ranks_right = false;
  }
  if (!ranks_right) {
    LOG(WARNING) << "cudaDeviceGetP2PAttribute incorrect. "
                 << "Falling back to cudaDeviceEnablePeerAccess for topology detection";
    for (size_t i = 0; i < w.size(); ++i) w[i] = peer_access[i] > 0 ? 2 : 1;
  }
  // NVLink alone connects them: PCI-E is not used. Otherwise PCI-E through the CPU is slow and
  // shared, so it weighs 1/n.
  const bool connected = ConnectedByHeavyLinks(w, n);
  for (float& v : w) {
    if (v == 1) v = connected ? 0.f : static_cast<float>(1. / n);
  }
  if (log) LogMatrix("Weight", w, n);
  return w;
}

#if MXNET_USE_CUDA
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
#endif  // MXNET_USE_CUDA

}  // namespace kvstore
}  // namespace mxnet
