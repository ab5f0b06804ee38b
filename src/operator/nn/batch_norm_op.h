// BatchNorm's arguments and the plain CPU kernels, declared for the operator registration and
// for any accelerated dispatcher that falls back to them.
#ifndef MXNET_OPERATOR_NN_BATCH_NORM_OP_H_
#define MXNET_OPERATOR_NN_BATCH_NORM_OP_H_

#include <dmlc/optional.h>

#include "operator/nn/onednn/onednn_layout.h"
#include "operator/operator_common.h"

namespace mxnet {
namespace op {

struct BatchNormParam : public dmlc::Parameter<BatchNormParam> {
  double eps;
  float momentum;
  bool fix_gamma;
  bool use_global_stats;
  bool output_mean_var;
  int axis;
  bool cudnn_off;
  dmlc::optional<float> min_calib_range;
  dmlc::optional<float> max_calib_range;
  DMLC_DECLARE_PARAMETER(BatchNormParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-3f)
        .describe("Epsilon to prevent div 0. Must be no less than CUDNN_BN_MIN_EPSILON defined "
                  "in cudnn.h when using cudnn (usually 1e-5)");
    DMLC_DECLARE_FIELD(momentum).set_default(0.9f).describe("Momentum for moving average");
    DMLC_DECLARE_FIELD(fix_gamma).set_default(true).describe("Fix gamma while training");
    DMLC_DECLARE_FIELD(use_global_stats).set_default(false)
        .describe("Whether use global moving statistics instead of local batch-norm. This will "
                  "force change batch-norm into a scale shift operator.");
    DMLC_DECLARE_FIELD(output_mean_var).set_default(false)
        .describe("Output the mean and inverse std ");
    DMLC_DECLARE_FIELD(axis).set_default(1)
        .describe("Specify which shape axis the channel is specified");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false)
        .describe("Do not select CUDNN operator, if available");
    DMLC_DECLARE_FIELD(min_calib_range).set_default(dmlc::optional<float>())
        .describe("The minimum scalar value in the form of float32 obtained through calibration. "
                  "If present, it will be used to by quantized batch norm op to calculate "
                  "primitive scale.Note: this calib_range is to calib bn output.");
    DMLC_DECLARE_FIELD(max_calib_range).set_default(dmlc::optional<float>())
        .describe("The maximum scalar value in the form of float32 obtained through calibration. "
                  "If present, it will be used to by quantized batch norm op to calculate "
                  "primitive scale.Note: this calib_range is to calib bn output.");
  }
};

// Inputs and outputs of BatchNorm and _backward_BatchNorm, by position.
namespace batchnorm {
enum Input { kData = 0, kGamma, kBeta, kMovingMean, kMovingVar };
// _contrib_BatchNormWithReLU has a fourth, hidden output: the forward's per-channel affine
// y = x * a + b (a for every channel, then b; the parameters' dtype), its backward's mask.
enum Output { kOut = 0, kMean, kInvStd, kWorkspace };
// _backward_BatchNorm takes (out_grad, data, gamma, moving_mean, moving_var, mean, invstd);
// _backward_contrib_BatchNormWithReLU the workspace after them.
enum BackwardInput { kOutGrad = 0, kBwData, kBwGamma, kBwMovingMean, kBwMovingVar, kBwMean,
                     kBwInvStd, kBwWorkspace };
}  // namespace batchnorm

/*! \brief data viewed as (outer, channels, inner) around the channel axis. */
struct BatchNormDims {
  index_t outer = 1, channels = 1, inner = 1;
  BatchNormDims(const TShape& data, int axis);
};

/*! \brief The channel axis the argument names, in [0, ndim); errors name op and shape. */
int BatchNormAxis(const char* op_name, const BatchNormParam& p, const TShape& data);

/*! \brief The moving statistics of channel c after a training batch: moving = moving * momentum
 *  + batch * (1 - momentum), the batch variance recovered from the inverse std the forward
 *  saved. Every kernel updates them through this, so they agree to the bit. */
template <typename PType>
inline void FoldBatchStats(const BatchNormParam& p, double mean, double invstd, PType* moving_mean,
                           PType* moving_var) {
  const double var = 1.0 / (invstd * invstd) - p.eps;
  const double mom = p.momentum;
  *moving_mean = PType(static_cast<double>(*moving_mean) * mom + mean * (1 - mom));
  *moving_var = PType(static_cast<double>(*moving_var) * mom + var * (1 - mom));
}

/*! \brief With fix_gamma, writes 1 into every element of gamma, as MXNet 1.9.1's forward
 *  does (its backward then reads gamma as 1 too). The ops that call this declare gamma in
 *  FWriteArguments (BatchNormWrittenArguments), so the engine orders the write. */
void BatchNormFixGamma(const BatchNormParam& p, const TBlob& gamma);
/*! \brief FBlockedLayout of the batch norms (channel axis 1 only): the data and the output
 *  held blocked together; backward: the output gradient, the data and the data gradient. */
std::vector<onednn::LayoutGroup> BatchNormLayoutGroups(const NodeAttrs& attrs);
std::vector<onednn::LayoutGroup> BatchNormBackwardLayoutGroups(const NodeAttrs& attrs);
/*! \brief FWriteArguments of the batch norms: {gamma} with fix_gamma, else none. */
std::vector<uint32_t> BatchNormWrittenArguments(const NodeAttrs& attrs);

/*! \brief Plain CPU forward. outputs: out, the mean used and the inverse std used (batch
 *  statistics when training without use_global_stats, else the moving ones). step: 1 for
 *  data whose channel runs are contiguous, B for (N, C, H, W) held in oneDNN's blocked
 *  nChw{B}c (channel axis 1; the same sums in the same order). relu: out is relu of the
 *  normalization, in the same pass, and outputs has the workspace (_contrib_BatchNormWithReLU).
 */
void BatchNormForwardPlain(const BatchNormParam& p, bool is_train, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out,
                           int step = 1, bool relu = false);
/*! \brief Plain CPU backward (inputs as batchnorm::BackwardInput); outputs data_grad,
 *  gamma_grad, beta_grad. When training without use_global_stats it also folds the batch
 *  statistics into moving_mean and moving_var with momentum. relu: the ReLU variant's
 *  backward (inputs up to kBwWorkspace): out_grad is masked where the forward's output,
 *  recomputed from data and the workspace, was not positive, without a pass of its own. */
void BatchNormBackwardPlain(const BatchNormParam& p, bool is_train, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out,
                            int step = 1, bool relu = false);

/*! \brief FSetInputVarAttrOnCompose of the batch norms: moving_mean starts at zero and
 *  moving_var at one unless the variable says otherwise (MXNet writes this into the JSON). */
inline void MovingStatsInitOnCompose(const NodeAttrs&, nnvm::ObjectPtr var, int index) {
  if (var->attrs.dict.count("__init__")) return;
  if (index == batchnorm::kMovingMean) var->attrs.dict["__init__"] = "[\"zero\", {}]";
  if (index == batchnorm::kMovingVar) var->attrs.dict["__init__"] = "[\"one\", {}]";
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_BATCH_NORM_OP_H_
