// GPUDeviceStorage: device memory of one GPU through cudaMalloc/cudaFree.
#ifndef MXNET_STORAGE_GPU_DEVICE_STORAGE_H_
#define MXNET_STORAGE_GPU_DEVICE_STORAGE_H_

#include <cstddef>

#include "storage/device_storage.h"

namespace mxnet {
namespace storage {

/*! \brief True when this library was built with USE_CUDA=ON. */
bool BuiltWithCuda();
/*! \brief CUDA devices visible to the process; 0 without CUDA or when the driver fails. */
int CudaDeviceCount();

/*!
 * \brief Memory of gpu(dev_id). Construction throws dmlc::Error when the build has no CUDA
 *  or the device does not exist. Every call makes dev_id current for its duration only.
 */
class GPUDeviceStorage final : public DeviceStorage {
 public:
  explicit GPUDeviceStorage(int dev_id);
  void* Alloc(size_t size) override;
  void Free(void* ptr) noexcept override;
  size_t TotalMemory() override;
  bool FreeMemory(size_t* free_bytes) override;

 private:
  int dev_id_;
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_STORAGE_GPU_DEVICE_STORAGE_H_
