// _image_to_tensor (HWC image in [0, 255] -> CHW float32 in [0, 1]) and _image_normalize
// (per-channel (x - mean) / std of CHW tensors) with its backward.
#include <string>
#include <vector>

#include "operator/image/image_common.h"
#include "operator/optimizer/update_common.h"

namespace mxnet {
namespace op {
namespace image {
namespace {

// ---------------------------------------------------------------- to_tensor
bool ToTensorShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const ImageSize sz = HWCSize(attrs, s);
  const TShape o = s.ndim() == 3 ? TShape({sz.channels, sz.height, sz.width})
                                 : TShape({sz.batch, sz.channels, sz.height, sz.width});
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

bool ToTensorType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], kFloat32);
  return (*in)[0] >= 0;
}

void ToTensorCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ImageSize sz = HWCSize(attrs, in[0].shape_);
  const index_t hw = sz.PixelsPerImage(), c = sz.channels;
  float* dst = out[0].dptr<float>();
  MXNET_NUMERIC_TYPE_SWITCH(in[0].type_flag_, DType, {
    using R = PromotedFloat<DType>;
    const DType* src = in[0].dptr<DType>();
    ParallelFor(sz.batch * c, [&](index_t nc) {
      const index_t n = nc / c, ch = nc % c;
      const DType* s = src + n * hw * c + ch;
      float* d = dst + nc * hw;
      for (index_t i = 0; i < hw; ++i) {
        Assign(d + i, req[0], static_cast<float>(static_cast<R>(s[i * c]) / R(255)));
      }
    });
  });
}

// ---------------------------------------------------------------- normalize
struct NormalizeParam : public dmlc::Parameter<NormalizeParam> {
  update::FloatTuple mean, std;
  DMLC_DECLARE_PARAMETER(NormalizeParam) {
    DMLC_DECLARE_FIELD(mean)
        .set_default(update::FloatTuple{{0.f, 0.f, 0.f, 0.f}})
        .describe("Sequence of means for each channel. Default value is 0.");
    DMLC_DECLARE_FIELD(std)
        .set_default(update::FloatTuple{{1.f, 1.f, 1.f, 1.f}})
        .describe("Sequence of standard deviations for each channel. Default value is 1.");
  }
};
DMLC_REGISTER_PARAMETER(NormalizeParam);

/*! \brief (batch, channels, pixels per channel) of a (C, H, W) or (N, C, H, W) tensor. */
struct CHWSize {
  index_t batch, channels, pixels;
};

CHWSize NormalizeInputSize(const NodeAttrs& attrs, const TShape& s) {
  CHECK(s.ndim() == 3 || s.ndim() == 4)
      << "Operator " << attrs.op->name << ": input tensor must have shape (channels, height, "
      << "width) or (N, channels, height, width), given " << s;
  const int c_axis = s.ndim() == 3 ? 0 : 1;
  const CHWSize sz{s.ndim() == 3 ? 1 : s[0], s[c_axis], s[c_axis + 1] * s[c_axis + 2]};
  CHECK(sz.channels == 1 || sz.channels == 3)
      << "Operator " << attrs.op->name << ": the channel dimension (axis " << c_axis
      << ") of the input tensor must have 1 or 3 elements, given input of shape " << s;
  return sz;
}

/*! \brief A mean or std argument expanded to one value per channel. */
std::vector<float> PerChannel(const NodeAttrs& attrs, const char* name,
                              const update::FloatTuple& t, index_t channels, const TShape& s) {
  CHECK(t.ndim() == 1 || t.ndim() == channels)
      << "Operator " << attrs.op->name << ": argument " << name << " must have 1 or " << channels
      << " elements for input of shape " << s << ", given " << t;
  std::vector<float> v(channels);
  for (index_t c = 0; c < channels; ++c) v[c] = t[t.ndim() == 1 ? 0 : c];
  return v;
}

