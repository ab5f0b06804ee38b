// Elementwise activations on oneDNN's eltwise primitive (float32): Activation's relu, sigmoid,
// tanh and softrelu, LeakyReLU's leaky, elu and gelu. The ops fall back to their plain kernels
// for everything else (softsign, selu, prelu, rrelu, other dtypes, kAddTo, small arrays).
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_ELTWISE_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_ELTWISE_H_

#include "mxnet/op_attr_types.h"

namespace mxnet {
namespace op {

enum class EltwiseKind { kReLU, kSigmoid, kTanh, kSoftReLU, kLeaky, kELU, kGELU };

/*! \brief A function and its parameter (leaky's and elu's slope). */
struct EltwiseFn {
  EltwiseKind kind;
  float alpha{0.f};
};

/*! \brief Whether the gradient is computed from the forward output (relu, sigmoid, tanh) rather
 *  than its input. */
bool EltwiseGradReadsOutput(EltwiseKind kind);

/*! \brief True when oneDNN is built in, enabled, and takes a float32 call writing req. */
bool EltwiseUsesOneDNN(const EltwiseFn& f, int dtype, size_t size, OpReqType req);
void EltwiseForwardOneDNN(const EltwiseFn& f, const TBlob& in, const TBlob& out);
/*! \brief igrad = ograd * f'(at), at the output or the input as EltwiseGradReadsOutput says. */
void EltwiseBackwardOneDNN(const EltwiseFn& f, const TBlob& ograd, const TBlob& at,
                           const TBlob& igrad);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_ELTWISE_H_
