// Direct GPU-to-GPU access for a reduction's devices (MXNET_ENABLE_GPU_P2P) and the link weights
// the tree reduction plans over (LinkWeightsFromP2P is plain C++; the rest needs USE_CUDA).
#ifndef MXNET_KVSTORE_GPU_P2P_H_
#define MXNET_KVSTORE_GPU_P2P_H_

#include <vector>

namespace mxnet {
namespace kvstore {

/*! \brief cudaDeviceEnablePeerAccess between every ordered pair of the GPUs where the hardware
 *  allows it; warns, drawing the access matrix, when some pair cannot (as MXNet 1.9.1).
 *  access, when given, gets the n x n matrix of pairs with access (1) or without (0).
 *  \return the number of ordered pairs with access. */
int EnableGpuPeerAccess(const std::vector<int>& gpus, std::vector<int>* access = nullptr);

/*! \brief MXNet 1.9.1's link weights for GPUs from cudaDeviceGetP2PAttribute's performance
 *  ranks and the peer-access matrix (both n x n): rank + 1 off the diagonal (1: PCI-E, 2-3: NVLink),
 *  or 2 / 1 from peer access when the ranks miss some peer link; then, when the NVLink links
 *  (weight > 1) connect all GPUs, PCI-E links get 0 (unused), else 1/n. */
std::vector<float> LinkWeightsFromP2P(const std::vector<int>& perf_rank,
                                      const std::vector<int>& peer_access, int num_devices,
                                      bool log);

/*! \brief Link weights between the GPUs (n x n) for the tree reduction, as MXNet 1.9.1 finds
 *  them: enables peer access, reads cudaDeviceGetP2PAttribute's performance ranks, and weighs
 *  them with LinkWeightsFromP2P; log prints the matrices
 *  (MXNET_KVSTORE_LOGTREE). Both in gpu_link_matrix.cc. */
std::vector<float> QueryGpuLinkMatrix(const std::vector<int>& gpus, bool log);

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_GPU_P2P_H_
