// Copies that touch GPU memory, as engine ops on the GPU worker's stream (the engine waits for
// the stream when the op ends), and blocking copies for SyncCopyFromCPU/SyncCopyToCPU.
#include "ndarray/ndarray_gpu_copy.h"

#include <dmlc/logging.h>

#include "mxnet/cuda_config.h"
#include "storage/cuda_device_guard.h"

#if MXNET_USE_CUDA
#include <cuda_runtime.h>
#endif

namespace mxnet {

void PushCopyGPU(const NDArray& from, const NDArray& to, int priority) {
  const Context a = from.ctx(), b = to.ctx();
#if MXNET_USE_CUDA
  CHECK(from.storage_type() == kDefaultStorage && to.storage_type() == kDefaultStorage)
      << "copyto: copies from " << a << " to " << b << " take dense arrays only";
  CHECK_EQ(from.dtype(), to.dtype())
      << "copyto: copies from " << a << " to " << b << " keep the dtype, given "
      << DTypeName(from.dtype()) << " and " << DTypeName(to.dtype());
  // The op runs on the destination GPU, or on the source GPU for copies to the CPU.
  const bool to_gpu = b.dev_mask() == Context::kGPU;
  const Context run = to_gpu ? b : a;
  const FnProperty prop = to_gpu ? FnProperty::kCopyToGPU : FnProperty::kCopyFromGPU;
  std::vector<VarHandle> reads;
  if (from.var() != to.var()) reads.push_back(from.var());
  Engine::Get()->PushSync(
      [from, to](RunContext rctx) {
        TBlob s = from.data(), d = to.data();
        const size_t bytes = s.Size() * DTypeSize(s.type_flag_);
        if (bytes == 0) return;
        cudaStream_t stream = static_cast<cudaStream_t>(rctx.stream);
        const Context fc = from.ctx(), tc = to.ctx();
        cudaError_t err;
        if (fc.dev_mask() == Context::kGPU && tc.dev_mask() == Context::kGPU &&
            fc.dev_id != tc.dev_id) {
          err = cudaMemcpyPeerAsync(d.dptr_, tc.dev_id, s.dptr_, fc.dev_id, bytes, stream);
        } else {
          err = cudaMemcpyAsync(d.dptr_, s.dptr_, bytes, cudaMemcpyDefault, stream);
        }
        CHECK_EQ(err, cudaSuccess) << "copyto from " << fc << " to " << tc << ": "
                                   << cudaGetErrorString(err);
      },
      run, reads, {to.var()}, prop, priority, to_gpu ? "CopyToGPU" : "CopyFromGPU");
#else
  LOG(FATAL) << "copyto: copies from " << a << " to " << b << " need a USE_CUDA=ON build";
#endif
}

void SyncCopyGPU(void* dst, const void* src, size_t bytes, bool to_gpu, int dev_id) {
#if MXNET_USE_CUDA
  storage::CudaDeviceGuard guard(dev_id);
  CHECK(guard.ok()) << "cannot use gpu(" << dev_id << ") for a copy";
  const cudaError_t err =
      cudaMemcpy(dst, src, bytes, to_gpu ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
  CHECK_EQ(err, cudaSuccess) << "copy " << (to_gpu ? "to" : "from") << " gpu(" << dev_id
                             << "): " << cudaGetErrorString(err);
#else
  LOG(FATAL) << "copies " << (to_gpu ? "to" : "from") << " gpu(" << dev_id
             << ") need a USE_CUDA=ON build";
#endif
}

}  // namespace mxnet
