// Basic slicing: slice (crop), slice_axis, slice_like, and the region writes behind
// __setitem__ (_slice_assign, _slice_assign_scalar), with the internal adjoints
// _slice_grad, _slice_axis_grad and _slice_like_grad that the gradients use.
#include <algorithm>

#include "operator/tensor/matrix_op_common.h"
#include "operator/tensor/sparse_ops.h"

namespace mxnet {
namespace op {
namespace {

// ================================================================ the region of a slice
struct SliceParam : public dmlc::Parameter<SliceParam> {
  OptIntTuple begin, end, step;
  DMLC_DECLARE_PARAMETER(SliceParam) {
    DMLC_DECLARE_FIELD(begin).describe(
        "starting indices for the slice operation, supports negative indices.");
    DMLC_DECLARE_FIELD(end).describe(
        "ending indices for the slice operation, supports negative indices.");
    DMLC_DECLARE_FIELD(step).set_default(OptIntTuple()).describe(
        "step for the slice operation, supports negative values.");
  }
};
DMLC_REGISTER_PARAMETER(SliceParam);

struct SliceAssignScalarParam : public dmlc::Parameter<SliceAssignScalarParam> {
  double scalar;
  OptIntTuple begin, end, step;
  DMLC_DECLARE_PARAMETER(SliceAssignScalarParam) {
    DMLC_DECLARE_FIELD(scalar).set_default(0).describe("The scalar value for assignment.");
    DMLC_DECLARE_FIELD(begin).describe(
        "starting indices for the slice operation, supports negative indices.");
    DMLC_DECLARE_FIELD(end).describe(
        "ending indices for the slice operation, supports negative indices.");
    DMLC_DECLARE_FIELD(step).set_default(OptIntTuple()).describe(
        "step for the slice operation, supports negative values.");
  }
};
DMLC_REGISTER_PARAMETER(SliceAssignScalarParam);

// Per axis: first index, step and count of a slice of an array of shape d.
struct SliceRegion {
  std::vector<index_t> begin, step;
  std::vector<dim_t> size;
  TShape Shape() const { return ShapeOf(size); }
};

// MXNet's slice rules (numpy-like; None picks the natural bound for the step's sign).
SliceRegion GetSliceRegion(const NodeAttrs& attrs, const TShape& d, const OptIntTuple& pb,
                           const OptIntTuple& pe, const OptIntTuple& ps) {
  const std::string& op = attrs.op->name;
  if (d.ndim() == 0) LOG(FATAL) << "Operator " << op << ": cannot slice a 0-d array";
  if (pb.ndim() > d.ndim() || pe.ndim() > d.ndim()) {
    LOG(FATAL) << "Operator " << op << ": arguments begin and end have " << pb.ndim() << " and "
               << pe.ndim() << " entries, more than the data's " << d.ndim() << " dimensions";
  }
  if (pb.ndim() != pe.ndim()) {
    LOG(FATAL) << "Operator " << op << ": arguments begin=" << pb << " and end=" << pe
               << " must have the same length";
  }
  if (ps.ndim() != 0 && ps.ndim() != pb.ndim()) {
    LOG(FATAL) << "Operator " << op << ": argument step=" << ps
               << " must have the same length as begin=" << pb;
  }
  SliceRegion r;
  for (int i = 0; i < d.ndim(); ++i) {
    const index_t len = d[i];
    if (i >= pb.ndim()) {
      r.begin.push_back(0);
      r.step.push_back(1);
      r.size.push_back(len);
      continue;
    }
    index_t s = ps.ndim() > 0 && ps[i].has_value() ? ps[i].value() : 1;
    if (s == 0) LOG(FATAL) << "Operator " << op << ": argument step[" << i << "] cannot be 0";
    index_t b = 0, e = 0;
    if (len > 0) {
      b = pb[i].has_value() ? pb[i].value() : (s < 0 ? len - 1 : 0);
      e = pe[i].has_value() ? pe[i].value() : (s < 0 ? -1 : len);
      if (b < 0) b += len;
      if (e < 0 && pe[i].has_value()) e += len;
      if (b < 0 && s > 0) b = 0;
      if (b > len - 1 && s < 0) b = len - 1;
      if (b < 0 || b > len - 1) b = -1;
      e = std::min<index_t>(std::max<index_t>(e, -1), len);
    }
    dim_t n = 0;
    if (e != b && b >= 0) {
      if (s > 0) n = e > b ? (e - b - 1) / s + 1 : 0;
      else n = e < b ? (b - e - 1) / (-s) + 1 : 0;
    }
    r.begin.push_back(n > 0 ? b : 0);
    r.step.push_back(s);
    r.size.push_back(n);
  }
  return r;
}

// Visits the region of the array `full` against a contiguous array of the region's shape.
StridedPlan RegionPlan(const SliceRegion& r, const TShape& full, bool full_is_src) {
  std::vector<index_t> st = ContiguousStrides(full);
  std::vector<index_t> cst = ContiguousStrides(r.Shape());
  StridedPlan p;
  index_t off = 0;
  for (int i = 0; i < full.ndim(); ++i) {
    off += r.begin[i] * st[i];
    if (full_is_src) p.Push(r.size[i], st[i] * r.step[i], cst[i]);
    else p.Push(r.size[i], cst[i], st[i] * r.step[i]);
  }
  if (full_is_src) p.src_offset = off; else p.dst_offset = off;
  return p;
}

template <typename P>
SliceRegion RegionOf(const NodeAttrs& attrs, const TShape& d) {
  const P& p = Param<P>(attrs);
  return GetSliceRegion(attrs, d, p.begin, p.end, p.step);
}

// The output shape rule `of` applied to an input of known ndim whose some dims are unknown:
// those dims get a stand-in size large enough for any begin/end, and stay unknown in the
// output (partial inference, as MXNet 1.9.1 does for slice and slice_axis).
template <typename ShapeRule>
bool SlicedShape(const NodeAttrs& attrs, const TShape& d, TShape* out, ShapeRule of) {
  if (d.ndim() < 0) return false;
  constexpr dim_t kStandIn = dim_t{1} << 40;
  TShape full = d;
  for (int i = 0; i < full.ndim(); ++i) {
    if (full[i] < 0) full[i] = kStandIn;
  }
  TShape o = of(full);
  for (int i = 0; i < o.ndim() && i < d.ndim(); ++i) {
    if (d[i] < 0) o[i] = -1;
  }
  AssignShape(attrs, "output", out, o);
  return d.IsKnown();
}

bool SliceShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  return SlicedShape(attrs, (*in)[0], &(*out)[0], [&](const TShape& full) {
    return RegionOf<SliceParam>(attrs, full).Shape();
  });
}

void SliceCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  SliceRegion r = RegionOf<SliceParam>(attrs, in[0].shape_);
  StridedCopy(RegionPlan(r, in[0].shape_, true), out[0].type_flag_, in[0].dptr_, out[0].dptr_,
              req[0]);
}

// A csr array slices into a csr array when every step is 1 (rows, and columns when given).
bool SliceStorage(const NodeAttrs& attrs, int, DispatchMode* mode, std::vector<int>* in,
                  std::vector<int>* out) {
  const SliceParam& p = Param<SliceParam>(attrs);
  bool unit_steps = true;
  for (int i = 0; i < p.step.ndim(); ++i) {
    unit_steps = unit_steps && (!p.step[i].has_value() || p.step[i].value() == 1);
  }
  if ((*in)[0] == kCSRStorage && unit_steps) {
    (*out)[0] = kCSRStorage;
    *mode = DispatchMode::kFComputeEx;
  } else if ((*in)[0] == kDefaultStorage) {
    (*out)[0] = kDefaultStorage;
    *mode = DispatchMode::kFCompute;
  } else {
    *mode = DispatchMode::kFComputeFallback;
  }
  return true;
}

void SliceCsrCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<NDArray>& in,
                     const std::vector<OpReqType>& req, const std::vector<NDArray>& out) {
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator slice: req 'add' is not supported for a csr output";
  SliceRegion r = RegionOf<SliceParam>(attrs, in[0].shape());
  SliceCsr(in[0], out[0], r.begin[0], r.begin.size() > 1 ? r.begin[1] : 0);
}

