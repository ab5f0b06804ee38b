// KVStoreNCCL: the "nccl" store. Values pushed from several GPUs are summed by ncclReduce into
// a merge buffer on one of them (the first device of the first push with several), and pulls
// spread the stored value with ncclBcast, as MXNet 1.9.1's KVStoreNCCL: one set of devices per
// store, dense arrays only, no gradient compression, values kept on the CPU between uses. The
// collectives of all keys of one push or pull go to NCCL as one group, in one engine op that
// waits for its streams, so the op's reads and writes are final when the engine releases them.
#include "kvstore/kvstore_nccl.h"

#include <dmlc/logging.h>

#include "kvstore/kvstore_local.h"
#include "mxnet/cuda_config.h"
#include "mxnet/libinfo.h"

#if MXNET_USE_NCCL
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "storage/cuda_device_guard.h"
#endif

namespace mxnet {
namespace kvstore {

#if MXNET_USE_NCCL
namespace {

void CheckNccl(ncclResult_t r, const char* what) {
  CHECK_EQ(r, ncclSuccess) << "NCCL kvstore: " << what << " failed: " << ncclGetErrorString(r);
}

void CheckCuda(cudaError_t e, const char* what) {
  CHECK_EQ(e, cudaSuccess) << "NCCL kvstore: " << what << " failed: " << cudaGetErrorString(e);
}

ncclDataType_t NcclType(int dtype) {
  switch (dtype) {
    case kFloat32: return ncclFloat32;
    case kFloat64: return ncclFloat64;
    case kFloat16: return ncclFloat16;
    case kUint8: return ncclUint8;
    case kInt8: return ncclInt8;
    case kInt32: return ncclInt32;
    case kInt64: return ncclInt64;
    default:
      LOG(FATAL) << "NCCL kvstore: dtype " << DTypeName(dtype) << " is not supported (float32, "
                 << "float64, float16, uint8, int8, int32, int64)";
  }
  return ncclFloat32;
}

void CheckDense(const NDArray& a) {
  CHECK_EQ(a.storage_type(), kDefaultStorage)
      << "NCCL kvstore does not support sparse storage type";
}

// One communicator per device of the store's device set, each with its own stream.
class NcclClique {
 public:
  explicit NcclClique(const std::vector<int>& sorted_ids) : ids_(sorted_ids) {
    comms_.resize(ids_.size());
    CheckNccl(ncclCommInitAll(comms_.data(), static_cast<int>(ids_.size()), ids_.data()),
              "ncclCommInitAll");
    streams_.resize(ids_.size());
    for (size_t i = 0; i < ids_.size(); ++i) {
      storage::CudaDeviceGuard guard(ids_[i]);
      // A blocking stream (as MXNet's): it waits for work on the legacy default stream, where
      // kernels go when no engine stream is given (NaiveEngine).
      CheckCuda(cudaStreamCreate(&streams_[i]), "cudaStreamCreate");
    }
  }
  ~NcclClique() {
    for (size_t i = 0; i < ids_.size(); ++i) {
      storage::CudaDeviceGuard guard(ids_[i]);
      cudaStreamDestroy(streams_[i]);
      ncclCommDestroy(comms_[i]);
    }
  }
  NcclClique(const NcclClique&) = delete;
  NcclClique& operator=(const NcclClique&) = delete;

  const std::vector<int>& ids() const { return ids_; }
  /*! \brief The rank (index in the sorted device ids) of gpu(dev_id). */
  int Rank(int dev_id) const {
    auto it = std::lower_bound(ids_.begin(), ids_.end(), dev_id);
    CHECK(it != ids_.end() && *it == dev_id) << "NCCL kvstore: gpu(" << dev_id << ") is not one "
                                             << "of the store's devices";
    return static_cast<int>(it - ids_.begin());
  }
  ncclComm_t comm(int dev_id) const { return comms_[Rank(dev_id)]; }
  cudaStream_t stream(int dev_id) const { return streams_[Rank(dev_id)]; }

