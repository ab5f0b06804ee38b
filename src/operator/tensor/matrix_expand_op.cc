// Operators that repeat, pad or re-place elements: tile, repeat, Pad and diag, with the
// internal adjoints _pad_grad and _diag_grad_like that their gradients use.
#include <algorithm>

#include "common/np_shape.h"
#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {
namespace {

// ================================================================ tile
struct TileParam : public dmlc::Parameter<TileParam> {
  IntTuple reps;
  DMLC_DECLARE_PARAMETER(TileParam) {
    DMLC_DECLARE_FIELD(reps).describe(
        "The number of times for repeating the tensor a. Each dim size of reps must be a "
        "positive integer. If reps has length d, the result will have dimension of max(d, "
        "a.ndim); If a.ndim < d, a is promoted to be d-dimensional by prepending new axes. If "
        "a.ndim > d, reps is promoted to a.ndim by pre-pending 1's to it.");
  }
};
DMLC_REGISTER_PARAMETER(TileParam);

// Input dims and reps aligned to the right over max(ndim, len(reps)) dims.
void TileAlign(const NodeAttrs& attrs, const TShape& d, std::vector<dim_t>* dims,
               std::vector<dim_t>* reps) {
  const IntTuple& r = Param<TileParam>(attrs).reps;
  int nd = std::max(d.ndim(), r.ndim());
  dims->assign(nd, 1);
  reps->assign(nd, 1);
  for (int i = 0; i < d.ndim(); ++i) (*dims)[nd - d.ndim() + i] = d[i];
  for (int i = 0; i < r.ndim(); ++i) {
    if (r[i] < 0) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument reps=" << r
                 << " must be non-negative";
    }
    (*reps)[nd - r.ndim() + i] = r[i];
  }
}

bool TileShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  std::vector<dim_t> dims, reps;
  TileAlign(attrs, d, &dims, &reps);
  for (size_t i = 0; i < dims.size(); ++i) dims[i] *= reps[i];
  // Outside numpy-shape semantics a 0 dim means unknown, so reps with a 0 give no shape (as
  // in MXNet 1.9.1); zero-size results need numpy shapes.
  if (common::NumpyShapeState() == kNumpyShapeOff &&
      std::find(dims.begin(), dims.end(), 0) != dims.end()) {
    CHECK(common::InGraphShapeInference())
        << "Operator tile: argument reps makes the output shape " << ShapeOf(dims)
        << ", whose 0 dim means an unknown size outside numpy-shape semantics; zero-size "
        << "results need "
        << "mx.set_np_shape(True) or `with mx.np_shape():`";
    return false;
  }
  AssignShape(attrs, "output", &(*out)[0], ShapeOf(dims));
  return true;
}

void TileCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  std::vector<dim_t> dims, reps;
  TileAlign(attrs, in[0].shape_, &dims, &reps);
  std::vector<index_t> ost = ContiguousStrides(out[0].shape_);
  // Output dim k is (rep, element) with element stride st and rep stride dims[k]*ost[k].
  StridedPlan p;
  index_t sacc = 1;
  std::vector<index_t> st(dims.size());
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
    st[k] = sacc;
    sacc *= dims[k];
  }
  for (size_t k = 0; k < dims.size(); ++k) {
    p.Push(reps[k], 0, dims[k] * ost[k]);
    p.Push(dims[k], st[k], ost[k]);
  }
  StridedCopy(p, out[0].type_flag_, in[0].dptr_, out[0].dptr_, req[0]);
}

// d/data tile = sum of the tiled blocks: split each tiled dim into (rep, element), sum the reps.
std::vector<NodeEntry> TileGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const IntTuple& reps = Param<TileParam>(n->attrs).reps;
  if (reps.ndim() == 0) return {GradNode(n, "reshape_like", {og[0], n->inputs[0]})};
  for (int64_t r : reps) {
    if (r == 0) return {ZeroGradOf(n, 0)};
  }
  // With reverse=True, (r, -1, -4) splits a dim into (r, dim / r) counting from the right.
  std::vector<int64_t> shape{-2};
  std::vector<int64_t> axes;
  for (int i = 0; i < reps.ndim(); ++i) {
    shape.push_back(reps[i]);
    shape.push_back(-1);
    shape.push_back(-4);
    axes.push_back(-2 * (reps.ndim() - i));
  }
  NodeEntry split = GradNode(n, "Reshape", {og[0]},
                             {{"shape", TupleText(shape)}, {"reverse", "True"}});
  NodeEntry summed = GradNode(n, "sum", {split}, {{"axis", TupleText(axes)}});
  return {GradNode(n, "reshape_like", {summed, n->inputs[0]})};
}

