// PooledStorageManager: the pool core of all devices; a PoolPolicy picks Naive, Round or Unpooled.
#ifndef MXNET_STORAGE_POOLED_STORAGE_MANAGER_H_
#define MXNET_STORAGE_POOLED_STORAGE_MANAGER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "mxnet/storage.h"
#include "storage/device_storage.h"
#include "storage/pool_policy.h"

namespace mxnet {
namespace storage {

/*!
 * \brief Memory of one device with a cache of freed blocks keyed by block size.
 *
 *  Alloc: round the request to its block size; pop a cached block of that size if there is
 *  one (a hash lookup and a vector pop under the lock). Otherwise take a new block from the
 *  device, first releasing the cache when holding one more block would eat into the reserve
 *  (reserve_percent of the device's memory), or releasing cached blocks of other sizes, oldest
 *  first, while the pool would hold more than twice the most bytes ever in use at once (so
 *  blocks of sizes no longer asked for do not pile up); if the device is out of memory release
 *  the cache and retry once before raising an out-of-memory dmlc::Error.
 *  Free: push the block on its size's list (or give it back at once when Unpooled).
 *
 *  All methods are thread-safe.
 */
class PooledStorageManager {
 public:
  PooledStorageManager(Context ctx, PoolPolicy policy, std::unique_ptr<DeviceStorage> device);
  ~PooledStorageManager();
  PooledStorageManager(const PooledStorageManager&) = delete;
  PooledStorageManager& operator=(const PooledStorageManager&) = delete;

  /*! \brief Fill handle->dptr with handle->size bytes (nullptr for size 0). */
  void Alloc(Storage::Handle* handle);
  /*! \brief Keep the block for reuse. handle.size must be the size it was allocated with. */
  void Free(const Storage::Handle& handle);
  /*! \brief Give the block straight back to the device. */
  void DirectFree(const Storage::Handle& handle);
  /*! \brief Give every cached block back to the device. */
  void ReleaseAll();
  /*! \brief Release the cache and stop caching: later frees go straight to the device.
   *  Used at process exit, when other static objects may still free memory. */
  void Shutdown();

  size_t BytesInUse();
  size_t BytesPooled();
  size_t PeakBytesInUse();
  void ResetPeak();
  const PoolPolicy& policy() const { return policy_; }
  Context context() const { return ctx_; }

 private:
  void* AllocFromDevice(size_t size, size_t block);
  bool WouldEatReserve(size_t block);
  void ReleaseCacheLocked();
  // Releases the oldest cached blocks until holding one more block of `block` bytes stays
  // within twice the most block bytes ever in use at once, or the cache is empty.
  void TrimCacheLocked(size_t block);
  void ReturnToDevice(void* ptr, size_t block);
  void SubtractInUse(size_t size);

  const Context ctx_;
  const PoolPolicy policy_;
  const std::unique_ptr<DeviceStorage> device_;
  size_t reserve_bytes_{0};  // reserve_percent of the device's memory
  size_t hold_limit_{0};     // most bytes this pool holds before it releases its cache

  std::mutex mu_;
  // block size -> free blocks, oldest first, each with its free order
  std::unordered_map<size_t, std::deque<std::pair<uint64_t, void*>>> cache_;
  uint64_t free_seq_{0};
  size_t in_use_{0};  // requested bytes handed out and not yet freed
  size_t peak_{0};    // highest in_use_ since start or ResetPeak
  size_t high_water_{0};  // most block bytes in use at once since start
  size_t pooled_{0};  // block bytes sitting in cache_
  size_t held_{0};    // block bytes taken from the device and not given back (in use + pooled)
  bool shut_down_{false};
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_POOLED_STORAGE_MANAGER_H_
