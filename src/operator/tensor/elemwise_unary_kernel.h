// Elementwise loops shared by the unary, scalar, init and misc elementwise operators:
// value conversion between dtypes, the compute type of math functions and the parallel map.
#ifndef MXNET_OPERATOR_TENSOR_ELEMWISE_UNARY_KERNEL_H_
#define MXNET_OPERATOR_TENSOR_ELEMWISE_UNARY_KERNEL_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

/*! \brief v converted to To as a C cast would, with float16 going through float and
 *  bool meaning "not zero". */
template <typename To, typename From>
inline To ConvertValue(From v) {
  if constexpr (std::is_same<To, From>::value) {
    return v;
  } else if constexpr (std::is_same<From, half_t>::value) {
    return ConvertValue<To>(static_cast<float>(v));
  } else if constexpr (std::is_same<To, bool>::value) {
    return v != From(0);
  } else if constexpr (std::is_same<To, half_t>::value) {
    return half_t(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}


/*! \brief out[i] = fn(in[i]) for i < n, honouring req, on all OpenMP threads. */
template <typename OType, typename IType, typename Fn>
inline void MapLoop(const IType* in, OType* out, index_t n, OpReqType req, Fn fn) {
  if (req == kNullOp || n <= 0) return;
  if (req == kAddTo) {
    ParallelFor(n, [&](index_t i) { out[i] = OType(out[i] + fn(in[i])); });
  } else {
    ParallelFor(n, [&](index_t i) { out[i] = fn(in[i]); });
  }
}

/*! \brief fn(begin, end) over [0, n) cut into chunks, the chunks shared by the OpenMP
 *  threads (for kernels that process a contiguous range at a time). */
template <typename Fn>
inline void ParallelChunks(index_t n, index_t chunk, Fn fn) {
  const index_t chunks = (n + chunk - 1) / chunk;
  LoopMaybeParallel(n >= ParallelGrain(), chunks,
                    [&](index_t c) { fn(c * chunk, std::min(n, (c + 1) * chunk)); });
}

/*! \brief out (any dtype) = in (any dtype) converted elementwise, honouring req.
 *  Defined with the Cast operator. */
void CastBlob(const TBlob& in, const TBlob& out, OpReqType req);

/*! \brief FInferType of ops whose input and output share a numeric dtype (bool refused). */
bool NumericElemwiseType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_ELEMWISE_UNARY_KERNEL_H_
