// Aligned host allocation and the machine's physical memory size.
#include "storage/cpu_device_storage.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

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

namespace {
bool ReadMemAvailable(size_t* bytes) {
  std::FILE* f = std::fopen("/proc/meminfo", "r");
  if (f == nullptr) return false;
  char line[256];
  bool found = false;
  unsigned long long kib = 0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    if (std::sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
      found = true;
      break;
    }
  }
  std::fclose(f);
  if (found) *bytes = static_cast<size_t>(kib) * 1024;
  return found;
}
}  // namespace

bool HostAvailableMemory(size_t* bytes) {
  // The pool asks on every block it takes from the system; the file costs tens of
  // microseconds, so a recent answer is reused.
  static std::mutex mu;
  static std::chrono::steady_clock::time_point last;
  static size_t cached = 0;
  static bool known = false;
  std::lock_guard<std::mutex> lock(mu);
  const auto now = std::chrono::steady_clock::now();
  if (last.time_since_epoch().count() == 0 || now - last > std::chrono::milliseconds(5)) {
    known = ReadMemAvailable(&cached);
    last = now;
  }
  if (known) *bytes = cached;
  return known;
}

}  // namespace storage
}  // namespace mxnet