NNVM_REGISTER_OP(tile)
    .describe("Repeats the whole array multiple times along each axis (numpy.tile).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<TileParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data array")
    .add_arguments(TileParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", TileShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", TileCompute)
    .set_attr<FGradient>("FGradient", TileGrad);

// ================================================================ repeat
struct RepeatParam : public dmlc::Parameter<RepeatParam> {
  int repeats;
  dmlc::optional<int> axis;
  DMLC_DECLARE_PARAMETER(RepeatParam) {
    DMLC_DECLARE_FIELD(repeats).describe("The number of repetitions for each element.");
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>()).describe(
        "The axis along which to repeat values. The negative numbers are interpreted counting "
        "from the backward. By default, use the flattened input array, and return a flat "
        "output array.");
  }
};
DMLC_REGISTER_PARAMETER(RepeatParam);

// -1 when repeating the flattened array, else the checked axis.
int RepeatAxis(const NodeAttrs& attrs, int ndim) {
  const RepeatParam& p = Param<RepeatParam>(attrs);
  if (p.repeats < 0) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument repeats must be non-negative, "
               << "given " << p.repeats;
  }
  if (!p.axis.has_value()) return -1;
  return CheckAxis(attrs, "axis", p.axis.value(), ndim);
}

bool RepeatShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  const int r = Param<RepeatParam>(attrs).repeats;
  int axis = RepeatAxis(attrs, d.ndim());
  TShape o;
  if (r == 0) {
    o = TShape({0});  // MXNet: zero repeats give an empty 1-D array
  } else if (axis < 0) {
    o = TShape({static_cast<dim_t>(d.Size()) * r});
  } else {
    o = d;
    o[axis] *= r;
  }
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

void RepeatCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& s = in[0].shape_;
  const dim_t r = Param<RepeatParam>(attrs).repeats;
  if (r == 0) return;
  int axis = RepeatAxis(attrs, s.ndim());
  StridedPlan p;
  if (axis < 0) {
    p.Push(static_cast<dim_t>(s.Size()), 1, r);
    p.Push(r, 0, 1);
  } else {
    std::vector<index_t> st = ContiguousStrides(s);
    std::vector<index_t> ost = ContiguousStrides(out[0].shape_);
    for (int k = 0; k < s.ndim(); ++k) {
      if (k == axis) {
        p.Push(s[k], st[k], r * ost[k]);
        p.Push(r, 0, ost[k]);
      } else {
        p.Push(s[k], st[k], ost[k]);
      }
    }
  }
  StridedCopy(p, out[0].type_flag_, in[0].dptr_, out[0].dptr_, req[0]);
}

// d/data repeat: split the repeated axis into (element, repeat) and sum the repeats.
std::vector<NodeEntry> RepeatGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const RepeatParam& p = Param<RepeatParam>(n->attrs);
  if (p.repeats == 0) return {ZeroGradOf(n, 0)};
  const std::string r = std::to_string(p.repeats);
  NodeEntry split, summed;
  if (!p.axis.has_value()) {
    split = GradNode(n, "Reshape", {og[0]}, {{"shape", "(-1," + r + ")"}});
    summed = GradNode(n, "sum", {split}, {{"axis", "(1,)"}});
  } else if (p.axis.value() >= 0) {
    std::vector<std::string> shape(p.axis.value(), "0");
    shape.insert(shape.end(), {"-4", "-1", r, "-2"});
    split = GradNode(n, "Reshape", {og[0]}, {{"shape", TupleText(shape)}});
    summed = GradNode(n, "sum", {split}, {{"axis", TupleText(std::vector<int>{p.axis.value() + 1})}});
  } else {
    // Counting from the right (reverse=True): (-2, -1, r, -4, 0, ...) splits dim `axis`.
    std::vector<std::string> shape{"-2", "-1", r, "-4"};
    for (int i = 1; i < -p.axis.value(); ++i) shape.push_back("0");
    split = GradNode(n, "Reshape", {og[0]}, {{"shape", TupleText(shape)}, {"reverse", "True"}});
    summed = GradNode(n, "sum", {split}, {{"axis", TupleText(std::vector<int>{p.axis.value()})}});
  }
  return {GradNode(n, "reshape_like", {summed, n->inputs[0]})};
}

