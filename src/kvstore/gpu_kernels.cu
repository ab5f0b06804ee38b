// The KVStores' GPU kernels: the multi-array sum and 2-bit (de)quantization (gpu_kernels.h).
// The 2-bit per-element rules come from two_bit_codec.h, the same code the CPU runs.
#include "kvstore/gpu_kernels.h"

#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dmlc/logging.h>

#include <algorithm>

#include "kvstore/two_bit_codec.h"
#include "mxnet/base.h"

namespace mxnet {
namespace kvstore {
namespace {

constexpr int kThreads = 256;

void CheckLaunch(const char* what) {
  const cudaError_t err = cudaGetLastError();
  CHECK_EQ(err, cudaSuccess) << "KVStore GPU kernel " << what << ": " << cudaGetErrorString(err);
}

int Blocks(int64_t n) {
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>((n + kThreads - 1) / kThreads,
                                                                  int64_t{1} << 16)));
}

// How an element is added: as the CPU does, in C++'s promoted type, float16 in float.
template <typename T>
struct Arith {
  using Acc = decltype(T() + T());
  __device__ static Acc Load(T x) { return x; }
  __device__ static T Store(Acc x) { return static_cast<T>(x); }
};
template <>
struct Arith<__half> {
  using Acc = float;
  __device__ static float Load(__half x) { return __half2float(x); }
  __device__ static __half Store(float x) { return __float2half_rn(x); }
};

// out[i] += ((a[i] + b[i]) + c[i]) + d[i] for the first k (1..4) of a, b, c, d.
template <typename T>
__global__ void AddGroup(T* out, const T* a, const T* b, const T* c, const T* d, int k,
                         int64_t n) {
  using A = Arith<T>;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    typename A::Acc s = A::Load(a[i]);
    if (k > 1) s = s + A::Load(b[i]);
    if (k > 2) s = s + A::Load(c[i]);
    if (k > 3) s = s + A::Load(d[i]);
    out[i] = A::Store(A::Load(out[i]) + s);
  }
}

template <typename T>
void SumAs(const std::vector<const void*>& in, void* out_ptr, int64_t n, cudaStream_t stream) {
  T* out = static_cast<T*>(out_ptr);
  if (out_ptr != in[0]) {
    CHECK_EQ(cudaMemcpyAsync(out, in[0], n * sizeof(T), cudaMemcpyDeviceToDevice, stream),
             cudaSuccess)
        << "KVStore GPU sum: copy of the first array failed";
  }
  for (size_t j = 1; j < in.size(); j += 4) {
    const int k = static_cast<int>(std::min<size_t>(in.size() - j, 4));
    auto at = [&](int q) { return static_cast<const T*>(in[j + std::min(q, k - 1)]); };
    AddGroup<T><<<Blocks(n), kThreads, 0, stream>>>(out, at(0), at(1), at(2), at(3), k, n);
    CheckLaunch("sum");
  }
}

// One thread per 32-bit word: its 16 elements are quantized and packed together.
__global__ void Quantize2BitKernel(const float* grad, float* residual, uint32_t* out, int64_t n,
                                   float threshold) {
  const int64_t words = (n + 15) / 16;
  for (int64_t w = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; w < words;
       w += int64_t{blockDim.x} * gridDim.x) {
    out[w] = TwoBitQuantizeWord(grad, residual, n, w, threshold);
  }
}

__global__ void Dequantize2BitKernel(const uint32_t* in, float* out, int64_t n, float threshold) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    out[i] = TwoBitDequantizeOne(in[i / 16], i, threshold);
  }
}

}  // namespace

void GpuSum(const std::vector<const void*>& in, void* out, int64_t n, int dtype, void* stream) {
  CHECK(!in.empty());
  if (n == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (dtype) {
    case kFloat32: SumAs<float>(in, out, n, s); break;
    case kFloat64: SumAs<double>(in, out, n, s); break;
    case kFloat16: SumAs<__half>(in, out, n, s); break;
    case kUint8: SumAs<uint8_t>(in, out, n, s); break;
    case kInt8: SumAs<int8_t>(in, out, n, s); break;
    case kInt32: SumAs<int32_t>(in, out, n, s); break;
    case kInt64: SumAs<int64_t>(in, out, n, s); break;
    default:
      LOG(FATAL) << "KVStore: summing arrays of dtype " << DTypeName(dtype) << " on a GPU is not "
                 << "supported (float32, float64, float16, uint8, int8, int32, int64)";
  }
}

void GpuQuantize2Bit(const float* grad, float* residual, float* out, int64_t n, float threshold,
                     void* stream) {
  if (n == 0) return;
  Quantize2BitKernel<<<Blocks((n + 15) / 16), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      grad, residual, reinterpret_cast<uint32_t*>(out), n, threshold);
  CheckLaunch("2-bit quantize");
}

void GpuDequantize2Bit(const float* in, float* out, int64_t n, float threshold, void* stream) {
  if (n == 0) return;
  Dequantize2BitKernel<<<Blocks(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      reinterpret_cast<const uint32_t*>(in), out, n, threshold);
  CheckLaunch("2-bit dequantize");
}

void GpuZero(void* ptr, int64_t bytes, void* stream) {
  CHECK_EQ(cudaMemsetAsync(ptr, 0, bytes, static_cast<cudaStream_t>(stream)), cudaSuccess)
      << "KVStore: zeroing GPU memory failed";
}

}  // namespace kvstore
}  // namespace mxnet
