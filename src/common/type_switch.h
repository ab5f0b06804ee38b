// dtype dispatch macros: run a body with DType bound to the C++ type of a runtime dtype flag.
#ifndef MXNET_COMMON_TYPE_SWITCH_H_
#define MXNET_COMMON_TYPE_SWITCH_H_

#include <dmlc/logging.h>

#include <cstdint>

#include "mxnet/base.h"
#include "mxnet/half.h"

#define MXNET_CASE_TYPE_(flag, T, DType, ...) \
  case flag: {                                \
    using DType = T;                          \
    { __VA_ARGS__ }                           \
  } break;

/*! \brief Run the body with DType bound to the C++ type of every supported dtype. */
#define MXNET_TYPE_SWITCH(type, DType, ...)                                          \
  switch (type) {                                                                    \
    MXNET_CASE_TYPE_(::mxnet::kFloat32, float, DType, __VA_ARGS__)                   \
    MXNET_CASE_TYPE_(::mxnet::kFloat64, double, DType, __VA_ARGS__)                  \
    MXNET_CASE_TYPE_(::mxnet::kFloat16, ::mxnet::half_t, DType, __VA_ARGS__)         \
    MXNET_CASE_TYPE_(::mxnet::kUint8, uint8_t, DType, __VA_ARGS__)                   \
    MXNET_CASE_TYPE_(::mxnet::kInt8, int8_t, DType, __VA_ARGS__)                     \
    MXNET_CASE_TYPE_(::mxnet::kInt32, int32_t, DType, __VA_ARGS__)                   \
    MXNET_CASE_TYPE_(::mxnet::kInt64, int64_t, DType, __VA_ARGS__)                   \
    MXNET_CASE_TYPE_(::mxnet::kBool, bool, DType, __VA_ARGS__)                       \
    default:                                                                         \
      LOG(FATAL) << "unsupported dtype " << ::mxnet::DTypeName(type);                \
  }

/*! \brief As MXNET_TYPE_SWITCH, without bool. */
#define MXNET_NUMERIC_TYPE_SWITCH(type, DType, ...)                                  \
  switch (type) {                                                                    \
    MXNET_CASE_TYPE_(::mxnet::kFloat32, float, DType, __VA_ARGS__)                   \
    MXNET_CASE_TYPE_(::mxnet::kFloat64, double, DType, __VA_ARGS__)                  \
    MXNET_CASE_TYPE_(::mxnet::kFloat16, ::mxnet::half_t, DType, __VA_ARGS__)         \
    MXNET_CASE_TYPE_(::mxnet::kUint8, uint8_t, DType, __VA_ARGS__)                   \
    MXNET_CASE_TYPE_(::mxnet::kInt8, int8_t, DType, __VA_ARGS__)                     \
    MXNET_CASE_TYPE_(::mxnet::kInt32, int32_t, DType, __VA_ARGS__)                   \
    MXNET_CASE_TYPE_(::mxnet::kInt64, int64_t, DType, __VA_ARGS__)                   \
    default:                                                                         \
      LOG(FATAL) << "unsupported dtype " << ::mxnet::DTypeName(type);                \
  }

/*! \brief Floating-point dtypes only (float32, float64, float16). */
#define MXNET_REAL_TYPE_SWITCH(type, DType, ...)                                     \
  switch (type) {                                                                    \
    MXNET_CASE_TYPE_(::mxnet::kFloat32, float, DType, __VA_ARGS__)                   \
    MXNET_CASE_TYPE_(::mxnet::kFloat64, double, DType, __VA_ARGS__)                  \
    MXNET_CASE_TYPE_(::mxnet::kFloat16, ::mxnet::half_t, DType, __VA_ARGS__)         \
    default:                                                                         \
      LOG(FATAL) << "this operator supports float32, float64 and float16, given "     \
                 << ::mxnet::DTypeName(type);                                         \
  }

#endif  // MXNET_COMMON_TYPE_SWITCH_H_
