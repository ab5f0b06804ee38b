// Max and average Pooling on oneDNN (float32); the op falls back to its plain kernel elsewhere.
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_POOLING_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_POOLING_H_

#include "operator/nn/onednn/onednn_layout.h"
#include "operator/nn/pooling_op.h"

namespace mxnet {
namespace op {

/*! \brief True when oneDNN is built in, enabled and computes exactly what MXNet's rules give:
 *  float32 max or avg pooling whose windows all overlap the input (and, for avg counting the
 *  padding, no window reaches past the padded input). */
bool PoolUsesOneDNN(const PoolingParam& p, const PoolGeometry& g, int dtype);
/*! \brief acts: whether data (src) and out (dst) are held blocked (onednn_layout.h). */
void PoolForwardOneDNN(const PoolingParam& p, const PoolGeometry& g, const OpContext& ctx,
                       const TBlob& data, const TBlob& out, OpReqType req,
                       onednn::BlockedActs acts = {});
/*! \brief The data gradient; max pooling recomputes the forward for oneDNN's argmax workspace.
 *  acts: whether data (src), out_grad (diff_dst) and data_grad (diff_src) are held blocked. */
void PoolBackwardOneDNN(const PoolingParam& p, const PoolGeometry& g, const OpContext& ctx,
                        const TBlob& out_grad, const TBlob& data, const TBlob& data_grad,
                        OpReqType req, onednn::BlockedActs acts = {});

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_POOLING_H_
