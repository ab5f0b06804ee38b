// Bounding-box operators of object detection: _contrib_box_iou (pairwise IoU),
// _contrib_bipartite_matching (greedy matching on a score matrix), _contrib_box_encode and
// _contrib_box_decode (anchor-relative box regression targets and their inverse).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "operator/nn/float_op_helpers.h"

namespace mxnet {
namespace op {

namespace box {
enum Format { kCorner = 0, kCenter };
}  // namespace box

#define MXNET_BOX_FORMAT_FIELD(field, dflt)                                                  \
  DMLC_DECLARE_FIELD(field)                                                                  \
      .set_default(dflt)                                                                     \
      .add_enum("corner", box::kCorner)                                                      \
      .add_enum("center", box::kCenter)                                                      \
      .describe("The box encoding type. \n \"corner\" means boxes are encoded as [xmin, "   \
                "ymin, xmax, ymax], \"center\" means boxes are encodes as [x, y, width, "    \
                "height].")

struct BoxOverlapParam : public dmlc::Parameter<BoxOverlapParam> {
  int format;
  DMLC_DECLARE_PARAMETER(BoxOverlapParam) { MXNET_BOX_FORMAT_FIELD(format, box::kCorner); }
};

struct BipartiteMatchingParam : public dmlc::Parameter<BipartiteMatchingParam> {
  bool is_ascend;
  float threshold;
  int topk;
  DMLC_DECLARE_PARAMETER(BipartiteMatchingParam) {
    DMLC_DECLARE_FIELD(is_ascend).set_default(false).describe(
        "Use ascend order for scores instead of descending. Please set threshold "
        "accordingly.");
    DMLC_DECLARE_FIELD(threshold).describe(
        "Ignore matching when score < thresh, if is_ascend=false, or ignore score > thresh, "
        "if is_ascend=true.");
    DMLC_DECLARE_FIELD(topk).set_default(-1).describe(
        "Limit the number of matches to topk, set -1 for no limit");
  }
};

struct BoxDecodeParam : public dmlc::Parameter<BoxDecodeParam> {
  float std0, std1, std2, std3, clip;
  int format;
  DMLC_DECLARE_PARAMETER(BoxDecodeParam) {
    DMLC_DECLARE_FIELD(std0).set_default(1.0).describe(
        "value to be divided from the 1st encoded values");
    DMLC_DECLARE_FIELD(std1).set_default(1.0).describe(
        "value to be divided from the 2nd encoded values");
    DMLC_DECLARE_FIELD(std2).set_default(1.0).describe(
        "value to be divided from the 3rd encoded values");
    DMLC_DECLARE_FIELD(std3).set_default(1.0).describe(
        "value to be divided from the 4th encoded values");
    DMLC_DECLARE_FIELD(clip).set_default(-1.0).describe(
        "If larger than 0, bounding box target will be clipped to this value.");
    MXNET_BOX_FORMAT_FIELD(format, box::kCenter);
  }
};

#undef MXNET_BOX_FORMAT_FIELD

DMLC_REGISTER_PARAMETER(BoxOverlapParam);
DMLC_REGISTER_PARAMETER(BipartiteMatchingParam);
DMLC_REGISTER_PARAMETER(BoxDecodeParam);

namespace {

// A box as (left, top, right, bottom) from either encoding.
struct Corners {
  double l, t, r, b;
  double Area() const {
    const double w = r - l, h = b - t;
    return (w < 0 || h < 0) ? 0.0 : w * h;
  }
};

template <typename DType>
Corners ReadBox(const DType* p, int format) {
  const double a = double(p[0]), b = double(p[1]), c = double(p[2]), d = double(p[3]);
  if (format == box::kCorner) return {a, b, c, d};
  return {a - c / 2, b - d / 2, a + c / 2, b + d / 2};
}

double IoU(const Corners& x, const Corners& y) {
  const double w = std::min(x.r, y.r) - std::max(x.l, y.l);
  const double h = std::min(x.b, y.b) - std::max(x.t, y.t);
  if (w <= 0 || h <= 0) return 0.0;
  const double inter = w * h;
  return inter / (x.Area() + y.Area() - inter);
}

void CheckBoxes(const NodeAttrs& attrs, size_t i, const TShape& s, int min_ndim) {
  CHECK_GE(s.ndim(), min_ndim) << "Operator " << attrs.op->name << ": input "
                               << InputName(attrs, i) << " expected at least " << min_ndim
                               << " dims, given shape " << s;
  CHECK_EQ(s[s.ndim() - 1], 4) << "Operator " << attrs.op->name << ": input "
                               << InputName(attrs, i) << " expected boxes of 4 coordinates "
                               << "on the last axis, given shape " << s;
}

// ---- box_iou: (..., 4) x (..., 4) -> lhs.shape[:-1] + rhs.shape[:-1]

bool BoxIouShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& l = (*in)[0];
  const TShape& r = (*in)[1];
  if (!l.IsKnown() || !r.IsKnown()) return false;
  CheckBoxes(attrs, 0, l, 2);
  CheckBoxes(attrs, 1, r, 2);
  TShape o(l.ndim() + r.ndim() - 2, 0);
  for (int i = 0; i < l.ndim() - 1; ++i) o[i] = l[i];
  for (int i = 0; i < r.ndim() - 1; ++i) o[l.ndim() - 1 + i] = r[i];
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

void BoxIouForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const int format = Param<BoxOverlapParam>(attrs).format;
  const index_t nl = in[0].Size() / 4, nr = in[1].Size() / 4;
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* lhs = in[0].dptr<DType>();
    const DType* rhs = in[1].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    LoopMaybeParallel(nl * nr >= ParallelGrain(), nl, [&](index_t i) {
      const Corners a = ReadBox(lhs + 4 * i, format);
      for (index_t j = 0; j < nr; ++j) {
        Assign(o + i * nr + j, req[0], DType(IoU(a, ReadBox(rhs + 4 * j, format))));
      }
    });
  });
}

