// C API, KVStore: MXNet 1.9.1's MXKVStore* functions over mxnet::KVStore.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api/c_api_common.h"
#include "mxnet/kvstore.h"

using namespace mxnet;  // NOLINT(build/namespaces)

namespace {

KVStore* Store(KVStoreHandle h, const char* fn) {
  API_CHECK(h != nullptr, fn << ": argument handle is NULL (expected a KVStore handle)");
  return static_cast<KVStore*>(h);
}

template <typename K>
std::vector<K> Keys(uint32_t num, const K* keys, const char* fn, const char* arg) {
  API_CHECK(num == 0 || keys != nullptr, fn << ": argument " << arg << " is NULL");
  return std::vector<K>(keys, keys + num);
}

std::vector<std::string> Keys(uint32_t num, const char** keys, const char* fn, const char* arg) {
  API_CHECK(num == 0 || keys != nullptr, fn << ": argument " << arg << " is NULL");
  std::vector<std::string> out;
  out.reserve(num);
  for (uint32_t i = 0; i < num; ++i) {
    API_CHECK(keys[i] != nullptr, fn << ": " << arg << "[" << i << "] is NULL");
    out.emplace_back(keys[i]);
  }
  return out;
}

std::vector<NDArray> Values(uint32_t num, NDArrayHandle* vals, const char* fn, const char* arg) {
  API_CHECK(num == 0 || vals != nullptr, fn << ": argument " << arg << " is NULL");
  std::vector<NDArray> out;
  out.reserve(num);
  for (uint32_t i = 0; i < num; ++i) {
    API_CHECK(vals[i] != nullptr, fn << ": " << arg << "[" << i << "] is NULL");
    out.push_back(*static_cast<NDArray*>(vals[i]));
  }
  return out;
}

std::vector<NDArray*> Outputs(uint32_t num, NDArrayHandle* vals, const char* fn, const char* arg) {
  API_CHECK(num == 0 || vals != nullptr, fn << ": argument " << arg << " is NULL");
  std::vector<NDArray*> out(num);
  for (uint32_t i = 0; i < num; ++i) {
    API_CHECK(vals[i] != nullptr, fn << ": " << arg << "[" << i << "] is NULL");
    out[i] = static_cast<NDArray*>(vals[i]);
  }
  return out;
}

template <typename K>
void RowSparsePull(KVStoreHandle handle, uint32_t num, const K* keys, NDArrayHandle* vals,
                   const NDArrayHandle* row_ids, int priority, const char* fn) {
  std::vector<NDArray*> outs = Outputs(num, vals, fn, "vals");
  API_CHECK(num == 0 || row_ids != nullptr, fn << ": argument row_ids is NULL");
  std::vector<std::pair<NDArray*, NDArray>> pairs;
  for (uint32_t i = 0; i < num; ++i) {
    API_CHECK(row_ids[i] != nullptr, fn << ": row_ids[" << i << "] is NULL");
    pairs.emplace_back(outs[i], *static_cast<NDArray*>(row_ids[i]));
  }
  Store(handle, fn)->PullRowSparse(Keys(num, keys, fn, "keys"), pairs, priority);
}

// Hands the updater new handles it owns, as MXNet does.
KVStore::Updater WrapUpdater(MXKVStoreUpdater* updater, void* updater_handle) {
  return [updater, updater_handle](int key, const NDArray& recv, NDArray* local) {
    updater(key, new NDArray(recv), new NDArray(*local), updater_handle);
  };
}

KVStore::StrUpdater WrapStrUpdater(MXKVStoreStrUpdater* updater, void* updater_handle) {
  return [updater, updater_handle](const std::string& key, const NDArray& recv, NDArray* local) {
    updater(key.c_str(), new NDArray(recv), new NDArray(*local), updater_handle);
  };
}

}  // namespace

int MXKVStoreCreate(const char* type, KVStoreHandle* out) {
  API_BEGIN();
  API_NOT_NULL(type);
  API_NOT_NULL(out);
  *out = KVStore::Create(type).release();
  API_END();
}

int MXKVStoreSetGradientCompression(KVStoreHandle handle, uint32_t num_params, const char** keys,
                                    const char** vals) {
  API_BEGIN();
  std::vector<std::string> k = Keys(num_params, keys, __func__, "keys");
  std::vector<std::string> v = Keys(num_params, vals, __func__, "vals");
  std::vector<std::pair<std::string, std::string>> kwargs;
  for (uint32_t i = 0; i < num_params; ++i) kwargs.emplace_back(k[i], v[i]);
  Store(handle, __func__)->SetGradientCompression(kwargs);
  API_END();
}

