// KVStoreLocal: the in-process store behind the "local" and "device" types. Values live in
// CPU memory; pushes are summed by a Comm and either replace the stored value or go through
// the updater (the optimizer running on the store); pulls copy the stored value out. Every
// data movement is an engine op, so nothing here waits for data.
#include "kvstore/kvstore_local.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "kvstore/comm.h"
#include "kvstore/gradient_compression.h"

namespace mxnet {
namespace kvstore {
namespace {

enum class KeyType { kUndefined, kString, kInt };

class KVStoreLocal : public KVStore {
 public:
  explicit KVStoreLocal(bool use_device_comm)
      : comm_(use_device_comm ? CreateCommDevice() : CreateCommCPU()),
        gc_(std::make_shared<GradientCompression>()) {}

  void Init(const std::vector<int>& keys, const std::vector<NDArray>& values) override {
    SetKeyType(KeyType::kInt);
    InitImpl(keys, values);
  }
  void Init(const std::vector<std::string>& keys, const std::vector<NDArray>& values) override {
    SetKeyType(KeyType::kString);
    InitImpl(NewStrKeys(keys), values);
  }
  void Push(const std::vector<int>& keys, const std::vector<NDArray>& values,
            int priority) override {
    SetKeyType(KeyType::kInt);
    PushImpl(keys, values, priority);
  }
  void Push(const std::vector<std::string>& keys, const std::vector<NDArray>& values,
            int priority) override {
    SetKeyType(KeyType::kString);
    PushImpl(LookupKeys(keys), values, priority);
  }
  void Pull(const std::vector<int>& keys, const std::vector<NDArray*>& values, int priority,
            bool ignore_sparse) override {
    SetKeyType(KeyType::kInt);
    PullImpl(keys, values, priority);
  }
  void Pull(const std::vector<std::string>& keys, const std::vector<NDArray*>& values,
            int priority, bool ignore_sparse) override {
    SetKeyType(KeyType::kString);
    PullImpl(LookupKeys(keys), values, priority);
  }
  void PullRowSparse(const std::vector<int>& keys,
                     const std::vector<std::pair<NDArray*, NDArray>>& val_rowids,
                     int priority) override {
    SetKeyType(KeyType::kInt);
    CheckInited(keys, "row_sparse_pull");
    RowSparseUnsupported();
  }
  void PullRowSparse(const std::vector<std::string>& keys,
                     const std::vector<std::pair<NDArray*, NDArray>>& val_rowids,
                     int priority) override {
    SetKeyType(KeyType::kString);
    LookupKeys(keys);
    RowSparseUnsupported();
  }
  void Broadcast(const std::vector<int>& vkeys, const std::vector<int>& okeys,
                 const std::vector<NDArray>& values, const std::vector<NDArray*>& outs,
                 int priority) override {
    SetKeyType(KeyType::kInt);
    InitImpl(vkeys, values);
    PullImpl(okeys, outs, priority);
  }
  void Broadcast(const std::vector<std::string>& vkeys, const std::vector<std::string>& okeys,
                 const std::vector<NDArray>& values, const std::vector<NDArray*>& outs,
                 int priority) override {
    SetKeyType(KeyType::kString);
    InitImpl(NewStrKeys(vkeys), values);
    PullImpl(LookupKeys(okeys), outs, priority);
  }
  void PushPull(const std::vector<int>& vkeys, const std::vector<int>& okeys,
                const std::vector<NDArray>& values, const std::vector<NDArray*>& outs,
                int priority) override {
    SetKeyType(KeyType::kInt);
    PushImpl(vkeys, values, priority);
    PullImpl(okeys, outs, priority);
  }
  void PushPull(const std::vector<std::string>& vkeys, const std::vector<std::string>& okeys,
                const std::vector<NDArray>& values, const std::vector<NDArray*>& outs,
                int priority) override {
    SetKeyType(KeyType::kString);
    PushImpl(LookupKeys(vkeys), values, priority);
    PullImpl(LookupKeys(okeys), outs, priority);
  }

  void SetGradientCompression(
      const std::vector<std::pair<std::string, std::string>>& kwargs) override {
    gc_->SetParams(kwargs);
    comm_->SetGradientCompression(gc_);
  }

 private:
  void SetKeyType(KeyType t) {
    if (key_type_ == KeyType::kUndefined) key_type_ = t;
    CHECK(key_type_ == t) << "KVStore: Mixed key types are not allowed: this store uses "
                          << (key_type_ == KeyType::kInt ? "int" : "string")
                          << " keys, given a " << (t == KeyType::kInt ? "int" : "string")
                          << " key";
  }

