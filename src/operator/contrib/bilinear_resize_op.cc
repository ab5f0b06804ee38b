// _contrib_BilinearResize2D: bilinear resizing of NCHW data to a size given directly, by scale,
// by a second array ('like') or by rounding to even/odd sizes; align_corners picks how output
// pixels map onto input pixels. Backward scatters each output gradient onto its four taps.
#include <dmlc/optional.h>

#include <algorithm>
#include <string>

#include "operator/nn/float_op_helpers.h"

namespace mxnet {
namespace op {

namespace resize {
enum Mode { kSize = 0, kOddScale, kLike, kToEvenDown, kToEvenUp, kToOddDown, kToOddUp };
}  // namespace resize

struct BilinearResizeParam : public dmlc::Parameter<BilinearResizeParam> {
  int height;
  int width;
  dmlc::optional<float> scale_height;
  dmlc::optional<float> scale_width;
  int mode;
  bool align_corners;
  DMLC_DECLARE_PARAMETER(BilinearResizeParam) {
    DMLC_DECLARE_FIELD(height).set_default(1).set_range(1, 10000).describe(
        "output height (required, but ignored if scale_height is defined or mode is not "
        "\"size\")");
    DMLC_DECLARE_FIELD(width).set_default(1).set_range(1, 10000).describe(
        "output width (required, but ignored if scale_width is defined or mode is not "
        "\"size\")");
    DMLC_DECLARE_FIELD(scale_height).set_default(dmlc::optional<float>()).describe(
        "sampling scale of the height (optional, used in modes \"scale\" and \"odd_scale\")");
    DMLC_DECLARE_FIELD(scale_width).set_default(dmlc::optional<float>()).describe(
        "sampling scale of the width (optional, used in modes \"scale\" and \"odd_scale\")");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("size", resize::kSize)
        .add_enum("odd_scale", resize::kOddScale)
        .add_enum("like", resize::kLike)
        .add_enum("to_even_down", resize::kToEvenDown)
        .add_enum("to_even_up", resize::kToEvenUp)
        .add_enum("to_odd_down", resize::kToOddDown)
        .add_enum("to_odd_up", resize::kToOddUp)
        .set_default(resize::kSize)
        .describe("resizing mode. \"size\" - output height equals parameter \"height\" if "
                  "\"scale_height\" parameter is not defined or input height multiplied by "
                  "\"scale_height\" otherwise. Same for width; \"odd_scale\" - if original "
                  "height or width is odd, then result height is calculated like result_h = "
                  "(original_h - 1) * scale + 1; otherwise result_h = original_h * scale; "
                  "\"like\" - resize first input to the height and width of second input; "
                  "\"to_even_down\" / \"to_even_up\" - to the nearest lower / bigger even height "
                  "and width; \"to_odd_down\" / \"to_odd_up\" - to the nearest lower / bigger "
                  "odd height and width.");
    DMLC_DECLARE_FIELD(align_corners).set_default(true).describe(
        "With align_corners = True, the interpolating doesn't proportionally align the output "
        "and input pixels, and thus the output values can depend on the input size.");
  }
};
DMLC_REGISTER_PARAMETER(BilinearResizeParam);

namespace {

bool LikeMode(const NodeAttrs& attrs) {
  return Param<BilinearResizeParam>(attrs).mode == resize::kLike;
}

uint32_t NumInputs(const NodeAttrs& attrs) { return LikeMode(attrs) ? 2 : 1; }

std::vector<std::string> InputNamesOf(const NodeAttrs& attrs) {
  if (LikeMode(attrs)) return {"data", "like"};
  return {"data"};
}

// size rounded to the parity wanted: up or down by one when it has the other parity.
index_t ToParity(index_t size, bool odd, bool up) {
  if ((size % 2 == 1) == odd) return size;
  return up ? size + 1 : size - 1;
}

float RequiredScale(const NodeAttrs& attrs, const dmlc::optional<float>& s, const char* name) {
  CHECK(s.has_value()) << "Operator " << attrs.op->name << ": argument " << name
                       << " is required with mode='"
                       << (Param<BilinearResizeParam>(attrs).mode == resize::kOddScale
                               ? "odd_scale" : "size") << "' here";
  return s.value();
}

bool BilinearResizeShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                         std::vector<TShape>* out) {
  const BilinearResizeParam& p = Param<BilinearResizeParam>(attrs);
  const std::string& op = attrs.op->name;
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_EQ(d.ndim(), 4) << "Operator " << op << ": data expected 4 dims (NCHW), given shape " << d;
  const index_t H = d[2], W = d[3];
  index_t oh = 0, ow = 0;
  switch (p.mode) {
    case resize::kSize:
      // As MXNet 1.9.1: scale_height switches both sizes to their scales.
      if (p.scale_height.has_value()) {
        oh = static_cast<index_t>(p.scale_height.value() * H);
        ow = static_cast<index_t>(RequiredScale(attrs, p.scale_width, "scale_width") * W);
      } else {
        oh = p.height;
        ow = p.width;
      }
      break;
    case resize::kOddScale: {
      const float sh = RequiredScale(attrs, p.scale_height, "scale_height");
      const float sw = RequiredScale(attrs, p.scale_width, "scale_width");
      oh = H % 2 == 0 ? static_cast<index_t>(H * sh) : static_cast<index_t>((H - 1) * sh) + 1;
      ow = W % 2 == 0 ? static_cast<index_t>(W * sw) : static_cast<index_t>((W - 1) * sw) + 1;
      break;
    }
    case resize::kLike: {
      const TShape& like = (*in)[1];
      if (!like.IsKnown()) return false;
      CHECK_EQ(like.ndim(), 4) << "Operator " << op << ": like expected 4 dims (NCHW), given "
                               << "shape " << like;
      oh = like[2];
      ow = like[3];
      break;
    }
    case resize::kToEvenDown: oh = ToParity(H, false, false), ow = ToParity(W, false, false); break;
    case resize::kToEvenUp: oh = ToParity(H, false, true), ow = ToParity(W, false, true); break;
    case resize::kToOddDown: oh = ToParity(H, true, false), ow = ToParity(W, true, false); break;
    default: oh = ToParity(H, true, true), ow = ToParity(W, true, true); break;
  }
  CHECK(oh > 0 && ow > 0) << "Operator " << op << ": the output size (" << oh << ", " << ow
                          << ") for data of shape " << d << " is not positive";
  AssignShape(attrs, "output", &(*out)[0], TShape({d[0], d[1], oh, ow}));
  return true;
}

// Output index o of n_out reads input taps i0 and i0 + step (step 0 at the last input
// pixel) with weights 1 - frac and frac. As MXNet 1.9.1 the scale is a float (0 for a single
// output pixel, which then reads pixel 0) and the source position is a float rounded once
// from the exact scale * (o + 0.5) - 0.5 (a fused multiply-add there).
struct Tap {
  index_t i0, step;
  float frac;
};

Tap TapOf(index_t o, index_t n_in, index_t n_out, bool align_corners) {
  float scale = 0.0f;
  if (n_out > 1) {
    scale = align_corners ? static_cast<float>(n_in - 1) / (n_out - 1)
                          : static_cast<float>(n_in) / n_out;
  }
  const double shift = align_corners ? 0.0 : 0.5;
  const float src =
      std::max(static_cast<float>(static_cast<double>(scale) * (o + shift) - shift), 0.0f);
  const index_t i0 = static_cast<index_t>(src);
  return {i0, i0 < n_in - 1 ? 1 : 0, src - i0};
}

std::vector<Tap> TapsOf(index_t n_in, index_t n_out, bool align_corners) {
  std::vector<Tap> taps;
  for (index_t o = 0; o < n_out; ++o) taps.push_back(TapOf(o, n_in, n_out, align_corners));
  return taps;
}

template <typename DType>
void ResizeForward(bool align, const TBlob& data, const TBlob& out, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t planes = data.shape_[0] * data.shape_[1], H = data.shape_[2], W = data.shape_[3];
  const index_t oh = out.shape_[2], ow = out.shape_[3];
  const std::vector<Tap> ty = TapsOf(H, oh, align), tx = TapsOf(W, ow, align);
  LoopMaybeParallel(planes * oh * ow >= ParallelGrain(), planes, [&](index_t pl) {
    const DType* x = data.dptr<DType>() + pl * H * W;
    DType* y = out.dptr<DType>() + pl * oh * ow;
    for (index_t i = 0; i < oh; ++i) {
      const C wy = C(1) - C(ty[i].frac);
      const DType* r0 = x + ty[i].i0 * W;
      const DType* r1 = r0 + ty[i].step * W;
      for (index_t j = 0; j < ow; ++j) {
        const index_t a = tx[j].i0, b = a + tx[j].step;
        const C wx = C(1) - C(tx[j].frac);
        const C v = wy * (wx * C(r0[a]) + (C(1) - wx) * C(r0[b])) +
                    (C(1) - wy) * (wx * C(r1[a]) + (C(1) - wx) * C(r1[b]));
        Assign(y + i * ow + j, req, DType(v));
      }
    }
  });
}

template <typename DType>
void ResizeBackward(bool align, const TBlob& ograd, const TBlob& dx, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t planes = dx.shape_[0] * dx.shape_[1], H = dx.shape_[2], W = dx.shape_[3];
  const index_t oh = ograd.shape_[2], ow = ograd.shape_[3];
  const std::vector<Tap> ty = TapsOf(H, oh, align), tx = TapsOf(W, ow, align);
  ZeroGradient(dx, req);
  LoopMaybeParallel(planes * oh * ow >= ParallelGrain(), planes, [&](index_t pl) {
    const DType* dy = ograd.dptr<DType>() + pl * oh * ow;
    DType* g = dx.dptr<DType>() + pl * H * W;
    auto add = [g](index_t k, C v) { g[k] = DType(C(g[k]) + v); };
    for (index_t i = 0; i < oh; ++i) {
      const C wy = C(1) - C(ty[i].frac);
      const index_t r0 = ty[i].i0 * W, r1 = r0 + ty[i].step * W;
      for (index_t j = 0; j < ow; ++j) {
        const index_t a = tx[j].i0, b = a + tx[j].step;
        const C wx = C(1) - C(tx[j].frac), d = C(dy[i * ow + j]);
        add(r0 + a, d * wy * wx);
        add(r0 + b, d * wy * (C(1) - wx));
        add(r1 + a, d * (C(1) - wy) * wx);
        add(r1 + b, d * (C(1) - wy) * (C(1) - wx));
      }
    }
  });
}

void BilinearResizeForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const bool align = Param<BilinearResizeParam>(attrs).align_corners;
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    ResizeForward<DType>(align, in[0], out[0], req[0]);
  });
}

