// _contrib_MultiBoxPrior: the anchor boxes of an SSD feature map, from sizes and ratios.
#include <algorithm>
#include <cmath>
#include <vector>

#include "operator/nn/float_op_helpers.h"
#include "operator/optimizer/update_common.h"

namespace mxnet {
namespace op {

struct MultiBoxPriorParam : public dmlc::Parameter<MultiBoxPriorParam> {
  update::FloatTuple sizes, ratios;
  bool clip;
  update::FloatTuple steps, offsets;
  DMLC_DECLARE_PARAMETER(MultiBoxPriorParam) {
    DMLC_DECLARE_FIELD(sizes).set_default(update::FloatTuple{{1.0f}}).describe(
        "List of sizes of generated MultiBoxPriores.");
    DMLC_DECLARE_FIELD(ratios).set_default(update::FloatTuple{{1.0f}}).describe(
        "List of aspect ratios of generated MultiBoxPriores.");
    DMLC_DECLARE_FIELD(clip).set_default(false).describe(
        "Whether to clip out-of-boundary boxes.");
    DMLC_DECLARE_FIELD(steps).set_default(update::FloatTuple{{-1.f, -1.f}}).describe(
        "Priorbox step across y and x, -1 for auto calculation.");
    DMLC_DECLARE_FIELD(offsets).set_default(update::FloatTuple{{0.5f, 0.5f}}).describe(
        "Priorbox center offsets, y and x respectively");
  }
};
DMLC_REGISTER_PARAMETER(MultiBoxPriorParam);

namespace {

index_t AnchorsPerPixel(const MultiBoxPriorParam& p) {
  return p.sizes.ndim() + p.ratios.ndim() - 1;
}

bool PriorShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const MultiBoxPriorParam& p = Param<MultiBoxPriorParam>(attrs);
  const std::string& op = attrs.op->name;
  CHECK(p.sizes.ndim() > 0 && p.ratios.ndim() > 0)
      << "Operator " << op << ": arguments sizes and ratios expected at least one value each";
  CHECK_EQ(p.steps.ndim(), 2) << "Operator " << op << ": argument steps expected (step_y, "
                              << "step_x), given " << p.steps;
  CHECK_EQ(p.offsets.ndim(), 2) << "Operator " << op << ": argument offsets expected "
                                << "(offset_y, offset_x), given " << p.offsets;
  for (int i = 0; i < 2; ++i) {
    CHECK(p.offsets[i] >= 0 && p.offsets[i] <= 1)
        << "Operator " << op << ": argument offsets expected values in [0, 1], given "
        << p.offsets;
  }
  CHECK_GE(p.steps[0] * p.steps[1], 0)
      << "Operator " << op << ": argument steps must give both step_y and step_x (or "
      << "neither), given " << p.steps;
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_GE(d.ndim(), 4) << "Operator " << op << ": input data expected 4 dims "
                        << "(batch, channel, y, x), given shape " << d;
  CHECK(d[2] > 0 && d[3] > 0) << "Operator " << op << ": input data has an empty feature "
                              << "map, shape " << d;
  AssignShape(attrs, "output", &(*out)[0], TShape({1, d[2] * d[3] * AnchorsPerPixel(p), 4}));
  return true;
}

// For pixel (r, c), centers ((c + offset_x) * step_x, (r + offset_y) * step_y); first every
// size with the first ratio, then the first size with every other ratio; a box of size s and
// ratio q spans s * H / W * sqrt(q) by s / sqrt(q).
void PriorForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const MultiBoxPriorParam& p = Param<MultiBoxPriorParam>(attrs);
  const index_t H = in[0].shape_[2], W = in[0].shape_[3], A = AnchorsPerPixel(p);
  float step_y = p.steps[0], step_x = p.steps[1];
  if (step_y <= 0 || step_x <= 0) {
    step_y = 1.f / H;
    step_x = 1.f / W;
  }
  std::vector<float> half_w, half_h;  // per anchor of a pixel
  const float first_ratio = std::sqrt(p.ratios[0]);
  for (int i = 0; i < p.sizes.ndim(); ++i) {
    half_w.push_back(p.sizes[i] * H / W * first_ratio / 2);
    half_h.push_back(p.sizes[i] / first_ratio / 2);
  }
  for (int j = 1; j < p.ratios.ndim(); ++j) {
    const float q = std::sqrt(p.ratios[j]);
    half_w.push_back(p.sizes[0] * H / W * q / 2);
    half_h.push_back(p.sizes[0] / q / 2);
  }
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    DType* o = out[0].dptr<DType>();
    LoopMaybeParallel(H * W * A * 4 >= ParallelGrain(), H, [&](index_t r) {
      const float cy = (r + p.offsets[0]) * step_y;
      for (index_t c = 0; c < W; ++c) {
        const float cx = (c + p.offsets[1]) * step_x;
        for (index_t a = 0; a < A; ++a) {
          float box[4] = {cx - half_w[a], cy - half_h[a], cx + half_w[a], cy + half_h[a]};
          DType* dst = o + ((r * W + c) * A + a) * 4;
          for (int k = 0; k < 4; ++k) {
            const float v = p.clip ? std::min(1.f, std::max(0.f, box[k])) : box[k];
            Assign(dst + k, req[0], DType(v));
          }
        }
      }
    });
  });
}

}  // namespace

NNVM_REGISTER_OP(_contrib_MultiBoxPrior)
    .add_alias("_npx_multibox_prior")
    .describe(R"doc(Generate prior(anchor) boxes from data, sizes and ratios.

For a feature map of height H and width W (the last two axes of ``data``), returns
(1, H * W * (len(sizes) + len(ratios) - 1), 4) boxes [xmin, ymin, xmax, ymax] in fractions of
the image: at each pixel, centered at ``((x + offsets[1]) * steps[1], (y + offsets[0]) *
steps[0])`` (steps default to 1/W and 1/H), first one box per size with ratios[0], then one
per further ratio with sizes[0]; a box of size s and ratio q is s * H / W * sqrt(q) wide and
s / sqrt(q) high. ``clip`` clips the coordinates to [0, 1]. No gradient flows to ``data``.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<MultiBoxPriorParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data.")
    .add_arguments(MultiBoxPriorParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", PriorShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", PriorForward)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

}  // namespace op
}  // namespace mxnet
