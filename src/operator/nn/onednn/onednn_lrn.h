// LRN across channels on oneDNN (float32, 4-D NCHW); the op falls back to its plain kernel
// elsewhere and with MXNET_ONEDNN_ENABLED=0.
#ifndef MXNET_OPERATOR_NN_ONEDNN_ONEDNN_LRN_H_
#define MXNET_OPERATOR_NN_ONEDNN_ONEDNN_LRN_H_

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

/*! \brief LRN's arguments as the kernels need them. oneDNN takes MXNet's alpha unscaled: both
 *  divide it by the window size (nsize) themselves. */
struct LRNArgs {
  float alpha, beta, knorm;
  uint32_t nsize;
};

/*! \brief True when oneDNN is built in and enabled and data is float32 NCHW (4-D). */
bool LRNUsesOneDNN(const TBlob& data);
/*! \brief out = LRN(data) through oneDNN, honouring req (kAddTo adds). */
void LRNForwardOneDNN(const LRNArgs& a, const OpContext& ctx, const TBlob& data, const TBlob& out,
                      OpReqType req);
/*! \brief The data gradient from ograd and data through oneDNN, honouring req. */
void LRNBackwardOneDNN(const LRNArgs& a, const OpContext& ctx, const TBlob& out_grad,
                       const TBlob& data, const TBlob& data_grad, OpReqType req);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_ONEDNN_ONEDNN_LRN_H_
