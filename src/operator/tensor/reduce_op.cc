// Reductions over axes (sum, mean, prod, max, min, nansum, nanprod, norm), arg-reductions
// (argmax, argmin, argmax_channel) and _expand_reduced_like, the op their gradients use to
// spread a reduced gradient back over the reduced axes.
#include <dmlc/parameter.h>

#include "operator/tensor/broadcast_kernel.h"
#include "operator/tensor/reduce_kernel.h"
#include "operator/tensor/sparse_ops.h"

namespace mxnet {
namespace op {
namespace {

const char* const kAxisDoc =
    "The axis or axes to reduce. None or () reduces every axis into an array of shape (1,); an "
    "int reduces one axis; a tuple reduces each listed axis. Negative axes count from the end. "
    "With exclude=True the axes NOT listed are reduced.";

struct ReduceAxesParam : public dmlc::Parameter<ReduceAxesParam> {
  dmlc::optional<IntTuple> axis;
  bool keepdims;
  bool exclude;
  DMLC_DECLARE_PARAMETER(ReduceAxesParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<IntTuple>()).describe(kAxisDoc);
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep each reduced axis in the result as a dimension of size one.");
    DMLC_DECLARE_FIELD(exclude).set_default(false).describe(
        "Reduce the axes that are NOT in axis instead.");
  }
};

struct NormParam : public dmlc::Parameter<NormParam> {
  int ord;
  dmlc::optional<IntTuple> axis;
  dmlc::optional<int> out_dtype;
  bool keepdims;
  DMLC_DECLARE_PARAMETER(NormParam) {
    DMLC_DECLARE_FIELD(ord).set_default(2).describe("Order of the norm: 1 or 2.");
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<IntTuple>()).describe(
        "The axis or axes to reduce; None computes the norm of all elements (shape (1,)). With "
        "two or more axes the entrywise norm over them is computed.");
    AddDTypeEnums(DMLC_DECLARE_FIELD(out_dtype), {kFloat16, kFloat32, kFloat64, kInt32, kInt64, kInt8})
        .set_default(dmlc::optional<int>())
        .describe("The dtype of the output; None keeps the input's.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep each reduced axis in the result as a dimension of size one.");
  }
};

struct ReduceAxisParam : public dmlc::Parameter<ReduceAxisParam> {
  dmlc::optional<int> axis;
  bool keepdims;
  DMLC_DECLARE_PARAMETER(ReduceAxisParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<int>()).describe(
        "The axis to reduce; negative counts from the end. None searches the flattened input.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the reduced axis in the result as a dimension of size one.");
  }
};

struct ExpandReducedParam : public dmlc::Parameter<ExpandReducedParam> {
  dmlc::optional<IntTuple> axis;
  bool keepdims;
  bool exclude;
  bool normalize;
  DMLC_DECLARE_PARAMETER(ExpandReducedParam) {
    DMLC_DECLARE_FIELD(axis).set_default(dmlc::optional<IntTuple>()).describe(kAxisDoc);
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Whether data keeps the reduced axes as size-one dimensions.");
    DMLC_DECLARE_FIELD(exclude).set_default(false).describe(
        "The reduced axes are those NOT in axis.");
    DMLC_DECLARE_FIELD(normalize).set_default(false).describe(
        "Divide by the number of elements folded into each reduced element (mean's gradient).");
  }
};

DMLC_REGISTER_PARAMETER(ReduceAxesParam);
DMLC_REGISTER_PARAMETER(NormParam);
DMLC_REGISTER_PARAMETER(ReduceAxisParam);
DMLC_REGISTER_PARAMETER(ExpandReducedParam);

// ---------------------------------------------------------------- shape and type rules
bool ReduceShapeImpl(const NodeAttrs& attrs, const TShape& s, const dmlc::optional<IntTuple>& axis,
                     bool keepdims, bool exclude, bool needs_elements, TShape* out) {
  if (!s.IsKnown()) return false;
  std::vector<bool> mask = ReduceAxesMask(attrs, "axis", s, axis, exclude);
  TShape o = ReducedShape(s, mask, keepdims);
  if (needs_elements && ReducedCount(s, mask) == 0 && o.Size() > 0) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument data has shape " << s
               << ", expected at least one element along the reduced axes (a zero-size "
               << "reduction has no identity)";
  }
  AssignShape(attrs, "output", out, o);
  return true;
}