int MXKVStoreFree(KVStoreHandle handle) {
  API_BEGIN();
  delete static_cast<KVStore*>(handle);
  API_END();
}

int MXKVStoreInit(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals) {
  API_BEGIN();
  Store(handle, __func__)->Init(Keys(num, keys, __func__, "keys"),
                                Values(num, vals, __func__, "vals"));
  API_END();
}

int MXKVStoreInitEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals) {
  API_BEGIN();
  Store(handle, __func__)->Init(Keys(num, keys, __func__, "keys"),
                                Values(num, vals, __func__, "vals"));
  API_END();
}

int MXKVStorePush(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals,
                  int priority) {
  API_BEGIN();
  Store(handle, __func__)->Push(Keys(num, keys, __func__, "keys"),
                                Values(num, vals, __func__, "vals"), priority);
  API_END();
}

int MXKVStorePushEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals,
                    int priority) {
  API_BEGIN();
  Store(handle, __func__)->Push(Keys(num, keys, __func__, "keys"),
                                Values(num, vals, __func__, "vals"), priority);
  API_END();
}

int MXKVStorePullWithSparse(KVStoreHandle handle, uint32_t num, const int* keys,
                            NDArrayHandle* vals, int priority, bool ignore_sparse) {
  API_BEGIN();
  Store(handle, __func__)->Pull(Keys(num, keys, __func__, "keys"),
                                Outputs(num, vals, __func__, "vals"), priority, ignore_sparse);
  API_END();
}

int MXKVStorePullWithSparseEx(KVStoreHandle handle, uint32_t num, const char** keys,
                              NDArrayHandle* vals, int priority, bool ignore_sparse) {
  API_BEGIN();
  Store(handle, __func__)->Pull(Keys(num, keys, __func__, "keys"),
                                Outputs(num, vals, __func__, "vals"), priority, ignore_sparse);
  API_END();
}

int MXKVStorePull(KVStoreHandle handle, uint32_t num, const int* keys, NDArrayHandle* vals,
                  int priority) {
  return MXKVStorePullWithSparse(handle, num, keys, vals, priority, true);
}

int MXKVStorePullEx(KVStoreHandle handle, uint32_t num, const char** keys, NDArrayHandle* vals,
                    int priority) {
  return MXKVStorePullWithSparseEx(handle, num, keys, vals, priority, true);
}

int MXKVStorePullRowSparse(KVStoreHandle handle, uint32_t num, const int* keys,
                           NDArrayHandle* vals, const NDArrayHandle* row_ids, int priority) {
  API_BEGIN();
  RowSparsePull(handle, num, keys, vals, row_ids, priority, __func__);
  API_END();
}

int MXKVStorePullRowSparseEx(KVStoreHandle handle, uint32_t num, const char** keys,
                             NDArrayHandle* vals, const NDArrayHandle* row_ids, int priority) {
  API_BEGIN();
  std::vector<NDArray*> outs = Outputs(num, vals, __func__, "vals");
  API_CHECK(num == 0 || row_ids != nullptr, __func__ << ": argument row_ids is NULL");
  std::vector<std::pair<NDArray*, NDArray>> pairs;
  for (uint32_t i = 0; i < num; ++i) {
    API_CHECK(row_ids[i] != nullptr, __func__ << ": row_ids[" << i << "] is NULL");
    pairs.emplace_back(outs[i], *static_cast<NDArray*>(row_ids[i]));
  }
  Store(handle, __func__)->PullRowSparse(Keys(num, keys, __func__, "keys"), pairs, priority);
  API_END();
}

int MXKVStoreBroadcast(KVStoreHandle handle, mx_uint vnum, const int* vkeys, mx_uint onum,
                       const int* okeys, NDArrayHandle* vals, NDArrayHandle* outs, int priority) {
  API_BEGIN();
  Store(handle, __func__)->Broadcast(Keys(vnum, vkeys, __func__, "vkeys"),
                                     Keys(onum, okeys, __func__, "okeys"),
                                     Values(vnum, vals, __func__, "vals"),
                                     Outputs(onum, outs, __func__, "outs"), priority);
  API_END();
}

int MXKVStoreBroadcastEx(KVStoreHandle handle, mx_uint vnum, const char** vkeys, mx_uint onum,
                         const char** okeys, NDArrayHandle* vals, NDArrayHandle* outs,
                         int priority) {
  API_BEGIN();
  Store(handle, __func__)->Broadcast(Keys(vnum, vkeys, __func__, "vkeys"),
                                     Keys(onum, okeys, __func__, "okeys"),
                                     Values(vnum, vals, __func__, "vals"),
                                     Outputs(onum, outs, __func__, "outs"), priority);
  API_END();
}

