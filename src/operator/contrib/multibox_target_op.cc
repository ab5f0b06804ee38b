// _contrib_MultiBoxTarget: SSD training targets. Anchors are matched to ground-truth boxes
// (each box first takes its best anchor, then every anchor whose best overlap passes the
// threshold), negatives are the anchors left, or with hard negative mining the ones whose
// background probability is lowest; positives get class (label + 1) and box offsets.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "operator/nn/float_op_helpers.h"
#include "operator/optimizer/update_common.h"

namespace mxnet {
namespace op {

struct MultiBoxTargetParam : public dmlc::Parameter<MultiBoxTargetParam> {
  float overlap_threshold, ignore_label, negative_mining_ratio, negative_mining_thresh;
  int minimum_negative_samples;
  update::FloatTuple variances;
  DMLC_DECLARE_PARAMETER(MultiBoxTargetParam) {
    DMLC_DECLARE_FIELD(overlap_threshold).set_default(0.5f).describe(
        "Anchor-GT overlap threshold to be regarded as a positive match.");
    DMLC_DECLARE_FIELD(ignore_label).set_default(-1.0f).describe("Label for ignored anchors.");
    DMLC_DECLARE_FIELD(negative_mining_ratio).set_default(-1.0f).describe(
        "Max negative to positive samples ratio, use -1 to disable mining");
    DMLC_DECLARE_FIELD(negative_mining_thresh).set_default(0.5f).describe(
        "Threshold used for negative mining.");
    DMLC_DECLARE_FIELD(minimum_negative_samples).set_default(0).describe(
        "Minimum number of negative samples.");
    DMLC_DECLARE_FIELD(variances)
        .set_default(update::FloatTuple{{0.1f, 0.1f, 0.2f, 0.2f}})
        .describe("Variances to be encoded in box regression target.");
  }
};
DMLC_REGISTER_PARAMETER(MultiBoxTargetParam);

namespace {

// Inputs anchor (1, A, 4), label (B, L, W >= 5: class, xmin, ymin, xmax, ymax, ...), cls_pred
// (B, classes, A); outputs loc_target (B, A * 4), loc_mask (B, A * 4), cls_target (B, A).
bool TargetShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  const TShape& l = (*in)[1];
  if (!a.IsKnown() || !l.IsKnown()) return false;
  const std::string& op = attrs.op->name;
  CHECK(a.ndim() == 3 && a[0] == 1 && a[1] > 0 && a[2] == 4)
      << "Operator " << op << ": input anchor expected shape (1, num_anchors, 4), given " << a;
  CHECK(l.ndim() == 3 && l[1] > 0 && l[2] >= 5)
      << "Operator " << op << ": input label expected shape (batch, num_labels, >= 5), given "
      << l;
  const TShape& p = (*in)[2];
  if (p.IsKnown()) {
    CHECK(p.ndim() == 3 && p[2] == a[1])
        << "Operator " << op << ": input cls_pred expected shape (batch, num_classes, " << a[1]
        << "), given " << p;
  }
  AssignShape(attrs, "loc_target", &(*out)[0], TShape({l[0], a[1] * 4}));
  AssignShape(attrs, "loc_mask", &(*out)[1], TShape({l[0], a[1] * 4}));
  AssignShape(attrs, "cls_target", &(*out)[2], TShape({l[0], a[1]}));
  return p.IsKnown();
}

struct Box {
  float l, t, r, b;
};

float Overlap(const Box& x, const Box& y) {
  const float w = std::max(0.f, std::min(x.r, y.r) - std::max(x.l, y.l));
  const float h = std::max(0.f, std::min(x.b, y.b) - std::max(x.t, y.t));
  const float inter = w * h;
  const float uni = (x.r - x.l) * (x.b - x.t) + (y.r - y.l) * (y.b - y.t) - inter;
  return uni == 0 ? 0.f : inter / uni;
}

enum AnchorFlag : char { kIgnore = -1, kNegative = 0, kPositive = 1 };

template <typename DType>
void TargetsOfSample(const MultiBoxTargetParam& p, const std::vector<Box>& anchors,
                     const DType* label, index_t num_labels, index_t width,
                     const DType* cls_pred, index_t num_classes, DType* loc_target,
                     DType* loc_mask, DType* cls_target) {
  const index_t A = static_cast<index_t>(anchors.size());
  index_t num_gt = 0;  // labels up to the first padding row (class -1)
  while (num_gt < num_labels && float(label[num_gt * width]) != -1.0f) ++num_gt;
  if (num_gt == 0) return;
  std::vector<Box> gt(num_gt);
  for (index_t k = 0; k < num_gt; ++k) {
    const DType* g = label + k * width + 1;
    gt[k] = {float(g[0]), float(g[1]), float(g[2]), float(g[3])};
  }
  std::vector<float> iou(A * num_gt);
  for (index_t j = 0; j < A; ++j) {
    for (index_t k = 0; k < num_gt; ++k) iou[j * num_gt + k] = Overlap(anchors[j], gt[k]);
  }
  std::vector<char> flag(A, kIgnore);
  std::vector<std::pair<float, index_t>> best(A, {-1.f, -1});  // best overlap, its gt
  std::vector<bool> gt_done(num_gt, false);
  index_t positives = 0;
  // 1. every ground truth takes the free anchor it overlaps most, best pairs first
  while (true) {
    index_t ba = -1, bg = -1;
    float top = 1e-6f;
    for (index_t j = 0; j < A; ++j) {
      if (flag[j] == kPositive) continue;
      for (index_t k = 0; k < num_gt; ++k) {
        if (!gt_done[k] && iou[j * num_gt + k] > top) {
          ba = j;
          bg = k;
          top = iou[j * num_gt + k];
        }
      }
    }
    if (ba < 0) break;
    best[ba] = {top, bg};
    gt_done[bg] = true;
    flag[ba] = kPositive;
    ++positives;
  }
  const auto best_gt_of = [&](index_t j) {
    std::pair<float, index_t> m{-1.f, -1};
    for (index_t k = 0; k < num_gt; ++k) {
      if (iou[j * num_gt + k] > m.first) m = {iou[j * num_gt + k], k};
    }
    return m;
  };
  // 2. other anchors match their best ground truth when the overlap passes the threshold
  if (p.overlap_threshold > 0) {
    for (index_t j = 0; j < A; ++j) {
      if (flag[j] == kPositive) continue;
      best[j] = best_gt_of(j);
      if (best[j].second >= 0 && best[j].first > p.overlap_threshold) {
        flag[j] = kPositive;
        ++positives;
      }
    }
  }
  // 3. negatives: all the others, or the hardest ones (lowest background probability)
  if (p.negative_mining_ratio > 0) {
    index_t wanted = std::min<index_t>(static_cast<index_t>(positives * p.negative_mining_ratio),
                                       A - positives);
    if (wanted > 0) {
      std::vector<std::pair<float, index_t>> candidates;  // (-background prob, anchor)
      for (index_t j = 0; j < A; ++j) {
        if (flag[j] == kPositive) continue;
        if (best[j].first < 0) best[j] = best_gt_of(j);
        if (best[j].first >= p.negative_mining_thresh) continue;
        const auto score = [&](index_t c) { return double(cls_pred[j + A * c]); };
        double top = score(0);
        for (index_t c = 1; c < num_classes; ++c) top = std::max(top, score(c));
        double sum = 0;
        for (index_t c = 0; c < num_classes; ++c) sum += std::exp(score(c) - top);
        candidates.push_back({static_cast<float>(-std::exp(score(0) - top) / sum), j});
      }
      std::stable_sort(candidates.begin(), candidates.end(),
                       [](const std::pair<float, index_t>& x,
                          const std::pair<float, index_t>& y) { return x.first > y.first; });
      wanted = std::min<index_t>(wanted, static_cast<index_t>(candidates.size()));
      for (index_t i = 0; i < wanted; ++i) flag[candidates[i].second] = kNegative;
    }
  } else {
    for (index_t j = 0; j < A; ++j) {
      if (flag[j] != kPositive) flag[j] = kNegative;
    }
  }
  // 4. targets
  const float* v = p.variances.v.data();
  for (index_t j = 0; j < A; ++j) {
    if (flag[j] == kPositive) {
      const index_t k = best[j].second;
      cls_target[j] = DType(float(label[k * width]) + 1);
      const Box& a = anchors[j];
      const Box& g = gt[k];
      const float aw = a.r - a.l, ah = a.b - a.t, gw = g.r - g.l, gh = g.b - g.t;
      const float t[4] = {((g.l + g.r) * 0.5f - (a.l + a.r) * 0.5f) / aw / v[0],
                          ((g.t + g.b) * 0.5f - (a.t + a.b) * 0.5f) / ah / v[1],
                          std::log(gw / aw) / v[2], std::log(gh / ah) / v[3]};
      for (int c = 0; c < 4; ++c) {
        loc_target[j * 4 + c] = DType(t[c]);
        loc_mask[j * 4 + c] = DType(1);
      }
    } else if (flag[j] == kNegative) {
      cls_target[j] = DType(0);
    }
  }
}

void TargetForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const MultiBoxTargetParam& p = Param<MultiBoxTargetParam>(attrs);
  CHECK_EQ(p.variances.ndim(), 4) << "Operator " << attrs.op->name
                                  << ": argument variances expected 4 values, given "
                                  << p.variances;
  const index_t A = in[0].shape_[1], B = in[1].shape_[0], L = in[1].shape_[1];
  const index_t W = in[1].shape_[2], classes = in[2].shape_[1];
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* a = in[0].dptr<DType>();
    std::vector<Box> anchors(A);
    for (index_t j = 0; j < A; ++j) {
      anchors[j] = {float(a[4 * j]), float(a[4 * j + 1]), float(a[4 * j + 2]),
                    float(a[4 * j + 3])};
    }
    DType* loc = out[0].dptr<DType>();
    DType* mask = out[1].dptr<DType>();
    DType* cls = out[2].dptr<DType>();
    std::fill(loc, loc + B * A * 4, DType(0));
    std::fill(mask, mask + B * A * 4, DType(0));
    std::fill(cls, cls + B * A, DType(p.ignore_label));
    LoopMaybeParallel(B * A * L >= ParallelGrain(), B, [&](index_t b) {
      TargetsOfSample(p, anchors, in[1].dptr<DType>() + b * L * W, L, W,
                      in[2].dptr<DType>() + b * classes * A, classes, loc + b * A * 4,
                      mask + b * A * 4, cls + b * A);
    });
  });
}

}  // namespace

