// PinnedMemoryStorage: page-locked host memory (cudaHostAlloc), plain host memory without GPUs.
#ifndef MXNET_STORAGE_PINNED_MEMORY_STORAGE_H_
#define MXNET_STORAGE_PINNED_MEMORY_STORAGE_H_

#include <cstddef>

#include "storage/device_storage.h"

namespace mxnet {
namespace storage {

/*!
 * \brief Memory of cpu_pinned(dev_id). With CUDA and at least one GPU it is page-locked and
 *  portable across devices; otherwise (USE_CUDA=OFF or no GPU) it is ordinary aligned host
 *  memory, as in MXNet.
 */
class PinnedMemoryStorage final : public DeviceStorage {
 public:
  explicit PinnedMemoryStorage(int dev_id);
  void* Alloc(size_t size) override;
  void Free(void* ptr) noexcept override;
  size_t TotalMemory() override;
  /*! \brief True when blocks really are page-locked (CUDA build with a GPU). */
  bool page_locked() const { return page_locked_; }

 private:
  int dev_id_;
  bool page_locked_{false};
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_PINNED_MEMORY_STORAGE_H_
