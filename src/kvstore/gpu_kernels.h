// The KVStores' GPU kernels (gpu_kernels.cu): the sum of several arrays on one GPU (CommDevice's
// merge) and 2-bit quantize/dequantize. Each launches on `stream` (the engine worker's
// cudaStream_t, RunContext::stream) of the current device and returns without waiting.
// Declared in every build; defined only with USE_CUDA (callers check the context first).
#ifndef MXNET_KVSTORE_GPU_KERNELS_H_
#define MXNET_KVSTORE_GPU_KERNELS_H_

#include <cstdint>
#include <vector>

namespace mxnet {
namespace kvstore {

/*! \brief out = in[0] + in[1] + ... (n elements of dtype, all on the current GPU), adding the
 *  others four at a time as out += ((a + b) + c) + d, the CPU's order (float16 in float). */
void GpuSum(const std::vector<const void*>& in, void* out, int64_t n, int dtype, void* stream);
/*! \brief 2-bit quantize of n gradients into TwoBitCompressedSize(n) words, updating residual. */
void GpuQuantize2Bit(const float* grad, float* residual, float* out, int64_t n, float threshold,
                     void* stream);
/*! \brief Expand n 2-bit codes of in into out. */
void GpuDequantize2Bit(const float* in, float* out, int64_t n, float threshold, void* stream);
/*! \brief Set bytes of GPU memory to zero. */
void GpuZero(void* ptr, int64_t bytes, void* stream);

}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_GPU_KERNELS_H_
