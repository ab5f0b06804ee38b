// Copies that touch GPU memory: CPU<->GPU and GPU<->GPU (ndarray_gpu_copy.cc). Declared in every
// build; without USE_CUDA they raise MXNetError saying a CUDA build is needed.
#ifndef MXNET_NDARRAY_NDARRAY_GPU_COPY_H_
#define MXNET_NDARRAY_NDARRAY_GPU_COPY_H_

#include <cstddef>

#include "mxnet/ndarray.h"

namespace mxnet {

/*! \brief Engine op: to = from, where at least one is on a GPU (dense, same dtype and size). */
void PushCopyGPU(const NDArray& from, const NDArray& to, int priority);
/*! \brief Blocking copy of bytes between host memory and memory of gpu(dev_id). */
void SyncCopyGPU(void* dst, const void* src, size_t bytes, bool to_gpu, int dev_id);

}  // namespace mxnet

#endif  // MXNET_NDARRAY_NDARRAY_GPU_COPY_H_