bool NormalizeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  const NormalizeParam& p = Param<NormalizeParam>(attrs);
  const CHWSize sz = NormalizeInputSize(attrs, s);
  PerChannel(attrs, "mean", p.mean, sz.channels, s);
  PerChannel(attrs, "std", p.std, sz.channels, s);
  AssignShape(attrs, "output", &(*out)[0], s);
  return true;
}

/*! \brief y = (x - mean[c]) / std[c], evaluated in float (double for float64) as MXNet does;
 *  the backward pass uses it with mean 0 on the head gradient. */
void NormalizeLoop(const NodeAttrs& attrs, const TBlob& x, const TBlob& y, OpReqType req,
                   const std::vector<float>& mean, const std::vector<float>& stdev) {
  const CHWSize sz = NormalizeInputSize(attrs, x.shape_);
  MXNET_NUMERIC_TYPE_SWITCH(x.type_flag_, DType, {
    using R = PromotedFloat<DType>;
    const DType* src = x.dptr<DType>();
    DType* dst = y.dptr<DType>();
    ParallelFor(sz.batch * sz.channels, [&](index_t nc) {
      const index_t c = nc % sz.channels, base = nc * sz.pixels;
      const R m = mean[c], sd = stdev[c];
      for (index_t i = 0; i < sz.pixels; ++i) {
        Assign(dst + base + i, req,
               static_cast<DType>((static_cast<R>(src[base + i]) - m) / sd));
      }
    });
  });
}

void NormalizeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const NormalizeParam& p = Param<NormalizeParam>(attrs);
  const index_t c = NormalizeInputSize(attrs, in[0].shape_).channels;
  NormalizeLoop(attrs, in[0], out[0], req[0], PerChannel(attrs, "mean", p.mean, c, in[0].shape_),
                PerChannel(attrs, "std", p.std, c, in[0].shape_));
}

// inputs: head gradient, forward data (for its shape)
void NormalizeBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const NormalizeParam& p = Param<NormalizeParam>(attrs);
  const index_t c = NormalizeInputSize(attrs, in[1].shape_).channels;
  NormalizeLoop(attrs, in[0], out[0], req[0], std::vector<float>(c, 0.f),
                PerChannel(attrs, "std", p.std, c, in[1].shape_));
}

std::vector<NodeEntry> NormalizeGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("_backward_image_normalize", GradName(n), {og[0], n->inputs[0]},
                   n->attrs.dict, &n)};
}

}  // namespace

NNVM_REGISTER_OP(_image_to_tensor)
    .describe(R"doc(Converts an image NDArray of shape (H x W x C) or (N x H x W x C)
with values in [0, 255] to a float32 tensor NDArray of shape (C x H x W) or
(N x C x H x W) with values in [0, 1] (each value divided by 255).
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .set_attr<FInferShape>("FInferShape", ToTensorShape)
    .set_attr<FInferType>("FInferType", ToTensorType)
    .set_attr<FCompute>("FCompute<cpu>", ToTensorCompute)
    .set_attr<FGradient>("FGradient", PassThroughGrad);

NNVM_REGISTER_OP(_image_normalize)
    .describe(R"doc(Normalize a tensor of shape (C x H x W) or (N x C x H x W) with mean and
standard deviation: output[c] = (input[c] - mean[c]) / std[c] for each channel c. A mean or
std of one value applies to every channel; C must be 1 or 3.
)doc")
    .set_attr_parser(ParamParser<NormalizeParam>)
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .add_arguments(NormalizeParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", NormalizeShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", [](const NodeAttrs&) {
      return std::vector<std::pair<int, int>>{{0, 0}};
    })
    .set_attr<FCompute>("FCompute<cpu>", NormalizeCompute)
    .set_attr<FGradient>("FGradient", NormalizeGrad);

NNVM_REGISTER_OP(_backward_image_normalize)
    .set_attr_parser(ParamParser<NormalizeParam>)
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr<FInferShape>("FInferShape", [](const NodeAttrs& attrs, std::vector<TShape>* in,
                                             std::vector<TShape>* out) {
      return ElemwiseShape(attrs, in, out);
    })
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", NormalizeBackward);

}  // namespace image
}  // namespace op
}  // namespace mxnet
