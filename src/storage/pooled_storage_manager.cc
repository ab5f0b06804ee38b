// The pool core: block cache, reserve, release-and-retry on out-of-memory, exact counters.
#include "storage/pooled_storage_manager.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "storage/storage_hooks.h"

namespace mxnet {
namespace storage {

std::atomic<StorageHook> g_storage_hook{nullptr};

namespace {
inline void Report(Context ctx, size_t size, size_t in_use_after, bool alloc) {
  if (StorageHook hook = g_storage_hook.load(std::memory_order_relaxed)) {
    hook(StorageEvent{ctx, size, in_use_after, alloc});
  }
}
}  // namespace

PooledStorageManager::PooledStorageManager(Context ctx, PoolPolicy policy,
                                           std::unique_ptr<DeviceStorage> device)
    : ctx_(ctx), policy_(policy), device_(std::move(device)) {
  CHECK(device_ != nullptr) << "PooledStorageManager for " << ctx_ << " needs a device";
  const size_t total = policy_.pooled() ? device_->TotalMemory() : 0;
  if (total == 0) {
    hold_limit_ = std::numeric_limits<size_t>::max();  // size unknown (or not pooled): no reserve
  } else {
    const size_t pct = static_cast<size_t>(policy_.reserve_percent);
    reserve_bytes_ = total / 100 * pct + total % 100 * pct / 100;  // total * pct / 100, no overflow
    hold_limit_ = total - reserve_bytes_;
  }
}

PooledStorageManager::~PooledStorageManager() {
  std::lock_guard<std::mutex> lock(mu_);
  ReleaseCacheLocked();
}

void PooledStorageManager::Alloc(Storage::Handle* handle) {
  const size_t size = handle->size;
  if (size == 0) {
    handle->dptr = nullptr;
    return;
  }
  const size_t block = policy_.BlockSize(size);
  size_t in_use_after;
  {
    std::lock_guard<std::mutex> lock(mu_);
    void* ptr = nullptr;
    auto it = cache_.find(block);
    if (it != cache_.end() && !it->second.empty()) {
      ptr = it->second.back().second;
      it->second.pop_back();
      pooled_ -= block;
    } else {
      ptr = AllocFromDevice(size, block);
    }
    in_use_ += size;
    peak_ = std::max(peak_, in_use_);
    high_water_ = std::max(high_water_, held_ - pooled_);
    handle->dptr = ptr;
    in_use_after = in_use_;
  }
  Report(ctx_, size, in_use_after, true);
}

void* PooledStorageManager::AllocFromDevice(size_t size, size_t block) {
  if (pooled_ > 0 && WouldEatReserve(block)) ReleaseCacheLocked();
  if (pooled_ > 0) TrimCacheLocked(block);
  void* ptr = device_->Alloc(block);
  if (ptr == nullptr) {
    ReleaseCacheLocked();  // the cache may hold what the device lacks; retry once either way
    ptr = device_->Alloc(block);
  }
  if (ptr == nullptr) {
    LOG(FATAL) << "out of memory on " << ctx_ << ": cannot allocate " << size << " bytes ("
               << block << " bytes as a " << policy_.name() << " pool block); " << in_use_
               << " bytes are in use on " << ctx_;
  }
  held_ += block;
  return ptr;
}

bool PooledStorageManager::WouldEatReserve(size_t block) {
  if (held_ > hold_limit_ || block > hold_limit_ - held_) return true;
  size_t free_bytes = 0;  // the device's own view also counts memory taken by others
  return device_->FreeMemory(&free_bytes) &&
         (free_bytes < block || free_bytes - block < reserve_bytes_);
}

void PooledStorageManager::Free(const Storage::Handle& handle) {
  if (handle.dptr == nullptr) return;
  const size_t block = policy_.BlockSize(handle.size);
  size_t in_use_after;
  {
    std::lock_guard<std::mutex> lock(mu_);
    SubtractInUse(handle.size);
    in_use_after = in_use_;
    if (!policy_.pooled() || shut_down_) {
      ReturnToDevice(handle.dptr, block);
    } else {
      cache_[block].emplace_back(free_seq_++, handle.dptr);
      pooled_ += block;
    }
  }
  Report(ctx_, handle.size, in_use_after, false);
}

void PooledStorageManager::DirectFree(const Storage::Handle& handle) {
  if (handle.dptr == nullptr) return;
  const size_t block = policy_.BlockSize(handle.size);
  size_t in_use_after;
  {
    std::lock_guard<std::mutex> lock(mu_);
    SubtractInUse(handle.size);
    in_use_after = in_use_;
    ReturnToDevice(handle.dptr, block);
  }
  Report(ctx_, handle.size, in_use_after, false);
}

void PooledStorageManager::ReleaseAll() {
  std::lock_guard<std::mutex> lock(mu_);
  ReleaseCacheLocked();
}

void PooledStorageManager::Shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  ReleaseCacheLocked();
  shut_down_ = true;
}

void PooledStorageManager::ReleaseCacheLocked() {
  for (auto& entry : cache_) {
    for (const auto& cached : entry.second) ReturnToDevice(cached.second, entry.first);
  }
  cache_.clear();
  pooled_ = 0;
}

void PooledStorageManager::TrimCacheLocked(size_t block) {
  const size_t want = std::max(high_water_, held_ - pooled_ + block);
  const size_t limit = want > std::numeric_limits<size_t>::max() / 2 ? want : 2 * want;
  while (pooled_ > 0 && held_ + block > limit) {
    auto oldest = cache_.end();
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
      if (!it->second.empty() &&
          (oldest == cache_.end() || it->second.front().first < oldest->second.front().first)) {
        oldest = it;
      }
    }
    ReturnToDevice(oldest->second.front().second, oldest->first);
    pooled_ -= oldest->first;
    oldest->second.pop_front();
    if (oldest->second.empty()) cache_.erase(oldest);
  }
}

void PooledStorageManager::ReturnToDevice(void* ptr, size_t block) {
  device_->Free(ptr);
  held_ -= std::min(held_, block);
}

void PooledStorageManager::SubtractInUse(size_t size) {
  // A size larger than what is in use is a caller bug (freeing with the wrong size);
  // clamp rather than wrap so the counters stay meaningful.
  in_use_ -= std::min(in_use_, size);
}

size_t PooledStorageManager::BytesInUse() {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

size_t PooledStorageManager::BytesPooled() {
  std::lock_guard<std::mutex> lock(mu_);
  return pooled_;
}

size_t PooledStorageManager::PeakBytesInUse() {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_;
}

void PooledStorageManager::ResetPeak() {
  std::lock_guard<std::mutex> lock(mu_);
  peak_ = in_use_;
}

}  // namespace storage
}  // namespace mxnet
