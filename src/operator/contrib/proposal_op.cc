// Region proposals of Faster R-CNN's RPN: _contrib_Proposal (one image) and
// _contrib_MultiProposal (a batch). Per image: anchors (ratios x scales around a
// feature_stride cell) are placed on every feature-map position, moved by the predicted deltas
// (or corner offsets with iou_loss) and clipped to the image; boxes on padded positions or
// smaller than rpn_min_size * im_scale lose their score (-1). The rpn_pre_nms_top_n best
// (stable order) go through greedy NMS (IoU > threshold suppresses) until rpn_post_nms_top_n
// are kept; the output repeats the kept boxes cyclically to fill rpn_post_nms_top_n rows of
// [batch_index, x1, y1, x2, y2] (and their scores). Inputs get zero gradients.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "operator/operator_common.h"
#include "operator/optimizer/update_common.h"

namespace mxnet {
namespace op {

struct ProposalParam : public dmlc::Parameter<ProposalParam> {
  int rpn_pre_nms_top_n;
  int rpn_post_nms_top_n;
  float threshold;
  int rpn_min_size;
  update::FloatTuple scales;
  update::FloatTuple ratios;
  int feature_stride;
  bool output_score;
  bool iou_loss;
  DMLC_DECLARE_PARAMETER(ProposalParam) {
    DMLC_DECLARE_FIELD(rpn_pre_nms_top_n)
        .set_default(6000)
        .describe("Number of top scoring boxes to keep before applying NMS to RPN proposals");
    DMLC_DECLARE_FIELD(rpn_post_nms_top_n)
        .set_default(300)
        .describe("Number of top scoring boxes to keep after applying NMS to RPN proposals");
    DMLC_DECLARE_FIELD(threshold).set_default(0.7).describe("NMS value, below which to suppress.");
    DMLC_DECLARE_FIELD(rpn_min_size)
        .set_default(16)
        .describe("Minimum height or width in proposal");
    DMLC_DECLARE_FIELD(scales)
        .set_default(update::FloatTuple{{4.0f, 8.0f, 16.0f, 32.0f}})
        .describe("Used to generate anchor windows by enumerating scales");
    DMLC_DECLARE_FIELD(ratios)
        .set_default(update::FloatTuple{{0.5f, 1.0f, 2.0f}})
        .describe("Used to generate anchor windows by enumerating ratios");
    DMLC_DECLARE_FIELD(feature_stride)
        .set_default(16)
        .describe(
            "The size of the receptive field each unit in the convolution layer of the rpn,for "
            "example the product of all stride's prior to this layer.");
    DMLC_DECLARE_FIELD(output_score).set_default(false).describe("Add score to outputs");
    DMLC_DECLARE_FIELD(iou_loss).set_default(false).describe("Usage of IoU Loss");
  }
};
DMLC_REGISTER_PARAMETER(ProposalParam);

namespace {

// A box [x1, y1, x2, y2] (inclusive pixel corners) and its score.
struct Box {
  float x1, y1, x2, y2, score;
};

// The anchors of one cell at the origin, ratio-major: a square of feature_stride pixels
// reshaped to each ratio (area kept, sides rounded) and scaled.
std::vector<Box> CellAnchors(const ProposalParam& p) {
  const float side = static_cast<float>(p.feature_stride);
  const float ctr = static_cast<float>(0.5 * (side - 1.0f));
  std::vector<Box> anchors;
  for (const float ratio : p.ratios.v) {
    const float area_per_ratio = std::floor(side * side / ratio);
    for (const float scale : p.scales.v) {
      const float w = std::floor(std::sqrt(area_per_ratio) + 0.5f) * scale;
      const float h = std::floor(w / scale * ratio + 0.5f) * scale;
      anchors.push_back({ctr - 0.5f * (w - 1.0f), ctr - 0.5f * (h - 1.0f), ctr + 0.5f * (w - 1.0f),
                         ctr + 0.5f * (h - 1.0f), 0.0f});
    }
  }
  return anchors;
}

inline float Clip(double v, float hi) {
  return std::max(std::min(static_cast<float>(v), hi), 0.0f);
}

// The anchor moved by the four deltas d (stride apart in memory), clipped to the image.
Box Predict(const ProposalParam& p, const Box& a, const float* d, index_t stride, float im_h,
            float im_w) {
  Box b;
  if (p.iou_loss) {
    b = {a.x1 + d[0], a.y1 + d[stride], a.x2 + d[2 * stride], a.y2 + d[3 * stride], 0};
  } else {
    const float w = static_cast<float>(a.x2 - a.x1 + 1.0),
                h = static_cast<float>(a.y2 - a.y1 + 1.0);
    const float cx = static_cast<float>(a.x1 + 0.5 * (w - 1.0));
    const float cy = static_cast<float>(a.y1 + 0.5 * (h - 1.0));
    const float pcx = d[0] * w + cx, pcy = d[stride] * h + cy;
    const float pw = std::exp(d[2 * stride]) * w, ph = std::exp(d[3 * stride]) * h;
    b = {static_cast<float>(pcx - 0.5 * (pw - 1.0)), static_cast<float>(pcy - 0.5 * (ph - 1.0)),
         static_cast<float>(pcx + 0.5 * (pw - 1.0)), static_cast<float>(pcy + 0.5 * (ph - 1.0)), 0};
  }
  b.x1 = Clip(b.x1, im_w - 1.0f);
  b.y1 = Clip(b.y1, im_h - 1.0f);
  b.x2 = Clip(b.x2, im_w - 1.0f);
  b.y2 = Clip(b.y2, im_h - 1.0f);
  return b;
}

inline float Area(const Box& b) { return (b.x2 - b.x1 + 1) * (b.y2 - b.y1 + 1); }

// Greedy NMS over boxes sorted best first: indices of the kept ones, at most max_keep.
std::vector<index_t> Suppress(const std::vector<Box>& boxes, float threshold, index_t max_keep) {
  const index_t n = boxes.size();
  std::vector<float> area(n);
  for (index_t i = 0; i < n; ++i) area[i] = Area(boxes[i]);
  std::vector<char> suppressed(n, 0);
  std::vector<index_t> keep;
  for (index_t i = 0; i < n && static_cast<index_t>(keep.size()) < max_keep; ++i) {
    if (suppressed[i]) continue;
    keep.push_back(i);
    const Box& a = boxes[i];
    for (index_t j = i + 1; j < n; ++j) {
      if (suppressed[j]) continue;
      const Box& b = boxes[j];
      const float w = std::max(0.0f, std::min(a.x2, b.x2) - std::max(a.x1, b.x1) + 1.0f);
      const float h = std::max(0.0f, std::min(a.y2, b.y2) - std::max(a.y1, b.y1) + 1.0f);
      const float inter = w * h;
      if (inter / (area[i] + area[j] - inter) > threshold) suppressed[j] = 1;
    }
  }
  return keep;
}

// Proposals of one image. scores: the A foreground planes (A, H, W); deltas (4A, H, W);
// info: [height, width, scale]. Writes post rows of [batch, x1, y1, x2, y2] and post scores.
void ProposeImage(const ProposalParam& p, const std::vector<Box>& cell, const float* scores,
                  const float* deltas, const float* info, index_t H, index_t W, float batch,
                  float* rois, float* out_scores) {
  const index_t A = cell.size(), plane = H * W, count = A * plane;
  const float im_h = info[0], im_w = info[1], stride = static_cast<float>(p.feature_stride);
  const index_t real_h = static_cast<index_t>(im_h / stride);
  const index_t real_w = static_cast<index_t>(im_w / stride);
  const float min_size = p.rpn_min_size * info[2];
  // Position-major (h, w, anchor), the order the stable sort breaks ties in.
  std::vector<Box> boxes(count);
  for (index_t h = 0; h < H; ++h) {
    for (index_t w = 0; w < W; ++w) {
      for (index_t a = 0; a < A; ++a) {
        const Box anchor = {cell[a].x1 + w * stride, cell[a].y1 + h * stride,
                            cell[a].x2 + w * stride, cell[a].y2 + h * stride, 0};
        Box b = Predict(p, anchor, deltas + a * 4 * plane + h * W + w, plane, im_h, im_w);
        b.score = (h >= real_h || w >= real_w) ? -1.0f : scores[a * plane + h * W + w];
        if (b.x2 - b.x1 + 1.0f < min_size || b.y2 - b.y1 + 1.0f < min_size) {
          b.x1 -= min_size / 2;
          b.y1 -= min_size / 2;
          b.x2 += min_size / 2;
          b.y2 += min_size / 2;
          b.score = -1.0f;
        }
        boxes[(h * W + w) * A + a] = b;
      }
    }
  }
  const index_t pre =
      p.rpn_pre_nms_top_n > 0 ? std::min<index_t>(p.rpn_pre_nms_top_n, count) : count;
  std::vector<index_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](index_t i, index_t j) { return boxes[i].score > boxes[j].score; });
  std::vector<Box> best(pre);
  for (index_t i = 0; i < pre; ++i) best[i] = boxes[order[i]];
  const index_t post = p.rpn_post_nms_top_n;
  const std::vector<index_t> keep = Suppress(best, p.threshold, std::min(post, pre));
  for (index_t i = 0; i < post; ++i) {
    const Box& b = best[keep[i % keep.size()]];
    float* r = rois + i * 5;
    r[0] = batch;
    r[1] = b.x1;
    r[2] = b.y1;
    r[3] = b.x2;
    r[4] = b.y2;
    out_scores[i] = b.score;
  }
}

// cls_prob (N, 2A, H, W), bbox_pred (N, 4A, H, W), im_info (N, 3) -> rois (N * post, 5) and
// scores (N * post, 1); Proposal takes N = 1 only.
bool ProposalShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ProposalParam& p = Param<ProposalParam>(attrs);
  const std::string& op = attrs.op->name;
  const TShape& cls = (*in)[0];
  if (!cls.IsKnown()) return false;
  CHECK_EQ(cls.ndim(), 4) << "Operator " << op << ": cls_prob expected 4 dims (batch, "
                          << "2 * num_anchors, height, width), given shape " << cls;
  const index_t A = p.ratios.ndim() * p.scales.ndim();
  CHECK_EQ(cls[1], 2 * A) << "Operator " << op << ": cls_prob expected 2 * len(ratios) * "
                          << "len(scales) = " << 2 * A << " channels, given shape " << cls;
  CHECK_GT(p.rpn_post_nms_top_n, 0) << "Operator " << op << ": argument rpn_post_nms_top_n "
                                    << "expected positive, given " << p.rpn_post_nms_top_n;
  CHECK_GT(p.feature_stride, 0) << "Operator " << op << ": argument feature_stride expected "
                                << "positive, given " << p.feature_stride;
  const bool multi = op == "_contrib_MultiProposal";
  CHECK(multi || cls[0] == 1) << "Operator " << op << ": cls_prob expected a batch of 1 image "
                              << "(use _contrib_MultiProposal for more), given shape " << cls;
  AssignInputShape(attrs, 1, &(*in)[1], TShape({cls[0], 2 * cls[1], cls[2], cls[3]}));
  AssignInputShape(attrs, 2, &(*in)[2], TShape({cls[0], 3}));
  const index_t rows = cls[0] * p.rpn_post_nms_top_n;
  AssignShape(attrs, "output", &(*out)[0], TShape({rows, 5}));
  AssignShape(attrs, "score", &(*out)[1], TShape({rows, 1}));
  return true;
}

