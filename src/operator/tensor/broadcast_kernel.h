// Broadcasting loop shared by binary operators: one output index walks both inputs' strides.
#ifndef MXNET_OPERATOR_TENSOR_BROADCAST_KERNEL_H_
#define MXNET_OPERATOR_TENSOR_BROADCAST_KERNEL_H_

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

/*! \brief Shapes of out, lhs and rhs aligned to one ndim, with broadcast strides (0 where an
 *  input dim is 1). Adjacent dims that broadcast the same way are merged. */
struct BroadcastPlan {
  int ndim{0};
  dim_t out_shape[TShape::kMaxNDim];
  dim_t lstride[TShape::kMaxNDim];
  dim_t rstride[TShape::kMaxNDim];
  BroadcastPlan(const TShape& lhs, const TShape& rhs, const TShape& out);
  bool same_shape() const { return ndim <= 1 && lstride[0] == rstride[0]; }
};

/*! \brief out[i] = Op::Map(lhs[bcast i], rhs[bcast i]) for every output element. */
template <typename Op, typename DType, typename OType = DType>
void BroadcastBinary(const BroadcastPlan& plan, const DType* lhs, const DType* rhs, OType* out,
                     OpReqType req, index_t n) {
  if (req == kNullOp || n == 0) return;
  if (plan.ndim <= 1 && plan.lstride[0] == 1 && plan.rstride[0] == 1) {
    if (req == kAddTo) {
      ParallelFor(n, [&](index_t i) { out[i] = out[i] + OType(Op::Map(lhs[i], rhs[i])); });
    } else {
      ParallelFor(n, [&](index_t i) { out[i] = OType(Op::Map(lhs[i], rhs[i])); });
    }
    return;
  }
  const int nd = plan.ndim;
  const dim_t inner = plan.out_shape[nd - 1];
  const dim_t ls = plan.lstride[nd - 1], rs = plan.rstride[nd - 1];
  const index_t rows = n / inner;
  ParallelFor(rows, [&](index_t row) {
    // Offsets of this row in lhs and rhs from its coordinates in the outer dims.
    index_t rem = row, loff = 0, roff = 0;
    for (int d = nd - 2; d >= 0; --d) {
      index_t c = rem % plan.out_shape[d];
      rem /= plan.out_shape[d];
      loff += c * plan.lstride[d];
      roff += c * plan.rstride[d];
    }
    OType* o = out + row * inner;
    const DType* l = lhs + loff;
    const DType* r = rhs + roff;
    for (dim_t j = 0; j < inner; ++j) {
      OType v = OType(Op::Map(l[j * ls], r[j * rs]));
      o[j] = req == kAddTo ? OType(o[j] + v) : v;
    }
  });
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_TENSOR_BROADCAST_KERNEL_H_