NNVM_REGISTER_OP(repeat)
    .describe("Repeats elements of an array (numpy.repeat); without axis the flattened array is "
              "repeated and the output is 1-D.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<RepeatParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data array")
    .add_arguments(RepeatParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", RepeatShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", RepeatCompute)
    .set_attr<FGradient>("FGradient", RepeatGrad);

// ================================================================ Pad
namespace pad_enum {
enum PadMode { kConstant = 0, kEdge = 1, kReflect = 2 };
}

struct PadParam : public dmlc::Parameter<PadParam> {
  int mode;
  double constant_value;
  IntTuple pad_width;
  DMLC_DECLARE_PARAMETER(PadParam) {
    DMLC_DECLARE_FIELD(mode)
        .add_enum("constant", pad_enum::kConstant)
        .add_enum("edge", pad_enum::kEdge)
        .add_enum("reflect", pad_enum::kReflect)
        .describe("Padding type to use. \"constant\" pads with `constant_value` \"edge\" pads "
                  "using the edge values of the input array \"reflect\" pads by reflecting "
                  "values with respect to the edges.");
    DMLC_DECLARE_FIELD(pad_width).describe(
        "Widths of the padding regions applied to the edges of each axis. It is a tuple of "
        "integer padding widths for each axis of the format ``(before_1, after_1, ... , "
        "before_N, after_N)``. It should be of length ``2*N`` where ``N`` is the number of "
        "dimensions of the array.This is equivalent to pad_width in numpy.pad, but flattened.");
    DMLC_DECLARE_FIELD(constant_value).set_default(0.0).describe(
        "The value used for padding when `mode` is \"constant\".");
  }
};
DMLC_REGISTER_PARAMETER(PadParam);

// Checks MXNet's Pad rules against the unpadded shape d.
void CheckPad(const NodeAttrs& attrs, const TShape& d) {
  const PadParam& p = Param<PadParam>(attrs);
  const std::string& op = attrs.op->name;
  if (d.ndim() != 4 && d.ndim() != 5) {
    LOG(FATAL) << "Operator " << op << ": argument data must be 4-D or 5-D (current "
               << "implementation), given shape " << d;
  }
  if (p.pad_width.ndim() != 2 * d.ndim()) {
    LOG(FATAL) << "Operator " << op << ": argument pad_width=" << p.pad_width << " has "
               << p.pad_width.ndim() << " entries, expected 2*ndim = " << 2 * d.ndim();
  }
  for (int i = 0; i < p.pad_width.ndim(); ++i) {
    if (p.pad_width[i] < 0) {
      LOG(FATAL) << "Operator " << op << ": argument pad_width=" << p.pad_width
                 << " must be non-negative";
    }
    if (i < 4 && p.pad_width[i] != 0) {
      LOG(FATAL) << "Operator " << op << ": argument pad_width=" << p.pad_width
                 << " pads the first two axes; the current implementation expects padding on "
                 << "the first two axes to be zero";
    }
  }
  if (p.mode == pad_enum::kReflect) {
    for (int i = 2; i < d.ndim(); ++i) {
      if (p.pad_width[2 * i] >= d[i] || p.pad_width[2 * i + 1] >= d[i]) {
        LOG(FATAL) << "Operator " << op << ": argument pad_width=" << p.pad_width
                   << " with mode='reflect' needs padding smaller than the input size, given "
                   << "shape " << d;
      }
    }
  }
  if (p.mode == pad_enum::kEdge) {
    for (int i = 2; i < d.ndim(); ++i) {
      if (d[i] == 0 && (p.pad_width[2 * i] > 0 || p.pad_width[2 * i + 1] > 0)) {
        LOG(FATAL) << "Operator " << op << ": mode='edge' cannot pad an empty axis " << i;
      }
    }
  }
}

bool PadShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CheckPad(attrs, d);
  const IntTuple& w = Param<PadParam>(attrs).pad_width;
  TShape o = d;
  for (int i = 0; i < d.ndim(); ++i) o[i] += w[2 * i] + w[2 * i + 1];
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

