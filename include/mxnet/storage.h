// Storage: device memory allocation through pooled managers, one per device.
#ifndef MXNET_STORAGE_H_
#define MXNET_STORAGE_H_

#include <cstddef>
#include <memory>

#include "mxnet/base.h"

namespace mxnet {

/*! \brief Alignment of every allocation, in bytes. */
constexpr size_t kStorageAlign = 64;

class Storage {
 public:
  /*! \brief A block of memory on one device. size is what was asked for. */
  struct Handle {
    void* dptr{nullptr};
    size_t size{0};
    Context ctx;
    int shared_pid{-1};
    int shared_id{-1};
  };

  /*! \brief Allocate handle->size bytes on handle->ctx into handle->dptr (64-byte aligned).
   *  On failure the pool releases what it caches and retries once; then throws dmlc::Error
   *  that names the device and the size (out of memory). size 0 gives dptr == nullptr. */
  virtual void Alloc(Handle* handle) = 0;
  Handle Alloc(size_t size, Context ctx) {
    Handle h;
    h.size = size;
    h.ctx = ctx;
    Alloc(&h);
    return h;
  }
  /*! \brief Return memory to its device's pool (may be kept for reuse). */
  virtual void Free(Handle handle) = 0;
  /*! \brief Return memory straight to the system, bypassing the pool. */
  virtual void DirectFree(Handle handle) = 0;
  /*! \brief Release everything the pool of ctx caches. */
  virtual void ReleaseAll(Context ctx) = 0;

  /*! \brief Bytes handed out and not yet freed on ctx (requested sizes, summed). */
  virtual size_t BytesInUse(Context ctx) = 0;
  /*! \brief Bytes held in the pool of ctx waiting for reuse. */
  virtual size_t BytesPooled(Context ctx) = 0;
  /*! \brief The highest BytesInUse seen on ctx since start or the last ResetPeak. */
  virtual size_t PeakBytesInUse(Context ctx) = 0;
  virtual void ResetPeak(Context ctx) = 0;
  /*! \brief Name of the pool strategy used for ctx ("Naive", "Round", "Unpooled"). */
  virtual const char* PoolType(Context ctx) = 0;

  virtual ~Storage() = default;
  static Storage* Get();
  /*! \brief Shared reference so static objects can keep storage alive until they are gone. */
  static std::shared_ptr<Storage> _GetSharedRef();
};

}  // namespace mxnet

#endif  // MXNET_STORAGE_H_
