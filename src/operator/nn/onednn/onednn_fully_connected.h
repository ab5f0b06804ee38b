// FullyConnected on oneDNN matmul (float32); the op falls back to GEMM elsewhere.
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_FULLY_CONNECTED_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_FULLY_CONNECTED_H_

#include "mxnet/op_attr_types.h"

namespace mxnet {
namespace op {

/*! \brief data as a (rows x cols) matrix, weight (hidden x cols), output (rows x hidden). */
struct FCMatrixShape {
  index_t rows, cols, hidden;
};

/*! \brief True when oneDNN is built in, enabled (MXNET_ONEDNN_ENABLED) and takes the call. */
bool FCUsesOneDNN(const FCMatrixShape& s, int dtype);
namespace onednn {
struct PostOps;
}
/*! \brief post (optional): activations fused after the product (subgraph backend ONEDNN). */
void FCForwardOneDNN(const FCMatrixShape& s, const OpContext& ctx, const TBlob& data,
                     const TBlob& weight, const TBlob* bias, const TBlob& out, OpReqType req,
                     const onednn::PostOps* post = nullptr);
/*! \brief Gradients with a null blob or kNullOp are skipped. */
void FCBackwardOneDNN(const FCMatrixShape& s, const OpContext& ctx, const TBlob& ograd,
                      const TBlob& data, const TBlob& weight, const TBlob* data_grad,
                      OpReqType data_req, const TBlob* weight_grad, OpReqType weight_req,
                      const TBlob* bias_grad, OpReqType bias_req);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_FULLY_CONNECTED_H_
