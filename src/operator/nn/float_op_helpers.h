// Helpers shared by the float-only activation, softmax and loss-layer operators in this folder:
// their compute type, vectorized elementwise loops, zero label gradients and backward shape
// rule (the float dtype rule, FloatElemwiseType, is nn_common.h's).
#ifndef MXNET_OPERATOR_NN_FLOAT_OP_HELPERS_H_
#define MXNET_OPERATOR_NN_FLOAT_OP_HELPERS_H_

#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

#include "operator/nn/nn_common.h"
#include "operator/operator_common.h"
#include "operator/tensor/elemwise_unary_kernel.h"

namespace mxnet {
namespace op {

/*! \brief Type a float kernel computes in: double for float64, float for float32 and float16. */
template <typename T>
using FloatComputeOf =
    typename std::conditional<std::is_same<T, double>::value, double, float>::type;

/*! \brief Zeros into b (the gradient of an input that gets none, e.g. a label). */
inline void ZeroGradient(const TBlob& b, OpReqType req) {
  if (req != kNullOp && req != kAddTo) std::memset(b.dptr_, 0, b.Size() * DTypeSize(b.type_flag_));
}

/*! \brief Backward shape rule: output i has the shape of input from[i] (-1: left free). */
inline bool GradShapesFromInputs(const NodeAttrs& attrs, std::vector<TShape>* in,
                                 std::vector<TShape>* out, std::initializer_list<int> from) {
  bool known = true;
  size_t i = 0;
  for (int j : from) {
    if (j >= 0 && i < out->size()) {
      AssignShape(attrs, "gradient " + std::to_string(i), &(*out)[i], (*in)[j]);
      known = known && (*out)[i].IsKnown();
    }
    ++i;
  }
  return known;
}

/*! \brief y[i] (req) = fn(x[i]) (all in DType; fn takes and returns FloatComputeOf<DType>) over
 *  chunks shared by the OpenMP threads. The loops are `omp simd`, fn is copied locally and
 *  everything it calls is inlined (flatten), so they vectorize; write selects as min/max or
 *  arithmetic: GCC keeps a branch around a floating-point operation that may trap. */
template <typename DType, typename Fn>
void MapFloat(const DType* x, DType* y, index_t n, OpReqType req, Fn fn) {
  using C = FloatComputeOf<DType>;
  if (req == kNullOp || n <= 0) return;
  ParallelChunks(n, 8192, [&](index_t b, index_t e) __attribute__((flatten)) {
    const Fn f = fn;
    if (req == kAddTo) {
#pragma omp simd
      for (index_t i = b; i < e; ++i) y[i] = DType(static_cast<C>(y[i]) + f(static_cast<C>(x[i])));
    } else {
#pragma omp simd
      for (index_t i = b; i < e; ++i) y[i] = DType(f(static_cast<C>(x[i])));
    }
  });
}

/*! \brief The same for two inputs: y[i] (req) = fn(a[i], b[i]). */
template <typename DType, typename Fn>
void MapFloat2(const DType* a, const DType* b, DType* y, index_t n, OpReqType req, Fn fn) {
  using C = FloatComputeOf<DType>;
  if (req == kNullOp || n <= 0) return;
  ParallelChunks(n, 8192, [&](index_t lo, index_t hi) __attribute__((flatten)) {
    const Fn f = fn;
    if (req == kAddTo) {
#pragma omp simd
      for (index_t i = lo; i < hi; ++i) {
        y[i] = DType(static_cast<C>(y[i]) + f(static_cast<C>(a[i]), static_cast<C>(b[i])));
      }
    } else {
#pragma omp simd
      for (index_t i = lo; i < hi; ++i) y[i] = DType(f(static_cast<C>(a[i]), static_cast<C>(b[i])));
    }
  });
}

/*! \brief (0, 0): output 0 may reuse input 0's memory. */
inline std::vector<std::pair<int, int>> InplaceFirstInput(const NodeAttrs&) { return {{0, 0}}; }

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_FLOAT_OP_HELPERS_H_
