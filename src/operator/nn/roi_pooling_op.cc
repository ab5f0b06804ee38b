// ROIPooling (Fast R-CNN): max pooling of each region of interest into a fixed grid, with the
// argmax kept as a hidden output for the gradient.
#include <cmath>
#include <string>

#include "common/type_switch.h"
#include "operator/nn/nn_common.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace op {

struct ROIPoolingParam : public dmlc::Parameter<ROIPoolingParam> {
  ShapeArg pooled_size;
  float spatial_scale;
  DMLC_DECLARE_PARAMETER(ROIPoolingParam) {
    DMLC_DECLARE_FIELD(pooled_size).describe("ROI pooling output shape (h,w) ");
    DMLC_DECLARE_FIELD(spatial_scale).set_range(0.0f, 1e9f).describe(
        "Ratio of input feature map height (or w) to raw image height (or w). Equals the "
        "reciprocal of total stride in convolutional layers");
  }
};
DMLC_REGISTER_PARAMETER(ROIPoolingParam);

namespace {

bool ROIShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ROIPoolingParam& p = Param<ROIPoolingParam>(attrs);
  const std::string& op = attrs.op->name;
  const TShape &d = (*in)[0], &r = (*in)[1];
  if (!d.IsKnown() || !r.IsKnown()) return false;
  CHECK_EQ(d.ndim(), 4) << "Operator " << op << ": data expected 4 dims (NCHW), given shape "
                        << d;
  CHECK(r.ndim() == 2 && r[1] == 5) << "Operator " << op << ": rois expected shape "
                                    << "(num_rois, 5) of [batch_index, x1, y1, x2, y2], given "
                                    << r;
  CHECK(p.pooled_size.ndim() == 2 && p.pooled_size[0] > 0 && p.pooled_size[1] > 0)
      << "Operator " << op << ": argument pooled_size expected (h, w) of positive sizes, given "
      << p.pooled_size;
  const TShape o({r[0], d[1], p.pooled_size[0], p.pooled_size[1]});
  AssignShape(attrs, "output", &(*out)[0], o);
  AssignShape(attrs, "max_idx", &(*out)[1], o);
  return true;
}

bool ROIType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return FloatElemwiseType(attrs, in, out);
}

// out[n, c, ph, pw] = max of the bin over the ROI's feature-map window; max_idx its flat
// index in the data plane (-1 for an empty bin, whose output is 0), as Caffe/MXNet define it.
template <typename DType>
void Forward(const ROIPoolingParam& p, const TBlob& data, const TBlob& rois, const TBlob& out,
             const TBlob& max_idx) {
  const index_t batch = data.shape_[0], C = data.shape_[1], H = data.shape_[2];
  const index_t W = data.shape_[3], R = rois.shape_[0];
  const index_t PH = p.pooled_size[0], PW = p.pooled_size[1];
  const DType* x = data.dptr<DType>();
  const DType* roi = rois.dptr<DType>();
  DType* y = out.dptr<DType>();
  DType* arg = max_idx.dptr<DType>();
  for (index_t n = 0; n < R; ++n) {  // checked before the (possibly parallel) loop below
    const index_t bi = static_cast<index_t>(static_cast<float>(roi[n * 5]));
    CHECK(bi >= 0 && bi < batch) << "Operator ROIPooling: roi " << n << " has batch_index "
                                 << bi << ", expected 0 to " << batch - 1;
  }
  LoopMaybeParallel(R * C * PH * PW >= ParallelGrain(), R, [&](index_t n) {
    const DType* b = roi + n * 5;
    const index_t bi = static_cast<index_t>(static_cast<float>(b[0]));
    const float s = p.spatial_scale;
    const index_t x1 = std::lround(static_cast<float>(b[1]) * s);
    const index_t y1 = std::lround(static_cast<float>(b[2]) * s);
    const index_t x2 = std::lround(static_cast<float>(b[3]) * s);
    const index_t y2 = std::lround(static_cast<float>(b[4]) * s);
    const float bin_h = static_cast<float>(std::max<index_t>(y2 - y1 + 1, 1)) / PH;
    const float bin_w = static_cast<float>(std::max<index_t>(x2 - x1 + 1, 1)) / PW;
    for (index_t c = 0; c < C; ++c) {
      const DType* plane = x + (bi * C + c) * H * W;
      for (index_t ph = 0; ph < PH; ++ph) {
        const index_t hs = std::min(std::max<index_t>(std::floor(ph * bin_h) + y1, 0), H);
        const index_t he = std::min(std::max<index_t>(std::ceil((ph + 1) * bin_h) + y1, 0), H);
        for (index_t pw = 0; pw < PW; ++pw) {
          const index_t ws = std::min(std::max<index_t>(std::floor(pw * bin_w) + x1, 0), W);
          const index_t we =
              std::min(std::max<index_t>(std::ceil((pw + 1) * bin_w) + x1, 0), W);
          const index_t o = ((n * C + c) * PH + ph) * PW + pw;
          float best = 0.0f;
          index_t best_i = -1;
          for (index_t h = hs; h < he; ++h) {
            for (index_t w = ws; w < we; ++w) {
              const float v = static_cast<float>(plane[h * W + w]);
              if (best_i < 0 || v > best) {
                best = v;
                best_i = h * W + w;
              }
            }
          }
          y[o] = DType(best);
          arg[o] = DType(static_cast<float>(best_i));
        }
      }
    }
  });
}

void ROIForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const ROIPoolingParam& p = Param<ROIPoolingParam>(attrs);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    Forward<DType>(p, in[0], in[1], out[0], out[1]);
  });
}

// _backward_ROIPooling: inputs (ograd, data, rois, max_idx); outputs (data grad, rois grad).
void ROIBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    const TBlob &dy = in[0], &data = in[1], &rois = in[2], &arg = in[3];
    const index_t C = data.shape_[1], H = data.shape_[2], W = data.shape_[3];
    const index_t per_roi = C * dy.shape_[2] * dy.shape_[3], bins = dy.shape_[2] * dy.shape_[3];
    DType* dx = out[0].dptr<DType>();
    if (req[0] == kWriteTo || req[0] == kWriteInplace) {
      std::fill(dx, dx + out[0].Size(), DType(0));
    }
    if (req[0] != kNullOp) {
      const DType* g = dy.dptr<DType>();
      const DType* a = arg.dptr<DType>();
      const DType* roi = rois.dptr<DType>();
      // ROIs of one image overlap: accumulate serially (a few bins per ROI and channel).
      for (index_t n = 0; n < rois.shape_[0]; ++n) {
        const index_t bi = static_cast<index_t>(static_cast<float>(roi[n * 5]));
        for (index_t k = 0; k < per_roi; ++k) {
          const index_t i = static_cast<index_t>(static_cast<float>(a[n * per_roi + k]));
          if (i < 0) continue;
          DType* plane = dx + (bi * C + k / bins) * H * W;
          plane[i] = DType(static_cast<float>(plane[i]) +
                           static_cast<float>(g[n * per_roi + k]));
        }
      }
    }
    if (req[1] == kWriteTo || req[1] == kWriteInplace) {
      std::fill(out[1].dptr<DType>(), out[1].dptr<DType>() + out[1].Size(), DType(0));
    }
  });
}

std::vector<NodeEntry> ROIGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry bwd = MakeNode("_backward_ROIPooling", GradName(n),
                           {og[0], n->inputs[0], n->inputs[1], Out(n, 1)}, n->attrs.dict, &n);
  return {NodeEntry(bwd.node, 0, 0), NodeEntry(bwd.node, 1, 0)};
}

bool ROIBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[1].IsKnown() || !(*in)[2].IsKnown()) return false;
  AssignShape(attrs, "data gradient", &(*out)[0], (*in)[1]);
  AssignShape(attrs, "rois gradient", &(*out)[1], (*in)[2]);
  return true;
}

}  // namespace

NNVM_REGISTER_OP(ROIPooling)
    .describe(R"doc(Performs region of interest (ROI) pooling on the input array.

Each ROI ``[batch_index, x1, y1, x2, y2]`` (image coordinates; ``spatial_scale`` maps them to
the feature map, rounded) is divided into a ``pooled_size`` grid of bins, and each bin of each
channel is max-pooled; an empty bin gives 0. The output is
``(num_rois, channels, pooled_size[0], pooled_size[1])``. The gradient goes to the maximum of
each bin; ``rois`` gets none.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(2)
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs", [](const NodeAttrs&) { return 1U; })
    .set_attr_parser(ParamParser<ROIPoolingParam>)
    .add_argument("data", "NDArray-or-Symbol",
                  "The input array to the pooling operator, a 4D Feature maps")
    .add_argument("rois", "NDArray-or-Symbol",
                  "Bounding box coordinates, a 2D array of [[batch_index, x1, y1, x2, y2]], "
                  "where (x1, y1) and (x2, y2) are top left and bottom right corners of "
                  "designated region of interest. `batch_index` indicates the index of "
                  "corresponding image in the input array")
    .add_arguments(ROIPoolingParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "rois"}))
    .set_attr<FListOutputNames>("FListOutputNames", [](const NodeAttrs&) {
      return std::vector<std::string>{"output", "maxidx"};
    })
    .set_attr<FInferShape>("FInferShape", ROIShape)
    .set_attr<FInferType>("FInferType", ROIType)
    .set_attr<FCompute>("FCompute<cpu>", ROIForward)
    .set_attr<FGradient>("FGradient", ROIGrad);

NNVM_REGISTER_OP(_backward_ROIPooling)
    .describe("Gradient of ROIPooling with respect to data (rois get zeros).")
    .set_num_inputs(4)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<ROIPoolingParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of the output")
    .add_argument("data", "NDArray-or-Symbol", "Input data of ROIPooling")
    .add_argument("rois", "NDArray-or-Symbol", "ROIs of ROIPooling")
    .add_argument("max_idx", "NDArray-or-Symbol", "The argmax output of ROIPooling")
    .add_arguments(ROIPoolingParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"ograd", "data", "rois", "max_idx"}))
    .set_attr<FInferShape>("FInferShape", ROIBackwardShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", ROIBackward);

}  // namespace op
}  // namespace mxnet
