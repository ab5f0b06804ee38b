// CudaDeviceGuard: makes a GPU current for one scope and restores the previous one (CUDA only).
#ifndef MXNET_STORAGE_CUDA_DEVICE_GUARD_H_
#define MXNET_STORAGE_CUDA_DEVICE_GUARD_H_

#include "mxnet/cuda_config.h"

#if MXNET_USE_CUDA
#include <cuda_runtime.h>

namespace mxnet {
namespace storage {

class CudaDeviceGuard {
 public:
  explicit CudaDeviceGuard(int dev_id) {
    if (cudaGetDevice(&prev_) != cudaSuccess) prev_ = -1;
    if (prev_ != dev_id) {
      ok_ = cudaSetDevice(dev_id) == cudaSuccess;
      switched_ = ok_ && prev_ >= 0;
    }
  }
  ~CudaDeviceGuard() {
    if (switched_) cudaSetDevice(prev_);
  }
  CudaDeviceGuard(const CudaDeviceGuard&) = delete;
  CudaDeviceGuard& operator=(const CudaDeviceGuard&) = delete;
  /*! \brief False when the device could not be made current (bad id, runtime shutting down). */
  bool ok() const { return ok_; }

 private:
  int prev_{-1};
  bool ok_{true};
  bool switched_{false};
};

}  // namespace storage
}  // namespace mxnet

#endif  // MXNET_USE_CUDA
#endif  // MXNET_STORAGE_CUDA_DEVICE_GUARD_H_
