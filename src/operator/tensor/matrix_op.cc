// Shape operators that keep every element: Reshape, reshape_like, Flatten, expand_dims, squeeze,
// shape_array, size_array, and the permuting ones: transpose, SwapAxis, reverse,
// depth_to_space, space_to_depth.
#include <algorithm>

#include "operator/tensor/matrix_op_common.h"

namespace mxnet {
namespace op {

// ================================================================ Reshape
struct ReshapeParam : public dmlc::Parameter<ReshapeParam> {
  IntTuple shape;
  bool reverse;
  IntTuple target_shape;
  bool keep_highest;
  DMLC_DECLARE_PARAMETER(ReshapeParam) {
    DMLC_DECLARE_FIELD(shape).set_default(IntTuple()).describe("The target shape");
    DMLC_DECLARE_FIELD(reverse).set_default(false).describe(
        "If true then the special values are inferred from right to left");
    DMLC_DECLARE_FIELD(target_shape).set_default(IntTuple()).describe(
        "(Deprecated! Use ``shape`` instead.) Target new shape. One and only one dim can be 0, "
        "in which case it will be inferred from the rest of dims");
    DMLC_DECLARE_FIELD(keep_highest).set_default(false).describe(
        "(Deprecated! Use ``shape`` instead.) Whether keep the highest dim unchanged.If set to "
        "true, then the first dim in target_shape is ignored,and always fixed as input");
  }
};
DMLC_REGISTER_PARAMETER(ReshapeParam);

namespace {

[[noreturn]] void ReshapeError(const NodeAttrs& attrs, const IntTuple& shape, const TShape& d,
                               const std::string& why) {
  LOG(FATAL) << "Operator " << attrs.op->name << ": argument shape=" << shape
             << " cannot reshape input of shape " << d << ": " << why;
  throw;  // unreachable
}

// Applies MXNet's special values (0 copy, -1 infer, -2 copy rest, -3 merge two, -4 split one)
// left to right over dshape.
TShape InferReshape(const NodeAttrs& attrs, const IntTuple& param, const TShape& dshape,
                    bool reverse) {
  std::vector<int64_t> spec(param.begin(), param.end());
  std::vector<dim_t> src(dshape.begin(), dshape.end());
  if (reverse) {
    std::reverse(spec.begin(), spec.end());
    std::reverse(src.begin(), src.end());
  }
  std::vector<dim_t> out;
  size_t si = 0;
  int inferred = -1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t v = spec[i];
    if (v == 0) {
      if (si >= src.size()) ReshapeError(attrs, param, dshape, "0 copies a dimension the input lacks");
      out.push_back(src[si++]);
    } else if (v == -1) {
      if (inferred >= 0) ReshapeError(attrs, param, dshape, "only one dimension can be -1");
      inferred = static_cast<int>(out.size());
      out.push_back(1);
      ++si;
    } else if (v == -2) {
      while (si < src.size()) out.push_back(src[si++]);
    } else if (v == -3) {
      if (si + 1 >= src.size()) ReshapeError(attrs, param, dshape, "-3 needs two input dimensions");
      out.push_back(src[si] * src[si + 1]);
      si += 2;
    } else if (v == -4) {
      if (i + 2 >= spec.size()) ReshapeError(attrs, param, dshape, "-4 must be followed by two values");
      if (si >= src.size()) ReshapeError(attrs, param, dshape, "-4 splits a dimension the input lacks");
      dim_t d0 = src[si++];
      int64_t d1 = spec[++i], d2 = spec[++i];
      if (d1 == -1 && d2 == -1) ReshapeError(attrs, param, dshape, "split dims cannot both be -1");
      if (d1 == -1) d1 = d2 != 0 ? d0 / d2 : 0;
      if (d2 == -1) d2 = d1 != 0 ? d0 / d1 : 0;
      if (d1 < 0 || d2 < 0 || d1 * d2 != d0) {
        ReshapeError(attrs, param, dshape, "split dims " + std::to_string(d1) + ", " +
                     std::to_string(d2) + " do not divide dimension " + std::to_string(d0));
      }
      out.push_back(d1);
      out.push_back(d2);
    } else if (v > 0) {
      out.push_back(v);
      ++si;
    } else {
      ReshapeError(attrs, param, dshape, "invalid value " + std::to_string(v));
    }
  }
  if (inferred >= 0) {
    dim_t rest = 1;
    for (size_t k = 0; k < out.size(); ++k) {
      if (static_cast<int>(k) != inferred) rest *= out[k];
    }
    if (rest == 0) ReshapeError(attrs, param, dshape, "cannot infer -1 next to a 0-size dimension");
    out[inferred] = static_cast<dim_t>(dshape.Size()) / rest;
  }
  if (reverse) std::reverse(out.begin(), out.end());
  return ShapeOf(out);
}

bool ReshapeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ReshapeParam& p = Param<ReshapeParam>(attrs);
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  TShape o;
  if (p.shape.ndim() > 0) {
    o = InferReshape(attrs, p.shape, d, p.reverse);
  } else if (p.target_shape.ndim() > 0) {  // legacy: 0 marks the one inferred dim
    std::vector<dim_t> t(p.target_shape.begin(), p.target_shape.end());
    size_t start = p.keep_highest ? 1 : 0;
    if (p.keep_highest && d.ndim() > 0) t[0] = d[0];
    int zero = -1, zeros = 0;
    dim_t rest = 1;
    for (size_t i = 0; i < t.size(); ++i) {
      if (i >= start && t[i] == 0) { zero = static_cast<int>(i); ++zeros; } else { rest *= t[i]; }
    }
    if (zeros == 1 && rest > 0) t[zero] = static_cast<dim_t>(d.Size()) / rest;
    o = ShapeOf(t);
  } else {
    if ((*out)[0].IsKnown()) {
      o = (*out)[0];
    } else {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument shape is required";
    }
  }
  if (o.Size() != d.Size()) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": target shape " << o << " (size "
               << o.Size() << ") differs in size from input shape " << d << " (size " << d.Size()
               << ")";
  }
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

std::vector<NodeEntry> ReshapeLikeDataGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {GradNode(n, "reshape_like", {og[0], n->inputs[0]})};
}

}  // namespace

