// The in-process KVStore ("local", "device"): see kvstore_local.cc.
#ifndef MXNET_KVSTORE_KVSTORE_LOCAL_H_
#define MXNET_KVSTORE_KVSTORE_LOCAL_H_

#include <memory>

#include "mxnet/kvstore.h"

namespace mxnet {
namespace kvstore {

/*! \brief A local store merging on the CPU, or on the pushing devices when use_device_comm. */
std::unique_ptr<KVStore> CreateKVStoreLocal(bool use_device_comm);

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_KVSTORE_LOCAL_H_