std::unordered_map<std::string, std::string> RegionDict(const NodeAttrs& attrs) {
  std::unordered_map<std::string, std::string> d;
  for (const char* k : {"begin", "end", "step"}) {
    auto it = attrs.dict.find(k);
    if (it != attrs.dict.end()) d[k] = it->second;
  }
  return d;
}

// One node writing zeros and the region (not zeros_like then _slice_assign, which holds a
// second array of the input's size).
std::vector<NodeEntry> SliceGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {GradNode(n, "_slice_grad", {og[0], n->inputs[0]}, RegionDict(n->attrs))};
}

// _slice_grad(ograd, like): zeros shaped like `like` with ograd in the region.
bool SliceGradShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape like = (*in)[1];
  AssignShape(attrs, "output", &like, (*out)[0]);
  if (!like.IsKnown()) return false;
  AssignShape(attrs, "ograd", &(*in)[0], RegionOf<SliceParam>(attrs, like).Shape());
  AssignShape(attrs, "like", &(*in)[1], like);
  AssignShape(attrs, "output", &(*out)[0], like);
  return true;
}

void SliceGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SliceRegion r = RegionOf<SliceParam>(attrs, out[0].shape_);
  if (req[0] != kAddTo) FillElements(out[0].type_flag_, 0, out[0].dptr_, out[0].Size(), kWriteTo);
  StridedCopy(RegionPlan(r, out[0].shape_, false), out[0].type_flag_, in[0].dptr_, out[0].dptr_,
              req[0] == kAddTo ? kAddTo : kWriteTo);
}

