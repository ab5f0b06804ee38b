// _contrib_DeformableConvolution (DCNv1) and _contrib_ModulatedDeformableConvolution (DCNv2):
// 2-D convolutions whose taps move by learned offsets (DCNv2 also scales them by a mask),
// computed per sample as deformable im2col + GEMM per group; their backward ops.
#include <algorithm>
#include <string>
#include <vector>

#include "operator/contrib/deformable_im2col.h"
#include "operator/nn/nn_common.h"
#include "operator/tensor/linalg.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

namespace deform {
enum Layout { kNCW = 0, kNCHW, kNCDHW };
}  // namespace deform

// The arguments both operators share, declared once for both parameter structs.
#define MXNET_DEFORM_CONV_FIELDS                                                              \
  DMLC_DECLARE_FIELD(kernel).describe("Convolution kernel size: (h, w) or (d, h, w)");       \
  DMLC_DECLARE_FIELD(stride).set_default(ShapeArg(TShape(0, 0))).describe(                   \
      "Convolution stride: (h, w) or (d, h, w). Defaults to 1 for each dimension.");         \
  DMLC_DECLARE_FIELD(dilate).set_default(ShapeArg(TShape(0, 0))).describe(                   \
      "Convolution dilate: (h, w) or (d, h, w). Defaults to 1 for each dimension.");         \
  DMLC_DECLARE_FIELD(pad).set_default(ShapeArg(TShape(0, 0))).describe(                      \
      "Zero pad for convolution: (h, w) or (d, h, w). Defaults to no padding.");             \
  DMLC_DECLARE_FIELD(num_filter).set_lower_bound(1).describe(                                \
      "Convolution filter(channel) number");                                                 \
  DMLC_DECLARE_FIELD(num_group).set_default(1).describe("Number of group partitions.");      \
  DMLC_DECLARE_FIELD(num_deformable_group).set_default(1).describe(                          \
      "Number of deformable group partitions.");                                             \
  DMLC_DECLARE_FIELD(workspace).set_default(1024).set_lower_bound(0).describe(               \
      "Maximum temperal workspace allowed for convolution (MB). Accepted for "               \
      "compatibility; the CPU kernel holds the columns of one sample.");                     \
  DMLC_DECLARE_FIELD(no_bias).set_default(false).describe(                                   \
      "Whether to disable bias parameter.");

#define MXNET_DEFORM_CONV_LAYOUT_FIELD                                                        \
  DMLC_DECLARE_FIELD(layout)                                                                  \
      .add_enum("NCW", deform::kNCW)                                                          \
      .add_enum("NCHW", deform::kNCHW)                                                        \
      .add_enum("NCDHW", deform::kNCDHW)                                                      \
      .set_default(dmlc::optional<int>())                                                     \
      .describe("Set layout for input, output and weight. Empty for\n    default layout: " \
                "NCW for 1d, NCHW for 2d and NCDHW for 3d. Only NCHW (2-D) is computed.");

struct DeformableConvolutionParam : public dmlc::Parameter<DeformableConvolutionParam> {
  ShapeArg kernel, stride, dilate, pad;
  int64_t num_filter, num_group, num_deformable_group;
  uint64_t workspace;
  bool no_bias;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(DeformableConvolutionParam) {
    MXNET_DEFORM_CONV_FIELDS
    MXNET_DEFORM_CONV_LAYOUT_FIELD
  }
};

struct ModulatedDeformableConvolutionParam
    : public dmlc::Parameter<ModulatedDeformableConvolutionParam> {
  ShapeArg kernel, stride, dilate, pad;
  int64_t num_filter, num_group, num_deformable_group;
  uint64_t workspace;
  bool no_bias;
  uint32_t im2col_step;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(ModulatedDeformableConvolutionParam) {
    MXNET_DEFORM_CONV_FIELDS
    DMLC_DECLARE_FIELD(im2col_step).set_default(64).describe(
        "Maximum number of images per im2col computation; The total batch size should be "
        "divisable by this value or smaller than this value. Accepted for compatibility; the "
        "CPU kernel works one image at a time.");
    MXNET_DEFORM_CONV_LAYOUT_FIELD
  }
};