template <bool kNeedsElements>
bool ReduceAxesShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = Param<ReduceAxesParam>(attrs);
  return ReduceShapeImpl(attrs, (*in)[0], p.axis, p.keepdims, p.exclude, kNeedsElements,
                         &(*out)[0]);
}

bool NormShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = Param<NormParam>(attrs);
  return ReduceShapeImpl(attrs, (*in)[0], p.axis, p.keepdims, false, false, &(*out)[0]);
}

bool NormType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const auto& p = Param<NormParam>(attrs);
  if (!p.out_dtype.has_value()) return ElemwiseType(attrs, in, out);
  AssignType(attrs, "output", &(*out)[0], p.out_dtype.value());
  return (*in)[0] >= 0;
}

void NormParser(NodeAttrs* attrs) {
  ParamParser<NormParam>(attrs);
  const auto& p = Param<NormParam>(*attrs);
  if (p.ord != 1 && p.ord != 2) {
    LOG(FATAL) << "Operator " << attrs->op->name << ": argument ord is " << p.ord
               << ", expected 1 or 2";
  }
}

// ---------------------------------------------------------------- kernels
template <ReduceKind kKind>
void ReduceAxesForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = Param<ReduceAxesParam>(attrs);
  std::vector<bool> mask = ReduceAxesMask(attrs, "axis", in[0].shape_, p.axis, p.exclude);
  ReduceAxesCompute(ctx, kKind, in[0], mask, req[0], out[0]);
}

// _square_sum: the squares (in the input's dtype) summed over the axes.
void SquareSumForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  std::vector<char> buf(in[0].Size() * DTypeSize(in[0].type_flag_));
  TBlob sq(buf.data(), in[0].shape_, in[0].type_flag_, in[0].ctx);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = sq.dptr<DType>();
    for (size_t i = 0, n = in[0].Size(); i < n; ++i) y[i] = DType(x[i] * x[i]);
  });
  ReduceAxesForward<ReduceKind::kSum>(attrs, ctx, {sq}, req, out);
}

// A row_sparse input summed over axis 1 with keepdims stays row_sparse (one value per stored
// row); other sparse cases run the dense kernel on a dense copy.
bool SquareSumStorage(const NodeAttrs& attrs, int, DispatchMode* mode, std::vector<int>* in,
                      std::vector<int>* out) {
  const auto& p = Param<ReduceAxesParam>(attrs);
  const bool rows = p.axis.has_value() && p.axis.value().ndim() == 1 &&
                    p.axis.value()[0] == 1 && p.keepdims && !p.exclude;
  if ((*in)[0] == kDefaultStorage) {
    (*out)[0] = kDefaultStorage;
    *mode = DispatchMode::kFCompute;
  } else if ((*in)[0] == kRowSparseStorage && rows) {
    (*out)[0] = kRowSparseStorage;
    *mode = DispatchMode::kFComputeEx;
  } else {
    *mode = DispatchMode::kFComputeFallback;
  }
  return true;
}

void SquareSumRowsCompute(const NodeAttrs& attrs, const OpContext&,
                          const std::vector<NDArray>& in, const std::vector<OpReqType>& req,
                          const std::vector<NDArray>& out) {
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator " << attrs.op->name
                           << ": req 'add' is not supported for a row_sparse output";
  SquareSumRowSparse(in[0], out[0]);
}

void NormForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const auto& p = Param<NormParam>(attrs);
  std::vector<bool> mask = ReduceAxesMask(attrs, "axis", in[0].shape_, p.axis, false);
  ReduceAxesCompute(ctx, p.ord == 1 ? ReduceKind::kNorm1 : ReduceKind::kNorm2, in[0], mask, req[0],
                    out[0]);
}

// ---------------------------------------------------------------- gradients
/*! \brief Text kwargs of n that describe its reduced axes (axis, keepdims, exclude). */
std::unordered_map<std::string, std::string> AxesKwargs(const ObjectPtr& n, bool normalize) {
  std::unordered_map<std::string, std::string> d;
  for (const char* k : {"axis", "keepdims", "exclude"}) {
    auto it = n->attrs.dict.find(k);
    if (it != n->attrs.dict.end()) d[k] = it->second;
  }
  if (normalize) d["normalize"] = "True";
  return d;
}


/*! \brief g (shaped like n's output) spread over n's input shape. */
NodeEntry Expand(const ObjectPtr& n, NodeEntry g, bool normalize = false) {
  return MakeNode("_expand_reduced_like", GradName(n), {g, n->inputs[0]}, AxesKwargs(n, normalize));
}

