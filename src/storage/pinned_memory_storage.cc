// Page-locked host memory through cudaHostAlloc, falling back to aligned host memory.
#include "storage/pinned_memory_storage.h"
#include "mxnet/cuda_config.h"

#include <dmlc/logging.h>

#include "mxnet/base.h"
#include "storage/cpu_device_storage.h"
#include "storage/cuda_device_guard.h"
#include "storage/gpu_device_storage.h"

#if MXNET_USE_CUDA
#include <cuda_runtime.h>
#endif

namespace mxnet {
namespace storage {

PinnedMemoryStorage::PinnedMemoryStorage(int dev_id)
    : dev_id_(dev_id), page_locked_(CudaDeviceCount() > 0) {}

size_t PinnedMemoryStorage::TotalMemory() { return HostPhysicalMemory(); }

#if MXNET_USE_CUDA

void* PinnedMemoryStorage::Alloc(size_t size) {
  if (!page_locked_) return AlignedHostAlloc(size);
  // Pinned memory is tied to the current device's context; make ours current for the call.
  CudaDeviceGuard guard(dev_id_ < CudaDeviceCount() ? dev_id_ : 0);
  void* ptr = nullptr;
  cudaError_t e = cudaHostAlloc(&ptr, size, cudaHostAllocPortable);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    return nullptr;
  }
  if (e != cudaSuccess) {
    LOG(FATAL) << Context::CPUPinned(dev_id_) << ": cudaHostAlloc of " << size
               << " bytes failed: " << cudaGetErrorString(e);
  }
  return ptr;
}

void PinnedMemoryStorage::Free(void* ptr) noexcept {
  if (!page_locked_) return AlignedHostFree(ptr);
  cudaError_t e = cudaFreeHost(ptr);
  if (e != cudaSuccess && e != cudaErrorCudartUnloading) {
    LOG(WARNING) << Context::CPUPinned(dev_id_) << ": cudaFreeHost failed: "
                 << cudaGetErrorString(e);
  }
}

#else  // !MXNET_USE_CUDA

void* PinnedMemoryStorage::Alloc(size_t size) { return AlignedHostAlloc(size); }
void PinnedMemoryStorage::Free(void* ptr) noexcept { AlignedHostFree(ptr); }

#endif  // MXNET_USE_CUDA

}  // namespace storage
}  // namespace mxnet
