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

#include "engine/op_threads.h"

namespace mxnet {


// What the compiler was told the target CPU has (-march/-m flags), as MXNet 1.9 reports it.
#ifdef __SSE__
#define MXNET_CPU_SSE 1
#else
#define MXNET_CPU_SSE 0
#endif
#ifdef __SSE2__
#define MXNET_CPU_SSE2 1
#else
#define MXNET_CPU_SSE2 0
#endif
#ifdef __SSE3__
#define MXNET_CPU_SSE3 1
#else
#define MXNET_CPU_SSE3 0
#endif
#ifdef __SSE4_1__
#define MXNET_CPU_SSE4_1 1
#else
#define MXNET_CPU_SSE4_1 0
#endif
#ifdef __SSE4_2__
#define MXNET_CPU_SSE4_2 1
#else
#define MXNET_CPU_SSE4_2 0
#endif
#ifdef __SSE4A__
#define MXNET_CPU_SSE4A 1
#else
#define MXNET_CPU_SSE4A 0
#endif
#ifdef __AVX__
#define MXNET_CPU_AVX 1
#else
#define MXNET_CPU_AVX 0
#endif
#ifdef __AVX2__
#define MXNET_CPU_AVX2 1
#else
#define MXNET_CPU_AVX2 0
#endif
#ifdef __F16C__
#define MXNET_CPU_F16C 1
#else
#define MXNET_CPU_F16C 0
#endif
#ifdef NDEBUG
#define MXNET_DEBUG_BUILD 0
#else
#define MXNET_DEBUG_BUILD 1
#endif

// MXNet 1.9.1's keys in its order (include/mxnet/libinfo.h there), each saying what this
// library really contains; ONEDNN (MXNet 2's name for MKLDNN) is appended. A feature whose
// code does not exist here is false.
const std::vector<LibFeatureInfo>& LibFeatures() {
  static const std::vector<LibFeatureInfo> features = {
      {"CUDA", MXNET_USE_CUDA},
      {"CUDNN", MXNET_USE_CUDNN},
      {"NCCL", MXNET_USE_NCCL},
      {"CUDA_RTC", false},
      {"TENSORRT", false},
      {"CPU_SSE", MXNET_CPU_SSE},
      {"CPU_SSE2", MXNET_CPU_SSE2},
      {"CPU_SSE3", MXNET_CPU_SSE3},
      {"CPU_SSE4_1", MXNET_CPU_SSE4_1},
      {"CPU_SSE4_2", MXNET_CPU_SSE4_2},
      {"CPU_SSE4A", MXNET_CPU_SSE4A},
      {"CPU_AVX", MXNET_CPU_AVX},
      {"CPU_AVX2", MXNET_CPU_AVX2},
      {"OPENMP", MXNET_USE_OPENMP},
      {"SSE", false},  // mshadow's hand-written SSE kernels: none here
      {"F16C", MXNET_CPU_F16C},
      {"JEMALLOC", false},
      {"BLAS_OPEN", MXNET_USE_BLAS_OPEN},
      {"BLAS_ATLAS", false},
      {"BLAS_MKL", false},
      {"BLAS_APPLE", false},
      {"LAPACK", MXNET_USE_BLAS_OPEN},  // OpenBLAS carries LAPACK
      {"MKLDNN", MXNET_USE_ONEDNN},
      {"OPENCV", MXNET_USE_OPENCV},
      {"CAFFE", false},
      {"PROFILER", true},
      {"DIST_KVSTORE", MXNET_USE_DIST_KVSTORE},
      {"CXX14", true},
      {"INT64_TENSOR_SIZE", true},
      {"SIGNAL_HANDLER", false},
      {"DEBUG", MXNET_DEBUG_BUILD},
      {"TVM_OP", false},
      {"ONEDNN", MXNET_USE_ONEDNN},
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
  engine::SetOpThreadsBase(n);  // engine workers have their own OpenMP settings
}

}  // namespace mxnet