bool ProposalType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  for (size_t i = 0; i < in->size(); ++i) AssignInputType(attrs, i, &(*in)[i], kFloat32);
  AssignType(attrs, "output", &(*out)[0], kFloat32);
  AssignType(attrs, "score", &(*out)[1], kFloat32);
  return true;
}

void ProposalForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  const ProposalParam& p = Param<ProposalParam>(attrs);
  const TShape& s = in[0].shape_;
  const index_t N = s[0], A = s[1] / 2, H = s[2], W = s[3], post = p.rpn_post_nms_top_n;
  const std::vector<Box> cell = CellAnchors(p);
  const float* cls = in[0].dptr<float>();
  const float* deltas = in[1].dptr<float>();
  const float* info = in[2].dptr<float>();
  float* rois = out[0].dptr<float>();
  float* scores = out[1].dptr<float>();
  // Checked before the parallel loop (an exception must not leave an OpenMP region).
  for (index_t n = 0; n < N; ++n) {
    const float im_h = info[n * 3], im_w = info[n * 3 + 1];
    CHECK(static_cast<index_t>(im_h / p.feature_stride) <= H &&
          static_cast<index_t>(im_w / p.feature_stride) <= W)
        << "Operator " << attrs.op->name << ": im_info of image " << n << " (" << im_h << " x "
        << im_w << " at feature_stride " << p.feature_stride << ") expected within the feature "
        << "map " << H << " x " << W << " times feature_stride";
  }
  // Images are independent; each one's NMS is quadratic, so a batch of 2 is worth threads.
  LoopMaybeParallel(N > 1, N, [&](index_t n) {
    ProposeImage(p, cell, cls + (n * 2 + 1) * A * H * W, deltas + n * 4 * A * H * W, info + n * 3,
                 H, W, static_cast<float>(n), rois + n * post * 5, scores + n * post);
  });
}

