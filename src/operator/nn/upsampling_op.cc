// UpSampling: nearest-neighbour (one or more NCHW inputs brought to one size, concatenated or
// summed) and bilinear (a grouped transposed convolution with the given kernel), with backward.
#include <string>

#include "common/type_switch.h"
#include "operator/nn/convolution_kernels.h"
#include "operator/nn/nn_common.h"

namespace mxnet {
namespace op {

namespace upsampling {
enum SampleType { kNearest = 0, kBilinear = 1 };
enum MultiInputMode { kConcat = 0, kSum = 1 };
}  // namespace upsampling

struct UpSamplingParam : public dmlc::Parameter<UpSamplingParam> {
  int scale;
  int num_filter;
  int sample_type;
  int multi_input_mode;
  int num_args;
  uint64_t workspace;
  DMLC_DECLARE_PARAMETER(UpSamplingParam) {
    DMLC_DECLARE_FIELD(scale).set_lower_bound(1).describe("Up sampling scale");
    DMLC_DECLARE_FIELD(num_filter).set_default(0).set_lower_bound(0).describe(
        "Input filter. Only used by bilinear sample_type. Since bilinear upsampling uses "
        "deconvolution, num_filters is set to the number of channels.");
    DMLC_DECLARE_FIELD(sample_type)
        .add_enum("nearest", upsampling::kNearest)
        .add_enum("bilinear", upsampling::kBilinear)
        .describe("upsampling method");
    DMLC_DECLARE_FIELD(multi_input_mode)
        .add_enum("concat", upsampling::kConcat)
        .add_enum("sum", upsampling::kSum)
        .set_default(upsampling::kConcat)
        .describe("How to handle multiple input. concat means concatenate upsampled images "
                  "along the channel dimension. sum means add all images together, only "
                  "available for nearest neighbor upsampling.");
    DMLC_DECLARE_FIELD(num_args).set_default(1).set_lower_bound(1).describe(
        "Number of inputs to be upsampled. For nearest neighbor upsampling, this can be 1-N; "
        "the size of output will be (scale*h_0, scale*w_0) and all other inputs will be "
        "upsampled to the same size. For bilinear upsampling this must be 2; 1 input and 1 "
        "weight.");
    DMLC_DECLARE_FIELD(workspace).set_default(512).describe(
        "Tmp workspace for deconvolution (MB); accepted for compatibility.");
  }
};
DMLC_REGISTER_PARAMETER(UpSamplingParam);

namespace {

bool Bilinear(const NodeAttrs& attrs) {
  return Param<UpSamplingParam>(attrs).sample_type == upsampling::kBilinear;
}

uint32_t NumInputs(const NodeAttrs& attrs) {
  return static_cast<uint32_t>(Param<UpSamplingParam>(attrs).num_args);
}

std::vector<std::string> InputNamesOf(const NodeAttrs& attrs) {
  if (Bilinear(attrs)) return {"data", "weight"};
  std::vector<std::string> names;
  for (int i = 0; i < Param<UpSamplingParam>(attrs).num_args; ++i) {
    names.push_back("arg" + std::to_string(i));
  }
  return names;
}

void CheckArgs(const NodeAttrs& attrs) {
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  if (p.sample_type == upsampling::kBilinear) {
    CHECK_EQ(p.num_args, 2) << "Operator " << attrs.op->name << ": bilinear upsampling takes "
                            << "2 inputs (data and weight), given num_args=" << p.num_args;
    CHECK_EQ(p.multi_input_mode, upsampling::kConcat)
        << "Operator " << attrs.op->name << ": multi_input_mode='sum' is only available for "
        << "nearest neighbor upsampling";
  }
}

/*! \brief The grouped transposed convolution bilinear upsampling is, for data of shape d. */
ConvGeometry BilinearGeometry(const NodeAttrs& attrs, const TShape& d) {
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  CHECK_EQ(d.ndim(), 4) << "Operator " << attrs.op->name << ": input data expected 4 dims "
                        << "(NCHW), given shape " << d;
  CHECK_EQ(p.num_filter, d[1]) << "Operator " << attrs.op->name << ": argument num_filter="
                               << p.num_filter << " must equal the number of channels of "
                               << "data (shape " << d << ")";
  ConvGeometry g;
  g.nspatial = 2;
  g.batch = d[0];
  g.filters = d[1];
  g.in_channels = d[1];
  g.groups = d[1];
  g.bias = false;
  const index_t s = p.scale;
  for (int i = 1; i < 3; ++i) {
    g.kernel[i] = 2 * s - s % 2;
    g.stride[i] = s;
    g.pad[i] = s / 2;  // ceil((s - 1) / 2)
    g.out[i] = d[1 + i];
    g.in[i] = d[1 + i] * s;
  }
  return g;
}

bool UpSamplingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  CheckArgs(attrs);
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  const std::string& op = attrs.op->name;
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  if (p.sample_type == upsampling::kBilinear) {
    const ConvGeometry g = BilinearGeometry(attrs, d);
    AssignInputShape(attrs, 1, &(*in)[1], ConvWeightShape(g));
    AssignShape(attrs, "output", &(*out)[0], TShape({d[0], d[1], d[2] * p.scale, d[3] * p.scale}));
    return true;
  }
  const index_t oh = d.ndim() == 4 ? d[2] * p.scale : 0, ow = d.ndim() == 4 ? d[3] * p.scale : 0;
  index_t channels = 0;
  for (size_t i = 0; i < in->size(); ++i) {
    const TShape& s = (*in)[i];
    if (!s.IsKnown()) return false;
    CHECK_EQ(s.ndim(), 4) << "Operator " << op << ": input " << i << " expected 4 dims (NCHW), "
                          << "given shape " << s;
    CHECK_EQ(s[0], d[0]) << "Operator " << op << ": input " << i << " (shape " << s
                         << ") has another batch size than input 0 (shape " << d << ")";
    CHECK(s[2] > 0 && s[3] > 0 && oh % s[2] == 0 && ow % s[3] == 0)
        << "Operator " << op << ": input " << i << " (shape " << s << ") does not divide the "
        << "output size (" << oh << ", " << ow << ") = scale * the size of input 0";
    if (p.multi_input_mode == upsampling::kSum) {
      CHECK_EQ(s[1], d[1]) << "Operator " << op << ": with multi_input_mode='sum' every input "
                           << "needs the channels of input 0 (shape " << d << "), input " << i
                           << " has shape " << s;
      channels = d[1];
    } else {
      channels += s[1];
    }
  }
  AssignShape(attrs, "output", &(*out)[0], TShape({d[0], channels, oh, ow}));
  return true;
}

// Nearest: output pixel (y, x) of input i reads (y / f, x / f), f = output size / its size.
template <typename DType>
void NearestForward(const UpSamplingParam& p, const std::vector<TBlob>& in, const TBlob& out,
                    OpReqType req) {
  const index_t n = out.shape_[0], oc = out.shape_[1], oh = out.shape_[2], ow = out.shape_[3];
  DType* y = out.dptr<DType>();
  const bool sum = p.multi_input_mode == upsampling::kSum;
  index_t c_off = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const index_t c = in[i].shape_[1], h = in[i].shape_[2], w = in[i].shape_[3];
    const index_t fy = oh / h, fx = ow / w;
    const DType* x = in[i].dptr<DType>();
    const bool add = req == kAddTo || (sum && i > 0);
    LoopMaybeParallel(n * c * oh * ow >= ParallelGrain(), n * c, [&](index_t plane) {
      const index_t b = plane / c, ch = plane % c;
      const DType* src = x + plane * h * w;
      DType* dst = y + ((b * oc) + c_off + ch) * oh * ow;
      for (index_t r = 0; r < oh; ++r) {
        const DType* row = src + (r / fy) * w;
        DType* o = dst + r * ow;
        for (index_t q = 0; q < ow; ++q) {
          o[q] = add ? DType(float(o[q]) + float(row[q / fx])) : row[q / fx];
        }
      }
    });
    if (!sum) c_off += c;
  }
}

template <typename DType>
void NearestBackward(const UpSamplingParam& p, const TBlob& ograd, const std::vector<TBlob>& grads,
                     const std::vector<OpReqType>& req) {
  const index_t n = ograd.shape_[0], oc = ograd.shape_[1], oh = ograd.shape_[2];
  const index_t ow = ograd.shape_[3];
  const DType* dy = ograd.dptr<DType>();
  const bool sum = p.multi_input_mode == upsampling::kSum;
  index_t c_off = 0;
  for (size_t i = 0; i < grads.size(); ++i) {
    const index_t c = grads[i].shape_[1], h = grads[i].shape_[2], w = grads[i].shape_[3];
    if (req[i] != kNullOp) {
      const index_t fy = oh / h, fx = ow / w;
      DType* dx = grads[i].dptr<DType>();
      LoopMaybeParallel(n * c * oh * ow >= ParallelGrain(), n * c, [&](index_t plane) {
        const index_t b = plane / c, ch = plane % c;
        const DType* src = dy + ((b * oc) + c_off + ch) * oh * ow;
        DType* dst = dx + plane * h * w;
        std::vector<float> acc(h * w, 0.0f);
        for (index_t r = 0; r < oh; ++r) {
          for (index_t q = 0; q < ow; ++q) acc[(r / fy) * w + q / fx] += float(src[r * ow + q]);
        }
        for (index_t k = 0; k < h * w; ++k) {
          dst[k] = req[i] == kAddTo ? DType(float(dst[k]) + acc[k]) : DType(acc[k]);
        }
      });
    }
    if (!sum) c_off += c;
  }
}

void UpSamplingForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  if (p.sample_type == upsampling::kBilinear) {
    DeconvForwardKernel(BilinearGeometry(attrs, in[0].shape_), ctx, in[0], in[1], out[0], req[0]);
    return;
  }
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    NearestForward<DType>(p, in, out[0], req[0]);
  });
}