// _backward_contrib_BilinearResize2D: inputs (ograd, data[, like]); outputs their gradients
// (like gets zeros).
void BilinearResizeBackward(const NodeAttrs& attrs, const OpContext&,
                            const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                            const std::vector<TBlob>& out) {
  const bool align = Param<BilinearResizeParam>(attrs).align_corners;
  if (req[0] != kNullOp) {
    MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
      ResizeBackward<DType>(align, in[0], out[0], req[0]);
    });
  }
  if (out.size() > 1) ZeroGradient(out[1], req[1]);
}

}  // namespace

NNVM_REGISTER_OP(_contrib_BilinearResize2D)
    .describe(R"doc(Perform 2D resizing (upsampling or downsampling) for 4D input using
bilinear interpolation.

The output size comes from ``mode``: ``size`` (``height``/``width``, or the input size times
``scale_height``/``scale_width`` when ``scale_height`` is given), ``odd_scale``, ``like`` (the
height and width of the second input), ``to_even_down``, ``to_even_up``, ``to_odd_down`` or
``to_odd_up``. With ``align_corners`` the corner pixels of input and output coincide; without
it output pixel centres are mapped proportionally (``(o + 0.5) * in / out - 0.5``).
)doc")
    .set_num_inputs(NumInputs)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<BilinearResizeParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data")
    .add_argument("like", "NDArray-or-Symbol", "Resize data to it's shape")
    .add_arguments(BilinearResizeParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNamesOf)
    .set_attr<FInferShape>("FInferShape", BilinearResizeShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", BilinearResizeForward)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return GradOfEachInput("_backward_contrib_BilinearResize2D", n, og);
    });

NNVM_REGISTER_OP(_backward_contrib_BilinearResize2D)
    .describe("Gradients of _contrib_BilinearResize2D with respect to its inputs.")
    .set_num_inputs([](const NodeAttrs& attrs) { return NumInputs(attrs) + 1; })
    .set_num_outputs(NumInputs)
    .set_attr_parser(ParamParser<BilinearResizeParam>)
    .add_argument("args", "NDArray-or-Symbol[]", "ograd, then the inputs of the forward call")
    .add_arguments(BilinearResizeParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", BilinearResizeBackward);

}  // namespace op
}  // namespace mxnet