NodeEntry Bin(const char* op, const ObjectPtr& n, NodeEntry a, NodeEntry b) {
  return MakeNode(op, GradName(n), {a, b});
}

std::vector<NodeEntry> SumGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {Expand(n, og[0])};
}
// d sum(x^2) / d x = 2 x.
std::vector<NodeEntry> SquareSumGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry g = Bin("broadcast_mul", n, Expand(n, og[0]), n->inputs[0]);
  return {MakeNode("_mul_scalar", GradName(n), {g}, {{"scalar", "2"}})};
}
std::vector<NodeEntry> MeanGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {Expand(n, og[0], true)};
}
// d prod / d x = prod / x (as MXNet: undefined where x is 0).
std::vector<NodeEntry> ProdGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry x = n->inputs[0];
  return {Bin("broadcast_div", n, Expand(n, Bin("broadcast_mul", n, og[0], Out(n))), x)};
}
std::vector<NodeEntry> NanSumGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry x = n->inputs[0];
  return {Bin("broadcast_mul", n, Expand(n, og[0]), Bin("broadcast_equal", n, x, x))};
}
std::vector<NodeEntry> NanProdGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry x = n->inputs[0];
  NodeEntry g = Bin("broadcast_div", n, Expand(n, Bin("broadcast_mul", n, og[0], Out(n))), x);
  NodeEntry zero = MakeNode("zeros_like", GradName(n), {x});
  return {MakeNode("where", GradName(n), {Bin("broadcast_equal", n, x, x), g, zero})};
}
// Every element equal to the extreme receives the gradient (as MXNet).
std::vector<NodeEntry> MaxMinGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry x = n->inputs[0];
  return {Bin("broadcast_mul", n, Expand(n, og[0]),
              Bin("broadcast_equal", n, x, Expand(n, Out(n))))};
}
std::vector<NodeEntry> NormGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  NodeEntry x = n->inputs[0];
  if (Param<NormParam>(n->attrs).ord == 1) {
    return {Bin("broadcast_mul", n, Expand(n, og[0]), MakeNode("sign", GradName(n), {x}))};
  }
  // d |x|_2 / dx = x / |x|_2
  return {Bin("broadcast_mul", n, x, Expand(n, Bin("broadcast_div", n, og[0], Out(n))))};
}

// ---------------------------------------------------------------- arg-reductions
struct ArgLayout {
  index_t outer{1}, n{1}, inner{1};
};

ArgLayout ArgReduceLayout(const NodeAttrs& attrs, const TShape& s, const dmlc::optional<int>& axis,
                          TShape* oshape, bool keepdims) {
  ArgLayout l;
  const int nd = s.ndim();
  if (!axis.has_value()) {
    l.n = static_cast<index_t>(s.Size());
    *oshape = keepdims && nd > 0 ? TShape(nd, 1) : TShape({1});
  } else {
    int a = axis.value();
    if (a < -nd || a >= nd) {
      LOG(FATAL) << "Operator " << attrs.op->name << ": argument axis is " << a
                 << ", expected an axis in [" << -nd << ", " << nd << ") for an input of shape "
                 << s;
    }
    if (a < 0) a += nd;
    l.outer = static_cast<index_t>(s.ProdShape(0, a));
    l.n = s[a];
    l.inner = static_cast<index_t>(s.ProdShape(a + 1, nd));
    std::vector<bool> mask(nd, false);
    mask[a] = true;
    *oshape = ReducedShape(s, mask, keepdims);
  }
  return l;
}

dmlc::optional<int> ArgAxis(const NodeAttrs& attrs) {
  if (attrs.op->name == "argmax_channel") return dmlc::optional<int>(1);
  return Param<ReduceAxisParam>(attrs).axis;
}
bool ArgKeepdims(const NodeAttrs& attrs) {
  return attrs.op->name == "argmax_channel" ? false : Param<ReduceAxisParam>(attrs).keepdims;
}

bool ArgReduceShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  TShape o;
  ArgLayout l = ArgReduceLayout(attrs, s, ArgAxis(attrs), &o, ArgKeepdims(attrs));
  if (l.n == 0 && o.Size() > 0) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument data has shape " << s
               << ", expected at least one element along the searched axis";
  }
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

bool ArgReduceType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  if ((*in)[0] == kBool) {
    LOG(FATAL) << "Operator " << attrs.op->name << ": argument data has dtype bool, expected a "
               << "numeric dtype (float16, float32, float64, uint8, int8, int32 or int64)";
  }
  return ElemwiseType(attrs, in, out);  // indices come in the input's dtype, as MXNet 1.x
}