std::vector<NodeEntry> ZeroGradOfInputs(const ObjectPtr& n, const std::vector<NodeEntry>&) {
  return ZeroGrads(n);
}

// _contrib_Proposal and _contrib_MultiProposal: one declaration, two docs.
void RegisterProposal(const char* name, const char* doc) {
  nnvm::Op::Register(name)
      .describe(doc)
      .set_num_inputs(3)
      .set_num_outputs(2)
      .set_attr<FNumVisibleOutputs>(
          "FNumVisibleOutputs",
          [](const NodeAttrs& attrs) { return Param<ProposalParam>(attrs).output_score ? 2U : 1U; })
      .set_attr_parser(ParamParser<ProposalParam>)
      .add_argument("cls_prob", "NDArray-or-Symbol", "Score of how likely proposal is object.")
      .add_argument("bbox_pred", "NDArray-or-Symbol",
                    "BBox Predicted deltas from anchors for proposals")
      .add_argument("im_info", "NDArray-or-Symbol", "Image size and scale.")
      .add_arguments(ProposalParam::__FIELDS__())
      .set_attr<FListInputNames>("FListInputNames",
                                 InputNames({"cls_prob", "bbox_pred", "im_info"}))
      .set_attr<FListOutputNames>("FListOutputNames", InputNames({"output", "score"}))
      .set_attr<FInferShape>("FInferShape", ProposalShape)
      .set_attr<FInferType>("FInferType", ProposalType)
      .set_attr<FCompute>("FCompute<cpu>", ProposalForward)
      .set_attr<FGradient>("FGradient", ZeroGradOfInputs);
}

const bool registered [[maybe_unused]] = [] {
  RegisterProposal("_contrib_Proposal", R"doc(Generate region proposals via RPN

``cls_prob`` is ``(1, 2 * num_anchors, height, width)`` (background scores, then foreground),
``bbox_pred`` ``(1, 4 * num_anchors, height, width)``, ``im_info`` ``(1, 3)`` of
``[image height, image width, scale]``. Outputs ``rpn_post_nms_top_n`` rows of
``[0, x1, y1, x2, y2]`` and, with ``output_score``, their scores.
)doc");
  RegisterProposal("_contrib_MultiProposal", R"doc(Generate region proposals via RPN

The batch version of Proposal: image ``n`` of ``cls_prob``, ``bbox_pred`` and ``im_info``
gives rows ``n * rpn_post_nms_top_n`` to ``(n + 1) * rpn_post_nms_top_n - 1`` of the output,
with batch index ``n``.
)doc");
  return true;
}();

}  // namespace
}  // namespace op
}  // namespace mxnet