#undef MXNET_DEFORM_CONV_FIELDS
#undef MXNET_DEFORM_CONV_LAYOUT_FIELD

DMLC_REGISTER_PARAMETER(DeformableConvolutionParam);
DMLC_REGISTER_PARAMETER(ModulatedDeformableConvolutionParam);

namespace {

// One (h, w) argument: empty means fallback for both; checked against min_value.
void HWArg(const std::string& op, const char* name, const TShape& v, index_t fallback,
           index_t min_value, index_t* h, index_t* w) {
  if (v.ndim() <= 0) {
    *h = *w = fallback;
    return;
  }
  CHECK_EQ(v.ndim(), 2) << "Operator " << op << ": argument " << name
                        << " expected 2 values (h, w) like kernel, given " << v;
  CHECK(v[0] >= min_value && v[1] >= min_value)
      << "Operator " << op << ": argument " << name << " expected values >= " << min_value
      << ", given " << v;
  *h = v[0];
  *w = v[1];
}

template <typename P>
DeformGeometry MakeGeometry(const NodeAttrs& attrs, const TShape& data, bool modulated) {
  const P& p = Param<P>(attrs);
  const std::string& op = attrs.op->name;
  CHECK_EQ(p.kernel.ndim(), 2) << "Operator " << op << ": argument kernel expected 2 values "
                               << "(h, w) (only 2-D deformable convolution exists), given "
                               << p.kernel;
  CHECK(!p.layout.has_value() || p.layout.value() == deform::kNCHW)
      << "Operator " << op << ": argument layout expected NCHW (the only layout of a 2-D "
      << "deformable convolution)";
  CHECK_EQ(data.ndim(), 4) << "Operator " << op << ": input data expected 4 dims (NCHW), "
                           << "given shape " << data;
  DeformGeometry g;
  g.modulated = modulated;
  g.batch = data[0];
  g.channels = data[1];
  g.height = data[2];
  g.width = data[3];
  g.filters = p.num_filter;
  g.groups = p.num_group;
  g.deform_groups = p.num_deformable_group;
  g.bias = !p.no_bias;
  CHECK_GE(g.groups, 1) << "Operator " << op << ": argument num_group expected >= 1, given "
                        << g.groups;
  CHECK_GE(g.deform_groups, 1) << "Operator " << op << ": argument num_deformable_group "
                               << "expected >= 1, given " << g.deform_groups;
  CHECK_EQ(g.channels % g.groups, 0)
      << "Operator " << op << ": the input channels (" << g.channels << ", data shape "
      << data << ") must be divisible by num_group=" << g.groups;
  CHECK_EQ(g.channels % g.deform_groups, 0)
      << "Operator " << op << ": the input channels (" << g.channels << ", data shape "
      << data << ") must be divisible by num_deformable_group=" << g.deform_groups;
  CHECK_EQ(g.filters % g.groups, 0) << "Operator " << op << ": num_filter=" << g.filters
                                    << " must be divisible by num_group=" << g.groups;
  HWArg(op, "kernel", p.kernel, 1, 1, &g.kh, &g.kw);
  HWArg(op, "stride", p.stride, 1, 1, &g.sh, &g.sw);
  HWArg(op, "dilate", p.dilate, 1, 1, &g.dh, &g.dw);
  HWArg(op, "pad", p.pad, 0, 0, &g.ph, &g.pw);
  const index_t span_h = g.dh * (g.kh - 1) + 1, span_w = g.dw * (g.kw - 1) + 1;
  CHECK(span_h <= g.height + 2 * g.ph && span_w <= g.width + 2 * g.pw)
      << "Operator " << op << ": the kernel (kernel=" << p.kernel << ", dilate=" << p.dilate
      << ") is larger than the padded input (data shape " << data << ", pad=" << p.pad << ")";
  g.out_h = (g.height + 2 * g.ph - span_h) / g.sh + 1;
  g.out_w = (g.width + 2 * g.pw - span_w) / g.sw + 1;
  return g;
}

// Input slots: data, offset, [mask], weight, [bias].
struct Slots {
  size_t offset{1}, mask{0}, weight{2}, bias{3}, count{3};
  Slots(bool modulated, bool bias) {
    if (modulated) {
      mask = 2;
      weight = 3;
      this->bias = 4;
    }
    count = weight + (bias ? 2 : 1);
  }
};

TShape OffsetShape(const DeformGeometry& g) {
  return TShape({g.batch, g.deform_groups * 2 * g.Taps(), g.out_h, g.out_w});
}
TShape MaskShape(const DeformGeometry& g) {
  return TShape({g.batch, g.deform_groups * g.Taps(), g.out_h, g.out_w});
}
TShape WeightShape(const DeformGeometry& g) {
  return TShape({g.filters, g.GroupChannels(), g.kh, g.kw});
}
TShape OutputShape(const DeformGeometry& g) {
  return TShape({g.batch, g.filters, g.out_h, g.out_w});
}

template <typename P, bool kModulated>
uint32_t NumInputs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(Slots(kModulated, !Param<P>(attrs).no_bias).count);
}

