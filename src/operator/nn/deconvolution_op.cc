// Deconvolution (transposed convolution) and its backward, through the convolution kernels:
// its forward is a convolution's data gradient, its data gradient a convolution forward and
// its weight gradient a convolution's weight gradient with data and output gradient swapped.
#include <string>

#include "operator/nn/convolution_kernels.h"
#include "common/type_switch.h"
#include "operator/nn/nn_common.h"

namespace mxnet {
namespace op {

struct DeconvolutionParam : public dmlc::Parameter<DeconvolutionParam> {
  ShapeArg kernel;
  ShapeArg stride;
  ShapeArg dilate;
  ShapeArg pad;
  ShapeArg adj;
  ShapeArg target_shape;
  uint32_t num_filter;
  uint32_t num_group;
  uint64_t workspace;
  bool no_bias;
  dmlc::optional<int> cudnn_tune;
  bool cudnn_off;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(DeconvolutionParam) {
    const ShapeArg none(TShape(0, 0));
    DMLC_DECLARE_FIELD(kernel).describe(
        "Deconvolution kernel size: (w,), (h, w) or (d, h, w). This is same as the kernel size "
        "used for the corresponding convolution");
    DMLC_DECLARE_FIELD(stride).set_default(none).describe(
        "The stride used for the corresponding convolution: (w,), (h, w) or (d, h, w). "
        "Defaults to 1 for each dimension.");
    DMLC_DECLARE_FIELD(dilate).set_default(none).describe(
        "Dilation factor for each dimension of the input: (w,), (h, w) or (d, h, w). Defaults "
        "to 1 for each dimension.");
    DMLC_DECLARE_FIELD(pad).set_default(none).describe(
        "The amount of implicit zero padding added during convolution for each dimension of "
        "the input: (w,), (h, w) or (d, h, w). If `target_shape` is set, `pad` is ignored and "
        "a padding that gives the target shape is used. Defaults to no padding.");
    DMLC_DECLARE_FIELD(adj).set_default(none).describe(
        "Adjustment for output shape: (w,), (h, w) or (d, h, w). If `target_shape` is set, "
        "`adj` is ignored and computed accordingly.");
    DMLC_DECLARE_FIELD(target_shape).set_default(none).describe(
        "Shape of the output tensor: (w,), (h, w) or (d, h, w).");
    DMLC_DECLARE_FIELD(num_filter).describe("Number of output filters.");
    DMLC_DECLARE_FIELD(num_group).set_default(1).describe("Number of groups partition.");
    DMLC_DECLARE_FIELD(workspace).set_default(512).describe(
        "Maximum temporary workspace allowed (MB) in deconvolution. Accepted for "
        "compatibility; the CPU kernels size their scratch themselves.");
    DMLC_DECLARE_FIELD(no_bias).set_default(true).describe("Whether to disable bias parameter.");
    DMLC_DECLARE_FIELD(cudnn_tune)
        .add_enum("off", conv::kOff)
        .add_enum("limited_workspace", conv::kLimited)
        .add_enum("fastest", conv::kFastest)
        .set_default(dmlc::optional<int>())
        .describe("Whether to pick convolution algorithm by running performance test (cuDNN; "
                  "accepted and unused on CPU).");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Turn off cudnn for this layer.");
    DMLC_DECLARE_FIELD(layout)
        .add_enum("NCW", conv::kNCW)
        .add_enum("NCHW", conv::kNCHW)
        .add_enum("NCDHW", conv::kNCDHW)
        .add_enum("NHWC", conv::kNHWC)
        .add_enum("NDHWC", conv::kNDHWC)
        .set_default(dmlc::optional<int>())
        .describe("Set layout for input, output and weight. Empty for default layout, NCW for "
                  "1d, NCHW for 2d and NCDHW for 3d.");
  }
};
DMLC_REGISTER_PARAMETER(DeconvolutionParam);

namespace {

/*!
 * \brief The convolution whose data gradient this deconvolution is: its input is the
 *  deconvolution's output (num_filter channels), its output the deconvolution's input. The
 *  convolution has no bias; the deconvolution's own is added separately.
 */
ConvGeometry DeconvGeometry(const NodeAttrs& attrs, const TShape& data) {
  const DeconvolutionParam& p = Param<DeconvolutionParam>(attrs);
  const std::string& op = attrs.op->name;
  ConvGeometry g;
  g.nspatial = p.kernel.ndim();
  CHECK(g.nspatial >= 1 && g.nspatial <= 3)
      << "Operator " << op << ": argument kernel expected 1, 2 or 3 values ((w,), (h, w) or "
      << "(d, h, w)), given " << p.kernel;
  const int layout = ConvLayout(attrs, p.layout, g.nspatial);
  g.channel_last = layout == conv::kNHWC || layout == conv::kNDHWC;
  CHECK_EQ(data.ndim(), g.nspatial + 2)
      << "Operator " << op << ": input data expected " << g.nspatial + 2 << " dims for a "
      << g.nspatial << "-D kernel, given shape " << data;
  CHECK_GE(p.num_filter, 1U) << "Operator " << op << ": argument num_filter expected >= 1";
  CHECK_GE(p.num_group, 1U) << "Operator " << op << ": argument num_group expected >= 1";
  g.batch = data[0];
  g.filters = g.channel_last ? data[data.ndim() - 1] : data[1];  // the deconvolution's input
  g.in_channels = p.num_filter;
  g.groups = p.num_group;
  g.bias = false;
  CHECK_EQ(g.filters % g.groups, 0) << "Operator " << op << ": the input channels ("
                                    << g.filters << ", data shape " << data
                                    << ") must be divisible by num_group=" << g.groups;
  CHECK_EQ(g.in_channels % g.groups, 0) << "Operator " << op << ": num_filter="
                                        << g.in_channels << " must be divisible by num_group="
                                        << g.groups;
  index_t adj[conv::kMaxSpatial] = {0, 0, 0}, target[conv::kMaxSpatial] = {0, 0, 0};
  SpatialArg(attrs, "kernel", p.kernel, g.nspatial, 1, 1, g.kernel);
  SpatialArg(attrs, "stride", p.stride, g.nspatial, 1, 1, g.stride);
  SpatialArg(attrs, "dilate", p.dilate, g.nspatial, 1, 1, g.dilate);
  SpatialArg(attrs, "pad", p.pad, g.nspatial, 0, 0, g.pad);
  SpatialArg(attrs, "adj", p.adj, g.nspatial, 0, 0, adj);
  const bool has_target = p.target_shape.ndim() > 0;
  SpatialArg(attrs, "target_shape", p.target_shape, g.nspatial, 0, 1, target);
  for (int i = conv::kMaxSpatial - g.nspatial; i < conv::kMaxSpatial; ++i) {
    g.out[i] = data[(g.channel_last ? 1 : 2) + i - (conv::kMaxSpatial - g.nspatial)];
    const index_t span = g.dilate[i] * (g.kernel[i] - 1) + 1;
    const index_t full = g.stride[i] * (g.out[i] - 1) + span;
    if (has_target) {  // MXNet's rule: the padding (and adj) that give the target size
      CHECK_LE(target[i], full) << "Operator " << op << ": argument target_shape="
                                << p.target_shape << " is larger than the largest output "
                                << "the input (shape " << data << ") gives";
      const index_t total = full - target[i];
      adj[i] = total % 2;
      g.pad[i] = (total + 1) / 2;
    }
    CHECK_LT(adj[i], g.stride[i]) << "Operator " << op << ": argument adj=" << p.adj
                                  << " must be smaller than stride=" << p.stride;
    g.in[i] = full - 2 * g.pad[i] + adj[i];
    CHECK_GE(g.in[i], 1) << "Operator " << op << ": the padding (pad=" << p.pad
                         << ") leaves no output for input shape " << data;
  }
  return g;
}

uint32_t NumInputs(const NodeAttrs& attrs) {
  return Param<DeconvolutionParam>(attrs).no_bias ? 2 : 3;
}

std::vector<std::string> InputNamesOf(const NodeAttrs& attrs) {
  if (Param<DeconvolutionParam>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

// The deconvolution's output: the equivalent convolution's input.
TShape DeconvOutputShape(const ConvGeometry& g) {
  ConvGeometry o = g;
  std::swap(o.in, o.out);
  std::swap(o.filters, o.in_channels);
  return ConvOutputShape(o);
}

bool DeconvShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!data.IsKnown()) return false;
  const ConvGeometry g = DeconvGeometry(attrs, data);
  AssignInputShape(attrs, 1, &(*in)[1], ConvWeightShape(g));
  if (!Param<DeconvolutionParam>(attrs).no_bias) {
    AssignInputShape(attrs, 2, &(*in)[2], TShape({g.in_channels}));
  }
  AssignShape(attrs, "output", &(*out)[0], DeconvOutputShape(g));
  return true;
}

// Channel c of element i of a tensor in g's deconvolution-output layout.
template <typename Fn>
void ForEachOutputChannel(const ConvGeometry& g, Fn fn) {
  const index_t spatial = g.InSize(), channels = g.in_channels;
  for (index_t n = 0; n < g.batch; ++n) {
    for (index_t c = 0; c < channels; ++c) {
      for (index_t s = 0; s < spatial; ++s) {
        const index_t i = g.channel_last ? (n * spatial + s) * channels + c
                                         : (n * channels + c) * spatial + s;
        fn(i, c);
      }
    }
  }
}

template <typename DType>
void AddBias(const ConvGeometry& g, const TBlob& bias, const TBlob& out) {
  const DType* b = bias.dptr<DType>();
  DType* y = out.dptr<DType>();
  ForEachOutputChannel(g, [&](index_t i, index_t c) { y[i] = DType(float(y[i]) + float(b[c])); });
}

template <typename DType>
void BiasGrad(const ConvGeometry& g, const TBlob& ograd, const TBlob& dbias, OpReqType req) {
  std::vector<double> sum(g.in_channels, 0.0);
  const DType* dy = ograd.dptr<DType>();
  ForEachOutputChannel(g, [&](index_t i, index_t c) {
    sum[c] += static_cast<double>(static_cast<float>(dy[i]));
  });
  DType* db = dbias.dptr<DType>();
  for (index_t c = 0; c < g.in_channels; ++c) {
    db[c] = DType(req == kAddTo ? static_cast<double>(static_cast<float>(db[c])) + sum[c] : sum[c]);
  }
}

void ConvBackwardAny(const ConvGeometry& g, const OpContext& ctx, const TBlob& ograd,
                     const TBlob& data, const TBlob& weight, const ConvGrads& grads) {
  if (ConvUsesOneDNN(g, weight.type_flag_)) {
    ConvBackwardOneDNN(g, ctx, ograd, data, weight, grads);
  } else {
    ConvBackwardPlain(g, ctx, ograd, data, weight, grads);
  }
}

}  // namespace

void DeconvForwardKernel(const ConvGeometry& g, const OpContext& ctx, const TBlob& data,
                         const TBlob& weight, const TBlob& out, OpReqType req) {
  if (req == kNullOp) return;
  ConvGrads grads;
  grads.data = &out;
  grads.data_req = req;
  // The convolution's "data" is only read for a weight gradient, not asked for here.
  ConvBackwardAny(g, ctx, data, out, weight, grads);
}

void DeconvBackwardKernel(const ConvGeometry& g, const OpContext& ctx, const TBlob& ograd,
                          const TBlob& data, const TBlob& weight, const TBlob& data_grad,
                          OpReqType data_req, const TBlob& weight_grad, OpReqType weight_req) {
  if (data_req != kNullOp) {
    if (ConvUsesOneDNN(g, weight.type_flag_)) {
      ConvForwardOneDNN(g, ctx, ograd, weight, nullptr, data_grad, data_req);
    } else {
      ConvForwardPlain(g, ctx, ograd, weight, nullptr, data_grad, data_req);
    }
  }
  if (weight_req != kNullOp) {
    ConvGrads grads;
    grads.weight = &weight_grad;
    grads.weight_req = weight_req;
    ConvBackwardAny(g, ctx, data, ograd, weight, grads);
  }
}

namespace {

void DeconvForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ConvGeometry g = DeconvGeometry(attrs, in[0].shape_);
  DeconvForwardKernel(g, ctx, in[0], in[1], out[0], req[0]);
  if (!Param<DeconvolutionParam>(attrs).no_bias) {
    MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, { AddBias<DType>(g, in[2], out[0]); });
  }
}

// _backward_Deconvolution: inputs (ograd, data, weight), outputs (data, weight[, bias]) grads.
void DeconvBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ConvGeometry g = DeconvGeometry(attrs, in[1].shape_);
  const TBlob& dy = in[0];
  DeconvBackwardKernel(g, ctx, dy, in[1], in[2], out[0], req[0], out[1], req[1]);
  if (out.size() > 2 && req[2] != kNullOp) {
    MXNET_REAL_TYPE_SWITCH(dy.type_flag_, DType, { BiasGrad<DType>(g, dy, out[2], req[2]); });
  }
}