  /*! \brief Launch fn between ncclGroupStart and ncclGroupEnd, then wait for every stream. */
  template <typename Fn>
  void RunGroup(Fn fn) const {
    CheckNccl(ncclGroupStart(), "ncclGroupStart");
    try {
      fn();
    } catch (...) {
      ncclGroupEnd();  // close the group before the error travels on
      throw;
    }
    CheckNccl(ncclGroupEnd(), "ncclGroupEnd");
    for (size_t i = 0; i < ids_.size(); ++i) {
      storage::CudaDeviceGuard guard(ids_[i]);
      CheckCuda(cudaStreamSynchronize(streams_[i]), "waiting for an NCCL collective");
    }
  }

 private:
  std::vector<int> ids_;
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
};

class KVStoreNCCL : public KVStoreLocal {
 public:
  KVStoreNCCL() : KVStoreLocal(true) {
    CHECK_GT(GetGPUCount(), 0) << "KVStore.create('nccl'): no GPU is visible to this process "
                                  "(the NCCL store sums arrays on GPUs); use 'local' or 'device'";
  }

  void SetGradientCompression(
      const std::vector<std::pair<std::string, std::string>>& kwargs) override {
    LOG(FATAL) << "NCCL kvstore does not support gradient compression";
  }

  void Pull(const std::vector<int>& keys, const std::vector<NDArray*>& values, int priority,
            bool ignore_sparse) override {
    CHECK(ignore_sparse) << "nccl kvstore pull doesn't support ignore_sparse=False";
    KVStoreLocal::Pull(keys, values, priority, ignore_sparse);
  }
  void Pull(const std::vector<std::string>& keys, const std::vector<NDArray*>& values,
            int priority, bool ignore_sparse) override {
    CHECK(ignore_sparse) << "nccl kvstore pull doesn't support ignore_sparse=False";
    KVStoreLocal::Pull(keys, values, priority, ignore_sparse);
  }

 protected:
  void InitImpl(const std::vector<int>& keys, const std::vector<NDArray>& values) override {
    CHECK_EQ(keys.size(), values.size())
        << "KVStore.init: " << keys.size() << " keys for " << values.size() << " values";
    for (size_t i = 0; i < keys.size(); ++i) {
      CheckNewKey(keys[i], values[i]);
      CheckDense(values[i]);
      NcclType(values[i].dtype());  // refuse a dtype NCCL cannot sum now, not inside an op
      local_[keys[i]] = values[i].Copy(Context::CPU(0));
    }
  }

  void PullRowSparseImpl(const std::vector<int>&, const std::vector<std::pair<NDArray*, NDArray>>&,
                         int) override {
    LOG(FATAL) << "NCCL kvstore does not support sparse storage type";
  }

  void PushImpl(const std::vector<int>& keys, const std::vector<NDArray>& values,
                int priority) override {
    CheckInited(keys, "push");
    std::vector<int> uniq;
    std::vector<std::vector<NDArray>> grouped;
    Group(keys, values, &uniq, &grouped);
    std::vector<NDArray> merged(uniq.size());
    std::vector<size_t> reduced;  // positions summed by NCCL
    for (size_t k = 0; k < uniq.size(); ++k) {
      const NDArray& local = local_.at(uniq[k]);
      for (const NDArray& v : grouped[k]) {
        CHECK(!v.is_none()) << "KVStore.push: a value of key " << KeyName(uniq[k]) << " is empty";
        CheckDense(v);
        CHECK_EQ(v.shape(), local.shape())
            << "KVStore.push: key " << KeyName(uniq[k]) << " was initialized with shape "
            << local.shape() << ", given a value of shape " << v.shape();
        CHECK_EQ(v.dtype(), local.dtype())
            << "NCCL kvstore: key " << KeyName(uniq[k]) << " was initialized as "
            << DTypeName(local.dtype()) << ", given a value of " << DTypeName(v.dtype());
      }
      if (grouped[k].size() == 1) {  // nothing to sum (MXNet: no copy either)
        merged[k] = grouped[k][0];
        continue;
      }
      SetDevices(grouped[k]);
      merged[k] = MergeBuffer(uniq[k]);
      reduced.push_back(k);
    }
    if (!reduced.empty()) PushReduce(grouped, merged, reduced, priority);
    for (size_t k = 0; k < uniq.size(); ++k) StoreMerged(uniq[k], merged[k]);
  }