template <typename P, bool kModulated>
std::vector<std::string> InputNamesOf(const NodeAttrs& attrs) {
  std::vector<std::string> names = {"data", "offset"};
  if (kModulated) names.push_back("mask");
  names.push_back("weight");
  if (!Param<P>(attrs).no_bias) names.push_back("bias");
  return names;
}

template <typename P, bool kModulated>
bool DeformShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& data = (*in)[0];
  if (!data.IsKnown()) return false;
  const DeformGeometry g = MakeGeometry<P>(attrs, data, kModulated);
  const Slots s(kModulated, g.bias);
  AssignInputShape(attrs, s.offset, &(*in)[s.offset], OffsetShape(g));
  if (kModulated) AssignInputShape(attrs, s.mask, &(*in)[s.mask], MaskShape(g));
  AssignInputShape(attrs, s.weight, &(*in)[s.weight], WeightShape(g));
  if (g.bias) AssignInputShape(attrs, s.bias, &(*in)[s.bias], TShape({g.filters}));
  AssignShape(attrs, "output", &(*out)[0], OutputShape(g));
  return true;
}

// Inputs and outputs share float32 or float64.
bool DeformType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if (!FloatElemwiseType(attrs, in, out)) return false;
  const int t = (*out)[0];
  CHECK(t == kFloat32 || t == kFloat64) << "Operator " << attrs.op->name
                                        << ": expected float32 or float64 inputs, given "
                                        << DTypeName(t);
  return true;
}

template <typename DType>
linalg::Mat<const DType> GroupWeight(const DeformGeometry& g, const DType* w, index_t grp) {
  const index_t cols = g.GroupChannels() * g.Taps();
  return {w + grp * g.GroupFilters() * cols, g.GroupFilters(), cols, cols};
}

// Rows of one group in the columns of a sample: (GroupChannels * taps) x OutSize.
template <typename DType>
linalg::Mat<DType> GroupCols(const DeformGeometry& g, DType* col, index_t grp) {
  const index_t rows = g.GroupChannels() * g.Taps(), n_out = g.OutSize();
  return {col + grp * rows * n_out, rows, n_out, n_out};
}

template <typename DType>
linalg::Mat<const DType> Const(const linalg::Mat<DType>& m) {
  return {m.data, m.rows, m.cols, m.ld};
}

template <typename DType>
void ForwardKernel(const DeformGeometry& g, const OpContext& ctx, const std::vector<TBlob>& in,
                   const TBlob& out, OpReqType req) {
  const Slots s(g.modulated, g.bias);
  const index_t n_out = g.OutSize(), plane = g.channels * g.InSize();
  DType* col = static_cast<DType*>(ctx.RequestTempSpace(g.ColRows() * n_out * sizeof(DType)));
  const DType* data = in[0].dptr<DType>();
  const DType* offset = in[s.offset].dptr<DType>();
  const DType* mask = g.modulated ? in[s.mask].dptr<DType>() : nullptr;
  const DType* weight = in[s.weight].dptr<DType>();
  DType* y = out.dptr<DType>();
  const DType beta = req == kAddTo ? DType(1) : DType(0);
  for (index_t n = 0; n < g.batch; ++n) {
    const DeformSample<DType> sample{g, offset + n * OffsetShape(g).ProdShape(1, 4),
                                     mask ? mask + n * MaskShape(g).ProdShape(1, 4) : nullptr};
    DeformIm2Col(g, sample, data + n * plane, col);
    DType* yn = y + n * g.filters * n_out;
    for (index_t grp = 0; grp < g.groups; ++grp) {
      linalg::Gemm<DType>(false, false, DType(1), GroupWeight(g, weight, grp),
                          Const(GroupCols(g, col, grp)), beta,
                          {yn + grp * g.GroupFilters() * n_out, g.GroupFilters(), n_out, n_out});
    }
    if (g.bias) {
      const DType* b = in[s.bias].dptr<DType>();
      for (index_t f = 0; f < g.filters; ++f) {
        for (index_t p = 0; p < n_out; ++p) yn[f * n_out + p] += b[f];
      }
    }
  }
}