NNVM_REGISTER_OP(Reshape)
    .add_alias("reshape")
    .describe("Reshapes the input array. Special values in shape: 0 copies the input dimension, "
              "-1 infers it, -2 copies all remaining, -3 merges two, -4 splits one into the two "
              "values that follow. With reverse=True the special values apply right to left.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ReshapeParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data to reshape.")
    .add_arguments(ReshapeParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ReshapeShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
    .set_attr<FCompute>("FCompute<cpu>", IdentityCompute)
    .set_attr<FGradient>("FGradient", ReshapeLikeDataGrad);

// ================================================================ reshape_like
struct ReshapeLikeParam : public dmlc::Parameter<ReshapeLikeParam> {
  dmlc::optional<int> lhs_begin, lhs_end, rhs_begin, rhs_end;
  DMLC_DECLARE_PARAMETER(ReshapeLikeParam) {
    DMLC_DECLARE_FIELD(lhs_begin).set_default(dmlc::optional<int>()).describe(
        "Defaults to 0. The beginning index along which the lhs dimensions are to be reshaped. "
        "Supports negative indices.");
    DMLC_DECLARE_FIELD(lhs_end).set_default(dmlc::optional<int>()).describe(
        "Defaults to None. The ending index along which the lhs dimensions are to be used for "
        "reshaping. Supports negative indices.");
    DMLC_DECLARE_FIELD(rhs_begin).set_default(dmlc::optional<int>()).describe(
        "Defaults to 0. The beginning index along which the rhs dimensions are to be used for "
        "reshaping. Supports negative indices.");
    DMLC_DECLARE_FIELD(rhs_end).set_default(dmlc::optional<int>()).describe(
        "Defaults to None. The ending index along which the rhs dimensions are to be used for "
        "reshaping. Supports negative indices.");
  }
};
DMLC_REGISTER_PARAMETER(ReshapeLikeParam);

namespace {

void LikeRange(const NodeAttrs& attrs, const char* side, int ndim, const dmlc::optional<int>& b,
               const dmlc::optional<int>& e, int* cb, int* ce) {
  *cb = b.has_value() ? b.value() : 0;
  if (*cb < 0) *cb += ndim;
  *ce = e.has_value() ? e.value() : ndim;
  if (*ce < 0) *ce += ndim;
  if (*cb < 0 || *ce > ndim || *cb > *ce || (*cb == *ce && ndim > 0 && (b || e))) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": arguments " << side << "_begin=" << b
               << ", " << side << "_end=" << e << " do not select a non-empty range of the "
               << ndim << " dimensions of " << side;
  }
}

bool ReshapeLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ReshapeLikeParam& p = Param<ReshapeLikeParam>(attrs);
  const TShape& l = (*in)[0];
  const TShape& r = (*in)[1];
  if (!l.IsKnown() || !r.IsKnown()) return false;
  int lb, le, rb, re;
  LikeRange(attrs, "lhs", l.ndim(), p.lhs_begin, p.lhs_end, &lb, &le);
  LikeRange(attrs, "rhs", r.ndim(), p.rhs_begin, p.rhs_end, &rb, &re);
  std::vector<dim_t> o(l.begin(), l.begin() + lb);
  o.insert(o.end(), r.begin() + rb, r.begin() + re);
  o.insert(o.end(), l.begin() + le, l.end());
  TShape os = ShapeOf(o);
  if (os.Size() != l.Size()) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": cannot reshape lhs of shape " << l
               << " to " << os << " (taken from rhs of shape " << r
               << ") because they have different sizes";
  }
  AssignShape(attrs, "output", &(*out)[0], os);
  return true;
}