  void PullImpl(const std::vector<int>& keys, const std::vector<NDArray*>& outs,
                int priority) override {
    CheckInited(keys, "pull");
    std::vector<int> uniq;
    std::vector<std::vector<NDArray*>> grouped;
    Group(keys, outs, &uniq, &grouped);
    std::vector<NDArray> roots;                 // per broadcast: the filled output on the root
    std::vector<std::vector<NDArray>> others;   // and the outputs it goes to
    for (size_t k = 0; k < uniq.size(); ++k) {
      const NDArray& local = local_.at(uniq[k]);
      std::vector<NDArray*>& dst = grouped[k];
      for (NDArray* o : dst) {
        CHECK(o != nullptr && !o->is_none())
            << "KVStore.pull: an output of key " << KeyName(uniq[k]) << " is empty";
        CheckDense(*o);
        CHECK_EQ(o->dtype(), local.dtype())
            << "NCCL kvstore: key " << KeyName(uniq[k]) << " holds " << DTypeName(local.dtype())
            << ", given an output of " << DTypeName(o->dtype());
      }
      if (clique_ == nullptr || dst.size() == 1) {
        // Before the first sum over devices (MXNet: "copy to a random device first"): one
        // output gets the value, the others copy from it.
        const size_t first = static_cast<size_t>(uniq[k]) % dst.size();
        CopyFromTo(local, *dst[first], priority);
        for (size_t i = 0; i < dst.size(); ++i) {
          if (i != first) CopyFromTo(*dst[first], *dst[i], priority);
        }
        continue;
      }
      std::vector<NDArray> vals;
      for (NDArray* o : dst) vals.push_back(*o);
      CheckDevices(vals);
      const int root = root_ctx_.dev_id;
      auto at_root = std::find_if(vals.begin(), vals.end(),
                                  [root](const NDArray& a) { return a.ctx().dev_id == root; });
      CopyFromTo(local, *at_root, priority);
      roots.push_back(*at_root);
      vals.erase(at_root);
      others.push_back(std::move(vals));
    }
    if (!roots.empty()) PushBroadcast(roots, others, priority);
  }

 private:
  // The first push over several devices fixes the store's devices, its communicators and the
  // merge buffers (all on that push's first device, as MXNet).
  void SetDevices(const std::vector<NDArray>& vals) {
    if (clique_ == nullptr) {
      const std::vector<int> ids = SortedGpuIds(vals);
      CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end())
          << "NCCL kvstore: a key is pushed twice from one GPU; push one value per device";
      clique_ = std::make_shared<const NcclClique>(ids);
      root_ctx_ = vals[0].ctx();
    }
    CheckDevices(vals);
  }

  // A key's merge buffer, on the root GPU, made at the key's first sum.
  const NDArray& MergeBuffer(int key) {
    NDArray& buf = merge_[key];
    if (buf.is_none()) {
      const NDArray& local = local_.at(key);
      buf = NDArray(local.shape(), root_ctx_, false, local.dtype());
    }
    return buf;
  }