// Backward inputs (ograd, data, offset, [mask], weight); outputs the gradients of the forward
// inputs in their order (data, offset, [mask], weight, [bias]).
template <typename DType>
void BackwardKernel(const DeformGeometry& g, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Slots s(g.modulated, g.bias);
  const index_t n_out = g.OutSize(), plane = g.channels * g.InSize();
  const index_t off_size = OffsetShape(g).ProdShape(1, 4), mask_size = MaskShape(g).ProdShape(1, 4);
  const size_t col_elems = static_cast<size_t>(g.ColRows() * n_out);
  DType* col = static_cast<DType*>(ctx.RequestTempSpace(2 * col_elems * sizeof(DType)));
  DType* dcol = col + col_elems;
  const DType* dy = in[0].dptr<DType>();
  const DType* data = in[1].dptr<DType>();
  const DType* offset = in[1 + s.offset].dptr<DType>();
  const DType* mask = g.modulated ? in[1 + s.mask].dptr<DType>() : nullptr;
  const DType* weight = in[1 + s.weight].dptr<DType>();
  const OpReqType data_req = req[0], offset_req = req[s.offset], weight_req = req[s.weight];
  const OpReqType mask_req = g.modulated ? req[s.mask] : kNullOp;
  DType* data_grad = out[0].dptr<DType>();
  if (data_req == kWriteTo || data_req == kWriteInplace) {
    std::fill(data_grad, data_grad + g.batch * plane, DType(0));
  }
  const bool want_cols = data_req != kNullOp || offset_req != kNullOp || mask_req != kNullOp;
  for (index_t n = 0; n < g.batch; ++n) {
    const DeformSample<DType> sample{g, offset + n * off_size,
                                     mask ? mask + n * mask_size : nullptr};
    const DType* dyn = dy + n * g.filters * n_out;
    if (weight_req != kNullOp) {
      DeformIm2Col(g, sample, data + n * plane, col);
      const DType beta = (n == 0 && weight_req != kAddTo) ? DType(0) : DType(1);
      const index_t cols = g.GroupChannels() * g.Taps();
      for (index_t grp = 0; grp < g.groups; ++grp) {
        linalg::Gemm<DType>(false, true, DType(1),
                            {dyn + grp * g.GroupFilters() * n_out, g.GroupFilters(), n_out, n_out},
                            Const(GroupCols(g, col, grp)), beta,
                            {out[s.weight].dptr<DType>() + grp * g.GroupFilters() * cols,
                             g.GroupFilters(), cols, cols});
      }
    }
    if (!want_cols) continue;
    for (index_t grp = 0; grp < g.groups; ++grp) {
      linalg::Gemm<DType>(true, false, DType(1), GroupWeight(g, weight, grp),
                          {dyn + grp * g.GroupFilters() * n_out, g.GroupFilters(), n_out, n_out},
                          DType(0), GroupCols(g, dcol, grp));
    }
    if (data_req != kNullOp) DeformCol2ImAdd(g, sample, dcol, data_grad + n * plane);
    if (offset_req != kNullOp || mask_req != kNullOp) {
      DeformCoordGrad(g, sample, data + n * plane, dcol, out[s.offset].dptr<DType>() + n * off_size,
                      offset_req,
                      g.modulated ? out[s.mask].dptr<DType>() + n * mask_size : nullptr, mask_req);
    }
  }
  if (g.bias && req[s.bias] != kNullOp) {
    DType* db = out[s.bias].dptr<DType>();
    for (index_t f = 0; f < g.filters; ++f) {
      DType sum = 0;
      for (index_t n = 0; n < g.batch; ++n) {
        const DType* d = dy + (n * g.filters + f) * n_out;
        for (index_t p = 0; p < n_out; ++p) sum += d[p];
      }
      Assign(db + f, req[s.bias], sum);
    }
  }
}