// Data and weight feed the backward (the bias is not needed); it outputs every gradient.
std::vector<NodeEntry> DeconvGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return GradOfEachInput("_backward_Deconvolution", n, og, 2);
}

bool DeconvBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                         std::vector<TShape>* out) {
  const TShape& data = (*in)[1];
  if (!data.IsKnown()) return false;
  const ConvGeometry g = DeconvGeometry(attrs, data);
  AssignInputShape(attrs, 0, &(*in)[0], DeconvOutputShape(g));
  AssignInputShape(attrs, 2, &(*in)[2], ConvWeightShape(g));
  AssignShape(attrs, "data gradient", &(*out)[0], data);
  AssignShape(attrs, "weight gradient", &(*out)[1], ConvWeightShape(g));
  if (out->size() > 2) AssignShape(attrs, "bias gradient", &(*out)[2], TShape({g.in_channels}));
  return true;
}

}  // namespace

NNVM_REGISTER_OP(Deconvolution)
    .describe(R"doc(Computes 1-D, 2-D or 3-D transposed convolution (aka fractionally strided
convolution) of the input tensor: the gradient of Convolution with respect to its data, so
that Deconvolution with the same arguments maps the output shape of a Convolution back to its
input shape.

data: *(batch_size, channel, *spatial)*; weight: *(channel, num_filter/num_group, *kernel)*;
bias (when ``no_bias`` is false): *(num_filter,)*; output: *(batch_size, num_filter,
*out)* with ``out = stride * (in - 1) + dilate * (kernel - 1) + 1 - 2 * pad + adj``.
``target_shape`` picks ``pad`` and ``adj`` to give that output size. ``layout`` as for
Convolution; ``workspace``, ``cudnn_tune`` and ``cudnn_off`` are accepted for compatibility.
)doc")
    .set_num_inputs(NumInputs)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<DeconvolutionParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input tensor to the deconvolution operation.")
    .add_argument("weight", "NDArray-or-Symbol", "Weights representing the kernel.")
    .add_argument("bias", "NDArray-or-Symbol",
                  "Bias added to the result after the deconvolution operation.")
    .add_arguments(DeconvolutionParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNamesOf)
    .set_attr<FInferShape>("FInferShape", DeconvShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", DeconvForward)
    .set_attr<FGradient>("FGradient", DeconvGrad);

NNVM_REGISTER_OP(_backward_Deconvolution)
    .describe("Gradients of Deconvolution with respect to data, weight and bias.")
    .set_num_inputs(3)
    .set_num_outputs(NumInputs)
    .set_attr_parser(ParamParser<DeconvolutionParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "Input data of Deconvolution")
    .add_argument("weight", "NDArray-or-Symbol", "Weight of Deconvolution")
    .add_arguments(DeconvolutionParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data", "weight"}))
    .set_attr<FInferShape>("FInferShape", DeconvBackwardShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", DeconvBackward);

}  // namespace op
}  // namespace mxnet