// ---- bipartite_matching: (..., R, C) scores -> row matches (..., R), column matches (..., C)

bool MatchingShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_GE(d.ndim(), 2) << "Operator " << attrs.op->name << ": input data expected a score "
                        << "matrix (at least 2 dims), given shape " << d;
  TShape rows(d.ndim() - 1, 0);
  for (int i = 0; i < d.ndim() - 1; ++i) rows[i] = d[i];
  TShape cols = rows;
  cols[cols.ndim() - 1] = d[d.ndim() - 1];
  AssignShape(attrs, "output", &(*out)[0], rows);
  AssignShape(attrs, "output1", &(*out)[1], cols);
  return true;
}

// Per matrix: entries in score order (stable for ties); an entry whose row and column are
// both free matches them if its score passes the threshold, and ends the matching if not.
void MatchingForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BipartiteMatchingParam& p = Param<BipartiteMatchingParam>(attrs);
  const TShape& d = in[0].shape_;
  const index_t R = d[d.ndim() - 2], C = d[d.ndim() - 1];
  const index_t batch = d.Size() / std::max<index_t>(1, R * C);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* scores = in[0].dptr<DType>();
    DType* rmark = out[0].dptr<DType>();
    DType* cmark = out[1].dptr<DType>();
    LoopMaybeParallel(batch * R * C >= ParallelGrain(), batch, [&](index_t b) {
      const DType* s = scores + b * R * C;
      std::vector<index_t> order(R * C);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](index_t x, index_t y) {
        return p.is_ascend ? s[x] < s[y] : s[x] > s[y];
      });
      std::vector<index_t> row(R, -1), col(C, -1);
      int count = 0;
      for (index_t e : order) {
        const index_t r = e / C, c = e % C;
        if (row[r] != -1 || col[c] != -1) continue;
        const double v = double(s[e]);
        if (p.is_ascend ? !(v < p.threshold) : !(v > p.threshold)) break;
        row[r] = c;
        col[c] = r;
        if (p.topk > 0 && ++count >= p.topk) break;  // 1.9.1 stops one match later
      }
      for (index_t r = 0; r < R; ++r) Assign(rmark + b * R + r, req[0], DType(row[r]));
      for (index_t c = 0; c < C; ++c) Assign(cmark + b * C + c, req[1], DType(col[c]));
    });
  });
}

// ---- box_encode: (samples, matches, anchors, refs, means, stds) -> (targets, masks)

bool BoxEncodeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& anchors = (*in)[2];
  const TShape& refs = (*in)[3];
  if (!anchors.IsKnown() || !refs.IsKnown()) return false;
  CHECK_EQ(anchors.ndim(), 3) << "Operator " << attrs.op->name << ": input anchors expected "
                              << "shape (B, N, 4), given " << anchors;
  CheckBoxes(attrs, 2, anchors, 3);
  CHECK_EQ(refs.ndim(), 3) << "Operator " << attrs.op->name << ": input refs expected shape "
                           << "(B, M, 4), given " << refs;
  CheckBoxes(attrs, 3, refs, 3);
  const TShape bn({anchors[0], anchors[1]});
  AssignInputShape(attrs, 0, &(*in)[0], bn);
  AssignInputShape(attrs, 1, &(*in)[1], bn);
  AssignInputShape(attrs, 4, &(*in)[4], TShape({4}));
  AssignInputShape(attrs, 5, &(*in)[5], TShape({4}));
  AssignShape(attrs, "output", &(*out)[0], anchors);
  AssignShape(attrs, "mask", &(*out)[1], anchors);
  return true;
}

