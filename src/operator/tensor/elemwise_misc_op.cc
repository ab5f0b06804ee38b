// Miscellaneous elementwise operators: add_n (ElementWiseSum), clip, where, Cast and the
// internal _cast_like used by Cast's gradient.
#include <algorithm>
#include <string>
#include <type_traits>

#include "operator/nn/onednn/onednn_layout.h"
#include "operator/tensor/elemwise_unary_kernel.h"
#include "operator/tensor/sparse_ops.h"
#include "operator/inplace_identity.h"

namespace mxnet {
namespace op {

void CastBlob(const TBlob& in, const TBlob& out, OpReqType req) {
  const index_t n = static_cast<index_t>(in.Size());
  MXNET_TYPE_SWITCH(in.type_flag_, IType, {
    MXNET_TYPE_SWITCH(out.type_flag_, OType, {
      MapLoop(in.dptr<IType>(), out.dptr<OType>(), n, req,
              [](IType v) { return ConvertValue<OType>(v); });
    });
  });
}

namespace {

using GradFn = std::vector<NodeEntry> (*)(const ObjectPtr&, const std::vector<NodeEntry>&);

// ---------------------------------------------------------------- add_n
struct ElementWiseSumParam : public dmlc::Parameter<ElementWiseSumParam> {
  int num_args;
  DMLC_DECLARE_PARAMETER(ElementWiseSumParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs to be summed.");
  }
};
DMLC_REGISTER_PARAMETER(ElementWiseSumParam);

template <typename DType>
void AddN(const std::vector<TBlob>& in, const TBlob& out, OpReqType req) {
  using A = typename AccType<DType>::type;
  constexpr index_t kChunk = 2048;
  const index_t n = static_cast<index_t>(out.Size());
  DType* y = out.dptr<DType>();
  if (req == kNullOp || n == 0) return;
  ParallelChunks(n, kChunk, [&](index_t b, index_t e) {
    A acc[kChunk];
    const index_t len = e - b;
    const DType* x0 = in[0].dptr<DType>() + b;
    for (index_t i = 0; i < len; ++i) acc[i] = A(x0[i]);
    for (size_t k = 1; k < in.size(); ++k) {
      const DType* xk = in[k].dptr<DType>() + b;
      for (index_t i = 0; i < len; ++i) acc[i] = A(acc[i] + A(xk[i]));
    }
    if (req == kAddTo) {
      for (index_t i = 0; i < len; ++i) y[b + i] = DType(A(y[b + i]) + acc[i]);
    } else {
      for (index_t i = 0; i < len; ++i) y[b + i] = DType(acc[i]);
    }
  });
}

void AddNCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, { AddN<DType>(in, out[0], req[0]); });
}

std::vector<std::string> AddNInputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  const int k = Param<ElementWiseSumParam>(attrs).num_args;
  for (int i = 0; i < k; ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

std::vector<NodeEntry> AddNGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return std::vector<NodeEntry>(n->inputs.size(), og[0]);
}

// ---------------------------------------------------------------- clip
struct ClipParam : public dmlc::Parameter<ClipParam> {
  double a_min;
  double a_max;
  DMLC_DECLARE_PARAMETER(ClipParam) {
    DMLC_DECLARE_FIELD(a_min).describe("Lower bound: smaller elements become a_min.");
    DMLC_DECLARE_FIELD(a_max).describe("Upper bound: larger elements become a_max.");
  }
};
DMLC_REGISTER_PARAMETER(ClipParam);

void ClipCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& param = Param<ClipParam>(attrs);
  MXNET_NUMERIC_TYPE_SWITCH(out[0].type_flag_, DType, {
    using A = typename AccType<DType>::type;
    const A lo = A(ScalarAs<DType>(param.a_min)), hi = A(ScalarAs<DType>(param.a_max));
    MapLoop(in[0].dptr<DType>(), out[0].dptr<DType>(), static_cast<index_t>(in[0].Size()), req[0],
            [lo, hi](DType v) {
              const A a = A(v);
              return DType(a > hi ? hi : (a < lo ? lo : a));  // NaN passes through
            });
  });
}

std::vector<NodeEntry> ClipGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const auto& param = Param<ClipParam>(n->attrs);
  const std::string name = n->attrs.name + "_backward";
  NodeEntry above = MakeNode("_greater_equal_scalar", name, {n->inputs[0]},
                             {{"scalar", ScalarText(param.a_min)}});
  NodeEntry below = MakeNode("_lesser_equal_scalar", name, {n->inputs[0]},
                             {{"scalar", ScalarText(param.a_max)}});
  NodeEntry inside = MakeNode("elemwise_mul", name, {above, below});
  return {MakeNode("elemwise_mul", name, {og[0], inside})};
}