template <typename P, bool kModulated>
void DeformForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const DeformGeometry g = MakeGeometry<P>(attrs, in[0].shape_, kModulated);
  if (in[0].type_flag_ == kFloat64) {
    ForwardKernel<double>(g, ctx, in, out[0], req[0]);
  } else {
    ForwardKernel<float>(g, ctx, in, out[0], req[0]);
  }
}

template <typename P, bool kModulated>
void DeformBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DeformGeometry g = MakeGeometry<P>(attrs, in[1].shape_, kModulated);
  if (in[0].type_flag_ == kFloat64) {
    BackwardKernel<double>(g, ctx, in, req, out);
  } else {
    BackwardKernel<float>(g, ctx, in, req, out);
  }
}

template <typename P, bool kModulated>
bool DeformBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                         std::vector<TShape>* out) {
  const TShape& data = (*in)[1];
  if (!data.IsKnown()) return false;
  const DeformGeometry g = MakeGeometry<P>(attrs, data, kModulated);
  const Slots s(kModulated, g.bias);
  AssignInputShape(attrs, 0, &(*in)[0], OutputShape(g));
  AssignShape(attrs, "data gradient", &(*out)[0], data);
  AssignShape(attrs, "offset gradient", &(*out)[s.offset], OffsetShape(g));
  if (kModulated) AssignShape(attrs, "mask gradient", &(*out)[s.mask], MaskShape(g));
  AssignShape(attrs, "weight gradient", &(*out)[s.weight], WeightShape(g));
  if (g.bias) AssignShape(attrs, "bias gradient", &(*out)[s.bias], TShape({g.filters}));
  return true;
}

std::vector<std::string> BackwardInputNames(bool modulated) {
  std::vector<std::string> names = {"ograd", "data", "offset"};
  if (modulated) names.push_back("mask");
  names.push_back("weight");
  return names;
}

}  // namespace

NNVM_REGISTER_OP(_contrib_DeformableConvolution)
    .describe(R"doc(Compute 2-D deformable convolution on 4-D input (Deformable Convolutional
Networks, https://arxiv.org/abs/1703.06211).

For 2-D deformable convolution, the shapes are

- **data**: *(batch_size, channel, height, width)*
- **offset**: *(batch_size, num_deformable_group * kernel[0] * kernel[1] * 2, out_height,
  out_width)*
- **weight**: *(num_filter, channel/num_group, kernel[0], kernel[1])*
- **bias**: *(num_filter,)*
- **out**: *(batch_size, num_filter, out_height, out_width)*.

Tap ``(i, j)`` of output position ``(y, x)`` reads the input at
``(y*stride[0] - pad[0] + i*dilate[0] + dy, x*stride[1] - pad[1] + j*dilate[1] + dx)``, where
``dy`` and ``dx`` are offset channels ``2*(g*kh*kw + i*kw + j)`` and the one after for the
channels of deformable group ``g``, by bilinear interpolation; a tap outside the input reads 0.
Each output size is ``floor((x + 2*pad - dilate*(kernel-1) - 1) / stride) + 1``.
``num_group`` splits channels and filters as in Convolution; ``num_deformable_group`` splits
the channels into groups that share one set of offsets. ``workspace`` is accepted for
compatibility.
)doc")
    .set_num_inputs(NumInputs<DeformableConvolutionParam, false>)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<DeformableConvolutionParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data to the DeformableConvolutionOp.")
    .add_argument("offset", "NDArray-or-Symbol", "Input offset to the DeformableConvolutionOp.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight matrix.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias parameter.")
    .add_arguments(DeformableConvolutionParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNamesOf<DeformableConvolutionParam, false>)
    .set_attr<FInferShape>("FInferShape", DeformShape<DeformableConvolutionParam, false>)
    .set_attr<FInferType>("FInferType", DeformType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", DeformForward<DeformableConvolutionParam, false>)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return GradOfEachInput("_backward_contrib_DeformableConvolution", n, og, 3);
    });

