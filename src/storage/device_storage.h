// DeviceStorage: the raw allocator of one device that the storage pools sit on.
#ifndef MXNET_STORAGE_DEVICE_STORAGE_H_
#define MXNET_STORAGE_DEVICE_STORAGE_H_

#include <cstddef>

namespace mxnet {
namespace storage {

/*!
 * \brief Raw memory of one device. Implementations: CPUDeviceStorage, PinnedMemoryStorage,
 *  GPUDeviceStorage; tests inject their own to fake a small device or a failing allocator.
 */
class DeviceStorage {
 public:
  virtual ~DeviceStorage() = default;
  /*! \brief A kStorageAlign-aligned block of size (> 0) bytes, or nullptr when the device is
   *  out of memory. Any other failure (bad device, driver error) throws dmlc::Error. */
  virtual void* Alloc(size_t size) = 0;
  /*! \brief Give a block back to the device. Never throws (it runs in destructors and at exit). */
  virtual void Free(void* ptr) noexcept = 0;
  /*! \brief Total bytes of memory on the device. */
  virtual size_t TotalMemory() = 0;
  /*! \brief Free bytes on the device, when the device can tell (GPUs); false otherwise. */
  virtual bool FreeMemory(size_t* free_bytes) {
    (void)free_bytes;
    return false;
  }
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_DEVICE_STORAGE_H_
