// Convolution and its backward: arguments, shape and dtype rules, and the choice of kernel
// (oneDNN for float32 where it is built in and enabled, the plain kernels otherwise).
#include <string>

#include "operator/nn/convolution_kernels.h"
#include "operator/nn/nn_common.h"

namespace mxnet {
namespace op {

DMLC_REGISTER_PARAMETER(ConvolutionParam);

namespace {
const char* const kSpatialNames[] = {"", "(w,)", "(h, w)", "(d, h, w)"};
}  // namespace

void SpatialArg(const NodeAttrs& attrs, const char* name, const TShape& v, int nspatial,
                index_t fallback, index_t min_value, index_t* dst) {
  if (v.ndim() <= 0) {
    for (int i = 0; i < nspatial; ++i) dst[conv::kMaxSpatial - nspatial + i] = fallback;
    return;
  }
  CHECK_EQ(v.ndim(), nspatial) << "Operator " << attrs.op->name << ": argument " << name
                               << " expected " << nspatial << " values "
                               << kSpatialNames[nspatial] << " like kernel, given " << v;
  for (int i = 0; i < nspatial; ++i) {
    CHECK_GE(v[i], min_value) << "Operator " << attrs.op->name << ": argument " << name
                              << " expected values >= " << min_value << ", given " << v;
    dst[conv::kMaxSpatial - nspatial + i] = v[i];
  }
}

int ConvLayout(const NodeAttrs& attrs, const dmlc::optional<int>& layout, int nspatial) {
  const int l = layout.has_value() ? layout.value()
                : nspatial == 1    ? conv::kNCW
                : nspatial == 2    ? conv::kNCHW
                                   : conv::kNCDHW;
  const int layout_spatial = (l == conv::kNCW) ? 1 : (l == conv::kNCHW || l == conv::kNHWC) ? 2 : 3;
  CHECK_EQ(layout_spatial, nspatial) << "Operator " << attrs.op->name
                                     << ": argument layout does not match a kernel of "
                                     << nspatial << " dims";
  return l;
}

ConvGeometry MakeConvGeometry(const NodeAttrs& attrs, const TShape& data) {
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
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
  g.batch = data[0];
  g.in_channels = g.channel_last ? data[data.ndim() - 1] : data[1];
  for (int i = 0; i < g.nspatial; ++i) {
    g.in[conv::kMaxSpatial - g.nspatial + i] = data[(g.channel_last ? 1 : 2) + i];
  }
  CHECK_GE(p.num_filter, 1U) << "Operator " << op << ": argument num_filter expected >= 1";
  CHECK_GE(p.num_group, 1U) << "Operator " << op << ": argument num_group expected >= 1";
  g.filters = p.num_filter;
  g.groups = p.num_group;
  CHECK_EQ(g.in_channels % g.groups, 0)
      << "Operator " << op << ": the input channels (" << g.in_channels << ", data shape "
      << data << ") must be divisible by num_group=" << g.groups;
  CHECK_EQ(g.filters % g.groups, 0) << "Operator " << op << ": num_filter=" << g.filters
                                    << " must be divisible by num_group=" << g.groups;
  SpatialArg(attrs, "kernel", p.kernel, g.nspatial, 1, 1, g.kernel);
  SpatialArg(attrs, "stride", p.stride, g.nspatial, 1, 1, g.stride);
  SpatialArg(attrs, "dilate", p.dilate, g.nspatial, 1, 1, g.dilate);
  SpatialArg(attrs, "pad", p.pad, g.nspatial, 0, 0, g.pad);
  g.bias = !p.no_bias;
  for (int i = conv::kMaxSpatial - g.nspatial; i < conv::kMaxSpatial; ++i) {
    const index_t span = g.dilate[i] * (g.kernel[i] - 1) + 1;
    const index_t padded = g.in[i] + 2 * g.pad[i];
    CHECK_LE(span, padded) << "Operator " << op << ": the kernel (kernel=" << p.kernel
                           << ", dilate=" << p.dilate << ") is larger than the padded input "
                           << "(data shape " << data << ", pad=" << p.pad << ")";
    g.out[i] = (padded - span) / g.stride[i] + 1;
  }
  return g;
}

namespace {
// (lead, channels, spatial...) or, channel-last, (lead, spatial..., channels).
TShape ShapeInLayout(const ConvGeometry& g, index_t lead, index_t channels,
                     const index_t* spatial) {
  TShape s(g.nspatial + 2, 0);
  s[0] = lead;
  const int first = conv::kMaxSpatial - g.nspatial;
  for (int i = 0; i < g.nspatial; ++i) s[(g.channel_last ? 1 : 2) + i] = spatial[first + i];
  s[g.channel_last ? g.nspatial + 1 : 1] = channels;
  return s;
}
}  // namespace

TShape ConvWeightShape(const ConvGeometry& g) {
  return ShapeInLayout(g, g.filters, g.GroupInChannels(), g.kernel);
}

TShape ConvOutputShape(const ConvGeometry& g) {
  return ShapeInLayout(g, g.batch, g.filters, g.out);
}

namespace {

uint32_t NumInputs(const NodeAttrs& attrs) {
  return Param<ConvolutionParam>(attrs).no_bias ? 2 : 3;
}

std::vector<std::string> InputNamesOf(const NodeAttrs& attrs) {
  if (Param<ConvolutionParam>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

// Partial inference (MXNet 1.9.1) on data with unknown dims: the geometry of a probe shape
// (unknown dims replaced by a large multiple of num_group) gives the known parts; unknown
// input dims stay unknown in the weight and output, and the output gives back the batch and,
// with stride 1, the spatial sizes.
bool ConvPartialShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
  const TShape& data = (*in)[0];
  TShape probe = data;
  const dim_t fill = static_cast<dim_t>(p.num_group) * 65536;
  for (auto& d : probe) d = d < 0 ? fill : d;
  const ConvGeometry g = MakeConvGeometry(attrs, probe);
  const int c_axis = g.channel_last ? g.nspatial + 1 : 1;
  const int s0 = g.channel_last ? 1 : 2, first = conv::kMaxSpatial - g.nspatial;
  const bool c_known = data[c_axis] >= 0;
  AssignInputShape(attrs, 1, &(*in)[1],
                   ShapeInLayout(g, g.filters, c_known ? g.GroupInChannels() : -1, g.kernel));
  if (g.bias) AssignInputShape(attrs, 2, &(*in)[2], TShape({g.filters}));
  index_t osp[conv::kMaxSpatial] = {1, 1, 1};
  for (int i = 0; i < g.nspatial; ++i) osp[first + i] = data[s0 + i] >= 0 ? g.out[first + i] : -1;
  AssignShape(attrs, "output", &(*out)[0], ShapeInLayout(g, data[0], g.filters, osp));
  const TShape& o = (*out)[0];
  TShape back = data;
  back[0] = o[0];
  for (int i = 0; i < g.nspatial; ++i) {
    const int k = first + i;
    if (back[s0 + i] < 0 && o[s0 + i] >= 0 && g.stride[k] == 1) {
      back[s0 + i] = o[s0 + i] + g.dilate[k] * (g.kernel[k] - 1) - 2 * g.pad[k];
    }
  }
  AssignInputShape(attrs, 0, &(*in)[0], back);
  return false;
}

bool ConvShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if ((*in)[0].ndim() < 0) return false;  // weights are inferred from data, not the reverse
  if (!(*in)[0].IsKnown()) {
    ConvPartialShape(attrs, in, out);
    if (!(*in)[0].IsKnown()) return false;
  }
  const TShape& data = (*in)[0];
  const ConvGeometry g = MakeConvGeometry(attrs, data);
  AssignInputShape(attrs, 1, &(*in)[1], ConvWeightShape(g));
  if (g.bias) AssignInputShape(attrs, 2, &(*in)[2], TShape({g.filters}));
  AssignShape(attrs, "output", &(*out)[0], ConvOutputShape(g));
  return true;
}

void ConvForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ConvGeometry g = MakeConvGeometry(attrs, in[0].shape_);
  const TBlob* bias = g.bias ? &in[2] : nullptr;
  if (ConvUsesOneDNN(g, in[0].type_flag_)) {
    ConvForwardOneDNN(g, ctx, in[0], in[1], bias, out[0], req[0], nullptr, 0,
                      {onednn::BlockedIn(attrs, in, 0), onednn::BlockedOut(attrs, out, 0)});
  } else if (onednn::AnyBlocked(attrs, in, out)) {
    onednn::OnPlainCopies(attrs, in, req, out, [&](const auto& pin, const auto& preq,
                                                   const auto& pout) {
      ConvForwardPlain(g, ctx, pin[0], pin[1], g.bias ? &pin[2] : nullptr, pout[0], preq[0]);
    });
  } else {
    ConvForwardPlain(g, ctx, in[0], in[1], bias, out[0], req[0]);
  }
}

// 2-D channel-first convolutions read their data and write their output held blocked.
std::vector<onednn::LayoutGroup> ConvLayoutGroups(const NodeAttrs& attrs) {
  const ConvolutionParam& p = Param<ConvolutionParam>(attrs);
  if (p.kernel.ndim() != 2 || (p.layout.has_value() && p.layout.value() != conv::kNCHW)) {
    return {};
  }
  return {{{0}, {}}, {{}, {0}}};
}

// _backward_Convolution: inputs (ograd, data, weight), outputs (data, weight[, bias]) grads.
void ConvBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ConvGeometry g = MakeConvGeometry(attrs, in[1].shape_);
  ConvGrads grads;
  grads.data = &out[0];
  grads.data_req = req[0];
  grads.weight = &out[1];
  grads.weight_req = req[1];
  if (g.bias) {
    grads.bias = &out[2];
    grads.bias_req = req[2];
  }
  if (ConvUsesOneDNN(g, in[1].type_flag_)) {
    onednn::BlockedActs acts;
    acts.diff_dst = onednn::BlockedIn(attrs, in, 0);
    acts.src = onednn::BlockedIn(attrs, in, 1);
    acts.diff_src = onednn::BlockedOut(attrs, out, 0);
    ConvBackwardOneDNN(g, ctx, in[0], in[1], in[2], grads, acts);
  } else if (onednn::AnyBlocked(attrs, in, out)) {
    onednn::OnPlainCopies(attrs, in, req, out, [&](const auto& pin, const auto& preq,
                                                   const auto& pout) {
      ConvGrads plain = grads;
      plain.data = &pout[0];
      ConvBackwardPlain(g, ctx, pin[0], pin[1], pin[2], plain);
    });
  } else {
    ConvBackwardPlain(g, ctx, in[0], in[1], in[2], grads);
  }
}

// ograd, data and the data gradient each held blocked or not.
std::vector<onednn::LayoutGroup> ConvBackwardLayoutGroups(const NodeAttrs& attrs) {
  if (ConvLayoutGroups(attrs).empty()) return {};
  return {{{0}, {}}, {{1}, {}}, {{}, {0}}};
}

// Data and weight feed the backward (the bias is not needed); it outputs every gradient.
std::vector<NodeEntry> ConvGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return GradOfEachInput("_backward_Convolution", n, og, 2);
}