// _slice_assign(lhs, rhs): lhs with the region replaced by rhs.
bool SliceAssignShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape d = (*in)[0];
  AssignShape(attrs, "output", &d, (*out)[0]);
  if (!d.IsKnown()) return false;
  AssignShape(attrs, "rhs", &(*in)[1], RegionOf<SliceParam>(attrs, d).Shape());
  AssignShape(attrs, "lhs", &(*in)[0], d);
  AssignShape(attrs, "output", &(*out)[0], d);
  return true;
}

void SliceAssignCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SliceRegion r = RegionOf<SliceParam>(attrs, out[0].shape_);
  StridedPlan p = RegionPlan(r, out[0].shape_, false);
  if (req[0] == kAddTo) {
    // out += lhs with the region replaced: add lhs outside the region, rhs inside.
    const size_t bytes = out[0].Size() * DTypeSize(out[0].type_flag_);
    void* tmp = ctx.RequestTempSpace(bytes);
    CopyElements(out[0].type_flag_, in[0].dptr_, tmp, out[0].Size(), kWriteTo);
    StridedCopy(p, out[0].type_flag_, in[1].dptr_, tmp, kWriteTo);
    CopyElements(out[0].type_flag_, tmp, out[0].dptr_, out[0].Size(), kAddTo);
    return;
  }
  CopyElements(out[0].type_flag_, in[0].dptr_, out[0].dptr_, out[0].Size(), kWriteTo);  // no-op in place
  StridedCopy(p, out[0].type_flag_, in[1].dptr_, out[0].dptr_, kWriteTo);
}

std::vector<NodeEntry> SliceAssignGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  auto dict = RegionDict(n->attrs);
  auto zero_dict = dict;
  zero_dict["scalar"] = "0";
  return {GradNode(n, "_slice_assign_scalar", {og[0]}, zero_dict),
          GradNode(n, "slice", {og[0]}, dict)};
}

// _slice_assign_scalar(data): data with the region set to scalar.
bool SliceAssignScalarShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                            std::vector<TShape>* out) {
  if (!ElemwiseShape(attrs, in, out)) return false;
  RegionOf<SliceAssignScalarParam>(attrs, (*in)[0]);  // validates begin/end/step
  return true;
}

void SliceAssignScalarCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SliceRegion r = RegionOf<SliceAssignScalarParam>(attrs, out[0].shape_);
  StridedPlan p = RegionPlan(r, out[0].shape_, false);
  const double v = Param<SliceAssignScalarParam>(attrs).scalar;
  if (req[0] == kAddTo) {
    const size_t bytes = out[0].Size() * DTypeSize(out[0].type_flag_);
    void* tmp = ctx.RequestTempSpace(bytes);
    CopyElements(out[0].type_flag_, in[0].dptr_, tmp, out[0].Size(), kWriteTo);
    StridedFill(p, out[0].type_flag_, v, tmp, kWriteTo);
    CopyElements(out[0].type_flag_, tmp, out[0].dptr_, out[0].Size(), kAddTo);
    return;
  }
  CopyElements(out[0].type_flag_, in[0].dptr_, out[0].dptr_, out[0].Size(), kWriteTo);  // no-op in place
  StridedFill(p, out[0].type_flag_, v, out[0].dptr_, kWriteTo);
}

std::vector<NodeEntry> SliceAssignScalarGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  auto dict = RegionDict(n->attrs);
  dict["scalar"] = "0";
  return {GradNode(n, "_slice_assign_scalar", {og[0]}, dict)};
}