  // String keys get consecutive int keys at init.
  std::vector<int> NewStrKeys(const std::vector<std::string>& str_keys) {
    std::vector<int> keys(str_keys.size());
    for (size_t i = 0; i < str_keys.size(); ++i) {
      CHECK(str_key_dict_.count(str_keys[i]) == 0)
          << "duplicate init of key " << str_keys[i]
          << ". Please double check if you called kv.init or kv.broadcast with this key "
             "multiple times";
      keys[i] = next_str_key_++;
      str_key_dict_[str_keys[i]] = keys[i];
      reverse_str_key_dict_[keys[i]] = str_keys[i];
    }
    return keys;
  }

  std::vector<int> LookupKeys(const std::vector<std::string>& str_keys) const {
    std::vector<int> keys(str_keys.size());
    for (size_t i = 0; i < str_keys.size(); ++i) {
      auto it = str_key_dict_.find(str_keys[i]);
      CHECK(it != str_key_dict_.end())
          << "key " << str_keys[i] << " doesn't exist. Did you init?";
      keys[i] = it->second;
    }
    return keys;
  }

  std::string KeyName(int key) const {
    if (key_type_ == KeyType::kString) return "'" + reverse_str_key_dict_.at(key) + "'";
    return std::to_string(key);
  }

  void CheckInited(const std::vector<int>& keys, const char* op) const {
    for (int k : keys) {
      CHECK(local_.count(k)) << "KVStore." << op << ": key " << k
                             << " has not been initialized (call init first)";
    }
  }

  [[noreturn]] static void RowSparseUnsupported() {
    LOG(FATAL) << "KVStore.row_sparse_pull needs row_sparse arrays, and this build has no "
                  "sparse storage: use pull for dense arrays";
    throw;  // unreachable: LOG(FATAL) throws
  }

  void InitImpl(const std::vector<int>& keys, const std::vector<NDArray>& values) {
    CHECK_EQ(keys.size(), values.size()) << "KVStore.init: " << keys.size() << " keys for "
                                         << values.size() << " values";
    for (size_t i = 0; i < keys.size(); ++i) {
      CHECK(local_.count(keys[i]) == 0)
          << "duplicate init of key " << KeyName(keys[i])
          << ". Please double check if you called kv.init or kv.broadcast with this key "
             "multiple times";
      CHECK(!values[i].is_none()) << "KVStore.init: the value of key " << KeyName(keys[i])
                                  << " is an empty array";
      local_[keys[i]] = values[i].Copy(comm_->store_ctx());
      comm_->Init(keys[i], values[i].shape(), values[i].dtype());
    }
  }

  // Sort (key, position) pairs by key, keeping the given order within a key.
  template <typename V>
  void Group(const std::vector<int>& keys, const std::vector<V>& values, std::vector<int>* uniq,
             std::vector<std::vector<V>>* grouped) const {
    CHECK_EQ(keys.size(), values.size()) << "KVStore: " << keys.size() << " keys for "
                                         << values.size() << " values";
    std::vector<size_t> order(keys.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    for (size_t i : order) {
      if (uniq->empty() || uniq->back() != keys[i]) {
        uniq->push_back(keys[i]);
        grouped->emplace_back();
      }
      grouped->back().push_back(values[i]);
    }
  }

  void PushImpl(const std::vector<int>& keys, const std::vector<NDArray>& values, int priority) {
    CheckInited(keys, "push");
    std::vector<int> uniq;
    std::vector<std::vector<NDArray>> grouped;
    Group(keys, values, &uniq, &grouped);
    for (size_t i = 0; i < uniq.size(); ++i) {
      const int key = uniq[i];
      NDArray& local = local_[key];
      for (const NDArray& v : grouped[i]) {
        CHECK(!v.is_none()) << "KVStore.push: a value of key " << KeyName(key) << " is empty";
        CHECK_EQ(v.shape(), local.shape())
            << "KVStore.push: key " << KeyName(key) << " was initialized with shape "
            << local.shape() << ", given a value of shape " << v.shape();
      }
      NDArray merged = comm_->Reduce(key, grouped[i], priority);
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
        // Without an updater the sum becomes the stored value (shared, not copied, as MXNet).
        local = merged;
      }
    }
  }

  void PullImpl(const std::vector<int>& keys, const std::vector<NDArray*>& outs, int priority) {
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

  std::unique_ptr<Comm> comm_;
  std::shared_ptr<GradientCompression> gc_;
  std::unordered_map<int, NDArray> local_;
  std::unordered_map<std::string, int> str_key_dict_;
  std::unordered_map<int, std::string> reverse_str_key_dict_;
  int next_str_key_{0};
  KeyType key_type_{KeyType::kUndefined};
};

}  // namespace

std::unique_ptr<KVStore> CreateKVStoreLocal(bool use_device_comm) {
  return std::make_unique<KVStoreLocal>(use_device_comm);
}

}  // namespace kvstore
}  // namespace mxnet