std::vector<NodeEntry> ReshapeLikeGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {GradNode(n, "reshape_like", {og[0], n->inputs[0]}), ZeroGradOf(n, 1)};
}

}  // namespace

NNVM_REGISTER_OP(reshape_like)
    .describe("Reshape some or all dimensions of lhs to have the same shape as some or all "
              "dimensions of rhs: the output shape is lhs.shape[:lhs_begin] + "
              "rhs.shape[rhs_begin:rhs_end] + lhs.shape[lhs_end:].")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ReshapeLikeParam>)
    .add_argument("lhs", "NDArray-or-Symbol", "First input.")
    .add_argument("rhs", "NDArray-or-Symbol", "Second input.")
    .add_arguments(ReshapeLikeParam::__FIELDS__())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) { return std::vector<std::string>{"lhs", "rhs"}; })
    .set_attr<FInferShape>("FInferShape", ReshapeLikeShape)
    .set_attr<FInferType>("FInferType", FirstInputType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
    .set_attr<FCompute>("FCompute<cpu>", IdentityCompute)
    .set_attr<FGradient>("FGradient", ReshapeLikeGrad);

// ================================================================ Flatten
namespace {
bool FlattenShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  if (d.ndim() == 0) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument data must have at least one "
               << "dimension, given shape " << d;
  }
  AssignShape(attrs, "output", &(*out)[0], TShape({d[0], static_cast<dim_t>(d.ProdShape(1, d.ndim()))}));
  return true;
}
}  // namespace

NNVM_REGISTER_OP(Flatten)
    .add_alias("flatten")
    .describe("Flattens the input array into a 2-D array by collapsing the higher dimensions: "
              "(d1, d2, ..., dk) becomes (d1, d2*...*dk).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .set_attr<FInferShape>("FInferShape", FlattenShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
    .set_attr<FCompute>("FCompute<cpu>", IdentityCompute)
    .set_attr<FGradient>("FGradient", ReshapeLikeDataGrad);

// ================================================================ expand_dims
struct ExpandDimParam : public dmlc::Parameter<ExpandDimParam> {
  int axis;
  DMLC_DECLARE_PARAMETER(ExpandDimParam) {
    DMLC_DECLARE_FIELD(axis).describe(
        "Position where new axis is to be inserted. Suppose that the input `NDArray`'s "
        "dimension is `ndim`, the range of the inserted axis is `[-ndim, ndim]`");
  }
};
DMLC_REGISTER_PARAMETER(ExpandDimParam);

namespace {
bool ExpandDimShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  int axis = CheckAxis(attrs, "axis", Param<ExpandDimParam>(attrs).axis, d.ndim() + 1);
  std::vector<dim_t> o(d.begin(), d.end());
  o.insert(o.begin() + axis, 1);
  AssignShape(attrs, "output", &(*out)[0], ShapeOf(o));
  return true;
}
}  // namespace