NNVM_REGISTER_OP(slice)
    .add_alias("crop")
    .describe("Slices a region of the array: begin, end and step give, per leading axis, the "
              "numpy-style slice begin:end:step (None entries take the default).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SliceParam>)
    .add_argument("data", "NDArray-or-Symbol", "Source input")
    .add_arguments(SliceParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", SliceShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", SliceCompute)
    .set_attr<FInferStorageType>("FInferStorageType", SliceStorage)
    .set_attr<FComputeEx>("FComputeEx<cpu>", SliceCsrCompute)
    .set_attr<FGradient>("FGradient", SliceGrad);

NNVM_REGISTER_OP(_slice_grad)
    .describe("Internal: gradient of slice (zeros shaped like `like`, ograd in the region).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SliceParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of slice's output.")
    .add_argument("like", "NDArray-or-Symbol", "slice's input (for its shape).")
    .add_arguments(SliceParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"ograd", "like"}))
    .set_attr<FInferShape>("FInferShape", SliceGradShape)
    .set_attr<FInferType>("FInferType", FirstInputType)
    .set_attr<FCompute>("FCompute<cpu>", SliceGradCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "slice", {og[0]}, RegionDict(n->attrs)),
                                    ZeroGradOf(n, 1)};
    });

NNVM_REGISTER_OP(_slice_assign)
    .add_alias("_crop_assign")
    .describe("Assign the rhs to a cropped subset of lhs: the output is lhs with the region "
              "begin:end:step replaced by rhs (whose shape must be the region's).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SliceParam>)
    .add_argument("lhs", "NDArray-or-Symbol", "Source input")
    .add_argument("rhs", "NDArray-or-Symbol", "value to assign")
    .add_arguments(SliceParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"lhs", "rhs"}))
    .set_attr<FInferShape>("FInferShape", SliceAssignShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", SliceAssignCompute)
    .set_attr<FGradient>("FGradient", SliceAssignGrad);

NNVM_REGISTER_OP(_slice_assign_scalar)
    .add_alias("_crop_assign_scalar")
    .describe("(Assign the scalar to a cropped subset of the input: the output is data with the "
              "region begin:end:step set to scalar.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SliceAssignScalarParam>)
    .add_argument("data", "NDArray-or-Symbol", "Source input")
    .add_arguments(SliceAssignScalarParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", SliceAssignScalarShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
    .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
    .set_attr<FCompute>("FCompute<cpu>", SliceAssignScalarCompute)
    .set_attr<FGradient>("FGradient", SliceAssignScalarGrad);

// ================================================================ slice_axis
struct SliceAxisParam : public dmlc::Parameter<SliceAxisParam> {
  int axis;
  int64_t begin;
  dmlc::optional<int64_t> end;
  DMLC_DECLARE_PARAMETER(SliceAxisParam) {
    DMLC_DECLARE_FIELD(axis).describe("Axis along which to be sliced, supports negative indexes.");
    DMLC_DECLARE_FIELD(begin).describe(
        "The beginning index along the axis to be sliced,  supports negative indexes.");
    DMLC_DECLARE_FIELD(end).describe(
        "The ending index along the axis to be sliced,  supports negative indexes.");
  }
};
DMLC_REGISTER_PARAMETER(SliceAxisParam);

// The axis and [begin, end) of slice_axis on shape d (MXNet requires begin < end).
void SliceAxisRange(const NodeAttrs& attrs, const TShape& d, int* axis, index_t* b, index_t* e) {
  const SliceAxisParam& p = Param<SliceAxisParam>(attrs);
  *axis = CheckAxis(attrs, "axis", p.axis, d.ndim());
  const index_t len = d[*axis];
  *b = p.begin < 0 ? p.begin + len : p.begin;
  if (len == 0) {
    *b = 0;
    *e = 0;
    return;
  }
  *e = p.end.has_value() ? p.end.value() : len;
  if (*e < 0) *e += len;
  if (*b < 0 || *e > len || *b >= *e) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": arguments begin=" << p.begin
               << ", end=" << p.end << " select an empty or out-of-range part of axis "
               << p.axis << " (size " << len << "); expected 0 <= begin < end <= size";
  }
}

bool SliceAxisShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  return SlicedShape(attrs, (*in)[0], &(*out)[0], [&](const TShape& full) {
    int axis;
    index_t b, e;
    SliceAxisRange(attrs, full, &axis, &b, &e);
    TShape o = full;
    o[axis] = e - b;
    return o;
  });
}

// The plan copying the [b, e) part of `full` along axis against a contiguous part array.
StridedPlan AxisPartPlan(const TShape& full, int axis, index_t b, index_t e, bool full_is_src) {
  const index_t outer = full.ProdShape(0, axis), inner = full.ProdShape(axis + 1, full.ndim());
  const index_t len = full[axis], n = e - b;
  StridedPlan p;
  if (full_is_src) {
    p.Push(outer, len * inner, n * inner);
    p.Push(n * inner, 1, 1);
    p.src_offset = b * inner;
  } else {
    p.Push(outer, n * inner, len * inner);
    p.Push(n * inner, 1, 1);
    p.dst_offset = b * inner;
  }
  return p;
}

void SliceAxisCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  int axis;
  index_t b, e;
  SliceAxisRange(attrs, in[0].shape_, &axis, &b, &e);
  StridedCopy(AxisPartPlan(in[0].shape_, axis, b, e, true), out[0].type_flag_, in[0].dptr_,
              out[0].dptr_, req[0]);
}

