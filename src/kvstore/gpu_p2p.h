// Direct GPU-to-GPU access for a reduction's devices (MXNET_ENABLE_GPU_P2P); USE_CUDA builds only.
#ifndef MXNET_KVSTORE_GPU_P2P_H_
#define MXNET_KVSTORE_GPU_P2P_H_

#include <vector>

namespace mxnet {
namespace kvstore {

/*! \brief cudaDeviceEnablePeerAccess between every ordered pair of the GPUs where the hardware
 *  allows it; warns, drawing the access matrix, when some pair cannot (as MXNet 1.9.1).
 *  \return the number of ordered pairs with access. */
int EnableGpuPeerAccess(const std::vector<int>& gpus);

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_GPU_P2P_H_
