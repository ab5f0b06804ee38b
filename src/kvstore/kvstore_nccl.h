// The "nccl" store (kvstore_nccl.cc): sums over GPUs with NCCL; needs USE_CUDA and USE_NCCL.
#ifndef MXNET_KVSTORE_KVSTORE_NCCL_H_
#define MXNET_KVSTORE_KVSTORE_NCCL_H_

#include <memory>

#include "mxnet/kvstore.h"

namespace mxnet {
namespace kvstore {

/*! \brief The NCCL store; raises MXNetError in a build without NCCL or with no visible GPU. */
std::unique_ptr<KVStore> CreateKVStoreNCCL();

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_KVSTORE_NCCL_H_
