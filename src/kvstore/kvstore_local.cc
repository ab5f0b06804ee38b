// KVStoreLocal: the in-process store behind the "local" and "device" types; see
// kvstore_local.h. This file holds what init, push and pull do with a key.
#include "kvstore/kvstore_local.h"

#include "mxnet/imperative.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "kvstore/comm.h"
#include "kvstore/gradient_compression.h"

namespace mxnet {
namespace kvstore {

void KVStoreLocal::CheckNewKey(int key, const NDArray& value) const {
  CHECK(local_.count(key) == 0) << "duplicate init of key " << KeyName(key)
                                << ". Please double check if you called "
                                   "kv.init or kv.broadcast with this key "
                                   "multiple times";
  CHECK(!value.is_none()) << "KVStore.init: the value of key " << KeyName(key)
                          << " is an empty array";
}

NDArray KVStoreLocal::CheckedReduce(int key, const std::vector<NDArray>& values, int priority) {
  const NDArray& local = local_.at(key);
  for (const NDArray& v : values) {
    CHECK(!v.is_none()) << "KVStore.push: a value of key " << KeyName(key) << " is empty";
    CHECK_EQ(v.shape(), local.shape())
        << "KVStore.push: key " << KeyName(key) << " was initialized with shape " << local.shape()
        << ", given a value of shape " << v.shape();
  }
  return comm_->Reduce(key, values, priority);
}

void KVStoreLocal::InitImpl(const std::vector<int>& keys, const std::vector<NDArray>& values) {
  CHECK_EQ(keys.size(), values.size())
      << "KVStore.init: " << keys.size() << " keys for " << values.size() << " values";
  for (size_t i = 0; i < keys.size(); ++i) {
    CheckNewKey(keys[i], values[i]);
    // The store keeps dense values; sparse pushes and pulls convert.
    local_[keys[i]] = CastStorage(values[i], kDefaultStorage).Copy(comm_->store_ctx());
    comm_->Init(keys[i], values[i].shape(), values[i].dtype());
  }
}

void KVStoreLocal::PushImpl(const std::vector<int>& keys, const std::vector<NDArray>& values,
                            int priority) {
  CheckInited(keys, "push");
  std::vector<int> uniq;
  std::vector<std::vector<NDArray>> grouped;
  Group(keys, values, &uniq, &grouped);
  for (size_t i = 0; i < uniq.size(); ++i) {
    StoreMerged(uniq[i], CheckedReduce(uniq[i], grouped[i], priority));
  }
}

void KVStoreLocal::StoreMerged(int key, const NDArray& merged) {
  NDArray& local = local_[key];
  if (updater_ || str_updater_) {
    if (merged.ctx().dev_mask() != Context::kCPU && local.ctx().dev_mask() == Context::kCPU) {
      local = local.Copy(merged.ctx());
    }
    if (key_type_ == KeyType::kString && str_updater_) {
      str_updater_(reverse_str_key_dict_.at(key), merged, &local);
    } else {
      CHECK(updater_) << "KVStore.push: the updater takes int keys only, and this store "
                         "uses string keys";
      updater_(key, merged, &local);
    }
  } else {
    // Without an updater the sum becomes the stored value (shared, not
    // copied, as MXNet).
    local = merged;
  }
}

void KVStoreLocal::PullRowSparseImpl(const std::vector<int>& keys,
                                     const std::vector<std::pair<NDArray*, NDArray>>& val_rowids,
                                     int priority) {
  CHECK_EQ(keys.size(), val_rowids.size())
      << "KVStore.row_sparse_pull: " << keys.size() << " keys but " << val_rowids.size()
      << " outputs";
  static const nnvm::Op* retain = nnvm::Op::GetOrThrow("_sparse_retain");
  for (size_t i = 0; i < keys.size(); ++i) {
    NDArray* out = val_rowids[i].first;
    CHECK(out != nullptr && out->storage_type() == kRowSparseStorage)
        << "KVStore.row_sparse_pull: argument out expected row_sparse arrays, given storage "
           "type " << (out ? out->storage_type() : -1);
    NDArray full(out->shape(), out->ctx(), true, out->dtype());
    PullImpl({keys[i]}, {&full}, priority);
    NDArray row_ids = val_rowids[i].second;
    std::vector<NDArray> result{*out};
    Imperative::Get()->Invoke(out->ctx(), Imperative::ParseAttrs(retain, {}), {&full, &row_ids},
                              &result);
  }
}

void KVStoreLocal::PullImpl(const std::vector<int>& keys, const std::vector<NDArray*>& outs,
                            int priority) {
  CheckInited(keys, "pull");
  std::vector<int> uniq;
  std::vector<std::vector<NDArray*>> grouped;
  Group(keys, outs, &uniq, &grouped);
  for (size_t i = 0; i < uniq.size(); ++i) {
    for (NDArray* o : grouped[i]) {
      CHECK(o != nullptr && !o->is_none())
          << "KVStore.pull: an output of key " << KeyName(uniq[i]) << " is empty";
    }
    comm_->Broadcast(uniq[i], local_[uniq[i]], grouped[i], priority);
  }
}

std::unique_ptr<KVStore> CreateKVStoreLocal(bool use_device_comm) {
  return std::make_unique<KVStoreLocal>(use_device_comm);
}

}  // namespace kvstore
}  // namespace mxnet
