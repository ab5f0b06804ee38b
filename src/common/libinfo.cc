// The compile-time feature list and process-wide knobs (OpenMP threads, GPU count).
#include "mxnet/libinfo.h"
#include "mxnet/cuda_config.h"

#if MXNET_USE_OPENMP
#include <omp.h>
#endif
#if MXNET_USE_CUDA
#include <cuda_runtime_api.h>
#endif

#include <dmlc/logging.h>

namespace mxnet {


const std::vector<LibFeatureInfo>& LibFeatures() {
  static const std::vector<LibFeatureInfo> features = {
      {"CUDA", MXNET_USE_CUDA},
      {"CUDNN", MXNET_USE_CUDNN},
      {"NCCL", MXNET_USE_NCCL},
      {"TENSORRT", false},
      {"CUTENSOR", false},
      {"CPU_SSE", true},
      {"CPU_SSE2", true},
      {"CPU_SSE3", true},
      {"CPU_SSE4_1", true},
      {"CPU_SSE4_2", true},
      {"CPU_SSE4A", false},
      {"CPU_AVX", false},
      {"CPU_AVX2", false},
      {"OPENMP", MXNET_USE_OPENMP},
      {"SSE", false},
      {"F16C", false},
      {"JEMALLOC", false},
      {"BLAS_OPEN", MXNET_USE_BLAS_OPEN},
      {"BLAS_ATLAS", false},
      {"BLAS_MKL", false},
      {"BLAS_APPLE", false},
      {"LAPACK", MXNET_USE_BLAS_OPEN},
      {"MKLDNN", MXNET_USE_ONEDNN},
      {"ONEDNN", MXNET_USE_ONEDNN},
      {"OPENCV", MXNET_USE_OPENCV},
      {"DIST_KVSTORE", MXNET_USE_DIST_KVSTORE},
      {"INT64_TENSOR_SIZE", true},
      {"SIGNAL_HANDLER", false},
      {"DEBUG", false},
      {"TVM_OP", false},
  };
  return features;
}

int GetGPUCount() {
#if MXNET_USE_CUDA
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
#else
  return 0;
#endif
}

void SetNumOMPThreads(int n) {
  CHECK_GE(n, 1) << "set_num_omp_threads: expected a positive thread count, given " << n;
#if MXNET_USE_OPENMP
  omp_set_num_threads(n);
#endif
}

}  // namespace mxnet