// For each padded dim, the source index of every output index (-1: constant value).
std::vector<std::vector<index_t>> PadMaps(const PadParam& p, const TShape& d) {
  std::vector<std::vector<index_t>> maps(d.ndim());
  for (int k = 0; k < d.ndim(); ++k) {
    const index_t n = d[k], before = p.pad_width[2 * k], after = p.pad_width[2 * k + 1];
    for (index_t o = 0; o < n + before + after; ++o) {
      index_t i = o - before;
      if (i < 0 || i >= n) {
        if (p.mode == pad_enum::kConstant) {
          i = -1;
        } else if (p.mode == pad_enum::kEdge) {
          i = i < 0 ? 0 : n - 1;
        } else {
          i = i < 0 ? -i : 2 * (n - 1) - i;
        }
      }
      maps[k].push_back(i);
    }
  }
  return maps;
}

// Visits every padded-output element as (padded offset, unpadded offset or -1). Rows of the
// first two axes (never padded) are independent, so they run in parallel.
template <typename Fn>
void ForEachPadded(const PadParam& p, const TShape& d, Fn fn) {
  std::vector<std::vector<index_t>> maps = PadMaps(p, d);
  const int nd = d.ndim();
  TShape o = d;
  for (int k = 0; k < nd; ++k) o[k] = static_cast<dim_t>(maps[k].size());
  std::vector<index_t> st = ContiguousStrides(d), ost = ContiguousStrides(o);
  const index_t outer = d[0] * d[1];
  const index_t per_in = st[1], per_out = ost[1];
  const index_t inner = o[nd - 1];
  index_t rows_per = per_out / std::max<index_t>(inner, 1);
  ParallelFor(outer, [&](index_t b) {
    for (index_t row = 0; row < rows_per; ++row) {
      index_t rem = row, ioff = b * per_in, ooff = b * per_out + row * inner;
      bool pad_row = false;
      for (int k = nd - 2; k >= 2; --k) {
        index_t c = rem % o[k];
        rem /= o[k];
        index_t src = maps[k][c];
        if (src < 0) pad_row = true; else ioff += src * st[k];
      }
      const std::vector<index_t>& last = maps[nd - 1];
      for (index_t j = 0; j < inner; ++j) {
        index_t src = last[j];
        fn(ooff + j, (pad_row || src < 0) ? -1 : ioff + src);
      }
    }
  });
}

void PadCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const PadParam& p = Param<PadParam>(attrs);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    const DType cv = ScalarAs<DType>(p.constant_value);
    const OpReqType r = req[0];
    ForEachPadded(p, in[0].shape_, [&](index_t o, index_t i) { Assign(y + o, r, i < 0 ? cv : x[i]); });
  });
}

// _pad_grad: the adjoint of Pad: each padded-output element adds into its source element.
bool PadGradShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& g = (*in)[0];
  if (!g.IsKnown()) return false;
  const IntTuple& w = Param<PadParam>(attrs).pad_width;
  if (w.ndim() != 2 * g.ndim()) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument pad_width=" << w
               << " does not match the gradient shape " << g;
  }
  TShape o = g;
  for (int i = 0; i < g.ndim(); ++i) {
    o[i] -= w[2 * i] + w[2 * i + 1];
    if (o[i] < 0) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument pad_width=" << w
                 << " is wider than the gradient shape " << g;
    }
  }
  CheckPad(attrs, o);
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

void PadGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const PadParam& p = Param<PadParam>(attrs);
  if (req[0] != kAddTo) FillElements(out[0].type_flag_, 0, out[0].dptr_, out[0].Size(), kWriteTo);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* x = out[0].dptr<DType>();
    ForEachPadded(p, out[0].shape_, [&](index_t o, index_t i) {
      if (i >= 0) x[i] = DType(x[i] + g[o]);
    });
  });
}

NNVM_REGISTER_OP(Pad)
    .add_alias("pad")
    .describe("Pads an input array with a constant or edge values of the array. The current "
              "implementation only supports 4-D and 5-D input arrays with padding applied only "
              "on axes 2 and beyond (pad_width entries of the first two axes must be 0).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<PadParam>)
    .add_argument("data", "NDArray-or-Symbol", "An n-dimensional input array.")
    .add_arguments(PadParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", PadShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", PadCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      const PadParam& p = Param<PadParam>(n->attrs);
      return std::vector<NodeEntry>{GradNode(
          n, "_pad_grad", {og[0]},
          {{"mode", n->attrs.dict.count("mode") ? n->attrs.dict.at("mode") : "constant"},
           {"pad_width", ArgText(p.pad_width)}})};
    });