// _backward_UpSampling: inputs (ograd, the forward's inputs...), outputs their gradients.
void UpSamplingBackward(const NodeAttrs& attrs, const OpContext& ctx,
                        const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& out) {
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  if (p.sample_type == upsampling::kBilinear) {
    DeconvBackwardKernel(BilinearGeometry(attrs, in[1].shape_), ctx, in[0], in[1], in[2], out[0],
                         req[0], out[1], req[1]);
    return;
  }
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    NearestBackward<DType>(p, in[0], out, req);
  });
}



uint32_t NumBackwardInputs(const NodeAttrs& attrs) { return NumInputs(attrs) + 1; }

}  // namespace

NNVM_REGISTER_OP(UpSampling)
    .describe(R"doc(Upsamples the given input data.

Two algorithms (``sample_type``) are available:

- **nearest**: each input (NCHW) is repeated to ``(scale * h_0, scale * w_0)``, the size of
  the first input scaled; every other input must divide that size. With several inputs
  (``num_args``) the results are concatenated along the channels
  (``multi_input_mode='concat'``) or added (``'sum'``, equal channels).
- **bilinear**: a transposed convolution of the data (NCHW) with the given kernel ``weight``
  of shape ``(channels, 1, 2*scale - scale%2, 2*scale - scale%2)``, one group per channel,
  stride ``scale`` and padding ``ceil((scale-1)/2)``; ``num_filter`` must equal the number of
  channels. The output is ``(N, C, scale*h, scale*w)``.
)doc")
    .set_num_inputs(NumInputs)
    .set_num_outputs(1)
    .set_key_var_num_args("num_args")
    .set_attr_parser(ParamParser<UpSamplingParam>)
    .add_argument("data", "NDArray-or-Symbol[]",
                  "Array of tensors to upsample. For bilinear upsampling, there should be 2 "
                  "inputs - 1 data and 1 weight.")
    .add_arguments(UpSamplingParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNamesOf)
    .set_attr<FInferShape>("FInferShape", UpSamplingShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", UpSamplingForward)
    .set_attr<FGradient>("FGradient",
                          [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
                            return GradOfEachInput("_backward_UpSampling", n, og);
                          });

NNVM_REGISTER_OP(_backward_UpSampling)
    .describe("Gradients of UpSampling with respect to its inputs.")
    .set_num_inputs(NumBackwardInputs)
    .set_num_outputs(NumInputs)
    .set_attr_parser(ParamParser<UpSamplingParam>)
    .add_argument("args", "NDArray-or-Symbol[]", "ograd, then the inputs of UpSampling")
    .add_arguments(UpSamplingParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", UpSamplingBackward);

}  // namespace op
}  // namespace mxnet
