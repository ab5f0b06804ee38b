// cudaMalloc-backed device memory; without CUDA every GPU request raises a clear error.
#include "storage/gpu_device_storage.h"
#include "mxnet/cuda_config.h"

#include <dmlc/logging.h>

#include "mxnet/base.h"
#include "storage/cuda_device_guard.h"

#if MXNET_USE_CUDA
#include <cuda_runtime.h>
#endif

namespace mxnet {
namespace storage {

#if MXNET_USE_CUDA

bool BuiltWithCuda() { return true; }

int CudaDeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later calls are not confused by it
    return 0;
  }
  return n;
}

GPUDeviceStorage::GPUDeviceStorage(int dev_id) : dev_id_(dev_id) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    LOG(FATAL) << Context::GPU(dev_id) << ": no usable CUDA device (" << cudaGetErrorString(e)
               << ")";
  }
  if (dev_id < 0 || dev_id >= n) {
    LOG(FATAL) << Context::GPU(dev_id) << ": no such device; this machine has " << n
               << " CUDA device(s)";
  }
}

void* GPUDeviceStorage::Alloc(size_t size) {
  CudaDeviceGuard guard(dev_id_);
  CHECK(guard.ok()) << Context::GPU(dev_id_) << ": cannot make the device current";
  void* ptr = nullptr;
  cudaError_t e = cudaMalloc(&ptr, size);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // out of memory is reported by returning nullptr
    return nullptr;
  }
  if (e != cudaSuccess) {
    LOG(FATAL) << Context::GPU(dev_id_) << ": cudaMalloc of " << size
               << " bytes failed: " << cudaGetErrorString(e);
  }
  return ptr;
}

void GPUDeviceStorage::Free(void* ptr) noexcept {
  CudaDeviceGuard guard(dev_id_);
  cudaError_t e = cudaFree(ptr);
  // At process exit the runtime may already be gone and has reclaimed the memory itself.
  if (e != cudaSuccess && e != cudaErrorCudartUnloading) {
    LOG(WARNING) << Context::GPU(dev_id_) << ": cudaFree failed: " << cudaGetErrorString(e);
  }
}

size_t GPUDeviceStorage::TotalMemory() {
  size_t free_bytes = 0, total = 0;
  CudaDeviceGuard guard(dev_id_);
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return total;
}

bool GPUDeviceStorage::FreeMemory(size_t* free_bytes) {
  size_t total = 0;
  CudaDeviceGuard guard(dev_id_);
  if (cudaMemGetInfo(free_bytes, &total) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return true;
}

#else  // !MXNET_USE_CUDA

bool BuiltWithCuda() { return false; }
int CudaDeviceCount() { return 0; }

GPUDeviceStorage::GPUDeviceStorage(int dev_id) : dev_id_(dev_id) {
  LOG(FATAL) << Context::GPU(dev_id)
             << ": this build has no CUDA support (built with USE_CUDA=OFF)";
}
void* GPUDeviceStorage::Alloc(size_t) { return nullptr; }
void GPUDeviceStorage::Free(void*) noexcept {}
size_t GPUDeviceStorage::TotalMemory() { return 0; }
bool GPUDeviceStorage::FreeMemory(size_t*) { return false; }

#endif  // MXNET_USE_CUDA

}  // namespace storage
}  // namespace mxnet