NNVM_REGISTER_OP(_backward_contrib_DeformableConvolution)
    .describe("Gradients of _contrib_DeformableConvolution with respect to data, offset, weight "
              "and bias.")
    .set_num_inputs(4)
    .set_num_outputs(NumInputs<DeformableConvolutionParam, false>)
    .set_attr_parser(ParamParser<DeformableConvolutionParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "data of the forward call")
    .add_argument("offset", "NDArray-or-Symbol", "offset of the forward call")
    .add_argument("weight", "NDArray-or-Symbol", "weight of the forward call")
    .add_arguments(DeformableConvolutionParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames(BackwardInputNames(false)))
    .set_attr<FInferShape>("FInferShape", DeformBackwardShape<DeformableConvolutionParam, false>)
    .set_attr<FInferType>("FInferType", DeformType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", DeformBackward<DeformableConvolutionParam, false>);

NNVM_REGISTER_OP(_contrib_ModulatedDeformableConvolution)
    .describe(R"doc(Compute 2-D modulated deformable convolution on 4-D input (Deformable
ConvNets v2, https://arxiv.org/abs/1811.11168).

As _contrib_DeformableConvolution, with one more input

- **mask**: *(batch_size, num_deformable_group * kernel[0] * kernel[1], out_height,
  out_width)*

that scales each tap (channel ``g*kh*kw + i*kw + j`` for tap ``(i, j)`` of deformable group
``g``). A tap reads bilinearly from the four pixels around it, each pixel outside the input
counting as 0, and reads 0 when it lies wholly outside (at or beyond one pixel from the edge).
``im2col_step`` and ``workspace`` are accepted for compatibility. The backward (data, offset,
mask, weight and bias gradients) runs on CPU too, where MXNet 1.9.1 has it on GPU only.
)doc")
    .set_num_inputs(NumInputs<ModulatedDeformableConvolutionParam, true>)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ModulatedDeformableConvolutionParam>)
    .add_argument("data", "NDArray-or-Symbol",
                  "Input data to the ModulatedDeformableConvolutionOp.")
    .add_argument("offset", "NDArray-or-Symbol",
                  "Input offset to ModulatedDeformableConvolutionOp.")
    .add_argument("mask", "NDArray-or-Symbol",
                  "Input mask to the ModulatedDeformableConvolutionOp.")
    .add_argument("weight", "NDArray-or-Symbol", "Weight matrix.")
    .add_argument("bias", "NDArray-or-Symbol", "Bias parameter.")
    .add_arguments(ModulatedDeformableConvolutionParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNamesOf<ModulatedDeformableConvolutionParam, true>)
    .set_attr<FInferShape>("FInferShape", DeformShape<ModulatedDeformableConvolutionParam, true>)
    .set_attr<FInferType>("FInferType", DeformType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", DeformForward<ModulatedDeformableConvolutionParam, true>)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return GradOfEachInput("_backward_contrib_ModulatedDeformableConvolution", n, og, 4);
    });

NNVM_REGISTER_OP(_backward_contrib_ModulatedDeformableConvolution)
    .describe("Gradients of _contrib_ModulatedDeformableConvolution with respect to data, "
              "offset, mask, weight and bias.")
    .set_num_inputs(5)
    .set_num_outputs(NumInputs<ModulatedDeformableConvolutionParam, true>)
    .set_attr_parser(ParamParser<ModulatedDeformableConvolutionParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "data of the forward call")
    .add_argument("offset", "NDArray-or-Symbol", "offset of the forward call")
    .add_argument("mask", "NDArray-or-Symbol", "mask of the forward call")
    .add_argument("weight", "NDArray-or-Symbol", "weight of the forward call")
    .add_arguments(ModulatedDeformableConvolutionParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames(BackwardInputNames(true)))
    .set_attr<FInferShape>("FInferShape",
                           DeformBackwardShape<ModulatedDeformableConvolutionParam, true>)
    .set_attr<FInferType>("FInferType", DeformType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", DeformBackward<ModulatedDeformableConvolutionParam, true>);

}  // namespace op
}  // namespace mxnet
