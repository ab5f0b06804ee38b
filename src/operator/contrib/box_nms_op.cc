// _contrib_box_nms: non-maximum suppression of scored boxes, per batch; its backward routes
// each kept row's gradient back to the input row it came from.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "operator/nn/float_op_helpers.h"

namespace mxnet {
namespace op {

namespace {
enum BoxFormat { kCornerBox = 0, kCenterBox };
}  // namespace

struct BoxNMSParam : public dmlc::Parameter<BoxNMSParam> {
  float overlap_thresh, valid_thresh;
  int topk, coord_start, score_index, id_index, background_id;
  bool force_suppress;
  int in_format, out_format;
  DMLC_DECLARE_PARAMETER(BoxNMSParam) {
    DMLC_DECLARE_FIELD(overlap_thresh).set_default(0.5).describe(
        "Overlapping(IoU) threshold to suppress object with smaller score.");
    DMLC_DECLARE_FIELD(valid_thresh).set_default(0).describe(
        "Filter input boxes to those whose scores greater than valid_thresh.");
    DMLC_DECLARE_FIELD(topk).set_default(-1).describe(
        "Apply nms to topk boxes with descending scores, -1 to no restriction.");
    DMLC_DECLARE_FIELD(coord_start).set_default(2).describe("Start index of the consecutive 4 "
                                                            "coordinates.");
    DMLC_DECLARE_FIELD(score_index).set_default(1).describe("Index of the scores/confidence of "
                                                            "boxes.");
    DMLC_DECLARE_FIELD(id_index).set_default(-1).describe(
        "Optional, index of the class categories, -1 to disable.");
    DMLC_DECLARE_FIELD(background_id).set_default(-1).describe(
        "Optional, id of the background class which will be ignored in nms.");
    DMLC_DECLARE_FIELD(force_suppress).set_default(false).describe(
        "Optional, if set false and id_index is provided, nms will only apply to boxes "
        "belongs to the same category");
    DMLC_DECLARE_FIELD(in_format)
        .set_default(kCornerBox)
        .add_enum("corner", kCornerBox)
        .add_enum("center", kCenterBox)
        .describe("The input box encoding type. \n \"corner\" means boxes are encoded as "
                  "[xmin, ymin, xmax, ymax], \"center\" means boxes are encodes as [x, y, "
                  "width, height].");
    DMLC_DECLARE_FIELD(out_format)
        .set_default(kCornerBox)
        .add_enum("corner", kCornerBox)
        .add_enum("center", kCenterBox)
        .describe("The output box encoding type. \n \"corner\" means boxes are encoded as "
                  "[xmin, ymin, xmax, ymax], \"center\" means boxes are encodes as [x, y, "
                  "width, height].");
  }
};
DMLC_REGISTER_PARAMETER(BoxNMSParam);

namespace {

// data (..., N, W) -> output of the same shape and, hidden, the source row of each output
// row (..., N, 1), -1 for padding.
bool NMSShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const BoxNMSParam& p = Param<BoxNMSParam>(attrs);
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  const std::string& op = attrs.op->name;
  CHECK_GE(d.ndim(), 2) << "Operator " << op << ": input data expected (..., num_boxes, "
                        << "box_width), given shape " << d;
  const int width = d[d.ndim() - 1], coord_end = p.coord_start + 3;
  CHECK_GE(width, p.id_index >= 0 ? 6 : 5)
      << "Operator " << op << ": each box needs a score and 4 coordinates"
      << (p.id_index >= 0 ? " and a class id" : "") << ", given rows of " << width;
  CHECK(p.score_index >= 0 && p.score_index < width)
      << "Operator " << op << ": argument score_index=" << p.score_index
      << " out of range [0, " << width << ")";
  CHECK(p.coord_start >= 0 && coord_end < width)
      << "Operator " << op << ": coordinates (" << p.coord_start << ", " << coord_end
      << ") out of range [0, " << width << ")";
  CHECK(p.score_index < p.coord_start || p.score_index > coord_end)
      << "Operator " << op << ": score_index=" << p.score_index << " conflicts with the "
      << "coordinates (" << p.coord_start << ", " << coord_end << ")";
  if (p.id_index >= 0) {
    CHECK(p.id_index < width && (p.id_index < p.coord_start || p.id_index > coord_end) &&
          p.id_index != p.score_index)
        << "Operator " << op << ": id_index=" << p.id_index << " out of range or conflicting "
        << "with score_index / coordinates";
  }
  TShape rec = d;
  rec[rec.ndim() - 1] = 1;
  AssignShape(attrs, "output", &(*out)[0], d);
  AssignShape(attrs, "record", &(*out)[1], rec);
  return true;
}

struct Rect {
  double l, t, r, b;
};

template <typename DType>
Rect RectOf(const DType* c, int format) {
  const double a = double(c[0]), b = double(c[1]), x = double(c[2]), y = double(c[3]);
  if (format == kCornerBox) return {a, b, x, y};
  return {a - x / 2, b - y / 2, a + x / 2, b + y / 2};
}

double Area(const Rect& q) {
  const double w = q.r - q.l, h = q.b - q.t;
  return (w < 0 || h < 0) ? 0.0 : w * h;
}

double Iou(const Rect& x, const Rect& y) {
  const double w = std::max(0.0, std::min(x.r, y.r) - std::max(x.l, y.l));
  const double h = std::max(0.0, std::min(x.b, y.b) - std::max(x.t, y.t));
  const double inter = w * h;
  return inter / (Area(x) + Area(y) - inter);
}

// One batch: valid boxes by descending score (stable), the first topk of them kept unless a
// kept box of higher score (of the same class unless force_suppress) overlaps them more than
// overlap_thresh; kept rows go to the top of the output in order, the rest is -1.
template <typename DType>
void NMSBatch(const BoxNMSParam& p, const DType* in, DType* out, DType* record, index_t N,
              index_t W, index_t base) {
  std::vector<index_t> order;
  for (index_t i = 0; i < N; ++i) {
    const DType* row = in + i * W;
    bool valid = double(row[p.score_index]) > p.valid_thresh;
    if (p.id_index >= 0) valid = valid && double(row[p.id_index]) != p.background_id;
    if (valid) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) {
    return in[x * W + p.score_index] > in[y * W + p.score_index];
  });
  const index_t topk = p.topk < 0 ? N : std::min<index_t>(N, p.topk);
  if (static_cast<index_t>(order.size()) > topk) order.resize(topk);
  std::vector<Rect> rects;
  for (index_t i : order) rects.push_back(RectOf(in + i * W + p.coord_start, p.in_format));
  std::vector<bool> kept(order.size(), true);
  for (size_t a = 0; a < order.size(); ++a) {
    if (!kept[a]) continue;
    for (size_t b = a + 1; b < order.size(); ++b) {
      if (!kept[b]) continue;
      if (!p.force_suppress && p.id_index >= 0 &&
          static_cast<int>(double(in[order[a] * W + p.id_index])) !=
              static_cast<int>(double(in[order[b] * W + p.id_index]))) {
        continue;
      }
      if (Iou(rects[a], rects[b]) > p.overlap_thresh) kept[b] = false;
    }
  }
  std::fill(out, out + N * W, DType(-1));
  std::fill(record, record + N, DType(-1));
  index_t count = 0;
  for (size_t a = 0; a < order.size(); ++a) {
    if (!kept[a]) continue;
    DType* dst = out + count * W;
    std::copy(in + order[a] * W, in + order[a] * W + W, dst);
    if (p.in_format != p.out_format) {
      const Rect& q = rects[a];
      const double conv[4] = {p.out_format == kCenterBox ? (q.l + q.r) / 2 : q.l,
                              p.out_format == kCenterBox ? (q.t + q.b) / 2 : q.t,
                              p.out_format == kCenterBox ? q.r - q.l : q.r,
                              p.out_format == kCenterBox ? q.b - q.t : q.b};
      for (int k = 0; k < 4; ++k) dst[p.coord_start + k] = DType(conv[k]);
    }
    record[count] = DType(base + order[a]);
    ++count;
  }
}

void NMSForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BoxNMSParam& p = Param<BoxNMSParam>(attrs);
  const TShape& s = in[0].shape_;
  const index_t N = s[s.ndim() - 2], W = s[s.ndim() - 1];
  const index_t B = s.Size() / std::max<index_t>(1, N * W);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    // the output may share the input's memory: work from a copy then
    std::vector<DType> copy;
    if (out[0].dptr_ == in[0].dptr_) {
      copy.assign(x, x + s.Size());
      x = copy.data();
    }
    DType* y = out[0].dptr<DType>();
    DType* rec = out[1].dptr<DType>();
    if (p.topk == 0) {  // as 1.9.1: the input unchanged, every row its own source
      std::copy(x, x + s.Size(), y);
      for (index_t i = 0; i < B * N; ++i) rec[i] = DType(i);
      return;
    }
    LoopMaybeParallel(B * N * N >= ParallelGrain(), B, [&](index_t b) {
      NMSBatch(p, x + b * N * W, y + b * N * W, rec + b * N, N, W, b * N);
    });
  });
}

