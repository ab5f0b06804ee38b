// _contrib_PSROIPooling (R-FCN): position-sensitive ROI average pooling. Each ROI is split into
// pooled_size x pooled_size bins; bin (i, j) of output channel c averages the integer pixels it
// covers in input channel (c * group_size + gi) * group_size + gj, where (gi, gj) is the bin's cell
// in a group_size x group_size grid. Backward spreads each bin's gradient evenly over its pixels;
// rois get zeros.
#include <algorithm>
#include <cmath>
#include <string>

#include "operator/nn/float_op_helpers.h"

namespace mxnet {
namespace op {

struct PSROIPoolingParam : public dmlc::Parameter<PSROIPoolingParam> {
  float spatial_scale;
  int output_dim;
  int pooled_size;
  int group_size;
  DMLC_DECLARE_PARAMETER(PSROIPoolingParam) {
    DMLC_DECLARE_FIELD(spatial_scale)
        .set_range(0.0, 1.0)
        .describe(
            "Ratio of input feature map height (or w) to raw image "
            "height (or w). Equals the "
            "reciprocal of total stride in convolutional layers");
    DMLC_DECLARE_FIELD(output_dim).describe("fix output dim");
    DMLC_DECLARE_FIELD(pooled_size).describe("fix pooled size");
    DMLC_DECLARE_FIELD(group_size).set_default(0).describe("fix group size");
  }
  // group_size 0 means pooled_size.
  int Groups() const { return group_size > 0 ? group_size : pooled_size; }
};
DMLC_REGISTER_PARAMETER(PSROIPoolingParam);

namespace {

bool PSROIPoolingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const PSROIPoolingParam& p = Param<PSROIPoolingParam>(attrs);
  const std::string& op = attrs.op->name;
  const TShape &d = (*in)[0], &r = (*in)[1];
  if (!d.IsKnown() || !r.IsKnown()) return false;
  CHECK_EQ(d.ndim(), 4) << "Operator " << op << ": data expected 4 dims (NCHW), given shape " << d;
  CHECK(r.ndim() == 2 && r[1] == 5)
      << "Operator " << op << ": rois expected shape "
      << "(num_rois, 5) of [batch_index, x1, y1, x2, y2], given " << r;
  CHECK(p.pooled_size > 0 && p.output_dim > 0 && p.group_size >= 0)
      << "Operator " << op << ": arguments pooled_size and output_dim expected positive, "
      << "group_size expected >= 0, given pooled_size=" << p.pooled_size
      << ", output_dim=" << p.output_dim << ", group_size=" << p.group_size;
  const index_t need = static_cast<index_t>(p.output_dim) * p.Groups() * p.Groups();
  CHECK_GE(d[1], need) << "Operator " << op << ": data expected at least output_dim * "
                       << "group_size^2 = " << need << " channels, given shape " << d;
  AssignShape(attrs, "output", &(*out)[0],
              TShape({r[0], p.output_dim, p.pooled_size, p.pooled_size}));
  return true;
}

// The pixel rectangle [h0, h1) x [w0, w1) of one bin and the input channel it reads.
struct Bin {
  index_t h0, h1, w0, w1, channel;
  bool Empty() const { return h1 <= h0 || w1 <= w0; }
  index_t Area() const { return (h1 - h0) * (w1 - w0); }
};

// Bin (ph, pw) of output channel c for the ROI roi (corners rounded to pixels, end inclusive).
template <typename DType>
Bin BinOf(const PSROIPoolingParam& p, const DType* roi, index_t c, index_t ph, index_t pw,
          index_t H, index_t W) {
  using C = FloatComputeOf<DType>;
  const C s = static_cast<C>(p.spatial_scale);
  const C x1 = std::round(static_cast<C>(roi[1])) * s;
  const C y1 = std::round(static_cast<C>(roi[2])) * s;
  const C x2 = (std::round(static_cast<C>(roi[3])) + C(1)) * s;
  const C y2 = (std::round(static_cast<C>(roi[4])) + C(1)) * s;
  const C P = static_cast<C>(p.pooled_size);
  const C bh = std::max(y2 - y1, C(0.1)) / P, bw = std::max(x2 - x1, C(0.1)) / P;
  auto clip = [](C v, index_t hi) {
    return std::min<index_t>(std::max<index_t>(static_cast<index_t>(v), 0), hi);
  };
  Bin b;
  b.h0 = clip(std::floor(ph * bh + y1), H);
  b.h1 = clip(std::ceil((ph + 1) * bh + y1), H);
  b.w0 = clip(std::floor(pw * bw + x1), W);
  b.w1 = clip(std::ceil((pw + 1) * bw + x1), W);
  const index_t G = p.Groups();
  const index_t gh = std::min<index_t>(std::max<index_t>(ph * G / p.pooled_size, 0), G - 1);
  const index_t gw = std::min<index_t>(std::max<index_t>(pw * G / p.pooled_size, 0), G - 1);
  b.channel = (c * G + gh) * G + gw;
  return b;
}

template <typename DType>
index_t BatchOf(const DType* roi, index_t batch) {
  const index_t n = static_cast<index_t>(static_cast<float>(roi[0]));
  CHECK(n >= 0 && n < batch) << "Operator _contrib_PSROIPooling: roi batch_index expected in [0, "
                             << batch << "), given " << n;
  return n;
}

template <typename DType>
void PoolForward(const PSROIPoolingParam& p, const TBlob& data, const TBlob& rois, const TBlob& out,
                 OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t Cin = data.shape_[1], H = data.shape_[2], W = data.shape_[3];
  const index_t R = out.shape_[0], Cout = out.shape_[1], P = p.pooled_size;
  const DType* x = data.dptr<DType>();
  const DType* r = rois.dptr<DType>();
  for (index_t n = 0; n < R; ++n) BatchOf(r + n * 5, data.shape_[0]);
  LoopMaybeParallel(out.Size() * 16 >= ParallelGrain(), R * Cout, [&](index_t nc) {
    const index_t n = nc / Cout, c = nc % Cout;
    const DType* roi = r + n * 5;
    const index_t batch = static_cast<index_t>(static_cast<float>(roi[0]));
    DType* y = out.dptr<DType>() + nc * P * P;
    for (index_t ph = 0; ph < P; ++ph) {
      for (index_t pw = 0; pw < P; ++pw) {
        const Bin b = BinOf(p, roi, c, ph, pw, H, W);
        C sum = 0;
        const DType* plane = x + (batch * Cin + b.channel) * H * W;
        for (index_t h = b.h0; h < b.h1; ++h) {
          for (index_t w = b.w0; w < b.w1; ++w) sum += static_cast<C>(plane[h * W + w]);
        }
        Assign(y + ph * P + pw, req, DType(b.Empty() ? C(0) : sum / C(b.Area())));
      }
    }
  });
}

template <typename DType>
void PoolBackward(const PSROIPoolingParam& p, const TBlob& ograd, const TBlob& rois,
                  const TBlob& dx, OpReqType req) {
  using C = FloatComputeOf<DType>;
  const index_t Cin = dx.shape_[1], H = dx.shape_[2], W = dx.shape_[3];
  const index_t R = ograd.shape_[0], Cout = ograd.shape_[1], P = p.pooled_size;
  const DType* r = rois.dptr<DType>();
  for (index_t n = 0; n < R; ++n) BatchOf(r + n * 5, dx.shape_[0]);
  ZeroGradient(dx, req);
  // ROIs overlap: one at a time; within one, output channels read distinct input planes.
  for (index_t n = 0; n < R; ++n) {
    const DType* roi = r + n * 5;
    const index_t batch = static_cast<index_t>(static_cast<float>(roi[0]));
    LoopMaybeParallel(Cout * P * P * 64 >= ParallelGrain(), Cout, [&](index_t c) {
      const DType* dy = ograd.dptr<DType>() + (n * Cout + c) * P * P;
      for (index_t ph = 0; ph < P; ++ph) {
        for (index_t pw = 0; pw < P; ++pw) {
          const Bin b = BinOf(p, roi, c, ph, pw, H, W);
          if (b.Empty()) continue;
          const C g = static_cast<C>(dy[ph * P + pw]) / C(b.Area());
          DType* plane = dx.dptr<DType>() + (batch * Cin + b.channel) * H * W;
          for (index_t h = b.h0; h < b.h1; ++h) {
            for (index_t w = b.w0; w < b.w1; ++w) {
              plane[h * W + w] = DType(static_cast<C>(plane[h * W + w]) + g);
            }
          }
        }
      }
    });
  }
}

// data and rois share one float dtype.
bool PSROIPoolingType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return FloatElemwiseType(attrs, in, out);
}

void PSROIPoolingForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const PSROIPoolingParam& p = Param<PSROIPoolingParam>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType,
                         { PoolForward<DType>(p, in[0], in[1], out[0], req[0]); });
}