// _slice_axis_grad(ograd, like): zeros shaped like `like` with ograd in the sliced part.
bool SliceAxisGradShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out) {
  const TShape& like = (*in)[1];
  if (!like.IsKnown()) return false;
  int axis;
  index_t b, e;
  SliceAxisRange(attrs, like, &axis, &b, &e);
  TShape part = like;
  part[axis] = e - b;
  AssignShape(attrs, "ograd", &(*in)[0], part);
  AssignShape(attrs, "output", &(*out)[0], like);
  return true;
}

void SliceAxisGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  int axis;
  index_t b, e;
  SliceAxisRange(attrs, out[0].shape_, &axis, &b, &e);
  if (req[0] != kAddTo) FillElements(out[0].type_flag_, 0, out[0].dptr_, out[0].Size(), kWriteTo);
  StridedCopy(AxisPartPlan(out[0].shape_, axis, b, e, false), out[0].type_flag_, in[0].dptr_,
              out[0].dptr_, req[0] == kAddTo ? kAddTo : kWriteTo);
}

std::unordered_map<std::string, std::string> AxisDict(const NodeAttrs& attrs) {
  const SliceAxisParam& p = Param<SliceAxisParam>(attrs);
  return {{"axis", std::to_string(p.axis)}, {"begin", std::to_string(p.begin)},
          {"end", ArgText(p.end)}};
}

NNVM_REGISTER_OP(slice_axis)
    .describe("Slices along a given axis: the part [begin, end) of axis (negative indices count "
              "from the end; end=None means the axis size).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SliceAxisParam>)
    .add_argument("data", "NDArray-or-Symbol", "Source input")
    .add_arguments(SliceAxisParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", SliceAxisShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", SliceAxisCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{
          GradNode(n, "_slice_axis_grad", {og[0], n->inputs[0]}, AxisDict(n->attrs))};
    });

NNVM_REGISTER_OP(_slice_axis_grad)
    .describe("Internal: gradient of slice_axis (zeros shaped like `like`, ograd in the part).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SliceAxisParam>)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of slice_axis's output.")
    .add_argument("like", "NDArray-or-Symbol", "slice_axis's input (for its shape).")
    .add_arguments(SliceAxisParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"ograd", "like"}))
    .set_attr<FInferShape>("FInferShape", SliceAxisGradShape)
    .set_attr<FInferType>("FInferType", FirstInputType)
    .set_attr<FCompute>("FCompute<cpu>", SliceAxisGradCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "slice_axis", {og[0]}, AxisDict(n->attrs)),
                                    ZeroGradOf(n, 1)};
    });

// ================================================================ slice_like
struct SliceLikeParam : public dmlc::Parameter<SliceLikeParam> {
  IntTuple axes;
  DMLC_DECLARE_PARAMETER(SliceLikeParam) {
    DMLC_DECLARE_FIELD(axes).set_default(IntTuple()).describe(
        "List of axes on which input data will be sliced according to the corresponding size "
        "of the second input. By default will slice on all axes. Negative axes are supported.");
  }
};
DMLC_REGISTER_PARAMETER(SliceLikeParam);