// Anchor i of batch b with a positive sample (> 0.5) gets the center-size offsets of its
// matched reference box, normalized by means and stds; mask 1. Others: target 0, mask 0.
void BoxEncodeForward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const index_t B = in[2].shape_[0], N = in[2].shape_[1], M = in[3].shape_[1];
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* samples = in[0].dptr<DType>();
    const DType* matches = in[1].dptr<DType>();
    const DType* anchors = in[2].dptr<DType>();
    const DType* refs = in[3].dptr<DType>();
    const DType* means = in[4].dptr<DType>();
    const DType* stds = in[5].dptr<DType>();
    DType* target = out[0].dptr<DType>();
    DType* mask = out[1].dptr<DType>();
    for (index_t i = 0; i < B * N; ++i) {
      const bool valid = double(samples[i]) > 0.5;
      double t[4] = {0, 0, 0, 0};
      if (valid) {
        const index_t m = static_cast<index_t>(double(matches[i]));
        CHECK(m >= 0 && m < M) << "Operator _contrib_box_encode: matches[" << i / N << ", "
                               << i % N << "] = " << m << " is not a reference index in [0, "
                               << M << ")";
        const Corners a = ReadBox(anchors + 4 * i, box::kCorner);
        const Corners r = ReadBox(refs + 4 * ((i / N) * M + m), box::kCorner);
        const double aw = a.r - a.l, ah = a.b - a.t, rw = r.r - r.l, rh = r.b - r.t;
        const double raw[4] = {((r.l + rw / 2) - (a.l + aw / 2)) / aw,
                               ((r.t + rh / 2) - (a.t + ah / 2)) / ah, std::log(rw / aw),
                               std::log(rh / ah)};
        for (int k = 0; k < 4; ++k) t[k] = (raw[k] - double(means[k])) / double(stds[k]);
      }
      for (int k = 0; k < 4; ++k) {
        Assign(target + 4 * i + k, req[0], DType(t[k]));
        Assign(mask + 4 * i + k, req[1], DType(valid ? 1 : 0));
      }
    }
  });
}

// ---- box_decode: (data (B, N, 4), anchors (1, N, 4)) -> corner boxes (B, N, 4)

bool BoxDecodeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_EQ(d.ndim(), 3) << "Operator " << attrs.op->name << ": input data expected shape "
                        << "(B, N, 4), given " << d;
  CheckBoxes(attrs, 0, d, 3);
  AssignInputShape(attrs, 1, &(*in)[1], TShape({1, d[1], 4}));
  AssignShape(attrs, "output", &(*out)[0], d);
  return true;
}

void BoxDecodeForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BoxDecodeParam& p = Param<BoxDecodeParam>(attrs);
  const index_t B = in[0].shape_[0], N = in[0].shape_[1];
  const double stds[4] = {p.std0, p.std1, p.std2, p.std3};
  MXNET_REAL_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    const DType* anchors = in[1].dptr<DType>();
    DType* o = out[0].dptr<DType>();
    for (index_t i = 0; i < B * N; ++i) {
      const Corners a = ReadBox(anchors + 4 * (i % N), p.format);
      const double aw = a.r - a.l, ah = a.b - a.t;
      const double cx = double(x[4 * i]) * stds[0] * aw + (a.l + aw / 2);
      const double cy = double(x[4 * i + 1]) * stds[1] * ah + (a.t + ah / 2);
      double dw = double(x[4 * i + 2]) * stds[2], dh = double(x[4 * i + 3]) * stds[3];
      if (p.clip > 0) {
        dw = std::min<double>(dw, p.clip);
        dh = std::min<double>(dh, p.clip);
      }
      const double hw = std::exp(dw) * aw / 2, hh = std::exp(dh) * ah / 2;
      const double box[4] = {cx - hw, cy - hh, cx + hw, cy + hh};
      for (int k = 0; k < 4; ++k) Assign(o + 4 * i + k, req[0], DType(box[k]));
    }
  });
}

bool FloatSameType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return FloatElemwiseType(attrs, in, out);
}

}  // namespace

NNVM_REGISTER_OP(_contrib_box_iou)
    .add_alias("_npx_box_iou")
    .describe(R"doc(Bounding box overlap of two arrays of boxes (intersection over union).

The overlap of boxes ``lhs`` (shape (..., 4)) with boxes ``rhs`` (shape (..., 4)) has shape
``lhs.shape[:-1] + rhs.shape[:-1]``: the area of each intersection divided by the area of the
union, 0 where boxes do not intersect. ``format`` says how boxes are encoded: "corner"
[xmin, ymin, xmax, ymax] or "center" [x, y, width, height].

Example::

  x = [[0.5, 0.5, 1.0, 1.0], [0.0, 0.0, 0.5, 0.5]]
  y = [[0.25, 0.25, 0.75, 0.75]]
  box_iou(x, y, format='corner') = [[0.1428], [0.1428]]

No gradient flows through it.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<BoxOverlapParam>)
    .add_argument("lhs", "NDArray-or-Symbol", "The first input")
    .add_argument("rhs", "NDArray-or-Symbol", "The second input")
    .add_arguments(BoxOverlapParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"lhs", "rhs"}))
    .set_attr<FInferShape>("FInferShape", BoxIouShape)
    .set_attr<FInferType>("FInferType", FloatSameType)
    .set_attr<FCompute>("FCompute<cpu>", BoxIouForward)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

