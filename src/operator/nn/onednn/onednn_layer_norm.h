// LayerNorm over the last axis on oneDNN (float32); other axes, dtypes and kAddTo keep the
// plain NormRows kernels.
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_LAYER_NORM_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_LAYER_NORM_H_

#include <vector>

#include "operator/nn/norm_rows.h"

namespace mxnet {
namespace op {

/*! \brief True when oneDNN is built in, enabled and takes rows l of float32 data (LayerNorm's
 *  rows along the last axis: inner == 1, one gamma per position) written with req. */
bool LayerNormUsesOneDNN(const NormRows& l, const TBlob& data, OpReqType req);
/*! \brief As NormRowsForward: outputs (out, mean, std = sqrt(var + eps)). */
void LayerNormForwardOneDNN(const NormRows& l, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out);
/*! \brief As NormRowsBackward: inputs (ograd, data, gamma, mean, std). */
void LayerNormBackwardOneDNN(const NormRows& l, const std::vector<TBlob>& in,
                             const std::vector<OpReqType>& req, const std::vector<TBlob>& out);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_LAYER_NORM_H_