NNVM_REGISTER_OP(expand_dims)
    .describe("Inserts a new axis of size 1 into the array shape.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ExpandDimParam>)
    .add_argument("data", "NDArray-or-Symbol", "Source input")
    .add_arguments(ExpandDimParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ExpandDimShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
    .set_attr<FCompute>("FCompute<cpu>", IdentityCompute)
    .set_attr<FGradient>("FGradient", ReshapeLikeDataGrad);

// ================================================================ squeeze
struct SqueezeParam : public dmlc::Parameter<SqueezeParam> {
  dmlc::optional<IntTuple> axis;
  DMLC_DECLARE_PARAMETER(SqueezeParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<IntTuple>()).describe(
        "Selects a subset of the single-dimensional entries in the shape. If an axis is "
        "selected with shape entry greater than one, an error is raised.");
  }
};
DMLC_REGISTER_PARAMETER(SqueezeParam);

namespace {
bool SqueezeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const SqueezeParam& p = Param<SqueezeParam>(attrs);
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  std::vector<bool> drop(d.ndim(), false);
  if (p.axis.has_value()) {
    for (int64_t a : p.axis.value()) {
      int ax = CheckAxis(attrs, "axis", a, d.ndim());
      if (d[ax] != 1) {
        LOG(FATAL) << "Operator " << attrs.op->name << ": argument axis=" << a
                   << " selects a dimension of size " << d[ax] << " in shape " << d
                   << ", expected size 1";
      }
      if (drop[ax]) LOG(FATAL) << "Operator " << attrs.op->name << ": duplicate value in axis";
      drop[ax] = true;
    }
  } else {
    for (int i = 0; i < d.ndim(); ++i) drop[i] = d[i] == 1;
  }
  std::vector<dim_t> o;
  for (int i = 0; i < d.ndim(); ++i) {
    if (!drop[i]) o.push_back(d[i]);
  }
  if (o.empty()) o.push_back(1);  // MXNet keeps one dimension: (1, 1) squeezes to (1,)
  AssignShape(attrs, "output", &(*out)[0], ShapeOf(o));
  return true;
}
}  // namespace

NNVM_REGISTER_OP(squeeze)
    .describe("Remove single-dimensional entries from the shape of an array. Squeezing every "
              "dimension leaves shape (1,).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SqueezeParam>)
    .add_argument("data", "NDArray-or-Symbol", "data to squeeze")
    .add_arguments(SqueezeParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", SqueezeShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
    .set_attr<FCompute>("FCompute<cpu>", IdentityCompute)
    .set_attr<FGradient>("FGradient", ReshapeLikeDataGrad);

// ================================================================ shape_array, size_array
namespace {
template <bool kSize>
bool ShapeArrayShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (d.is_none()) return false;
  AssignShape(attrs, "output", &(*out)[0], TShape({kSize ? 1 : static_cast<dim_t>(d.ndim())}));
  return true;
}

bool Int64OutType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], kInt64);
  return true;
}

template <bool kSize>
void ShapeArrayCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  int64_t* o = out[0].dptr<int64_t>();
  const TShape& s = in[0].shape_;
  if (kSize) {
    Assign(o, req[0], static_cast<int64_t>(s.Size()));
  } else {
    for (int i = 0; i < s.ndim(); ++i) Assign(o + i, req[0], static_cast<int64_t>(s[i]));
  }
}
}  // namespace