// _backward_PSROIPooling: inputs (ograd, data, rois); outputs (data grad, rois grad = 0).
void PSROIPoolingBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const PSROIPoolingParam& p = Param<PSROIPoolingParam>(attrs);
  if (req[0] != kNullOp) {
    MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType,
                           { PoolBackward<DType>(p, in[0], in[2], out[0], req[0]); });
  }
  ZeroGradient(out[1], req[1]);
}

}  // namespace

NNVM_REGISTER_OP(_contrib_PSROIPooling)
    .describe(
        R"doc(Performs region-of-interest pooling on inputs. Resize bounding box
coordinates by spatial_scale and crop input feature maps accordingly. The cropped feature maps
are pooled by position-sensitive average pooling into fixed-size outputs of shape
``(num_rois, output_dim, pooled_size, pooled_size)``; ``data`` needs
``output_dim * group_size * group_size`` channels (``group_size`` 0 means ``pooled_size``).
ROI corners ``[batch_index, x1, y1, x2, y2]`` are rounded to pixels, the end inclusive.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<PSROIPoolingParam>)
    .add_argument("data", "NDArray-or-Symbol",
                  "Input data to the pooling operator, a 4D Feature maps")
    .add_argument("rois", "NDArray-or-Symbol",
                  "Bounding box coordinates, a 2D array of [[batch_index, x1, "
                  "y1, x2, y2]]. "
                  "(x1, y1) and (x2, y2) are top left and down right corners "
                  "of designated "
                  "region of interest. batch_index indicates the index of "
                  "corresponding image "
                  "in the input data")
    .add_arguments(PSROIPoolingParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "rois"}))
    .set_attr<FInferShape>("FInferShape", PSROIPoolingShape)
    .set_attr<FInferType>("FInferType", PSROIPoolingType)
    .set_attr<FCompute>("FCompute<cpu>", PSROIPoolingForward)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return GradOfEachInput("_backward_PSROIPooling", n, og);
    });

NNVM_REGISTER_OP(_backward_PSROIPooling)
    .describe(
        "Gradient of _contrib_PSROIPooling with respect to data (rois "
        "get zeros).")
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<PSROIPoolingParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "data of the forward call")
    .add_argument("rois", "NDArray-or-Symbol", "rois of the forward call")
    .add_arguments(PSROIPoolingParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "data", "rois"}))
    .set_attr<FInferShape>("FInferShape", ForwardInputShapes)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", PSROIPoolingBackward);

}  // namespace op
}  // namespace mxnet
