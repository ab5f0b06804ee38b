# Finds the system packages each USE_* option needs; fills MXNET_DEP_LIBS and MXNET_DEP_DEFS
# (and MXNET_USE_CUDA/CUDNN/NCCL for the generated mxnet/cuda_config.h).
set(MXNET_DEP_LIBS "")
set(MXNET_DEP_DEFS "")
set(MXNET_USE_CUDA 0)
set(MXNET_USE_CUDNN 0)
set(MXNET_USE_NCCL 0)
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
find_package(dmlc REQUIRED)  # Debian libdmlc-dev

if(USE_DIST_KVSTORE)
  # Debian libzmq3-dev: the parameter server's transport (src/kvstore/dist), C API only.
  find_path(ZMQ_INCLUDE_DIR zmq.h REQUIRED)
  find_library(ZMQ_LIBRARY NAMES zmq REQUIRED)
  include_directories(SYSTEM ${ZMQ_INCLUDE_DIR})
  list(APPEND MXNET_DEP_LIBS ${ZMQ_LIBRARY})
  list(APPEND MXNET_DEP_DEFS MXNET_USE_DIST_KVSTORE=1)
else()
  list(APPEND MXNET_DEP_DEFS MXNET_USE_DIST_KVSTORE=0)
endif()

if(USE_OPENCV)
  # Debian libopencv-dev: decoding (imgcodecs) and resizing/warping (imgproc). Only the image
  # sources include its headers.
  find_package(OpenCV REQUIRED COMPONENTS core imgproc imgcodecs)
  include_directories(SYSTEM ${OpenCV_INCLUDE_DIRS})
  # libjpeg-turbo (Debian libjpeg62-turbo-dev, OpenCV's own JPEG codec): the record iterators
  # decode just the crop window of a JPEG through its libjpeg API.
  find_package(JPEG REQUIRED)
  list(APPEND MXNET_DEP_LIBS opencv_core opencv_imgproc opencv_imgcodecs JPEG::JPEG)
  list(APPEND MXNET_DEP_DEFS MXNET_USE_OPENCV=1)
else()
  list(APPEND MXNET_DEP_DEFS MXNET_USE_OPENCV=0)
endif()

if(USE_ONEDNN)
  # Debian libdnnl-dev (oneDNN 2.x, OpenMP runtime). Its CMake config also demands the OpenCL
  # headers (for a GPU runtime this library does not use), so the files are found directly.
  find_path(DNNL_INCLUDE_DIR oneapi/dnnl/dnnl.hpp REQUIRED)
  find_library(DNNL_LIBRARY NAMES dnnl REQUIRED)
  include_directories(${DNNL_INCLUDE_DIR})
  list(APPEND MXNET_DEP_LIBS ${DNNL_LIBRARY})
  list(APPEND MXNET_DEP_DEFS MXNET_USE_ONEDNN=1)
else()
  list(APPEND MXNET_DEP_DEFS MXNET_USE_ONEDNN=0)
endif()

if(USE_OPENMP)
  find_package(OpenMP REQUIRED)
  list(APPEND MXNET_DEP_LIBS OpenMP::OpenMP_CXX)
  list(APPEND MXNET_DEP_DEFS MXNET_USE_OPENMP=1)
else()
  list(APPEND MXNET_DEP_DEFS MXNET_USE_OPENMP=0)
endif()

if(USE_BLAS STREQUAL "openblas")
  find_path(OPENBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas-pthread openblas REQUIRED)
  find_library(OPENBLAS_LIBRARY NAMES openblas REQUIRED)  # Debian libopenblas-dev
  include_directories(${OPENBLAS_INCLUDE_DIR})
  list(APPEND MXNET_DEP_LIBS ${OPENBLAS_LIBRARY})
  list(APPEND MXNET_DEP_DEFS MXNET_USE_BLAS_OPEN=1)
else()
  list(APPEND MXNET_DEP_DEFS MXNET_USE_BLAS_OPEN=0)
endif()
if(NOT USE_BLAS MATCHES "^(openblas|none)$")
  message(FATAL_ERROR "USE_BLAS must be openblas or none, got '${USE_BLAS}'")
endif()

if(USE_CUDA)
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  # Library files, not the CUDA:: targets: those would put the toolkit's include directory on
  # every compile line. Only sources that include mxnet/cuda_config.h get it (CMakeLists.txt).
  list(APPEND MXNET_DEP_LIBS ${CUDA_cudart_LIBRARY} ${CUDA_cublas_LIBRARY} ${CUDA_curand_LIBRARY})
  set(MXNET_USE_CUDA 1)
  if(USE_CUDNN)
    find_library(CUDNN_LIBRARY cudnn REQUIRED)
    list(APPEND MXNET_DEP_LIBS ${CUDNN_LIBRARY})
    set(MXNET_USE_CUDNN 1)
  endif()
  if(USE_NCCL)
    # NCCL ships inside the CUDA toolkit here (include/nccl.h, lib64/libnccl.so) or in the
    # system folders (Debian/NVIDIA's libnccl-dev).
    find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED)
    find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
    list(APPEND CUDAToolkit_INCLUDE_DIRS ${NCCL_INCLUDE_DIR})
    list(APPEND MXNET_DEP_LIBS ${NCCL_LIBRARY})
    set(MXNET_USE_NCCL 1)
  endif()
elseif(USE_CUDNN OR USE_NCCL)
  message(FATAL_ERROR "USE_CUDNN and USE_NCCL need USE_CUDA=ON")
endif()

# gzip-compressed data files (MNISTIter idx files)
find_package(ZLIB REQUIRED)
list(APPEND MXNET_DEP_LIBS ZLIB::ZLIB)