// _backward_contrib_box_nms: inputs (ograd of output, ograd of record, record); the data
// gradient holds each output row's gradient at its source row, zeros elsewhere.
void NMSBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TShape& s = out[0].shape_;
  const index_t W = s[s.ndim() - 1], rows = s.Size() / std::max<index_t>(1, W);
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    const DType* rec = in[2].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    if (req[0] != kAddTo) std::fill(dx, dx + s.Size(), DType(0));
    for (index_t i = 0; i < rows; ++i) {
      const index_t src = static_cast<index_t>(double(rec[i]));
      if (src < 0) continue;
      for (index_t k = 0; k < W; ++k) dx[src * W + k] += g[i * W + k];
    }
  });
}

std::vector<NodeEntry> NMSGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry bwd = MakeNode("_backward_contrib_box_nms", GradName(n),
                           {og[0], og[1], Out(n, 1)}, n->attrs.dict, &n);
  return {bwd};
}

bool NMSBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                      std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  AssignShape(attrs, "data gradient", &(*out)[0], (*in)[0]);
  return true;
}

}  // namespace

NNVM_REGISTER_OP(_contrib_box_nms)
    .add_alias("_contrib_box_non_maximum_suppression")
    .add_alias("_npx_box_nms")
    .describe(R"doc(Apply non-maximum suppression to input.

The output will be sorted in descending order according to `score`. Boxes with
overlaps larger than `overlap_thresh`, smaller scores and background boxes
will be removed and filled with -1, the corresponding position will be recorded
for backward propagation.

During back-propagation, the gradient will be copied to the original
position according to the input index. For positions that have been suppressed,
the in_grad will be assigned 0.
In summary, gradients are sticked to its boxes, will either be moved or discarded
according to its original index in input.

Input requirements::

  1. Input tensor have at least 2 dimensions, (n, k), any higher dims will be regarded
  as batch, e.g. (a, b, c, d, n, k) == (a*b*c*d, n, k)
  2. n is the number of boxes in each batch
  3. k is the width of each box item.

By default, a box is [id, score, xmin, ymin, xmax, ymax, ...],
additional elements are allowed.

- `id_index`: optional, use -1 to ignore, useful if `force_suppress=False`, which means
  we will skip highly overlapped boxes if one is `apple` while the other is `car`.

- `background_id`: optional, default=-1, class id for background boxes, useful
  when `id_index >= 0` which means boxes with background id will be filtered before nms.

- `coord_start`: required, default=2, the starting index of the 4 coordinates.
  Two formats are supported:

    - `corner`: [xmin, ymin, xmax, ymax]

    - `center`: [x, y, width, height]

- `score_index`: required, default=1, box score/confidence.
  When two boxes overlap IOU > `overlap_thresh`, the one with smaller score will be suppressed.

- `in_format` and `out_format`: default='corner', specify in/out box formats.

Only boxes with score above `valid_thresh` (and, with `id_index`, not of `background_id`)
take part; of them the `topk` best (all with -1). `topk=0` returns the input unchanged.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs", [](const NodeAttrs&) { return 1U; })
    .set_attr_parser(ParamParser<BoxNMSParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input")
    .add_arguments(BoxNMSParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data"}))
    .set_attr<FInferShape>("FInferShape", NMSShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirstInput)
    .set_attr<FCompute>("FCompute<cpu>", NMSForward)
    .set_attr<FGradient>("FGradient", NMSGrad);

NNVM_REGISTER_OP(_backward_contrib_box_nms)
    .describe("Gradient of _contrib_box_nms: each kept row's gradient at its source row.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<BoxNMSParam>)
    .add_arguments(BoxNMSParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", NMSBackwardShape)
    .set_attr<FInferType>("FInferType", FloatElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", NMSBackward);

}  // namespace op
}  // namespace mxnet
