// CPUDeviceStorage: 64-byte aligned host memory from the C library.
#ifndef MXNET_STORAGE_CPU_DEVICE_STORAGE_H_
#define MXNET_STORAGE_CPU_DEVICE_STORAGE_H_

#include <cstddef>

#include "storage/device_storage.h"

namespace mxnet {
namespace storage {

/*! \brief kStorageAlign-aligned host memory; nullptr when the system refuses. */
void* AlignedHostAlloc(size_t size);
void AlignedHostFree(void* ptr) noexcept;
/*! \brief Physical memory of this machine in bytes (sysconf). */
size_t HostPhysicalMemory();
/*! \brief Memory the system can still give (MemAvailable of /proc/meminfo, re-read at most
 *  every few milliseconds); false when unknown. Counts what other processes took. */
bool HostAvailableMemory(size_t* bytes);

class CPUDeviceStorage final : public DeviceStorage {
 public:
  void* Alloc(size_t size) override { return AlignedHostAlloc(size); }
  void Free(void* ptr) noexcept override { AlignedHostFree(ptr); }
  size_t TotalMemory() override { return HostPhysicalMemory(); }
  bool FreeMemory(size_t* free_bytes) override { return HostAvailableMemory(free_bytes); }
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_CPU_DEVICE_STORAGE_H_