NNVM_REGISTER_OP(_pad_grad)
    .describe("Internal: gradient of Pad (sums each padded element back into its source).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<PadParam>)
    .add_argument("data", "NDArray-or-Symbol", "Gradient of the padded output.")
    .add_arguments(PadParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", PadGradShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", PadGradCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      std::unordered_map<std::string, std::string> dict = n->attrs.dict;
      dict["constant_value"] = "0";
      return std::vector<NodeEntry>{GradNode(n, "Pad", {og[0]}, dict)};
    });

// ================================================================ diag
struct DiagParam : public dmlc::Parameter<DiagParam> {
  int k;
  int axis1;
  int axis2;
  DMLC_DECLARE_PARAMETER(DiagParam) {
    DMLC_DECLARE_FIELD(k).set_default(0).describe(
        "Diagonal in question. The default is 0. Use k>0 for diagonals above the main "
        "diagonal, and k<0 for diagonals below the main diagonal. If input has shape (S0 S1) k "
        "must be between -S0 and S1");
    DMLC_DECLARE_FIELD(axis1).set_default(0).describe(
        "The first axis of the sub-arrays of interest. Ignored when the input is a 1-D array.");
    DMLC_DECLARE_FIELD(axis2).set_default(1).describe(
        "The second axis of the sub-arrays of interest. Ignored when the input is a 1-D array.");
  }
};
DMLC_REGISTER_PARAMETER(DiagParam);

// Where the k-th diagonal of a (>= 2-D) array lives: the kept axes, its length and offset.
struct DiagPlan {
  int a1, a2;
  dim_t len;
  index_t offset;  // in elements, of the diagonal's first element
};

DiagPlan PlanDiag(const NodeAttrs& attrs, const TShape& s) {
  const DiagParam& p = Param<DiagParam>(attrs);
  DiagPlan d;
  d.a1 = CheckAxis(attrs, "axis1", p.axis1, s.ndim());
  d.a2 = CheckAxis(attrs, "axis2", p.axis2, s.ndim());
  if (d.a1 == d.a2) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": arguments axis1=" << p.axis1
               << " and axis2=" << p.axis2 << " refer to the same axis";
  }
  std::vector<index_t> st = ContiguousStrides(s);
  const dim_t n1 = s[d.a1], n2 = s[d.a2];
  // A diagonal starting past the matrix has no shape (MXNet 1.9.1 rejects it); one starting
  // just at its edge is empty.
  const dim_t len = p.k >= 0 ? std::min<dim_t>(n1, n2 - p.k) : std::min<dim_t>(n1 + p.k, n2);
  if (len < 0) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument k expected in [" << -n1 << ", "
               << n2 << "] for axes of sizes " << n1 << " and " << n2 << ", given " << p.k;
  }
  d.len = len;
  d.offset = d.len == 0 ? 0 : p.k >= 0 ? p.k * st[d.a2] : -p.k * st[d.a1];
  return d;
}

TShape DiagOfShape(const NodeAttrs& attrs, const TShape& s) {
  const int k = Param<DiagParam>(attrs).k;
  if (s.ndim() == 0) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument data must have at least one "
               << "dimension, given a scalar";
  }
  if (s.ndim() == 1) {
    dim_t n = s[0] + std::abs(k);
    return TShape({n, n});
  }
  DiagPlan d = PlanDiag(attrs, s);
  std::vector<dim_t> o;
  for (int i = 0; i < s.ndim(); ++i) {
    if (i != d.a1 && i != d.a2) o.push_back(s[i]);
  }
  o.push_back(d.len);
  return ShapeOf(o);
}

bool DiagShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;
  AssignShape(attrs, "output", &(*out)[0], DiagOfShape(attrs, (*in)[0]));
  return true;
}