template <bool kMax>
void ArgReduceForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  TShape o;
  ArgLayout l = ArgReduceLayout(attrs, in[0].shape_, ArgAxis(attrs), &o, ArgKeepdims(attrs));
  ArgReduceCompute(kMax, in[0], l.outer, l.n, l.inner, req[0], out[0]);
}

// ---------------------------------------------------------------- _expand_reduced_like
struct FirstArg {
  template <typename T> static T Map(T a, T) { return a; }
};

bool ExpandReducedShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const auto& p = Param<ExpandReducedParam>(attrs);
  const TShape& like = (*in)[1];
  if (!like.IsKnown()) return false;
  std::vector<bool> mask = ReduceAxesMask(attrs, "axis", like, p.axis, p.exclude);
  AssignShape(attrs, "data", &(*in)[0], ReducedShape(like, mask, p.keepdims));
  AssignShape(attrs, "output", &(*out)[0], like);
  return true;
}

bool ExpandReducedType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], (*in)[1]);
  if ((*in)[1] < 0) (*in)[1] = (*out)[0];
  return (*in)[0] >= 0 && (*out)[0] >= 0;
}

void ExpandReducedForward(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const auto& p = Param<ExpandReducedParam>(attrs);
  const TShape& like = out[0].shape_;
  std::vector<bool> mask = ReduceAxesMask(attrs, "axis", like, p.axis, p.exclude);
  const TShape kshape = ReducedShape(like, mask, true);
  TBlob src = in[0].reshape(kshape);
  const double scale = p.normalize ? 1.0 / static_cast<double>(ReducedCount(like, mask)) : 1.0;
  if (scale != 1.0 || src.type_flag_ != out[0].type_flag_) {
    TBlob tmp(ctx.RequestTempSpace(src.Size() * DTypeSize(out[0].type_flag_)), kshape,
              out[0].type_flag_, src.ctx);
    CastScaleCompute(src, scale, kWriteTo, tmp);
    src = tmp;
  }
  BroadcastPlan plan(kshape, kshape, like);
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    BroadcastBinary<FirstArg>(plan, src.dptr<DType>(), src.dptr<DType>(), out[0].dptr<DType>(),
                              req[0], static_cast<index_t>(out[0].Size()));
  });
}

std::vector<NodeEntry> ExpandReducedGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const bool normalize = Param<ExpandReducedParam>(n->attrs).normalize;
  std::unordered_map<std::string, std::string> d;
  for (const char* k : {"axis", "keepdims", "exclude"}) {
    auto it = n->attrs.dict.find(k);
    if (it != n->attrs.dict.end()) d[k] = it->second;
  }
  return {MakeNode(normalize ? "mean" : "sum", GradName(n), {og[0]}, d), NodeEntry()};
}

// ---------------------------------------------------------------- registration
using GradFn = std::vector<NodeEntry> (*)(const ObjectPtr&, const std::vector<NodeEntry>&);

nnvm::Op& RegisterReduce(const char* name, const char* doc, FCompute fcompute,
                         FInferShape shape, GradFn grad) {
  return nnvm::Op::Register(name)
      .describe(doc)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input")
      .add_arguments(ReduceAxesParam::__FIELDS__())
      .set_attr_parser(ParamParser<ReduceAxesParam>)
      .set_attr<FInferShape>("FInferShape", shape)
      .set_attr<FInferType>("FInferType", ElemwiseType)
      .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
      .set_attr<FCompute>("FCompute<cpu>", fcompute)
      .set_attr<FGradient>("FGradient", grad);
}

