// Storage::Get(): the process-wide storage, one lazily created pool per device.
#include "mxnet/storage.h"

#include <dmlc/logging.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "storage/cpu_device_storage.h"
#include "storage/gpu_device_storage.h"
#include "storage/pinned_memory_storage.h"
#include "storage/pool_policy.h"
#include "storage/pooled_storage_manager.h"

namespace mxnet {
namespace storage {
namespace {

constexpr int kNumDeviceTypes = 6;  // Context::DeviceType values are 1, 2, 3 and 5
constexpr int kMaxDeviceId = 64;    // per device type

std::unique_ptr<DeviceStorage> MakeDeviceStorage(Context ctx) {
  switch (ctx.dev_type) {
    case Context::kGPU: return std::make_unique<GPUDeviceStorage>(ctx.dev_id);
    case Context::kCPUPinned: return std::make_unique<PinnedMemoryStorage>(ctx.dev_id);
    default: return std::make_unique<CPUDeviceStorage>();
  }
}

/*!
 * \brief Routes each handle to the pool of its device. Pools are created on first use and
 *  never destroyed; the lookup on the Alloc/Free path is one atomic load.
 */
class StorageImpl final : public Storage {
 public:
  StorageImpl() {
    for (auto& per_type : slots_) {
      for (auto& slot : per_type) slot.store(nullptr, std::memory_order_relaxed);
    }
  }

  void Alloc(Handle* handle) override {
    if (handle->size == 0) {
      handle->dptr = nullptr;
      return;
    }
    GetOrCreate(handle->ctx)->Alloc(handle);
  }

  void Free(Handle handle) override {
    if (handle.dptr == nullptr) return;
    Existing(handle.ctx, "free")->Free(handle);
  }

  void DirectFree(Handle handle) override {
    if (handle.dptr == nullptr) return;
    Existing(handle.ctx, "free")->DirectFree(handle);
  }

  void ReleaseAll(Context ctx) override {
    if (PooledStorageManager* m = Find(ctx)) m->ReleaseAll();
  }

  size_t BytesInUse(Context ctx) override {
    PooledStorageManager* m = Find(ctx);
    return m ? m->BytesInUse() : 0;
  }
  size_t BytesPooled(Context ctx) override {
    PooledStorageManager* m = Find(ctx);
    return m ? m->BytesPooled() : 0;
  }
  size_t PeakBytesInUse(Context ctx) override {
    PooledStorageManager* m = Find(ctx);
    return m ? m->PeakBytesInUse() : 0;
  }
  void ResetPeak(Context ctx) override {
    if (PooledStorageManager* m = Find(ctx)) m->ResetPeak();
  }

  const char* PoolType(Context ctx) override {
    if (PooledStorageManager* m = Find(ctx)) return m->policy().name();
    Slot(ctx);  // validates the context
    return PoolPolicy::ForDevice(ctx.dev_type).name();
  }

  /*! \brief Last shared reference gone (process exit): release every cache, stop caching. */
  void Shutdown() {
    std::lock_guard<std::mutex> lock(create_mu_);
    shut_down_ = true;
    for (auto& m : owned_) m->Shutdown();
  }

 private:
  // The slot of ctx's pool. CPU and shared memory have one pool whatever the id (as MXNet).
  std::atomic<PooledStorageManager*>& Slot(Context ctx) {
    const int type = static_cast<int>(ctx.dev_type);
    if (type != Context::kCPU && type != Context::kGPU && type != Context::kCPUPinned &&
        type != Context::kCPUShared) {
      LOG(FATAL) << "storage: unknown device type " << type
                 << " (expected cpu, gpu, cpu_pinned or cpu_shared)";
    }
    const bool per_id = ctx.dev_type == Context::kGPU || ctx.dev_type == Context::kCPUPinned;
    const int id = per_id ? ctx.dev_id : 0;
    if (id < 0 || id >= kMaxDeviceId) {
      LOG(FATAL) << ctx << ": device id out of range (expected 0 to " << kMaxDeviceId - 1 << ")";
    }
    return slots_[type][id];
  }

  PooledStorageManager* Find(Context ctx) { return Slot(ctx).load(std::memory_order_acquire); }

  PooledStorageManager* Existing(Context ctx, const char* what) {
    PooledStorageManager* m = Find(ctx);
    if (m == nullptr) {
      LOG(FATAL) << "storage: cannot " << what << " memory on " << ctx
                 << ": nothing was ever allocated there";
    }
    return m;
  }

  PooledStorageManager* GetOrCreate(Context ctx) {
    std::atomic<PooledStorageManager*>& slot = Slot(ctx);
    if (PooledStorageManager* m = slot.load(std::memory_order_acquire)) return m;
    std::lock_guard<std::mutex> lock(create_mu_);
    if (PooledStorageManager* m = slot.load(std::memory_order_acquire)) return m;
    const PoolPolicy policy = PoolPolicy::ForDevice(ctx.dev_type);
    owned_.push_back(
        std::make_unique<PooledStorageManager>(ctx, policy, MakeDeviceStorage(ctx)));
    PooledStorageManager* m = owned_.back().get();
    if (shut_down_) m->Shutdown();  // first use during exit: do not cache anything
    slot.store(m, std::memory_order_release);
    return m;
  }

  std::array<std::array<std::atomic<PooledStorageManager*>, kMaxDeviceId>, kNumDeviceTypes> slots_;
  std::mutex create_mu_;
  std::vector<std::unique_ptr<PooledStorageManager>> owned_;  // guarded by create_mu_
  bool shut_down_{false};                                     // guarded by create_mu_
};

StorageImpl* Instance() {
  // Never destroyed: engine/ndarray statics may free memory after the last shared reference
  // is gone; Shutdown() has by then turned every pool into a pass-through.
  static StorageImpl* impl = new StorageImpl();
  return impl;
}

}  // namespace
}  // namespace storage

std::shared_ptr<Storage> Storage::_GetSharedRef() {
  // The "deleter" runs when the last holder (this static or an engine/ndarray static that
  // copied it) lets go: it releases the pools instead of destroying the object.
  static std::shared_ptr<Storage> ref(storage::Instance(), [](Storage* s) {
    static_cast<storage::StorageImpl*>(s)->Shutdown();
  });
  return ref;
}

Storage* Storage::Get() {
  static Storage* ptr = _GetSharedRef().get();
  return ptr;
}

}  // namespace mxnet