NNVM_REGISTER_OP(shape_array)
    .describe("Returns a 1D int64 array containing the shape of data.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input Array.")
    .set_attr<FInferShape>("FInferShape", ShapeArrayShape<false>)
    .set_attr<FInferType>("FInferType", Int64OutType)
    .set_attr<FCompute>("FCompute<cpu>", ShapeArrayCompute<false>)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

NNVM_REGISTER_OP(size_array)
    .describe("Returns a 1D int64 array containing the size of data.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Input Array.")
    .set_attr<FInferShape>("FInferShape", ShapeArrayShape<true>)
    .set_attr<FInferType>("FInferType", Int64OutType)
    .set_attr<FCompute>("FCompute<cpu>", ShapeArrayCompute<true>)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

// ================================================================ transpose
struct TransposeParam : public dmlc::Parameter<TransposeParam> {
  IntTuple axes;
  DMLC_DECLARE_PARAMETER(TransposeParam) {
    DMLC_DECLARE_FIELD(axes).set_default(IntTuple()).describe(
        "Target axis order. By default the axes will be inverted.");
  }
};
DMLC_REGISTER_PARAMETER(TransposeParam);

namespace {

// The permutation of an ndim array: axes normalized, or reversed when axes is empty.
std::vector<int> TransposeAxes(const NodeAttrs& attrs, const IntTuple& axes, int ndim) {
  std::vector<int> perm(ndim);
  if (axes.ndim() == 0) {
    for (int i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
    return perm;
  }
  if (axes.ndim() != ndim) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument axes=" << axes << " has "
               << axes.ndim() << " entries, expected one per input dimension (" << ndim << ")";
  }
  std::vector<bool> seen(ndim, false);
  for (int i = 0; i < ndim; ++i) {
    perm[i] = CheckAxis(attrs, "axes", axes[i], ndim);
    if (seen[perm[i]]) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument axes=" << axes
                 << " repeats axis " << axes[i] << ", expected a permutation";
    }
    seen[perm[i]] = true;
  }
  return perm;
}

bool TransposeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  std::vector<int> perm = TransposeAxes(attrs, Param<TransposeParam>(attrs).axes, d.ndim());
  TShape o(d.ndim());
  for (int i = 0; i < d.ndim(); ++i) o[i] = d[perm[i]];
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

// out = in with output axis i walking input axis perm[i].
void PermuteCopy(const TBlob& in, const TBlob& out, const std::vector<int>& perm, OpReqType req) {
  std::vector<index_t> st = ContiguousStrides(in.shape_);
  std::vector<index_t> ost = ContiguousStrides(out.shape_);
  StridedPlan p;
  for (size_t i = 0; i < perm.size(); ++i) p.Push(out.shape_[i], st[perm[i]], ost[i]);
  StridedCopy(p, out.type_flag_, in.dptr_, out.dptr_, req);
}

void TransposeCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  PermuteCopy(in[0], out[0], TransposeAxes(attrs, Param<TransposeParam>(attrs).axes, in[0].ndim()),
              req[0]);
}

std::vector<NodeEntry> TransposeGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const IntTuple& axes = Param<TransposeParam>(n->attrs).axes;
  std::vector<int> perm = TransposeAxes(n->attrs, axes, axes.ndim());
  std::vector<int> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int>(i);
  return {GradNode(n, "transpose", {og[0]}, {{"axes", TupleText(inv)}})};
}

}  // namespace