// ---------------------------------------------------------------- where
std::vector<std::string> WhereInputNames(const NodeAttrs&) { return {"condition", "x", "y"}; }

bool WhereShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!(*in)[0].IsKnown()) return false;  // as MXNet 1.9.1: nothing before the condition
  TShape s;
  AssignShape(attrs, "x", &s, (*in)[1]);
  AssignShape(attrs, "y", &s, (*in)[2]);
  AssignShape(attrs, "output", &s, (*out)[0]);
  (*in)[1] = s;
  (*in)[2] = s;
  (*out)[0] = s;
  const TShape& cond = (*in)[0];
  if (!s.IsKnown() || !cond.IsKnown()) return false;
  const bool same = cond == s;
  const bool rows = cond.ndim() == 1 && s.ndim() >= 1 && cond[0] == s[0];
  if (!same && !rows) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument condition has shape " << cond
               << ", expected the shape of x " << s << " or a vector of length x.shape[0]"
               << (s.ndim() >= 1 ? " (" + std::to_string(s[0]) + ",)" : std::string());
  }
  return true;
}

bool WhereType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  int t = -1;
  AssignType(attrs, "x", &t, (*in)[1]);
  AssignType(attrs, "y", &t, (*in)[2]);
  AssignType(attrs, "output", &t, (*out)[0]);
  (*in)[1] = t;
  (*in)[2] = t;
  (*out)[0] = t;
  return t >= 0 && (*in)[0] >= 0;
}

template <typename CType, typename DType>
void WhereMap(const TBlob& cond, const TBlob& x, const TBlob& y, const TBlob& out, OpReqType req) {
  const CType* c = cond.dptr<CType>();
  const DType* a = x.dptr<DType>();
  const DType* b = y.dptr<DType>();
  DType* o = out.dptr<DType>();
  const index_t n = static_cast<index_t>(out.Size());
  auto put = [req](DType* dst, DType v) { Assign(dst, req, v); };
  if (cond.Size() == out.Size()) {
    ParallelFor(n, [&](index_t i) { put(o + i, ConvertValue<bool>(c[i]) ? a[i] : b[i]); });
  } else {  // one condition per row of x
    const index_t rows = static_cast<index_t>(cond.Size());
    const index_t inner = rows == 0 ? 0 : n / rows;
    ParallelChunks(n, std::max<index_t>(inner, 1), [&](index_t begin, index_t end) {
      const bool take_x = ConvertValue<bool>(c[begin / std::max<index_t>(inner, 1)]);
      const DType* src = take_x ? a : b;
      for (index_t i = begin; i < end; ++i) put(o + i, src[i]);
    });
  }
}

void WhereCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  MXNET_TYPE_SWITCH(in[0].type_flag_, CType, {
    MXNET_TYPE_SWITCH(out[0].type_flag_, DType,
                      { WhereMap<CType, DType>(in[0], in[1], in[2], out[0], req[0]); });
  });
}

std::vector<NodeEntry> WhereGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const std::string name = n->attrs.name + "_backward";
  NodeEntry zeros = MakeNode("zeros_like", name, {og[0]});
  NodeEntry cond = n->inputs[0];
  return {NodeEntry(), MakeNode("where", name, {cond, og[0], zeros}),
          MakeNode("where", name, {cond, zeros, og[0]})};
}

// ---------------------------------------------------------------- Cast, _cast_like
struct CastParam : public dmlc::Parameter<CastParam> {
  int dtype;
  DMLC_DECLARE_PARAMETER(CastParam) {
    AddDTypeEnums(DMLC_DECLARE_FIELD(dtype), kAllDTypes).describe("Output data type.");
  }
};
DMLC_REGISTER_PARAMETER(CastParam);

bool CastType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], Param<CastParam>(attrs).dtype);
  return (*in)[0] >= 0;
}

void CastCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  CastBlob(in[0], out[0], req[0]);
}

// The gradient goes back to the input's dtype, which only the graph knows: _cast_like.
std::vector<NodeEntry> CastGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("_cast_like", n->attrs.name + "_backward", {og[0], n->inputs[0]})};
}

bool CastLikeShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  AssignShape(attrs, "output", &(*out)[0], (*in)[0]);
  AssignShape(attrs, "data", &(*in)[0], (*out)[0]);
  return (*out)[0].IsKnown();
}

bool CastLikeType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], (*in)[1]);
  return (*in)[0] >= 0 && (*out)[0] >= 0;
}