const bool kRegistered [[maybe_unused]] = [] {
  RegisterReduce("sum",
                 "Computes the sum of array elements over the given axes. Integers accumulate "
                 "in int64 and floats in double (float16 in float); the result has the input's "
                 "dtype.",
                 ReduceAxesForward<ReduceKind::kSum>, ReduceAxesShape<false>, SumGrad)
      .add_alias("sum_axis");
  RegisterReduce("mean", "Computes the mean of array elements over the given axes.",
                 ReduceAxesForward<ReduceKind::kMean>, ReduceAxesShape<false>, MeanGrad);
  RegisterReduce("prod", "Computes the product of array elements over the given axes.",
                 ReduceAxesForward<ReduceKind::kProd>, ReduceAxesShape<false>, ProdGrad);
  RegisterReduce("max",
                 "Computes the maximum of array elements over the given axes; NaN propagates.",
                 ReduceAxesForward<ReduceKind::kMax>, ReduceAxesShape<true>, MaxMinGrad)
      .add_alias("max_axis");
  RegisterReduce("min",
                 "Computes the minimum of array elements over the given axes; NaN propagates.",
                 ReduceAxesForward<ReduceKind::kMin>, ReduceAxesShape<true>, MaxMinGrad)
      .add_alias("min_axis");
  RegisterReduce("nansum",
                 "Computes the sum of array elements over the given axes, treating NaN as 0.",
                 ReduceAxesForward<ReduceKind::kNanSum>, ReduceAxesShape<false>, NanSumGrad);
  RegisterReduce("_square_sum",
                 "Computes the square sum of array elements over a given axis: sum(x * x). A "
                 "row_sparse input summed over axis=1 with keepdims=True gives a row_sparse "
                 "result (one value per stored row).",
                 SquareSumForward, ReduceAxesShape<false>, SquareSumGrad)
      .set_attr<FInferStorageType>("FInferStorageType", SquareSumStorage)
      .set_attr<FComputeEx>("FComputeEx<cpu>", SquareSumRowsCompute);
  RegisterReduce("nanprod",
                 "Computes the product of array elements over the given axes, treating NaN as 1.",
                 ReduceAxesForward<ReduceKind::kNanProd>, ReduceAxesShape<false>, NanProdGrad);

  nnvm::Op::Register("norm")
      .describe("Computes the L1 (ord=1) or L2 (ord=2) norm of the elements over the given axes "
                "(entrywise: the Frobenius norm for two axes). Accumulates in double.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input")
      .add_arguments(NormParam::__FIELDS__())
      .set_attr_parser(NormParser)
      .set_attr<FInferShape>("FInferShape", NormShape)
      .set_attr<FInferType>("FInferType", NormType)
      .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
      .set_attr<FCompute>("FCompute<cpu>", NormForward)
      .set_attr<FGradient>("FGradient", NormGrad);

  for (bool is_max : {true, false}) {
    nnvm::Op::Register(is_max ? "argmax" : "argmin")
        .describe(is_max ? "Returns the index of the first maximum along an axis, in the input's "
                           "dtype. NaN counts as the maximum."
                         : "Returns the index of the first minimum along an axis, in the input's "
                           "dtype. NaN counts as the minimum.")
        .set_num_inputs(1)
        .set_num_outputs(1)
        .add_argument("data", "NDArray-or-Symbol", "The input")
        .add_arguments(ReduceAxisParam::__FIELDS__())
        .set_attr_parser(ParamParser<ReduceAxisParam>)
        .set_attr<FInferShape>("FInferShape", ArgReduceShape)
        .set_attr<FInferType>("FInferType", ArgReduceType)
        .set_attr<FCompute>("FCompute<cpu>", is_max ? ArgReduceForward<true>
                                                    : ArgReduceForward<false>)
        .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);
  }
  nnvm::Op::Register("argmax_channel")
      .describe("Returns the index of the first maximum along axis 1 (the channel axis), in the "
                "input's dtype.")
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input array")
      .set_attr<FInferShape>("FInferShape", ArgReduceShape)
      .set_attr<FInferType>("FInferType", ArgReduceType)
      .set_attr<FCompute>("FCompute<cpu>", ArgReduceForward<true>)
      .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

  nnvm::Op::Register("_expand_reduced_like")
      .describe("Spreads data, the result of reducing like over the given axes, back over like's "
                "shape and dtype (optionally divided by the number of reduced elements). The "
                "gradient of the reductions.")
      .set_num_inputs(2)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The reduced array")
      .add_argument("like", "NDArray-or-Symbol", "The array that was reduced")
      .add_arguments(ExpandReducedParam::__FIELDS__())
      .set_attr_parser(ParamParser<ExpandReducedParam>)
      .set_attr<FListInputNames>("FListInputNames",
                                 InputNames({"data", "like"}))
      .set_attr<FInferShape>("FInferShape", ExpandReducedShape)
      .set_attr<FInferType>("FInferType", ExpandReducedType)
      .set_attr<FResourceRequest>("FResourceRequest", TempSpaceRequest)
      .set_attr<FCompute>("FCompute<cpu>", ExpandReducedForward)
      .set_attr<FGradient>("FGradient", ExpandReducedGrad);
  return true;
}();

}  // namespace
}  // namespace op
}  // namespace mxnet