// The plan visiting the diagonal of the >= 2-D array `full` against a contiguous `diag`
// array; full_is_src picks the direction (extract or place).
StridedPlan DiagCopyPlan(const NodeAttrs& attrs, const TShape& full, bool full_is_src) {
  DiagPlan d = PlanDiag(attrs, full);
  std::vector<index_t> st = ContiguousStrides(full);
  std::vector<dim_t> kept;
  std::vector<index_t> kst;
  for (int i = 0; i < full.ndim(); ++i) {
    if (i != d.a1 && i != d.a2) { kept.push_back(full[i]); kst.push_back(st[i]); }
  }
  kept.push_back(d.len);
  kst.push_back(st[d.a1] + st[d.a2]);
  std::vector<index_t> dst = ContiguousStrides(ShapeOf(kept));
  StridedPlan p;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (full_is_src) p.Push(kept[i], kst[i], dst[i]); else p.Push(kept[i], dst[i], kst[i]);
  }
  if (full_is_src) p.src_offset = d.offset; else p.dst_offset = d.offset;
  return p;
}

// 1-D v -> 2-D matrix with v on diagonal k (zeros elsewhere).
void PlaceVectorDiag(int k, const TBlob& v, const TBlob& m, OpReqType req) {
  const dim_t n = m.shape_[1];
  if (req != kAddTo) FillElements(m.type_flag_, 0, m.dptr_, m.Size(), kWriteTo);
  StridedPlan p;
  p.Push(v.shape_[0], 1, n + 1);
  p.dst_offset = k >= 0 ? k : -k * n;
  StridedCopy(p, m.type_flag_, v.dptr_, m.dptr_, req == kAddTo ? kAddTo : kWriteTo);
}

void DiagCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (in[0].ndim() == 1) {
    PlaceVectorDiag(Param<DiagParam>(attrs).k, in[0], out[0], req[0]);
    return;
  }
  StridedCopy(DiagCopyPlan(attrs, in[0].shape_, true), out[0].type_flag_, in[0].dptr_,
              out[0].dptr_, req[0]);
}

// _diag_grad_like(ograd, like): the adjoint of diag for an input shaped like `like`.
bool DiagGradShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& like = (*in)[1];
  if (!like.IsKnown()) return false;
  AssignInputShape(attrs, 0, &(*in)[0], DiagOfShape(attrs, like));
  AssignShape(attrs, "output", &(*out)[0], like);
  return true;
}

void DiagGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const TBlob& g = in[0];
  const TBlob& x = out[0];
  if (x.ndim() == 1) {  // forward built a matrix: read its diagonal back
    const int k = Param<DiagParam>(attrs).k;
    const dim_t n = g.shape_[1];
    StridedPlan p;
    p.Push(x.shape_[0], n + 1, 1);
    p.src_offset = k >= 0 ? k : -k * n;
    StridedCopy(p, x.type_flag_, g.dptr_, x.dptr_, req[0]);
    return;
  }
  if (req[0] != kAddTo) FillElements(x.type_flag_, 0, x.dptr_, x.Size(), kWriteTo);
  StridedCopy(DiagCopyPlan(attrs, x.shape_, false), x.type_flag_, g.dptr_, x.dptr_,
              req[0] == kAddTo ? kAddTo : kWriteTo);
}

NNVM_REGISTER_OP(diag)
    .describe("Extracts a diagonal or constructs a diagonal array. A 1-D input gives the 2-D "
              "array with the input on diagonal k; an N-D input gives the k-th diagonal of the "
              "sub-arrays spanned by axis1 and axis2, appended as the last axis.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<DiagParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .add_arguments(DiagParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", DiagShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", DiagCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{
          GradNode(n, "_diag_grad_like", {og[0], n->inputs[0]}, n->attrs.dict)};
    });

NNVM_REGISTER_OP(_diag_grad_like)
    .describe("Internal: gradient of diag for an input shaped like `like`.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<DiagParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of diag's output.")
    .add_argument("like", "NDArray-or-Symbol", "diag's input (for its shape).")
    .add_arguments(DiagParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"ograd", "like"}))
    .set_attr<FInferShape>("FInferShape", DiagGradShape)
    .set_attr<FInferType>("FInferType", FirstInputType)
    .set_attr<FCompute>("FCompute<cpu>", DiagGradCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "diag", {og[0]}, n->attrs.dict), ZeroGradOf(n, 1)};
    });

}  // namespace
}  // namespace op
}  // namespace mxnet
