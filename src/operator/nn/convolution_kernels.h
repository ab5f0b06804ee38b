// Convolution kernels: plain (im2col + GEMM, any float dtype) and oneDNN (float32).
#ifndef MXNET_OPERATOR_NN_CONVOLUTION_KERNELS_H_
#define MXNET_OPERATOR_NN_CONVOLUTION_KERNELS_H_

#include "operator/nn/convolution_param.h"
#include "operator/nn/onednn/onednn_layout.h"

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

/*!
 * \brief One sample's channels (g.GroupInChannels() of them) unfolded into columns: row
 *  (c, kernel offset), column the output position; taps in the padding read 0. Col2ImAdd is
 *  its adjoint, adding each column entry back into data. Instantiated for float, double and
 *  half_t in convolution_plain.cc; also the kernels of the im2col and col2im operators.
 */
template <typename DType>
void Im2Col(const ConvGeometry& g, const DType* data, DType* col);
template <typename DType>
void Col2ImAdd(const ConvGeometry& g, const DType* col, DType* data);

/*! \brief True when oneDNN is built in, enabled (MXNET_ONEDNN_ENABLED) and takes this call. */
bool ConvUsesOneDNN(const ConvGeometry& g, int dtype);
namespace onednn {
struct PostOps;
}
/*! \brief post (optional): post-ops fused into the primitive (subgraph backend ONEDNN); with a
 *  sum, out holds the sum operand on entry and req must be kWriteTo or kWriteInplace.
 *  weight_stamp (optional): names the weights' content when they are no input of the running
 *  call (folded weights); 0 takes the input's (imperative::InputContentStamp).
 *  acts: whether data (src) and out (dst) are held blocked (onednn_layout.h). */
void ConvForwardOneDNN(const ConvGeometry& g, const OpContext& ctx, const TBlob& data,
                       const TBlob& weight, const TBlob* bias, const TBlob& out, OpReqType req,
                       const onednn::PostOps* post = nullptr, uint64_t weight_stamp = 0,
                       onednn::BlockedActs acts = {});
/*! \brief acts: whether data (src), ograd (diff_dst) and the data gradient (diff_src) are
 *  held blocked (onednn_layout.h). */
void ConvBackwardOneDNN(const ConvGeometry& g, const OpContext& ctx, const TBlob& ograd,
                        const TBlob& data, const TBlob& weight, const ConvGrads& grads,
                        onednn::BlockedActs acts = {});

/*!
 * \brief Transposed convolution through the kernels above, for the convolution geometry g
 *  whose data gradient it is (g.bias false; a bias is the caller's): out = deconv(data,
 *  weight), and its data and weight gradients (either skipped with kNullOp). Shared by
 *  Deconvolution and bilinear UpSampling; defined in deconvolution_op.cc.
 */
void DeconvForwardKernel(const ConvGeometry& g, const OpContext& ctx, const TBlob& data,
                         const TBlob& weight, const TBlob& out, OpReqType req);
void DeconvBackwardKernel(const ConvGeometry& g, const OpContext& ctx, const TBlob& ograd,
                          const TBlob& data, const TBlob& weight, const TBlob& data_grad,
                          OpReqType data_req, const TBlob& weight_grad, OpReqType weight_req);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_CONVOLUTION_KERNELS_H_
