// Aligned host allocation and the machine's physical memory size.
#include "storage/cpu_device_storage.h"

#include <unistd.h>

#include <cstdlib>

#include "mxnet/storage.h"

namespace mxnet {
namespace storage {

void* AlignedHostAlloc(size_t size) {
  void* ptr = nullptr;
  if (posix_memalign(&ptr, kStorageAlign, size) != 0) return nullptr;
  return ptr;
}

void AlignedHostFree(void* ptr) noexcept { std::free(ptr); }

size_t HostPhysicalMemory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;  // unknown: the reserve check is then skipped
  return static_cast<size_t>(pages) * static_cast<size_t>(page_size);
}

}  // namespace storage
}  // namespace mxnet