std::vector<NodeEntry> CastLikeGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("_cast_like", n->attrs.name + "_backward", {og[0], n->inputs[0]}),
          NodeEntry()};
}

// ---------------------------------------------------------------- registration
std::vector<std::pair<int, int>> InplaceFirst(const NodeAttrs&) { return {{0, 0}}; }

const bool reg_misc_ops_ [[maybe_unused]] = [] {
  SetSparseAddNAttrs(nnvm::Op::Register("add_n")
      .describe("Adds all input arguments element-wise; all inputs have the same shape and "
                "dtype.")
      .set_num_inputs([](const NodeAttrs& attrs) {
        return static_cast<uint32_t>(Param<ElementWiseSumParam>(attrs).num_args);
      })
      .set_num_outputs(1)
      .set_key_var_num_args("num_args")
      .set_attr_parser(ParamParser<ElementWiseSumParam>)
      .add_argument("args", "NDArray-or-Symbol[]", "Positional input arguments")
      .add_arguments(ElementWiseSumParam::__FIELDS__())
      .set_attr<FListInputNames>("FListInputNames", AddNInputNames)
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)
      .set_attr<FInferType>("FInferType", ElemwiseType)
      .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
      .set_attr<FCompute>("FCompute<cpu>", AddNCompute)
      .set_attr<onednn::FBlockedLayout>("FBlockedLayout", onednn::ElementwiseLayoutGroups)
      .set_attr<FGradient>("FGradient", AddNGrad)
      .add_alias("ElementWiseSum")
      .add_alias("_sparse_ElementWiseSum")
      .add_alias("_sparse_add_n"));

  nnvm::Op::Register("clip")
      .describe("Clips (limits) the values in an array: elements below a_min become a_min and "
                "elements above a_max become a_max. The gradient passes where "
                "a_min <= x <= a_max and is zero elsewhere.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<ClipParam>)
      .add_argument("data", "NDArray-or-Symbol", "Input array.")
      .add_arguments(ClipParam::__FIELDS__())
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)
      .set_attr<FInferType>("FInferType", NumericElemwiseType)
      .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
      .set_attr<FCompute>("FCompute<cpu>", ClipCompute)
      .set_attr<FGradient>("FGradient", ClipGrad);

  nnvm::Op::Register("where")
      .describe("Takes elements from x where condition is non-zero and from y elsewhere. "
                "condition has the shape of x, or is a vector of length x.shape[0] choosing "
                "whole rows.")
      .set_num_inputs(3)
      .set_num_outputs(1)
      .add_argument("condition", "NDArray-or-Symbol", "condition array")
      .add_argument("x", "NDArray-or-Symbol", "")
      .add_argument("y", "NDArray-or-Symbol", "")
      .set_attr<FListInputNames>("FListInputNames", WhereInputNames)
      .set_attr<FInferShape>("FInferShape", WhereShape)
      .set_attr<FInferType>("FInferType", WhereType)
      .set_attr<FCompute>("FCompute<cpu>", WhereCompute)
      .set_attr<FGradient>("FGradient", WhereGrad);

  nnvm::Op::Register("Cast")
      .describe("Casts all elements of the input to a new type; the gradient is cast back to "
                "the input's type.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<CastParam>)
      .add_argument("data", "NDArray-or-Symbol", "The input.")
      .add_arguments(CastParam::__FIELDS__())
      .set_attr<FInferShape>("FInferShape", ElemwiseShape)
      .set_attr<FInferType>("FInferType", CastType)
      .set_attr<FInplaceOption>("FInplaceOption", InplaceFirst)
      .set_attr<FInplaceIdentity>("FInplaceIdentity", InplaceIdentityFirst)
      .set_attr<FCompute>("FCompute<cpu>", CastCompute)
      .set_attr<FGradient>("FGradient", CastGrad)
      .add_alias("cast");

  nnvm::Op::Register("_cast_like")
      .describe("Casts data to the dtype of like (whose values and shape are not used).")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The values to cast.")
      .add_argument("like", "NDArray-or-Symbol", "An array of the target dtype.")
      .set_attr<FListInputNames>("FListInputNames",
                                 InputNames({"data", "like"}))
      .set_attr<FInferShape>("FInferShape", CastLikeShape)
      .set_attr<FInferType>("FInferType", CastLikeType)
      .set_attr<FCompute>("FCompute<cpu>", CastCompute)
      .set_attr<FGradient>("FGradient", CastLikeGrad);
  return true;
}();

}  // namespace
}  // namespace op
}  // namespace mxnet