NNVM_REGISTER_OP(_contrib_MultiBoxTarget)
    .add_alias("_npx_multibox_target")
    .describe(R"doc(Compute Multibox training targets.

Anchors (1, A, 4, corner boxes) are matched to the labels (batch, num_labels, >= 5): each row
[class, xmin, ymin, xmax, ymax, ...], rows after the first with class -1 ignored. Each label
first takes the free anchor it overlaps most (best pairs first), then every other anchor whose
best overlap exceeds ``overlap_threshold`` matches that label. With
``negative_mining_ratio`` > 0, up to ratio x positives of the anchors whose best overlap is
below ``negative_mining_thresh`` and whose background probability (softmax of ``cls_pred``,
shape (batch, classes, A)) is lowest become negatives; without it every unmatched anchor is a
negative. Outputs: loc_target (batch, A * 4), the matched box as center offsets and log sizes
divided by ``variances``; loc_mask (batch, A * 4), 1 for positives; cls_target (batch, A):
label class + 1 for positives, 0 for negatives, ``ignore_label`` otherwise. No gradient
flows back.
)doc")
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<MultiBoxTargetParam>)
    .add_argument("anchor", "NDArray-or-Symbol", "Generated anchor boxes.")
    .add_argument("label", "NDArray-or-Symbol", "Object detection labels.")
    .add_argument("cls_pred", "NDArray-or-Symbol", "Class predictions.")
    .add_arguments(MultiBoxTargetParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"anchor", "label", "cls_pred"}))
    .set_attr<FListOutputNames>("FListOutputNames",
                                InputNames({"loc_target", "loc_mask", "cls_target"}))
    .set_attr<FInferShape>("FInferShape", TargetShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", TargetForward)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

}  // namespace op
}  // namespace mxnet
