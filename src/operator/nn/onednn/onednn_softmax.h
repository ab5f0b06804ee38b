// Row softmax and log-softmax on oneDNN (float32), behind the shared SoftmaxForward and
// SoftmaxBackward; length masks, mixed dtypes and kAddTo stay on the plain kernels.
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_SOFTMAX_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_SOFTMAX_H_

#include "operator/nn/softmax_kernel.h"

namespace mxnet {
namespace op {

/*! \brief True when oneDNN is built in, enabled and takes the call: float32 in and out, no
 *  length, req overwriting, and a row shape it is faster on. */
bool SoftmaxUsesOneDNN(const TBlob& in, const TBlob& out, OpReqType req, const SoftmaxLayout& l,
                       const TBlob* length);
/*! \brief Temperature and softmin's sign scale the input first (and the gradient after). */
void SoftmaxForwardOneDNN(const TBlob& in, const TBlob& out, const SoftmaxLayout& l,
                          const SoftmaxOptions& o);
void SoftmaxBackwardOneDNN(const TBlob& ograd, const TBlob& out, const TBlob& igrad,
                           const SoftmaxLayout& l, const SoftmaxOptions& o);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_SOFTMAX_H_