  static std::vector<int> SortedGpuIds(const std::vector<NDArray>& vals) {
    std::vector<int> ids;
    for (const NDArray& v : vals) {
      CHECK_EQ(v.ctx().dev_mask(), Context::kGPU)
          << "NCCL kvstore: values must be on GPUs, given one on " << v.ctx();
      ids.push_back(v.ctx().dev_id);
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  void CheckDevices(const std::vector<NDArray>& vals) const {
    CHECK(SortedGpuIds(vals) == clique_->ids())
        << "NCCL KVStore supports only single set of devices";
  }

  // One op: ncclReduce of every summed key into its merge buffer, grouped.
  void PushReduce(const std::vector<std::vector<NDArray>>& srcs, const std::vector<NDArray>& dst,
                  const std::vector<size_t>& which, int priority) {
    std::vector<VarHandle> reads, writes;
    std::vector<std::pair<std::vector<NDArray>, NDArray>> work;
    for (size_t k : which) {
      for (const NDArray& s : srcs[k]) reads.push_back(s.var());
      writes.push_back(dst[k].var());
      work.emplace_back(srcs[k], dst[k]);
    }
    std::shared_ptr<const NcclClique> clique = clique_;
    Engine::Get()->PushSync(
        [clique, work](RunContext) {
          clique->RunGroup([&] {
            for (const auto& w : work) {
              const NDArray& out = w.second;
              const int root = clique->Rank(out.ctx().dev_id);
              const size_t n = out.shape().Size();
              for (const NDArray& s : w.first) {
                const int dev = s.ctx().dev_id;
                CheckNccl(ncclReduce(s.data().dptr_, dev == out.ctx().dev_id ? out.data().dptr_
                                                                               : nullptr,
                                     n, NcclType(out.dtype()), ncclSum, root, clique->comm(dev),
                                     clique->stream(dev)),
                          "ncclReduce");
              }
            }
          });
        },
        Context::CPU(), reads, writes, FnProperty::kCPUPrioritized, priority, "KVStoreReduce");
  }

  // One op: ncclBcast of each root output to the key's other outputs, grouped.
  void PushBroadcast(const std::vector<NDArray>& roots,
                     const std::vector<std::vector<NDArray>>& others, int priority) {
    std::vector<VarHandle> reads, writes;
    for (size_t k = 0; k < roots.size(); ++k) {
      reads.push_back(roots[k].var());
      for (const NDArray& o : others[k]) writes.push_back(o.var());
    }
    std::shared_ptr<const NcclClique> clique = clique_;
    Engine::Get()->PushSync(
        [clique, roots, others](RunContext) {
          clique->RunGroup([&] {
            for (size_t k = 0; k < roots.size(); ++k) {
              const int root = clique->Rank(roots[k].ctx().dev_id);
              const size_t n = roots[k].shape().Size();
              const ncclDataType_t type = NcclType(roots[k].dtype());
              CheckNccl(ncclBcast(roots[k].data().dptr_, n, type, root,
                                  clique->comm(roots[k].ctx().dev_id),
                                  clique->stream(roots[k].ctx().dev_id)),
                        "ncclBcast");
              for (const NDArray& o : others[k]) {
                CheckNccl(ncclBcast(o.data().dptr_, n, type, root, clique->comm(o.ctx().dev_id),
                                    clique->stream(o.ctx().dev_id)),
                          "ncclBcast");
              }
            }
          });
        },
        Context::CPU(), reads, writes, FnProperty::kCPUPrioritized, priority, "KVStoreBCast");
  }

  Context root_ctx_;  // where every merge buffer lives: the first GPU of the first sum
  std::unordered_map<int, NDArray> merge_;
  std::shared_ptr<const NcclClique> clique_;  // kept alive by queued ops too
};

}  // namespace
#endif  // MXNET_USE_NCCL

std::unique_ptr<KVStore> CreateKVStoreNCCL() {
#if MXNET_USE_NCCL
  return std::make_unique<KVStoreNCCL>();
#else
  LOG(FATAL) << "KVStore.create('nccl'): this library was built without NCCL; rebuild with "
                "USE_CUDA=ON and USE_NCCL=ON to use nccl, or use 'device'";
  return nullptr;
#endif
}

}  // namespace kvstore
}  // namespace mxnet