// The shape of data[:like.shape[a] for a in axes] (all axes when axes is empty).
TShape SliceLikeOf(const NodeAttrs& attrs, const TShape& d, const TShape& like) {
  const IntTuple& axes = Param<SliceLikeParam>(attrs).axes;
  const std::string& op = attrs.op->name;
  TShape o = d;
  std::vector<int> list;
  if (axes.ndim() == 0) {
    if (d.ndim() != like.ndim()) {
      LOG(FATAL) << "Operator " << op << ": slicing on all axes needs inputs of equal ndim, "
                 << "given data " << d << " and shape_like " << like;
    }
    for (int i = 0; i < d.ndim(); ++i) list.push_back(i);
  } else {
    for (int64_t a : axes) {
      int ax = CheckAxis(attrs, "axes", a, d.ndim());
      if (ax >= like.ndim()) {
        LOG(FATAL) << "Operator " << op << ": argument axes=" << axes << " has axis " << a
                   << " beyond shape_like's " << like.ndim() << " dimensions";
      }
      list.push_back(ax);
    }
  }
  for (int ax : list) {
    if (like[ax] > d[ax]) {
      LOG(FATAL) << "Operator " << op << ": axis " << ax << " of shape_like " << like
                 << " is larger than that of data " << d;
    }
    o[ax] = like[ax];
  }
  return o;
}

bool SliceLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown() || !(*in)[1].IsKnown()) return false;
  AssignShape(attrs, "output", &(*out)[0], SliceLikeOf(attrs, (*in)[0], (*in)[1]));
  return true;
}

// The plan of the leading corner `part` of `full`.
StridedPlan CornerPlan(const TShape& full, const TShape& part, bool full_is_src) {
  std::vector<index_t> st = ContiguousStrides(full), pst = ContiguousStrides(part);
  StridedPlan p;
  for (int i = 0; i < full.ndim(); ++i) {
    if (full_is_src) p.Push(part[i], st[i], pst[i]); else p.Push(part[i], pst[i], st[i]);
  }
  return p;
}

void SliceLikeCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  StridedCopy(CornerPlan(in[0].shape_, out[0].shape_, true), out[0].type_flag_, in[0].dptr_,
              out[0].dptr_, req[0]);
}

// _slice_like_grad(ograd, like): zeros shaped like `like` with ograd in the leading corner.
bool SliceLikeGradShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                        std::vector<TShape>* out) {
  const TShape& g = (*in)[0];
  const TShape& like = (*in)[1];
  if (!g.IsKnown() || !like.IsKnown()) return false;
  if (g.ndim() != like.ndim()) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": ograd " << g << " and like " << like
               << " must have the same ndim";
  }
  for (int i = 0; i < g.ndim(); ++i) {
    if (g[i] > like[i]) ShapeError(attrs, "ograd", like, g);
  }
  AssignShape(attrs, "output", &(*out)[0], like);
  return true;
}

void SliceLikeGradCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (req[0] != kAddTo) FillElements(out[0].type_flag_, 0, out[0].dptr_, out[0].Size(), kWriteTo);
  StridedCopy(CornerPlan(out[0].shape_, in[0].shape_, false), out[0].type_flag_, in[0].dptr_,
              out[0].dptr_, req[0] == kAddTo ? kAddTo : kWriteTo);
}

NNVM_REGISTER_OP(slice_like)
    .describe("Slices data like the shape of shape_like: on the given axes (all by default) "
              "the output keeps the leading shape_like.shape[axis] elements.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SliceLikeParam>)
    .add_argument("data", "NDArray-or-Symbol", "Source input")
    .add_argument("shape_like", "NDArray-or-Symbol", "Shape like input")
    .add_arguments(SliceLikeParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames", InputNames({"data", "shape_like"}))
    .set_attr<FInferShape>("FInferShape", SliceLikeShape)
    .set_attr<FInferType>("FInferType", FirstInputType)
    .set_attr<FCompute>("FCompute<cpu>", SliceLikeCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "_slice_like_grad", {og[0], n->inputs[0]}),
                                    ZeroGradOf(n, 1)};
    });

NNVM_REGISTER_OP(_slice_like_grad)
    .describe("Internal: gradient of slice_like (zeros shaped like `like`, ograd in the "
              "leading corner).")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .add_argument("ograd", "NDArray-or-Symbol", "Gradient of slice_like's output.")
    .add_argument("like", "NDArray-or-Symbol", "slice_like's data input (for its shape).")
    .set_attr<FListInputNames>("FListInputNames",
                               InputNames({"ograd", "like"}))
    .set_attr<FInferShape>("FInferShape", SliceLikeGradShape)
    .set_attr<FInferType>("FInferType", FirstInputType)
    .set_attr<FCompute>("FCompute<cpu>", SliceLikeGradCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "slice_like", {og[0], n->inputs[0]}),
                                    ZeroGradOf(n, 1)};
    });

}  // namespace
}  // namespace op
}  // namespace mxnet
