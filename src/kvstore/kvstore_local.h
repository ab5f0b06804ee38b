// KVStoreLocal: the in-process store behind the "local" and "device" types.
// Values live in CPU memory; pushes are summed by a Comm and either replace the
// stored value or go through the updater (the optimizer running on the store);
// pulls copy the stored value out. Every data movement is an engine op, so
// nothing here waits for data.
#ifndef MXNET_KVSTORE_KVSTORE_LOCAL_H_
#define MXNET_KVSTORE_KVSTORE_LOCAL_H_

#include <dmlc/logging.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kvstore/comm.h"
#include "kvstore/gradient_compression.h"
#include "mxnet/kvstore.h"

namespace mxnet {
namespace kvstore {

enum class KeyType { kUndefined, kString, kInt };

/*! \brief The in-process store; the distributed store derives from it and
 * replaces what init, push and pull do with a key (the string-key mapping and
 * grouping stay here). */
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
    std::vector<int> k;
    std::vector<NDArray*> v;
    KeepPulled(keys, values, ignore_sparse, &k, &v);
    PullImpl(k, v, priority);
  }
  void Pull(const std::vector<std::string>& keys, const std::vector<NDArray*>& values, int priority,
            bool ignore_sparse) override {
    SetKeyType(KeyType::kString);
    std::vector<std::string> k;
    std::vector<NDArray*> v;
    KeepPulled(keys, values, ignore_sparse, &k, &v);
    PullImpl(LookupKeys(k), v, priority);
  }
  /*! \brief With ignore_sparse (MXNet's default) a pull skips row_sparse outputs, which
   *  row_sparse_pull fills; the other pairs are kept in order. */
  template <typename K>
  static void KeepPulled(const std::vector<K>& keys, const std::vector<NDArray*>& values,
                         bool ignore_sparse, std::vector<K>* k, std::vector<NDArray*>* v) {
    for (size_t i = 0; i < keys.size() && i < values.size(); ++i) {
      if (ignore_sparse && values[i] != nullptr &&
          values[i]->storage_type() == kRowSparseStorage) {
        continue;
      }
      k->push_back(keys[i]);
      v->push_back(values[i]);
    }
  }
  void PullRowSparse(const std::vector<int>& keys,
                     const std::vector<std::pair<NDArray*, NDArray>>& val_rowids,
                     int priority) override {
    SetKeyType(KeyType::kInt);
    CheckInited(keys, "row_sparse_pull");
    PullRowSparseImpl(keys, val_rowids, priority);
  }
  void PullRowSparse(const std::vector<std::string>& keys,
                     const std::vector<std::pair<NDArray*, NDArray>>& val_rowids,
                     int priority) override {
    SetKeyType(KeyType::kString);
    PullRowSparseImpl(LookupKeys(keys), val_rowids, priority);
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

 protected:
  void SetKeyType(KeyType t) {
    if (key_type_ == KeyType::kUndefined) key_type_ = t;
    CHECK(key_type_ == t) << "KVStore: Mixed key types are not allowed: this store uses "
                          << (key_type_ == KeyType::kInt ? "int" : "string") << " keys, given a "
                          << (t == KeyType::kInt ? "int" : "string") << " key";
  }

  // String keys get consecutive int keys at init.
  std::vector<int> NewStrKeys(const std::vector<std::string>& str_keys) {
    std::vector<int> keys(str_keys.size());
    for (size_t i = 0; i < str_keys.size(); ++i) {
      CHECK(str_key_dict_.count(str_keys[i]) == 0)
          << "duplicate init of key " << str_keys[i]
          << ". Please double check if you called kv.init or kv.broadcast with "
             "this key "
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
      CHECK(it != str_key_dict_.end()) << "key " << str_keys[i] << " doesn't exist. Did you init?";
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

  /*! \brief row_sparse_pull: each output (row_sparse) gets the rows row_ids (any order,
   *  repeats allowed) of the key's value (kvstore_local.cc). */
  virtual void PullRowSparseImpl(const std::vector<int>& keys,
                                 const std::vector<std::pair<NDArray*, NDArray>>& val_rowids,
                                 int priority);

  /*! \brief Throws unless key is new and value is not empty (init). */
  void CheckNewKey(int key, const NDArray& value) const;
  /*! \brief The sum of a key's pushed values, after checking them against the
   * key. */
  NDArray CheckedReduce(int key, const std::vector<NDArray>& values, int priority);

  virtual void InitImpl(const std::vector<int>& keys, const std::vector<NDArray>& values);

  // Sort (key, position) pairs by key, keeping the given order within a key.
  template <typename V>
  void Group(const std::vector<int>& keys, const std::vector<V>& values, std::vector<int>* uniq,
             std::vector<std::vector<V>>* grouped) const {
    CHECK_EQ(keys.size(), values.size())
        << "KVStore: " << keys.size() << " keys for " << values.size() << " values";
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

  virtual void PushImpl(const std::vector<int>& keys, const std::vector<NDArray>& values,
                        int priority);

  virtual void PullImpl(const std::vector<int>& keys, const std::vector<NDArray*>& outs,
                        int priority);

  std::unique_ptr<Comm> comm_;
  std::shared_ptr<GradientCompression> gc_;
  std::unordered_map<int, NDArray> local_;
  std::unordered_map<std::string, int> str_key_dict_;
  std::unordered_map<int, std::string> reverse_str_key_dict_;
  int next_str_key_{0};
  KeyType key_type_{KeyType::kUndefined};
};

/*! \brief A local store merging on the CPU, or on the pushing devices when
 * use_device_comm. */
std::unique_ptr<KVStore> CreateKVStoreLocal(bool use_device_comm);

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_KVSTORE_LOCAL_H_
