// KVStore::Create: picks the store for a type name as MXNet 1.9.1 names them.
#include <dmlc/logging.h>

#include <algorithm>
#include <cctype>

#include "common/env.h"
#include "kvstore/dist/kvstore_dist.h"
#include "kvstore/kvstore_local.h"
#include "kvstore/kvstore_nccl.h"

namespace mxnet {

std::unique_ptr<KVStore> KVStore::Create(const char* type_name) {
  CHECK(type_name != nullptr) << "KVStore.create: the type is NULL";
  std::string tname = type_name;
  std::transform(tname.begin(), tname.end(), tname.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  auto has = [&tname](const char* pattern) { return tname.find(pattern) != std::string::npos; };
  if (has("dist")) {
#if MXNET_USE_DIST_KVSTORE
    std::unique_ptr<KVStore> kv = kvstore::dist::CreateKVStoreDist(tname);
    kv->type_ = tname;
    if (!has("_async") && IsWorkerNode() && kv->get_rank() == 0) {
      // As MXNet: the servers of a sync store sum every worker's push before applying it.
      kv->SendCommandToServers(static_cast<int>(kvstore::dist::Command::kSyncMode), "");
    }
    return kv;
#else
    LOG(FATAL) << "KVStore.create('" << tname << "'): this library was built with "
               << "USE_DIST_KVSTORE=OFF; rebuild with it ON (Debian libzmq3-dev) for '"
               << tname << "'";
#endif
  }
  if (has("nccl")) {
    std::unique_ptr<KVStore> kv = kvstore::CreateKVStoreNCCL();
    kv->type_ = tname;
    return kv;
  }
  CHECK(tname.rfind("local", 0) == 0 || has("device"))
      << "KVStore.create: unknown type '" << tname << "' (expected 'local', 'device', "
      << "'local_update_cpu', 'local_allreduce_cpu', 'local_allreduce_device', 'nccl' or "
      << "'dist_sync', 'dist_async', 'dist_sync_device', 'dist_async_device', 'dist_p3')";
  std::unique_ptr<KVStore> kv = kvstore::CreateKVStoreLocal(has("device"));
  kv->type_ = tname;
  return kv;
}

void KVStore::RunServer(const Controller& controller) {
  LOG(FATAL) << "KVStore.RunServer: the '" << type_ << "' store has no server; servers run "
             << "'dist' stores in processes started with DMLC_ROLE=server or scheduler";
}

namespace kvstore {
namespace dist {
std::string RoleFromEnv() {
  if (!env::IsSet("DMLC_ROLE")) return "worker";
  const std::string role = env::GetString("DMLC_ROLE");
  CHECK(role == "worker" || role == "server" || role == "scheduler")
      << "DMLC_ROLE must be worker, server or scheduler, given '" << role << "'";
  return role;
}
}  // namespace dist
}  // namespace kvstore

bool KVStore::IsWorkerNode() { return kvstore::dist::RoleFromEnv() == "worker"; }
bool KVStore::IsServerNode() { return kvstore::dist::RoleFromEnv() == "server"; }
bool KVStore::IsSchedulerNode() { return kvstore::dist::RoleFromEnv() == "scheduler"; }

}  // namespace mxnet