int MXKVStorePushPull(KVStoreHandle handle, mx_uint vnum, const int* vkeys, mx_uint onum,
                      const int* okeys, NDArrayHandle* vals, NDArrayHandle* outs, int priority) {
  API_BEGIN();
  Store(handle, __func__)->PushPull(Keys(vnum, vkeys, __func__, "vkeys"),
                                    Keys(onum, okeys, __func__, "okeys"),
                                    Values(vnum, vals, __func__, "vals"),
                                    Outputs(onum, outs, __func__, "outs"), priority);
  API_END();
}

int MXKVStorePushPullEx(KVStoreHandle handle, mx_uint vnum, const char** vkeys, mx_uint onum,
                        const char** okeys, NDArrayHandle* vals, NDArrayHandle* outs,
                        int priority) {
  API_BEGIN();
  Store(handle, __func__)->PushPull(Keys(vnum, vkeys, __func__, "vkeys"),
                                    Keys(onum, okeys, __func__, "okeys"),
                                    Values(vnum, vals, __func__, "vals"),
                                    Outputs(onum, outs, __func__, "outs"), priority);
  API_END();
}

int MXKVStoreSetUpdater(KVStoreHandle handle, MXKVStoreUpdater updater, void* updater_handle) {
  API_BEGIN();
  API_CHECK(updater != nullptr, __func__ << ": argument updater is NULL");
  Store(handle, __func__)->set_updater(WrapUpdater(updater, updater_handle));
  API_END();
}

int MXKVStoreSetUpdaterEx(KVStoreHandle handle, MXKVStoreUpdater updater,
                          MXKVStoreStrUpdater str_updater, void* updater_handle) {
  API_BEGIN();
  KVStore* kv = Store(handle, __func__);
  // Either may be NULL: a store keyed by ints needs only the first, by strings the second.
  if (updater != nullptr) kv->set_updater(WrapUpdater(updater, updater_handle));
  if (str_updater != nullptr) kv->set_updater(WrapStrUpdater(str_updater, updater_handle));
  API_END();
}

int MXKVStoreGetType(KVStoreHandle handle, const char** type) {
  API_BEGIN();
  API_NOT_NULL(type);
  *type = Store(handle, __func__)->type().c_str();
  API_END();
}

int MXKVStoreGetRank(KVStoreHandle handle, int* ret) {
  API_BEGIN();
  API_NOT_NULL(ret);
  *ret = Store(handle, __func__)->get_rank();
  API_END();
}

int MXKVStoreGetGroupSize(KVStoreHandle handle, int* ret) {
  API_BEGIN();
  API_NOT_NULL(ret);
  *ret = Store(handle, __func__)->get_group_size();
  API_END();
}

int MXKVStoreIsWorkerNode(int* ret) {
  API_BEGIN();
  API_NOT_NULL(ret);
  *ret = KVStore::IsWorkerNode();
  API_END();
}

int MXKVStoreIsServerNode(int* ret) {
  API_BEGIN();
  API_NOT_NULL(ret);
  *ret = KVStore::IsServerNode();
  API_END();
}

int MXKVStoreIsSchedulerNode(int* ret) {
  API_BEGIN();
  API_NOT_NULL(ret);
  *ret = KVStore::IsSchedulerNode();
  API_END();
}

int MXKVStoreBarrier(KVStoreHandle handle) {
  API_BEGIN();
  Store(handle, __func__)->Barrier();
  API_END();
}

int MXKVStoreSetBarrierBeforeExit(KVStoreHandle handle, const int barrier_before_exit) {
  API_BEGIN();
  Store(handle, __func__)->set_barrier_before_exit(barrier_before_exit != 0);
  API_END();
}

int MXKVStoreRunServer(KVStoreHandle handle, MXKVStoreServerController controller,
                       void* controller_handle) {
  API_BEGIN();
  KVStore::Controller ctrl;
  if (controller != nullptr) {
    ctrl = [controller, controller_handle](int head, const std::string& body) {
      controller(head, body.c_str(), controller_handle);
    };
  }
  Store(handle, __func__)->RunServer(ctrl);
  API_END();
}

int MXKVStoreSendCommmandToServers(KVStoreHandle handle, int cmd_id, const char* cmd_body) {
  API_BEGIN();
  API_NOT_NULL(cmd_body);
  Store(handle, __func__)->SendCommandToServers(cmd_id, cmd_body);
  API_END();
}

int MXKVStoreGetNumDeadNode(KVStoreHandle handle, const int node_id, int* number,
                            const int timeout_sec) {
  API_BEGIN();
  API_NOT_NULL(number);
  *number = Store(handle, __func__)->get_num_dead_node(node_id, timeout_sec);
  API_END();
}