bool ConvBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[1];
  if (!data.IsKnown()) return false;
  const ConvGeometry g = MakeConvGeometry(attrs, data);
  AssignInputShape(attrs, 0, &(*in)[0], ConvOutputShape(g));
  AssignInputShape(attrs, 2, &(*in)[2], ConvWeightShape(g));
  AssignShape(attrs, "data gradient", &(*out)[0], data);
  AssignShape(attrs, "weight gradient", &(*out)[1], ConvWeightShape(g));
  if (g.bias) AssignShape(attrs, "bias gradient", &(*out)[2], TShape({g.filters}));
  return true;
}

}  // namespace

NNVM_REGISTER_OP(Convolution)
    .describe(R"doc(Compute *N*-D convolution on *(N+2)*-D input.

In 2-D, with data of shape *(batch_size, channel, height, width)*, weight of shape
*(num_filter, channel/num_group, kernel[0], kernel[1])* and bias of shape *(num_filter,)*::

  out[n, i, :, :] = bias[i] + sum_j data[n, j, :, :] * weight[i, j, :, :]   (cross-correlation)

and each output size is ``floor((x + 2*pad - dilate*(kernel-1) - 1) / stride) + 1``. 1-D
(NCW) and 3-D (NCDHW) work the same way; ``layout='NHWC'``/``'NDHWC'`` put the channel last
(weight then *(num_filter, kernel..., channel/num_group)*). With ``num_group`` g > 1 the
channels and the filters are split into g groups, each convolved with its own part of the
weight. ``no_bias`` drops the bias input. ``workspace``, ``cudnn_tune`` and ``cudnn_off`` are
accepted for compatibility.

On CPU, float32 runs on oneDNN when the library is built with it and ``MXNET_ONEDNN_ENABLED``
is not 0; other dtypes (float64, float16) and oneDNN-less builds use im2col and GEMM.
)doc")
    .set_num_inputs(NumInputs)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ConvolutionParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data to the ConvolutionOp.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight matrix.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias parameter.")
    .add_arguments(ConvolutionParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNamesOf)
    .set_attr<FInferShape>("FInferShape", ConvShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", ConvForward)
    .set_attr<onednn::FBlockedLayout>("FBlockedLayout", ConvLayoutGroups)
    .set_attr<FGradient>("FGradient", ConvGrad);

NNVM_REGISTER_OP(_backward_Convolution)
    .describe("Gradients of Convolution with respect to data, weight and bias.")
    .set_num_inputs(3)
    .set_num_outputs(NumInputs)
    .set_attr_parser(ParamParser<ConvolutionParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "Input data of Convolution")
    .add_argument("weight", "NDArray-or-Symbol", "Weight of Convolution")
    .add_arguments(ConvolutionParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data", "weight"}))
    .set_attr<FInferShape>("FInferShape", ConvBackwardShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", ConvBackward)
    .set_attr<onednn::FBlockedLayout>("FBlockedLayout", ConvBackwardLayoutGroups);

}  // namespace op
}  // namespace mxnet
