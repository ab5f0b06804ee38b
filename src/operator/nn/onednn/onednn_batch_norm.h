// BatchNorm on oneDNN (float32, any channel axis); the op keeps its plain kernels for other
// dtypes and for kAddTo on the data (or its gradient).
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_BATCH_NORM_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_BATCH_NORM_H_

#include <vector>

#include "operator/nn/batch_norm_op.h"

namespace mxnet {
namespace op {

/*! \brief True when oneDNN is built in, enabled and takes float32 data written with req. */
bool BatchNormUsesOneDNN(const BatchNormParam& p, const TBlob& data, OpReqType req);
/*! \brief As BatchNormForwardPlain. */
void BatchNormForwardOneDNN(const BatchNormParam& p, bool is_train, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out);
/*! \brief As BatchNormBackwardPlain, the moving statistics updated by FoldBatchStats. */
void BatchNormBackwardOneDNN(const BatchNormParam& p, bool is_train,
                             const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                             const std::vector<TBlob>& out);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_BATCH_NORM_H_