NNVM_REGISTER_OP(transpose)
    .describe("Permutes the dimensions of an array; with no axes the dimensions are reversed.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<TransposeParam>)
    .add_argument("data", "NDArray-or-Symbol", "Source input")
    .add_arguments(TransposeParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", TransposeShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", TransposeCompute)
    .set_attr<FGradient>("FGradient", TransposeGrad);

// ================================================================ SwapAxis
struct SwapAxisParam : public dmlc::Parameter<SwapAxisParam> {
  int dim1, dim2;
  DMLC_DECLARE_PARAMETER(SwapAxisParam) {
    DMLC_DECLARE_FIELD(dim1).set_default(0).describe("the first axis to be swapped.");
    DMLC_DECLARE_FIELD(dim2).set_default(0).describe("the second axis to be swapped.");
  }
};
DMLC_REGISTER_PARAMETER(SwapAxisParam);

namespace {
std::vector<int> SwapPerm(const NodeAttrs& attrs, int ndim) {
  const SwapAxisParam& p = Param<SwapAxisParam>(attrs);
  int a = CheckAxis(attrs, "dim1", p.dim1, ndim), b = CheckAxis(attrs, "dim2", p.dim2, ndim);
  std::vector<int> perm(ndim);
  for (int i = 0; i < ndim; ++i) perm[i] = i;
  std::swap(perm[a], perm[b]);
  return perm;
}

bool SwapAxisShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  std::vector<int> perm = SwapPerm(attrs, d.ndim());
  TShape o(d.ndim());
  for (int i = 0; i < d.ndim(); ++i) o[i] = d[perm[i]];
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

void SwapAxisCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  PermuteCopy(in[0], out[0], SwapPerm(attrs, in[0].ndim()), req[0]);
}
}  // namespace

NNVM_REGISTER_OP(SwapAxis)
    .add_alias("swapaxes")
    .describe("Interchanges two axes of an array.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<SwapAxisParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .add_arguments(SwapAxisParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", SwapAxisShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", SwapAxisCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "SwapAxis", {og[0]}, n->attrs.dict)};
    });

// ================================================================ reverse
struct ReverseParam : public dmlc::Parameter<ReverseParam> {
  IntTuple axis;
  DMLC_DECLARE_PARAMETER(ReverseParam) {
    DMLC_DECLARE_FIELD(axis).describe("The axis which to reverse elements.");
  }
};
DMLC_REGISTER_PARAMETER(ReverseParam);

namespace {
std::vector<bool> ReversedAxes(const NodeAttrs& attrs, int ndim) {
  std::vector<bool> flip(ndim, false);
  for (int64_t a : Param<ReverseParam>(attrs).axis) {
    int ax = CheckAxis(attrs, "axis", a, ndim);
    flip[ax] = !flip[ax];  // listing an axis twice reverses it twice
  }
  return flip;
}

bool ReverseShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  ReversedAxes(attrs, d.ndim());
  AssignShape(attrs, "output", &(*out)[0], d);
  return true;
}

void ReverseCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TShape& s = in[0].shape_;
  std::vector<bool> flip = ReversedAxes(attrs, s.ndim());
  std::vector<index_t> st = ContiguousStrides(s);
  StridedPlan p;
  for (int i = 0; i < s.ndim(); ++i) {
    if (flip[i] && s[i] > 0) {
      p.src_offset += (s[i] - 1) * st[i];
      p.Push(s[i], -st[i], st[i]);
    } else {
      p.Push(s[i], st[i], st[i]);
    }
  }
  StridedCopy(p, out[0].type_flag_, in[0].dptr_, out[0].dptr_, req[0]);
}
}  // namespace

NNVM_REGISTER_OP(reverse)
    .add_alias("flip")
    .describe("Reverses the order of elements along given axis while preserving array shape.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ReverseParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data array")
    .add_arguments(ReverseParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", ReverseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", ReverseCompute)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "reverse", {og[0]}, n->attrs.dict)};
    });

// ================================================================ depth_to_space, space_to_depth
struct DepthToSpaceParam : public dmlc::Parameter<DepthToSpaceParam> {
  int block_size;
  DMLC_DECLARE_PARAMETER(DepthToSpaceParam) {
    DMLC_DECLARE_FIELD(block_size).describe("Blocks of [block_size. block_size] are moved");
  }
};
DMLC_REGISTER_PARAMETER(DepthToSpaceParam);