NNVM_REGISTER_OP(_contrib_bipartite_matching)
    .add_alias("_npx_bipartite_matching")
    .describe(R"doc(Compute bipartite matching.

The matching is performed on the score matrix (the last two axes of ``data``; any leading
axes are a batch), greedily: pairs are taken in order of score (descending, or ascending
with ``is_ascend``) when both their row and their column are still free, until a score fails
``threshold`` or ``topk`` pairs are matched (MXNet 1.9.1 matches one pair more). Returns the
matched column of each row and the matched row of each column, -1 where none.

Example::

  s = [[0.5, 0.6], [0.1, 0.2], [0.3, 0.4]]
  x, y = bipartite_matching(s, threshold=1e-12, is_ascend=False)
  x = [1, -1, 0]
  y = [2, 0]

No gradient flows through it.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<BipartiteMatchingParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input")
    .add_arguments(BipartiteMatchingParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", MatchingShape)
    .set_attr<FInferType>("FInferType", FloatSameType)
    .set_attr<FCompute>("FCompute<cpu>", MatchingForward)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

NNVM_REGISTER_OP(_contrib_box_encode)
    .add_alias("_npx_box_encode")
    .describe(R"doc(Encode bounding boxes training target with normalized center offsets.

Input bounding boxes are using corner type: [xmin, ymin, xmax, ymax]. For anchor n of batch
b with ``samples[b, n] > 0.5`` (a positive sample), the reference box ``refs[b,
matches[b, n]]`` is encoded relative to the anchor as
``((x_r - x_a) / w_a, (y_r - y_a) / h_a, log(w_r / w_a), log(h_r / h_a))`` (centers and
sizes), minus ``means`` and divided by ``stds``; the mask is 1. Other anchors get target 0
and mask 0. Returns (targets, masks), both shaped like ``anchors``.
)doc")
    .set_num_inputs(6)
    .set_num_outputs(2)
    .add_argument("samples", "NDArray-or-Symbol",
                  "(B, N) value +1 (positive), -1 (negative), 0 (ignore)")
    .add_argument("matches", "NDArray-or-Symbol", "(B, N) value range [0, M)")
    .add_argument("anchors", "NDArray-or-Symbol", "(B, N, 4) encoded in corner")
    .add_argument("refs", "NDArray-or-Symbol", "(B, M, 4) encoded in corner")
    .add_argument("means", "NDArray-or-Symbol",
                  "(4,) Mean value to be subtracted from encoded values")
    .add_argument("stds", "NDArray-or-Symbol", "(4,) Std value to be divided from encoded values")
    .set_attr<FListInputNames>("FListInputNames", InputNames({"samples", "matches", "anchors",
                                                              "refs", "means", "stds"}))
    .set_attr<FInferShape>("FInferShape", BoxEncodeShape)
    .set_attr<FInferType>("FInferType", FloatSameType)
    .set_attr<FCompute>("FCompute<cpu>", BoxEncodeForward)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

NNVM_REGISTER_OP(_contrib_box_decode)
    .add_alias("_npx_box_decode")
    .describe(R"doc(Decode bounding boxes training target with normalized center offsets.

Input bounding boxes are using center type [x, y, width, height] or corner type, as
``format`` says of the anchors (shape (1, N, 4)); ``data`` (B, N, 4) holds the encoded
offsets (dx, dy, dw, dh). The output, in corner type, is the box centered at
``(dx * std0 * w_a + x_a, dy * std1 * h_a + y_a)`` of size
``(exp(dw * std2) * w_a, exp(dh * std3) * h_a)``; with ``clip`` > 0 the scaled dw and dh are
clipped to at most ``clip`` before the exponential.
)doc")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<BoxDecodeParam>)
    .add_argument("data", "NDArray-or-Symbol", "(B, N, 4) predicted bbox offset")
    .add_argument("anchors", "NDArray-or-Symbol", "(1, N, 4) encoded in corner or center")
    .add_arguments(BoxDecodeParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "anchors"}))
    .set_attr<FInferShape>("FInferShape", BoxDecodeShape)
    .set_attr<FInferType>("FInferType", FloatSameType)
    .set_attr<FCompute>("FCompute<cpu>", BoxDecodeForward)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

}  // namespace op
}  // namespace mxnet
