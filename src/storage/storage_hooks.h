// An optional callback on every allocation and free of the pooled storage, for the profiler.
#ifndef MXNET_STORAGE_STORAGE_HOOKS_H_
#define MXNET_STORAGE_STORAGE_HOOKS_H_

#include <atomic>
#include <cstddef>

#include "mxnet/base.h"

namespace mxnet {
namespace storage {

/*! \brief One allocation or free as the pool of its device saw it. */
struct StorageEvent {
  Context ctx;
  size_t size;          // requested bytes
  size_t in_use_after;  // BytesInUse(ctx) right after this event
  bool alloc;           // true: Alloc; false: Free or DirectFree
};

/*!
 * \brief Runs in the allocating or freeing thread, after the pool's lock is released; null
 *  (the default) turns it off, and then Alloc/Free pay one load and one branch.
 */
using StorageHook = void (*)(const StorageEvent& event);
extern std::atomic<StorageHook> g_storage_hook;
inline void SetStorageHook(StorageHook hook) {
  g_storage_hook.store(hook, std::memory_order_release);
}

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_STORAGE_HOOKS_H_
