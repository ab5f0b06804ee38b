// Shape operators that keep every element in order: Reshape (reshape), reshape_like,
// Flatten (flatten), expand_dims, squeeze, and the shape readers shape_array, size_array.
#include <algorithm>
#include <sstream>

#include "operator/tensor/matrix_op_common.h"
#include "operator/tensor/reshape_rule.h"
#include "operator/inplace_identity.h"

namespace mxnet {
namespace op {

namespace {
[[noreturn]] void ReshapeError(const std::string& op_name, const std::vector<int64_t>& spec,
                               const TShape& src, const std::string& why) {
  LOG(FATAL) << "Operator " << op_name << ": argument shape=" << ReshapeSpecText(spec)
             << " cannot reshape input of shape " << src << ": " << why;
  throw;  // unreachable
}
}  // namespace

std::string ReshapeSpecText(const std::vector<int64_t>& spec) {
  std::ostringstream os;
  os << IntTuple(spec);
  return os.str();
}

TShape InferReshapeShape(const std::vector<int64_t>& param, const TShape& dshape, bool reverse,
                         const std::string& op) {
  std::vector<int64_t> spec(param);
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
      if (si >= src.size()) ReshapeError(op, param, dshape, "0 copies a dimension the input lacks");
      out.push_back(src[si++]);
    } else if (v == -1) {
      if (inferred >= 0) ReshapeError(op, param, dshape, "only one dimension can be -1");
      inferred = static_cast<int>(out.size());
      out.push_back(1);
      ++si;
    } else if (v == -2) {
      while (si < src.size()) out.push_back(src[si++]);
    } else if (v == -3) {
      if (si + 1 >= src.size()) ReshapeError(op, param, dshape, "-3 needs two input dimensions");
      out.push_back(src[si] < 0 || src[si + 1] < 0 ? -1 : src[si] * src[si + 1]);
      si += 2;
    } else if (v == -4) {
      if (i + 2 >= spec.size()) ReshapeError(op, param, dshape, "-4 must be followed by two values");
      if (si >= src.size()) ReshapeError(op, param, dshape, "-4 splits a dimension the input lacks");
      dim_t d0 = src[si++];
      int64_t d1 = spec[++i], d2 = spec[++i];
      if (d1 == -1 && d2 == -1) ReshapeError(op, param, dshape, "split dims cannot both be -1");
      if (d0 < 0) {  // an unknown input dim: the -1 part stays unknown
        out.push_back(d1);
        out.push_back(d2);
        continue;
      }
      if (d1 == -1) d1 = d2 != 0 ? d0 / d2 : 0;
      if (d2 == -1) d2 = d1 != 0 ? d0 / d1 : 0;
      if (d1 < 0 || d2 < 0 || d1 * d2 != d0) {
        ReshapeError(op, param, dshape, "split dims " + std::to_string(d1) + ", " +
                     std::to_string(d2) + " do not divide dimension " + std::to_string(d0));
      }
      out.push_back(d1);
      out.push_back(d2);
    } else if (v > 0) {
      out.push_back(v);
      ++si;
    } else {
      ReshapeError(op, param, dshape, "invalid value " + std::to_string(v));
    }
  }
  if (inferred >= 0) {
    dim_t rest = 1;
    for (size_t k = 0; k < out.size(); ++k) {
      if (static_cast<int>(k) != inferred) rest *= out[k];
    }
    if (rest == 0) ReshapeError(op, param, dshape, "cannot infer -1 next to a 0-size dimension");
    out[inferred] = dshape.IsKnown() ? static_cast<dim_t>(dshape.Size()) / rest : -1;
  }
  if (reverse) std::reverse(out.begin(), out.end());
  return ShapeOf(out);
}

namespace {

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

bool ReshapeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ReshapeParam& p = Param<ReshapeParam>(attrs);
  TShape& d = (*in)[0];
  if (d.ndim() < 0) return false;
  TShape o;
  // A given shape=() is the 0-d shape (a one-element array's view), not a missing argument.
  if (p.shape.ndim() > 0 || attrs.dict.count("shape")) {
    o = InferReshapeShape(p.shape.v, d, p.reverse, attrs.op->name);
  } else if (!d.IsKnown()) {
    return false;
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
  AssignShape(attrs, "output", &(*out)[0], o);
  const TShape& known = (*out)[0];
  if (!d.IsKnown() && known.IsKnown()) {  // one unknown input dim follows from the sizes
    int unknown = -1, count = 0;
    dim_t rest = 1;
    for (int i = 0; i < d.ndim(); ++i) {
      if (d[i] < 0) { unknown = i; ++count; } else { rest *= d[i]; }
    }
    if (count == 1 && rest > 0) d[unknown] = static_cast<dim_t>(known.Size()) / rest;
  }
  if (!d.IsKnown() || !known.IsKnown()) return false;
  if (known.Size() != d.Size()) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": target shape " << known << " (size "
               << known.Size() << ") differs in size from input shape " << d << " (size "
               << d.Size() << ")";
  }
  return true;
}

std::vector<NodeEntry> ReshapeLikeDataGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {GradNode(n, "reshape_like", {og[0], n->inputs[0]})};
}

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
    .set_attr<FInplaceIdentity>("FInplaceIdentity", InplaceIdentityFirst)
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
                               InputNames({"lhs", "rhs"}))
    .set_attr<FInferShape>("FInferShape", ReshapeLikeShape)
    .set_attr<FInferType>("FInferType", FirstInputType)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
    .set_attr<FInplaceIdentity>("FInplaceIdentity", InplaceIdentityFirst)
    .set_attr<FCompute>("FCompute<cpu>", IdentityCompute)
    .set_attr<FGradient>("FGradient", ReshapeLikeGrad);

// ================================================================ Flatten
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
    .set_attr<FInplaceIdentity>("FInplaceIdentity", InplaceIdentityFirst)
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

bool ExpandDimShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  int axis = CheckAxis(attrs, "axis", Param<ExpandDimParam>(attrs).axis, d.ndim() + 1);
  std::vector<dim_t> o(d.begin(), d.end());
  o.insert(o.begin() + axis, 1);
  AssignShape(attrs, "output", &(*out)[0], ShapeOf(o));
  return true;
}

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
    .set_attr<FInplaceIdentity>("FInplaceIdentity", InplaceIdentityFirst)
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

}  // namespace
}  // namespace op
}  // namespace mxnet
