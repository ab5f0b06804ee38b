// Convolution kernels: plain (im2col + GEMM, any float dtype) and oneDNN (float32).
#ifndef MXNET_OPERATOR_NN_CONVOLUTION_KERNELS_H_
#define MXNET_OPERATOR_NN_CONVOLUTION_KERNELS_H_

#include "operator/nn/convolution_param.h"

namespace mxnet {
namespace op {

/*! \brief What a backward call computes: each gradient is skipped when its blob is null. */
struct ConvGrads {
  const TBlob* data{nullptr};
  const TBlob* weight{nullptr};
  const TBlob* bias{nullptr};
  OpReqType data_req{kNullOp}, weight_req{kNullOp}, bias_req{kNullOp};
};

/*! \brief out = conv(data, weight) + bias (bias null when no_bias). Channel-first or -last. */
void ConvForwardPlain(const ConvGeometry& g, const OpContext& ctx, const TBlob& data,
                      const TBlob& weight, const TBlob* bias, const TBlob& out, OpReqType req);
void ConvBackwardPlain(const ConvGeometry& g, const OpContext& ctx, const TBlob& ograd,
                       const TBlob& data, const TBlob& weight, const ConvGrads& grads);

/*! \brief True when oneDNN is built in, enabled (MXNET_ONEDNN_ENABLED) and takes this call. */
bool ConvUsesOneDNN(const ConvGeometry& g, int dtype);
void ConvForwardOneDNN(const ConvGeometry& g, const OpContext& ctx, const TBlob& data,
                       const TBlob& weight, const TBlob* bias, const TBlob& out, OpReqType req);
void ConvBackwardOneDNN(const ConvGeometry& g, const OpContext& ctx, const TBlob& ograd,
                        const TBlob& data, const TBlob& weight, const ConvGrads& grads);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONVOLUTION_KERNELS_H_
