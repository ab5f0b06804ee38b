// KVStore::Create: picks the store for a type name as MXNet 1.9.1 names them.
#include <dmlc/logging.h>

#include <algorithm>
#include <cctype>

#include "kvstore/kvstore_local.h"
#include "mxnet/cuda_config.h"

namespace mxnet {

std::unique_ptr<KVStore> KVStore::Create(const char* type_name) {
  CHECK(type_name != nullptr) << "KVStore.create: the type is NULL";
  std::string tname = type_name;
  std::transform(tname.begin(), tname.end(), tname.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto has = [&tname](const char* pattern) { return tname.find(pattern) != std::string::npos; };
  CHECK(!has("dist"))
      << "KVStore.create('" << tname << "'): distributed training needs the parameter server "
      << "(ZeroMQ), which this build lacks; use 'local' or 'device' in one process (see "
      << "docs/distributed_training.md)";
  CHECK(!has("nccl")) << "KVStore.create('" << tname << "'): "
#if MXNET_USE_NCCL
                      << "the NCCL store is not implemented yet in this build; use 'device'";
#else
                      << "compile with USE_NCCL=ON (and USE_CUDA=ON) to use nccl; use 'device'";
#endif
  CHECK(tname.rfind("local", 0) == 0 || has("device"))
      << "KVStore.create: unknown type '" << tname << "' (expected 'local', 'device', "
      << "'local_update_cpu', 'local_allreduce_cpu', 'local_allreduce_device', 'nccl' or "
      << "'dist_sync', 'dist_async', 'dist_sync_device', 'dist_async_device')";
  std::unique_ptr<KVStore> kv = kvstore::CreateKVStoreLocal(has("device"));
  kv->type_ = tname;
  return kv;
}

}  // namespace mxnet