namespace {

// kToSpace: (N, C, H, W) -> (N, C/b^2, H*b, W*b); else (N, C, H, W) -> (N, C*b^2, H/b, W/b).
template <bool kToSpace>
bool BlockShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  const std::string& op = attrs.op->name;
  int b = Param<DepthToSpaceParam>(attrs).block_size;
  if (d.ndim() != 4) {
    LOG(FATAL) << "Operator " << op << ": argument data must be a 4-D (N, C, H, W) array, "
               << "given shape " << d;
  }
  if (b <= 0) LOG(FATAL) << "Operator " << op << ": argument block_size must be positive, given " << b;
  for (int i = 0; i < 4; ++i) {
    if (d[i] == 0) LOG(FATAL) << "Operator " << op << ": dimension " << i << " of data cannot be 0";
  }
  TShape o(4);
  o[0] = d[0];
  if (kToSpace) {
    if (d[1] % (b * b) != 0) {
      LOG(FATAL) << "Operator " << op << ": depth dimension 1 of data (" << d[1]
                 << ") must be a multiple of block_size^2 (" << b * b << ")";
    }
    o[1] = d[1] / (b * b);
    o[2] = d[2] * b;
    o[3] = d[3] * b;
  } else {
    if (d[2] % b != 0 || d[3] % b != 0) {
      LOG(FATAL) << "Operator " << op << ": spatial dimensions of data " << d
                 << " must be multiples of block_size (" << b << ")";
    }
    o[1] = d[1] * b * b;
    o[2] = d[2] / b;
    o[3] = d[3] / b;
  }
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

template <bool kToSpace>
void BlockCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const index_t b = Param<DepthToSpaceParam>(attrs).block_size;
  const TShape& s = in[0].shape_;
  const index_t N = s[0], C = s[1], H = s[2], W = s[3];
  StridedPlan p;
  if (kToSpace) {
    // in viewed (N, b1, b2, C', H, W); out viewed (N, C', H, b1, W, b2).
    const index_t Cp = C / (b * b);
    const index_t sW = 1, sH = W, sC = H * W, sb2 = Cp * H * W, sb1 = b * sb2, sN = b * sb1;
    const index_t ob2 = 1, oW = b, ob1 = W * b, oH = b * W * b, oC = H * oH, oN = Cp * oC;
    p.Push(N, sN, oN);
    p.Push(Cp, sC, oC);
    p.Push(H, sH, oH);
    p.Push(b, sb1, ob1);
    p.Push(W, sW, oW);
    p.Push(b, sb2, ob2);
  } else {
    // in viewed (N, C, H', b1, W', b2); out viewed (N, b1, b2, C, H', W').
    const index_t Hp = H / b, Wp = W / b;
    const index_t sb2 = 1, sWp = b, sb1 = W, sHp = b * W, sC = H * W, sN = C * H * W;
    const index_t oWp = 1, oHp = Wp, oC = Hp * Wp, ob2 = C * oC, ob1 = b * ob2, oN = b * ob1;
    p.Push(N, sN, oN);
    p.Push(C, sC, oC);
    p.Push(Hp, sHp, oHp);
    p.Push(b, sb1, ob1);
    p.Push(Wp, sWp, oWp);
    p.Push(b, sb2, ob2);
  }
  StridedCopy(p, out[0].type_flag_, in[0].dptr_, out[0].dptr_, req[0]);
}

}  // namespace

NNVM_REGISTER_OP(depth_to_space)
    .describe("Rearranges (permutes) data from depth into blocks of spatial data: (N, C, H, W) "
              "becomes (N, C/(block_size^2), H*block_size, W*block_size).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<DepthToSpaceParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .add_arguments(DepthToSpaceParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", BlockShape<true>)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", BlockCompute<true>)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "space_to_depth", {og[0]}, n->attrs.dict)};
    });

NNVM_REGISTER_OP(space_to_depth)
    .describe("Rearranges (permutes) blocks of spatial data into depth: (N, C, H, W) becomes "
              "(N, C*(block_size^2), H/block_size, W/block_size).")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<DepthToSpaceParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input ndarray")
    .add_arguments(DepthToSpaceParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", BlockShape<false>)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FCompute>("FCompute<cpu>", BlockCompute<false>)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{GradNode(n, "depth_to_space", {og[0]}, n->attrs.dict)};
    });

}  // namespace op
}  // namespace mxnet
